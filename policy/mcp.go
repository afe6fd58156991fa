package policy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/shell"
)

// A tool of an MCP server that no rule lists is judged by the words of its
// name and the keys of its input, which the [mcp] table of the catalog's
// mcp family (and of any config) names, so that a server rewind has never
// heard of is guarded without a policy entry of its own:
//
//   - A tool that runs a command (its name says exec, run or command, or
//     names a program such as gcloud) has that command judged as a shell
//     command, on the host its input names, by the same analysis and
//     families as a command of the shell tool.
//   - Otherwise its verb (its first word when that is a verb, else its
//     last verb) says what it does, and its nouns, or the kind of resource
//     its input names, what it does it to: a read passes; a delete of a
//     VM, disk or snapshot is denied; a change of a VM protects the VMs
//     its input names, and is asked when it names none; creating a VM
//     passes. A tool whose words say nothing about VMs passes, as before.

// mcpFamily is the catalog family whose [mcp] table the catalog's words
// come from.
const mcpFamily = "mcp"

// maxMCPDepth bounds how deep into the input judgeMCP looks for keys.
const maxMCPDepth = 4

// maxMCPWords bounds the words of a tool name that are read: real names
// have a handful.
const maxMCPWords = 32

// maxMCPTargets bounds the VMs one call gets checkpoints of: a call that
// names more is asked.
const maxMCPTargets = 64

// mcpRule labels the verdicts of the words.
const mcpRule = catalogOrigin + ":mcp"

// toolWords splits a tool name into lower-case words: snake_case,
// camelCase, kebab-case and dotted names alike ("powerOffVM" and
// "power-off.vm" are power off vm).
func toolWords(name string) []string {
	words := strings.FieldsFunc(snakeCase(name), func(r rune) bool {
		return !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r >= 0x80)
	})
	if len(words) > maxMCPWords {
		words = words[:maxMCPWords]
	}
	return words
}

// mcpName is an MCP tool's name read for its words.
type mcpName struct {
	tool, server string
	words        []string // the tool's, without the server's name
	serverWords  []string
}

func readMCPName(tool string) (mcpName, bool) {
	server, ok := mcpServer(tool)
	if !ok {
		return mcpName{}, false
	}
	name := strings.TrimPrefix(tool, "mcp__"+server+"__")
	return mcpName{tool: tool, server: server, words: toolWords(name), serverWords: toolWords(server)}, true
}

// verb is the verb of a tool's name and the words that say it.
type verb struct {
	class string // a verb class, "" for none
	words []string
	// other is a destroy verb the name holds besides the one that
	// decides, which makes a read or create name ambiguous.
	other string
}

// verbOf finds the verb of words: the first word when it is a verb, else
// the last word that is one; two words a phrase names count as one.
func (w *mcpWords) verbOf(words []string) verb {
	type found struct {
		class string
		words []string
		at    int
	}
	var verbs []found
	for i := 0; i < len(words); i++ {
		if i+1 < len(words) {
			if c, ok := w.phrase[[2]string{words[i], words[i+1]}]; ok {
				verbs = append(verbs, found{c, words[i : i+2], i})
				i++
				continue
			}
		}
		if c, ok := w.verb[words[i]]; ok {
			verbs = append(verbs, found{c, words[i : i+1], i})
		}
	}
	if len(verbs) == 0 {
		return verb{}
	}
	pick := verbs[len(verbs)-1]
	if verbs[0].at == 0 {
		pick = verbs[0]
	} else if last := len(words) - 1; pick.at == last && w.method[words[last]] {
		// A name made of a REST path and the method that changes
		// (nodes_qemu_status_stop_create: POST .../status/stop): the
		// strongest verb of the path says what the call does.
		for _, f := range verbs[:len(verbs)-1] {
			if verbRank()[f.class] >= verbRank()[pick.class] && verbRank()[f.class] > verbRank()["read"] {
				pick = f
			}
		}
	}
	v := verb{class: pick.class, words: pick.words}
	for _, f := range verbs {
		if f.class == "destroy" && pick.class != "destroy" {
			v.other = f.words[0]
		}
	}
	return v
}

// verbRank orders verb classes by what they can do.
var verbRank = sync.OnceValue(func() map[string]int {
	return map[string]int{"": 0, "read": 1, "create": 2, "exec": 3, "change": 3, "machine": 3, "destroy": 4}
})

// keyed is a value of the input under a key of some class.
type keyed struct {
	key   string
	value any
	top   bool // at the input's top, or right under a vm key or the input's only key
	depth int
}

// mcpInput is the values of the input's keys the [mcp] table names, by
// class; the class "" marks an input with more keys than were read.
type mcpInput map[string][]keyed

// maxMCPKeys bounds the keys of an input that are read: an input with
// more cannot be told to name no other VM, and a change is asked.
const maxMCPKeys = 1 << 16

// readMCPInput collects the values of the keys of obj that w names, to a
// depth of maxMCPDepth. The values of command, args and flags keys are a
// command's words, not the tool's own, and are not looked into.
func (w *mcpWords) readMCPInput(obj map[string]any) mcpInput {
	in := mcpInput{}
	budget := maxMCPKeys
	var walk func(v any, depth int, top bool)
	walk = func(v any, depth int, top bool) {
		if depth > maxMCPDepth || budget < 0 {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, val := range v {
				if budget--; budget < 0 {
					in[""] = []keyed{{}}
					return
				}
				class := w.key[foldMCPKey(k)]
				if class != "" {
					in[class] = append(in[class], keyed{k, val, top, depth})
				}
				switch class {
				case "command", "args", "flags":
					continue
				}
				// The object of a vm key names the VM by its name or id,
				// and so does the object of an input's only key
				// ({"params": {...}}).
				walk(val, depth+1, class == "vm" || depth == 0 && len(v) == 1)
			}
		case []any:
			for _, e := range v {
				walk(e, depth+1, false)
			}
		}
	}
	walk(obj, 0, true)
	for _, list := range in {
		// The walk follows map order: the values come out shallowest
		// first, by key, the same on every run.
		slices.SortFunc(list, func(a, b keyed) int {
			if a.depth != b.depth {
				return a.depth - b.depth
			}
			if c := strings.Compare(a.key, b.key); c != 0 {
				return c
			}
			as, _ := a.value.(string)
			bs, _ := b.value.(string)
			return strings.Compare(as, bs)
		})
	}
	return in
}

// sortedKeys returns the keys of m that a class names, in order.
func (w *mcpWords) sortedKeys(m map[string]any) []string {
	var keys []string
	for k := range m {
		if w.key[foldMCPKey(k)] != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// names returns the names the values of a class's keys hold (only those at
// the top, with top): strings, numbers, and the strings and numbers of an
// array. A list in one string is split at commas, and a positional string
// (a key starting with "_", such as _args) at white space too; for hosts,
// user@host stands for host.
func (in mcpInput) names(class string, top, hosts bool) []string {
	var out []string
	add := func(s string, words bool) {
		for part := range strings.SplitSeq(s, ",") {
			fields := []string{part}
			if words {
				fields = strings.Fields(part)
			}
			for _, f := range fields {
				f = strings.TrimSpace(f)
				if _, h, ok := strings.Cut(f, "@"); ok && hosts {
					f = h
				}
				if !hosts {
					f = resourceName(f)
				}
				if f != "" {
					out = append(out, f)
				}
			}
		}
	}
	for _, k := range in[class] {
		if top && !k.top {
			continue
		}
		words := strings.HasPrefix(k.key, "_")
		vals := []any{k.value}
		if list, ok := k.value.([]any); ok {
			vals = list
		}
		for _, v := range vals {
			switch v := v.(type) {
			case string:
				add(v, words)
			case json.Number:
				add(v.String(), false)
			}
		}
	}
	return uniq(out)
}

// strings returns the string values of a class's keys at the top.
func (in mcpInput) strings(class string) []string {
	var out []string
	for _, k := range in[class] {
		if s, ok := k.value.(string); ok && k.top {
			out = append(out, s)
		}
	}
	return out
}

// judgeMCP judges a call of an MCP tool that no rule lists by its words
// and keys (see the comment above), adding its matches. It reports
// whether the words judged the call at all, which lists the tool as a
// rule would: a guarded server asks only about the tools they say
// nothing of.
func (p *Policy) judgeMCP(c Call, in *toolInput, depth int, add func(Match)) bool {
	return p.judgeMCPWithin(c, in, depth, &mcpBudget{code: maxMCPCode, lines: maxMCPLines}, add)
}

// judgeMCPWithin is judgeMCP within what is left of a call's budget for
// code, which the tools a tool dispatches to share.
func (p *Policy) judgeMCPWithin(c Call, in *toolInput, depth int, b *mcpBudget, add func(Match)) bool {
	w := p.words()
	if w == nil || w.verb == nil {
		return false
	}
	name, ok := readMCPName(c.Tool)
	if !ok {
		return false
	}
	keys := w.readMCPInput(in.obj)
	prog := w.programOf(name)
	execish := w.execish(name, prog)
	if execish {
		pieces := w.piecesOf(name, in.obj, keys, prog, b)
		subcommand := false
		if len(pieces) == 0 && prog != "" && !b.past {
			// A program's tool that takes its subcommand as an action
			// ({"action": "destroy"} of a terraform tool) runs that.
			for _, a := range keys.strings("action") {
				if subcommandRE().MatchString(a) {
					pieces, subcommand = append(pieces, mcpPiece{text: prog + " " + a, lang: langShell}), true
				}
			}
		}
		codeless := len(pieces) == 0 && w.hasNoun(name.words, "code") && w.runsCode(name)
		if len(pieces) > 0 || b.past || codeless {
			at := w.placeOf(name, keys)
			for _, pc := range pieces {
				if !p.judgePiece(c, name, pc, at, b, add) {
					break
				}
			}
			if b.past {
				add(b.pastLimit(p, at))
			}
			if codeless {
				add(Match{Kind: KindTool, Source: c.Tool, Effect: Ask, Rule: mcpRule + " " + strings.Join(name.words, " "),
					Reason: "the tool runs code that its input does not hold (a cell of a notebook, a file), which rewind cannot read"})
			}
			if subcommand {
				// Its other words and keys still say what it does
				// (aws_ec2 {"action": "terminate", "instanceIds": [...]}).
				if m, ok := w.judgeWords(name, keys, true); ok {
					m.Kind, m.Source = KindTool, c.Tool
					add(m)
				}
			}
			return true
		}
	}
	if depth == 0 {
		if subs, input := w.dispatched(in.obj); len(subs) > 0 {
			subIn := toolInput{obj: input}
			judged := false
			for _, sub := range subs {
				judged = p.judgeMCPWithin(Call{Tool: "mcp__" + name.server + "__" + sub, Cwd: c.Cwd}, &subIn, depth+1, b, func(m Match) {
					m.Source = c.Tool + " " + sub
					add(m)
				}) || judged
			}
			if judged {
				return true
			}
		}
	}
	m, ok := w.judgeWords(name, keys, execish)
	if !ok {
		return false
	}
	m.Kind, m.Source = KindTool, c.Tool
	add(m)
	return true
}

// The bounds of the code one call's input has judged: its bytes, and
// the elements of its lists of command lines. They are shared by every
// command, code and input key of the input, by every tool a dispatching
// tool names and by every reading of code whose language is not known,
// so that what a call costs is linear in its input whatever its shape.
const (
	maxMCPCode  = 1 << 20
	maxMCPLines = 4096
)

// mcpBudget is what is left of a call's bounds on code.
type mcpBudget struct {
	code, lines int
	// past is set when a piece was left unread for the bounds, and what
	// says which.
	past bool
	what string
}

// take spends n bytes of code, and reports whether they were left.
func (b *mcpBudget) take(n int) bool {
	if n > b.code {
		b.over(fmt.Sprintf("more than %d bytes of code", maxMCPCode))
		return false
	}
	b.code -= n
	return true
}

// over records that a piece was left unread, and the first bound that
// left one.
func (b *mcpBudget) over(what string) {
	if !b.past {
		b.past, b.what = true, what
	}
}

// linesOf returns the complete lines of text that fit in what is left of
// the bytes, and spends them: a shell reads its script a line at a time,
// so the lines before the bound are judged as they are.
func (b *mcpBudget) linesOf(text string) string {
	if len(text) <= b.code {
		b.code -= len(text)
		return text
	}
	cut := strings.LastIndexByte(text[:b.code], '\n')
	b.over(fmt.Sprintf("more than %d bytes of code", maxMCPCode))
	if cut < 0 {
		return ""
	}
	b.code -= cut
	return text[:cut]
}

// takeLines spends the elements of a list of command lines, and returns
// how many of its n were left: the ones after those are not read.
func (b *mcpBudget) takeLines(n int) int {
	if n > b.lines {
		n, b.lines = b.lines, 0
		b.over(fmt.Sprintf("more than %d command lines", maxMCPLines))
		return n
	}
	b.lines -= n
	return n
}

// pastLimit is the verdict on the code left unread: it could hold any
// command, where it runs.
func (b *mcpBudget) pastLimit(p *Policy, at *place) Match {
	u := shell.Unparsed{Err: "the tool's input holds " + b.what + " for rewind to read", Limit: true}
	var pl place
	if at != nil {
		pl = *at
	}
	return p.pastLimit(&u, pl)
}

// mcpPiece is text an exec tool runs, in a language; typed is set for
// text typed into a running process, whose language is its own.
type mcpPiece struct {
	text  string
	lang  string
	typed bool
	// keys is set when the text was typed with keys whose text only the
	// process knows (history, completion).
	keys bool
}

// judgePiece judges a piece of code at its place, within the budget, and
// reports whether the budget held.
func (p *Policy) judgePiece(c Call, name mcpName, pc mcpPiece, at *place, b *mcpBudget, add func(Match)) bool {
	if pc.lang == langShell || pc.typed {
		if pc.text = b.linesOf(pc.text); pc.text == "" {
			return false
		}
	} else if !b.take(len(pc.text)) {
		return false
	}
	via := func(m Match) {
		if m.Kind == KindInvocation && at == nil && len(m.Via) == 0 {
			m.Via = []string{c.Tool}
		}
		add(m)
	}
	ask := func(reason string) {
		add(Match{Kind: KindTool, Source: c.Tool, Effect: Ask, Rule: mcpRule + " " + strings.Join(name.words, " "), Reason: reason})
	}
	if pc.typed {
		// The text goes to whatever runs there: read as commands, so
		// that a command a rule denies is denied, and asked unless the
		// process is a shell.
		if pc.lang != langShell {
			ask("the tool types into a running process rewind cannot see: its input is code for whatever runs there")
		} else if pc.keys {
			ask("the tool types keys whose text only the process knows (history, completion)")
		}
		p.judgeCode(pc.text, at, c.Cwd, 0, via)
		return true
	}
	switch pc.lang {
	case langShell:
		p.judgeCode(pc.text, at, c.Cwd, 0, via)
	case "":
		// Code of a language the call does not say: read as each
		// language rewind reads, and asked, as it may be another.
		ask("the tool runs code in a language its call does not say, which rewind may not read")
		p.judgeIPython(c, pc.text, at, ask, via)
		if b.take(len(pc.text)) {
			p.judgeCode(interpreterLine(langJavaScript, pc.text), at, c.Cwd, 0, via)
		}
	case langIPython:
		p.judgeIPython(c, pc.text, at, ask, via)
	default:
		p.judgeCode(interpreterLine(pc.lang, pc.text), at, c.Cwd, 0, via)
	}
	return true
}

// interpreterLine is the command line that runs code of a language as
// the shell analysis reads it: python3 -c CODE, node -e CODE, ...
func interpreterLine(lang, code string) string {
	q := shellQuote(code)
	switch lang {
	case langPython:
		return "python3 -c " + q
	case langJavaScript:
		return "node -e " + q
	case langRuby:
		return "ruby -e " + q
	case langPerl:
		return "perl -e " + q
	case langPHP:
		return "php -r " + q
	case langPowerShell:
		return "pwsh -NoProfile -Command " + q
	case langCmd:
		return "cmd /c " + q
	}
	return code
}

// judgeWords judges a tool by the verb and nouns of its name and the VMs
// its input names.
func (w *mcpWords) judgeWords(name mcpName, keys mcpInput, execish bool) (Match, bool) {
	v := w.verbOf(name.words)
	// A word under an action key ({"action": "stop"}) says what the tool
	// does as well; the stronger of the two counts.
	for _, a := range keys.strings("action") {
		if av := w.verbOf(toolWords(a)); verbRank()[av.class] > verbRank()[v.class] {
			v = av
		}
	}
	// So does the state it puts a VM in ({"state": "stopped"}), unless
	// the name says it reads: there a state is what the listing shows.
	if v.class != "read" && v.class != "create" {
		for _, st := range keys.strings("state") {
			class := w.state[foldMCPKey(st)]
			if class == "" {
				class = w.verbOf(toolWords(st)).class
			}
			if verbRank()[class] > verbRank()[v.class] {
				v = verb{class: class, words: []string{st}}
			}
		}
	}
	nouns := map[string]string{}
	for _, wd := range name.words {
		if c := w.noun[wd]; c != "" && nouns[c] == "" {
			nouns[c] = wd
		}
		// Only a machine powers off or reboots: the tool's object is a
		// VM, whether or not a noun says so.
		if w.verb[wd] == "machine" && nouns["vm"] == "" {
			nouns["vm"] = wd
		}
	}
	for _, t := range keys.strings("type") {
		if c := w.types[strings.ToLower(t)]; c != "" && nouns[c] == "" {
			nouns[c] = t
		}
	}
	named := keys.names("vm", false, false)
	vmish := nouns["vm"] != "" || len(named) > 0
	// The object is the most particular noun: a VM's snapshot, disk or
	// part (a part of no VM is none of rewind's business).
	object := ""
	for _, c := range []string{"snapshot", "disk", "part", "vm"} {
		if nouns[c] != "" && (c != "part" || vmish) {
			object = c
			break
		}
	}
	vms := named
	if object == "vm" && v.class != "create" {
		vms = uniq(append(slices.Clip(vms), keys.names("name", true, false)...))
	}
	said := strings.Join(v.words, " ")
	if object != "" && !slices.Contains(v.words, nouns[object]) {
		said += " " + nouns[object]
	}
	if said = strings.TrimSpace(said); said != "" {
		said = fmt.Sprintf(" (its name says %q)", said)
	}
	m := Match{Rule: mcpRule + " " + strings.Join(name.words, " ")}
	change := func(what string) (Match, bool) {
		if keys[""] != nil {
			m.Effect = Ask
			m.Reason = fmt.Sprintf("the tool %s a VM%s, and its input has more keys (over %d) than rewind reads for the VMs it names", what, said, maxMCPKeys)
			return m, true
		}
		if len(vms) > maxMCPTargets {
			m.Effect = Ask
			m.Reason = fmt.Sprintf("the tool %s %d VMs%s, more than rewind checkpoints for one call (%d)", what, len(vms), said, maxMCPTargets)
			return m, true
		}
		if len(vms) == 0 {
			m.Effect = Ask
			m.Reason = fmt.Sprintf("the tool %s a VM%s, and its input names none that rewind can read", what, said)
			return m, true
		}
		m.Effect, m.Targets = Protect, vms
		m.Reason = fmt.Sprintf("the tool %s the VM%s", what, said)
		return m, true
	}
	if nouns["hosts"] != "" && v.class != "read" && v.class != "create" {
		// A playbook or task runs on the hosts its input names.
		hosts := keys.names("host", false, true)
		if len(hosts) == 0 || len(hosts) > maxMCPTargets {
			m.Effect = Ask
			m.Reason = fmt.Sprintf("the tool runs %s on hosts its input does not name, or more than rewind checkpoints for one call", nouns["hosts"])
			return m, true
		}
		m.Effect, m.Targets = Protect, hosts
		m.Reason = fmt.Sprintf("the tool runs %s on the hosts", nouns["hosts"])
		return m, true
	}
	if v.other != "" && (v.class == "read" || v.class == "create") && (object != "" || vmish) {
		m.Effect = Ask
		m.Reason = fmt.Sprintf("the tool's name says both %q and %q", strings.Join(v.words, " "), v.other)
		return m, true
	}
	switch v.class {
	case "read":
		m.Effect, m.Reason = None, "the tool reads"+said
		return m, true
	case "destroy":
		switch {
		case object == "part":
			return change("changes")
		case object != "" || vmish:
			m.Effect, m.Targets = Deny, vms[:min(len(vms), maxMCPTargets)]
			m.Reason = fmt.Sprintf("a checkpoint cannot bring back a deleted VM, disk or snapshot%s", said)
			return m, true
		}
	case "create":
		switch {
		case object == "vm" || object == "" && vmish:
			m.Effect, m.Reason = None, "the tool creates a VM: there is nothing to checkpoint yet"+said
			return m, true
		case object != "" && (len(vms) > 0 || nouns["vm"] != ""):
			return change("adds to")
		}
	case "change", "machine", "exec":
		if object != "" || vmish {
			if execish && v.class == "exec" {
				// An exec tool whose command the input does not hold.
				m.Effect, m.Targets = Ask, nil
				m.Reason = fmt.Sprintf("the tool runs a command on a VM%s, and its input holds none that rewind can read", said)
				return m, true
			}
			return change("changes")
		}
	}
	return Match{}, false
}

// execish reports whether a tool's name says it runs a command: an exec
// verb or noun, a program's name, a remote shell's (a tool named ssh),
// or typing into a running process.
func (w *mcpWords) execish(name mcpName, prog string) bool {
	return prog != "" || w.hasVerb(name.words, "exec") ||
		slices.ContainsFunc(name.words, func(wd string) bool {
			c := w.noun[wd]
			return c == "exec" || c == "code" || c == "input" || c == "remote"
		})
}

// execName reports whether the MCP tool named tool runs a command, by its
// name alone.
func (w *mcpWords) execName(tool string) bool {
	name, ok := readMCPName(tool)
	return ok && w != nil && w.verb != nil && w.execish(name, w.programOf(name))
}

func (w *mcpWords) hasNoun(words []string, class string) bool {
	return slices.ContainsFunc(words, func(wd string) bool { return w.noun[wd] == class })
}

func (w *mcpWords) hasVerb(words []string, class string) bool {
	return slices.ContainsFunc(words, func(wd string) bool { return w.verb[wd] == class })
}

// programOf returns the program a tool runs, by a word of its name, else
// of its server's.
func (w *mcpWords) programOf(name mcpName) string {
	for _, words := range [][]string{name.words, name.serverWords} {
		for _, wd := range words {
			if p := w.program[wd]; p != "" {
				return p
			}
		}
	}
	return ""
}

// piecesOf returns the code an exec tool's input holds: its command
// lines (see commandsOf), the code of its code keys when its name says it
// runs code, and the text of its input keys when its name says it types
// into a running process.
func (w *mcpWords) piecesOf(name mcpName, obj map[string]any, keys mcpInput, prog string, b *mcpBudget) []mcpPiece {
	lang := w.languageOf(name, keys)
	cmdLang := langShell
	if lang == langPowerShell || lang == langCmd {
		cmdLang = lang
	}
	var pieces []mcpPiece
	for _, line := range w.commandsOf(obj, prog, b) {
		pieces = append(pieces, mcpPiece{text: line, lang: cmdLang})
	}
	if w.runsCode(name) {
		for _, k := range w.sortedKeys(obj) {
			if w.key[foldMCPKey(k)] != "code" {
				continue
			}
			if code, ok := codeText(obj[k], b); ok {
				pieces = append(pieces, mcpPiece{text: code, lang: lang})
			}
		}
	}
	if w.hasNoun(name.words, "input") && !w.hasNoun(name.words, "page") && !w.hasNoun(name.serverWords, "page") {
		process := w.processOf(name)
		for _, k := range w.sortedKeys(obj) {
			if w.key[foldMCPKey(k)] != "input" {
				continue
			}
			if text, unknown, ok := w.typedText(obj[k], b); ok {
				pieces = append(pieces, mcpPiece{text: text, lang: process, typed: true, keys: unknown})
			}
		}
	}
	return pieces
}

// runsCode reports whether a tool's name says it runs the code its input
// holds: an exec verb (execute_code, run_cell), or code and no verb
// (python_repl); inserting a cell or reading one runs nothing.
func (w *mcpWords) runsCode(name mcpName) bool {
	return w.hasVerb(name.words, "exec") || w.hasNoun(name.words, "code") && w.verbOf(name.words).class == ""
}

// languageOf is the language of an exec tool's code: the value of a
// language key, else a word of the tool's name, else of its server's; ""
// when none says. Python in a notebook's tool is IPython.
func (w *mcpWords) languageOf(name mcpName, keys mcpInput) string {
	named := w.wordsLanguage(name.words)
	if named == "" {
		named = w.wordsLanguage(name.serverWords)
	}
	if vals := keys.strings("language"); len(vals) > 0 {
		// "" for a language rewind does not read.
		l := w.valueLanguage(vals[0])
		if l == langPython && named == langIPython {
			return langIPython
		}
		return l
	}
	return named
}

// wordsLanguage returns the language the first word of words that names
// one says.
func (w *mcpWords) wordsLanguage(words []string) string {
	for _, wd := range words {
		if l := w.lang[wd]; l != "" {
			return l
		}
		if w.noun[wd] == "powershell" {
			return langPowerShell
		}
	}
	return ""
}

// valueLanguage reads a language key's value: "python3", "Python 3.12",
// "/bin/bash", "powershell.exe".
func (w *mcpWords) valueLanguage(v string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if f := strings.Fields(v); len(f) > 0 {
		v = f[0]
	}
	v = v[strings.LastIndexAny(v, `/\`)+1:]
	v = strings.TrimSuffix(v, ".exe")
	if l := w.lang[v]; l != "" {
		return l
	}
	return w.lang[strings.TrimRight(v, "0123456789.")]
}

// processOf is the language of the process a tool types into: a shell
// when the tool's or server's words say a terminal or a shell, else
// unknown ("").
func (w *mcpWords) processOf(name mcpName) string {
	for _, words := range [][]string{name.words, name.serverWords} {
		for _, wd := range words {
			if w.lang[wd] == langShell {
				return langShell
			}
		}
	}
	return ""
}

// codeText reads a code key's value: a string, or a list of lines (a
// notebook cell's source).
func codeText(v any, b *mcpBudget) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, strings.TrimSpace(v) != ""
	case []any:
		var sb strings.Builder
		for _, e := range v[:b.takeLines(len(v))] {
			s, ok := e.(string)
			if !ok {
				return "", false
			}
			sb.WriteString(s)
			if !strings.HasSuffix(s, "\n") {
				sb.WriteByte('\n')
			}
		}
		return sb.String(), strings.TrimSpace(sb.String()) != ""
	}
	return "", false
}

// typedText reads an input key's value as the text it types: a string as
// it is (a key's name alone stands for the key), a list as the text of
// its elements one after the other, the name of a key that ends a line
// or interrupts a line end. unknown tells that a key makes text only the
// process knows.
func (w *mcpWords) typedText(v any, b *mcpBudget) (text string, unknown, ok bool) {
	var list []any
	switch v := v.(type) {
	case string:
		if w.keystrokeOf(v) == "" {
			return v, false, strings.TrimSpace(v) != ""
		}
		list = []any{v}
	case []any:
		list = v[:b.takeLines(len(v))]
	default:
		return "", false, false
	}
	var sb strings.Builder
	for _, e := range list {
		s, isStr := e.(string)
		if !isStr {
			continue
		}
		switch w.keystrokeOf(s) {
		case keyEnter, keyInterrupt:
			sb.WriteByte('\n')
		case keyOther:
			unknown = true
			sb.WriteByte('\n')
		default:
			sb.WriteString(s)
		}
	}
	return sb.String(), unknown, strings.TrimSpace(sb.String()) != "" || unknown
}

// keyNameRE matches the names of keys as tmux and the terminal tools
// write them: C-x, M-x, S-x, ^x, <NAME>.
var keyNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([CMS]-\S+|\^.|<[A-Za-z0-9_-]+>)$`) })

// keystrokeOf returns the kind of key a word names, "" for text; a name
// of a key the table does not list makes text only the process knows.
func (w *mcpWords) keystrokeOf(s string) string {
	if k := w.keystroke[strings.ToLower(s)]; k != "" {
		return k
	}
	if keyNameRE().MatchString(s) {
		return keyOther
	}
	return ""
}

// commandsOf returns the command lines an exec tool's input holds: its
// command (a string, or an argv array), its options (a flags object) and
// its arguments, with the program its name says in front when the command
// does not start with it. An argv array's words are quoted, as the program
// receives them without a shell. An input with several command or
// argument keys ({"cmd": "ls", "command": "reboot"}) gives a line for each
// pairing: the server reads one of them, and rewind cannot tell which.
// The elements of lists of command lines are spent from b.
func (w *mcpWords) commandsOf(obj map[string]any, prog string, b *mcpBudget) []string {
	var cmds, argss []string
	flags := ""
	for _, k := range w.sortedKeys(obj) {
		switch w.key[foldMCPKey(k)] {
		case "command":
			if s, ok := commandText(obj[k], lineKey(k), b); ok {
				cmds = append(cmds, s)
			}
		case "args":
			if s, ok := commandText(obj[k], false, b); ok {
				argss = append(argss, s)
			}
		case "flags":
			if m, ok := obj[k].(map[string]any); ok && flags == "" {
				flags = w.flagText(m, prog)
			}
		}
	}
	if len(cmds)+len(argss) == 0 {
		return nil
	}
	if len(cmds) == 0 {
		cmds = []string{""}
	}
	if len(argss) == 0 {
		argss = []string{""}
	}
	var lines []string
	for _, cmd := range cmds[:min(len(cmds), maxMCPCommands)] {
		for _, args := range argss[:min(len(argss), maxMCPCommands)] {
			lines = append(lines, commandLine(prog, cmd, flags, args))
		}
	}
	return lines
}

// maxMCPCommands bounds the command and argument keys of one input that
// are paired into command lines.
const maxMCPCommands = 4

// commandLine joins a command, its options and its arguments, with the
// program in front when the command does not start with it.
func commandLine(prog, cmd, flags, args string) string {
	var parts []string
	if prog != "" {
		first, _, _ := strings.Cut(strings.TrimSpace(cmd+" "+args), " ")
		if first = first[strings.LastIndexAny(first, `/\`)+1:]; !strings.EqualFold(strings.TrimSuffix(first, ".exe"), prog) {
			parts = append(parts, prog)
		}
	}
	for _, p := range []string{cmd, flags, args} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// lineKey reports whether a command key holds a list of command lines
// rather than one command's words: commands, scripts.
func lineKey(k string) bool {
	k = foldMCPKey(k)
	return strings.HasSuffix(k, "commands") || strings.HasSuffix(k, "scripts") || strings.HasSuffix(k, "lines")
}

// commandText reads a command value: a string as it is (shell text), an
// array of strings as quoted words, or with lines as command lines, whose
// elements are spent from b.
func commandText(v any, lines bool, b *mcpBudget) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, strings.TrimSpace(v) != ""
	case []any:
		if lines {
			v = v[:b.takeLines(len(v))]
		}
		var sb strings.Builder
		sep := " "
		if lines {
			sep = "\n"
		}
		for i, e := range v {
			if i > 0 {
				sb.WriteString(sep)
			}
			switch e := e.(type) {
			case string:
				if !lines {
					e = shellQuote(e)
				}
				sb.WriteString(e)
			case json.Number:
				sb.WriteString(e.String())
			default:
				return "", false
			}
		}
		return sb.String(), sb.Len() > 0
	}
	return "", false
}

// flagText makes options of a flags object: {"vm": "web-01", "off": true}
// is -off -vm web-01 for govc.
func (w *mcpWords) flagText(m map[string]any, prog string) string {
	prefix := mcpDefaultFlags
	if p, ok := w.flagPref[prog]; ok {
		prefix = p
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	word := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	for _, k := range keys {
		opt := shellQuote(prefix + k)
		switch v := m[k].(type) {
		case bool:
			if v {
				word(opt)
			}
		case string:
			word(opt)
			word(shellQuote(v))
		case json.Number:
			word(opt)
			word(v.String())
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					word(opt)
					word(shellQuote(s))
				}
			}
		}
	}
	return b.String()
}

// placeOf is where an exec tool's command runs: on the hosts its input
// names (host keys, else the VM of a guest command), on a host not named
// in the call when its words say so (an ssh server's), else here.
func (w *mcpWords) placeOf(name mcpName, keys mcpInput) *place {
	via := []string{name.tool}
	hosts := keys.names("host", false, true)
	if len(hosts) == 0 {
		hosts = keys.names("vm", false, false)
	}
	if len(hosts) > maxMCPTargets {
		// More than one call gets checkpoints of: a change is asked.
		return &place{remote: true, via: via}
	}
	if len(hosts) > 0 {
		return &place{host: hosts[0], hosts: hosts, remote: true, via: via}
	}
	if w.hasNoun(name.words, "remote") || w.hasNoun(name.serverWords, "remote") || w.hasNoun(name.words, "vm") {
		return &place{remote: true, via: via}
	}
	return nil
}

// subcommandRE matches an action value that can be a program's
// subcommand: one word. Like toolNameRE, it is compiled on first use:
// only an MCP call reads it, and the hook starts for every call.
var subcommandRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*$`) })

// toolNameRE matches a value that names a tool rather than holding a
// command: one word of letters, digits, "_", "-" and ".", with a
// separator in it.
var toolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*([_.-][A-Za-z0-9]+)+$`) })

// dispatched reads a tool that calls another tool by name: a command key
// naming it ({"command": "compute_vm_delete", "parameters": {...}}, as
// the Azure MCP server's namespace tools take) and an object of its
// arguments. Every command key that names a tool counts.
func (w *mcpWords) dispatched(obj map[string]any) ([]string, map[string]any) {
	var subs []string
	var args map[string]any
	for _, k := range w.sortedKeys(obj) {
		switch w.key[foldMCPKey(k)] {
		case "command":
			if s, ok := obj[k].(string); ok && toolNameRE().MatchString(s) && len(subs) < maxMCPCommands {
				subs = append(subs, s)
			}
		case "args":
			if m, ok := obj[k].(map[string]any); ok && args == nil {
				args = m
			}
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	return subs, args
}

// folded returns matches that combine as the matches s folded do: those
// it listed, the one that decided when it was not listed, and the
// targets of those left out on a match of the effect that decided.
func (s *section) folded() []Match {
	out := slices.Clip(s.matches)
	if s.decided == nil {
		return out
	}
	listed := map[string]struct{}{}
	found := false
	for i := range out {
		found = found || sameMatch(out[i], *s.decided)
		if out[i].Effect >= Protect {
			for _, t := range out[i].Targets {
				listed[t] = struct{}{}
			}
		}
	}
	if !found {
		out = append(out, *s.decided)
		for _, t := range s.decided.Targets {
			listed[t] = struct{}{}
		}
	}
	var rest []string
	for _, t := range s.targets {
		if _, ok := listed[t]; !ok {
			rest = append(rest, t)
		}
	}
	if len(rest) > 0 {
		m := *s.decided
		m.Effect, m.Targets = max(s.effect, Protect), rest
		out = append(out, m)
	}
	return out
}
