package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// MCPConfig holds the [mcp] table: the words of a tool's name and the keys
// of its input by which a tool of an MCP server that no rule lists is
// judged (see judgeMCP). Each table maps a class to its words; a config's
// words add to the catalog's, and a word a config puts in another class
// moves there.
type MCPConfig struct {
	// Verbs are the words that say what a tool does, by class: read,
	// change, machine (a change only a machine undergoes: power,
	// reboot), create, destroy and exec (the tool runs a command).
	Verbs map[string][]string `toml:"verbs"`
	// Nouns are the words that say what a tool acts on, by class: vm,
	// disk, snapshot, part (a part of a VM, such as its network
	// adapter), hosts (the tool runs a playbook or task on hosts), exec
	// (the tool runs a command), code (it runs code: a cell, a
	// snippet), input (it types into a running process), page (what it
	// types into is a browser's page, not a process), remote (its
	// commands run on another host) and powershell (its commands are
	// PowerShell).
	Nouns map[string][]string `toml:"nouns"`
	// Keys are the input keys by what their value holds: vm (names the
	// VM), name (names the VM of a tool whose noun is a VM and that does
	// not create one), host (the host an exec tool's command runs on),
	// command, args and flags (an exec tool's command, its arguments and
	// its options), action (a word that says what the tool does), type
	// (the kind of resource), state (the state the tool puts a VM in),
	// code and language (code a tool runs and the language it is in) and
	// input (text typed into a running process). Keys are compared in
	// lower case without "_", "-" and ".", so vm_name stands for vmName
	// and vm-name.
	Keys map[string][]string `toml:"keys"`
	// Types are values of a type key that name a VM, disk or snapshot
	// kind ("AWS::EC2::Instance"), by noun class, compared ignoring case.
	Types map[string][]string `toml:"types"`
	// Phrases are two words in a row that are read as one verb of a
	// class: libvirt's "destroy domain" is a power-off, a change.
	Phrases map[string][]string `toml:"phrases"`
	// Programs maps a word of a tool's name to the command line program
	// the tool runs, which its command is judged as: "gcloud" = "gcloud".
	Programs map[string]string `toml:"programs"`
	// FlagPrefix is, per program, what starts an option made of a key of
	// a flags object ("-" for govc); the default is "--".
	FlagPrefix map[string]string `toml:"flag_prefix"`
	// Languages are the words, in a tool's or server's name or the value
	// of a language key, that say which language a tool's code is in, by
	// the language rewind reads it as: shell, powershell, cmd, python,
	// ipython (a Jupyter cell: Python with ! lines and magics),
	// javascript, ruby, perl and php.
	Languages map[string][]string `toml:"languages"`
	// States are values of a state key ({"state": "stopped"}) by the
	// verb class they stand for, compared in lower case without "_",
	// "-" and ".".
	States map[string][]string `toml:"states"`
	// Keystrokes are the names of keys a tool types into a running
	// process ("Enter", "C-c", "<ESC>"), by what they do: enter ends a
	// line, interrupt stops or clears what runs, and other makes text
	// only the process knows (history, completion). They are compared in
	// lower case.
	Keystrokes map[string][]string `toml:"keystrokes"`
	// Methods are the words that end a tool name generated from a REST
	// path and an HTTP method that changes something (POST, PUT, PATCH:
	// "create", "update"): a verb of the path before them says what the
	// call does (nodes_qemu_status_stop_create stops the VM).
	Methods []string `toml:"methods"`
}

// The classes of the [mcp] table's words and keys.
var (
	mcpVerbClasses      = []string{"read", "change", "machine", "create", "destroy", "exec"}
	mcpNounClasses      = []string{"vm", "disk", "snapshot", "part", "hosts", "exec", "code", "input", "page", "remote", "powershell"}
	mcpKeyClasses       = []string{"vm", "name", "host", "command", "args", "flags", "action", "type", "state", "code", "language", "input"}
	mcpTypeClasses      = []string{"vm", "disk", "snapshot"}
	mcpLanguageClasses  = []string{langShell, langPowerShell, langCmd, langPython, langIPython, langJavaScript, langRuby, langPerl, langPHP}
	mcpKeystrokeClasses = []string{keyEnter, keyInterrupt, keyOther}
	mcpDefaultFlags     = "--"
)

// The languages rewind reads a tool's code in (see Languages).
const (
	langShell      = "shell"
	langPowerShell = "powershell"
	langCmd        = "cmd"
	langPython     = "python"
	langIPython    = "ipython"
	langJavaScript = "javascript"
	langRuby       = "ruby"
	langPerl       = "perl"
	langPHP        = "php"
)

// The kinds of keystrokes (see Keystrokes).
const (
	keyEnter     = "enter"
	keyInterrupt = "interrupt"
	keyOther     = "other"
)

// empty reports whether the table sets nothing.
func (c *MCPConfig) empty() bool {
	return len(c.Verbs)+len(c.Nouns)+len(c.Keys)+len(c.Types)+len(c.Phrases)+len(c.Programs)+len(c.FlagPrefix)+
		len(c.Languages)+len(c.States)+len(c.Keystrokes)+len(c.Methods) == 0
}

// mcp checks the [mcp] table: known classes, and words that are words.
func (v *validator) mcp(c *MCPConfig) {
	check := func(table string, m map[string][]string, classes []string, words int) {
		seen := map[string]string{}
		for _, class := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(classes, class) {
				v.fail("mcp."+table, -1, class, "unknown class %q (want one of %s)", class, strings.Join(classes, ", "))
				continue
			}
			for _, w := range m[class] {
				fold := strings.ToLower(w)
				if table == "keys" || table == "states" {
					fold = foldMCPKey(w)
				}
				if other, ok := seen[fold]; ok && other != class {
					v.fail("mcp."+table, -1, class, "%q is in %s too", w, other)
				}
				seen[fold] = class
				if n := len(strings.Fields(w)); n != words || strings.TrimSpace(w) != w {
					want := "one word"
					if words == 2 {
						want = "two words"
					}
					v.fail("mcp."+table, -1, class, "%q: want %s", w, want)
				}
			}
		}
	}
	check("verbs", c.Verbs, mcpVerbClasses, 1)
	check("nouns", c.Nouns, mcpNounClasses, 1)
	check("keys", c.Keys, mcpKeyClasses, 1)
	check("phrases", c.Phrases, mcpVerbClasses, 2)
	check("languages", c.Languages, mcpLanguageClasses, 1)
	check("states", c.States, mcpVerbClasses, 1)
	check("keystrokes", c.Keystrokes, mcpKeystrokeClasses, 1)
	for _, m := range c.Methods {
		if len(strings.Fields(m)) != 1 || strings.TrimSpace(m) != m {
			v.fail("mcp", -1, "methods", "%q: want one word", m)
		}
	}
	for _, class := range slices.Sorted(maps.Keys(c.Types)) {
		if !slices.Contains(mcpTypeClasses, class) {
			v.fail("mcp.types", -1, class, "unknown class %q (want one of %s)", class, strings.Join(mcpTypeClasses, ", "))
		}
		for _, t := range c.Types[class] {
			if strings.TrimSpace(t) == "" {
				v.fail("mcp.types", -1, class, "empty type")
			}
		}
	}
	for _, w := range slices.Sorted(maps.Keys(c.Programs)) {
		if len(strings.Fields(w)) != 1 || len(strings.Fields(c.Programs[w])) != 1 {
			v.fail("mcp.programs", -1, w, "want a word of the tool's name and the program's name, got %q = %q", w, c.Programs[w])
		}
	}
	for p, prefix := range c.FlagPrefix {
		if prefix != "-" && prefix != "--" && prefix != "/" {
			v.fail("mcp.flag_prefix", -1, p, "want \"-\", \"--\" or \"/\", got %q", prefix)
		}
	}
}

// layOver lays a trusted project's [mcp] table over c, the user's: its
// words join c's, and a word it puts in another class leaves c's.
func (c *MCPConfig) layOver(proj *MCPConfig) {
	for _, pair := range []struct {
		dst *map[string][]string
		src map[string][]string
		key bool
	}{{&c.Verbs, proj.Verbs, false}, {&c.Nouns, proj.Nouns, false}, {&c.Keys, proj.Keys, true},
		{&c.Types, proj.Types, false}, {&c.Phrases, proj.Phrases, false}, {&c.Languages, proj.Languages, false},
		{&c.States, proj.States, true}, {&c.Keystrokes, proj.Keystrokes, false}} {
		if len(pair.src) == 0 {
			continue
		}
		fold := strings.ToLower
		if pair.key {
			fold = foldMCPKey
		}
		out := map[string][]string{}
		for class, words := range *pair.dst {
			for _, w := range words {
				moved := false
				for pc, pw := range pair.src {
					moved = moved || pc != class && slices.ContainsFunc(pw, func(x string) bool { return fold(x) == fold(w) })
				}
				if !moved {
					out[class] = append(out[class], w)
				}
			}
		}
		for class, words := range pair.src {
			out[class] = append(out[class], words...)
		}
		*pair.dst = out
	}
	for _, pair := range []struct {
		dst *map[string]string
		src map[string]string
	}{{&c.Programs, proj.Programs}, {&c.FlagPrefix, proj.FlagPrefix}} {
		if len(pair.src) > 0 {
			m := maps.Clone(*pair.dst)
			if m == nil {
				m = map[string]string{}
			}
			maps.Copy(m, pair.src)
			*pair.dst = m
		}
	}
	if len(proj.Methods) > 0 {
		c.Methods = append(slices.Clip(c.Methods), proj.Methods...)
	}
}

// mcpWords is the [mcp] tables of a policy's configs, compiled: every word
// in lower case and every key folded (see foldMCPKey).
type mcpWords struct {
	verb      map[string]string
	noun      map[string]string
	key       map[string]string
	types     map[string]string
	phrase    map[[2]string]string
	program   map[string]string
	flagPref  map[string]string
	lang      map[string]string
	state     map[string]string
	keystroke map[string]string
	method    map[string]bool
}

// add lays c over w: c's words join w's, and a word of c in another class
// moves there.
func (w *mcpWords) add(c *MCPConfig) {
	if w.verb == nil {
		*w = mcpWords{verb: map[string]string{}, noun: map[string]string{}, key: map[string]string{},
			types: map[string]string{}, phrase: map[[2]string]string{}, program: map[string]string{}, flagPref: map[string]string{},
			lang: map[string]string{}, state: map[string]string{}, keystroke: map[string]string{}, method: map[string]bool{}}
	}
	for class, words := range c.Languages {
		for _, x := range words {
			w.lang[strings.ToLower(x)] = class
		}
	}
	for class, values := range c.States {
		for _, x := range values {
			w.state[foldMCPKey(x)] = class
		}
	}
	for class, keys := range c.Keystrokes {
		for _, x := range keys {
			w.keystroke[strings.ToLower(x)] = class
		}
	}
	for _, m := range c.Methods {
		w.method[strings.ToLower(m)] = true
	}
	for class, words := range c.Verbs {
		for _, x := range words {
			w.verb[strings.ToLower(x)] = class
		}
	}
	for class, words := range c.Nouns {
		for _, x := range words {
			w.noun[strings.ToLower(x)] = class
		}
	}
	for class, keys := range c.Keys {
		for _, k := range keys {
			w.key[foldMCPKey(k)] = class
		}
	}
	for class, types := range c.Types {
		for _, t := range types {
			w.types[strings.ToLower(t)] = class
		}
	}
	for class, phrases := range c.Phrases {
		for _, ph := range phrases {
			if f := strings.Fields(strings.ToLower(ph)); len(f) == 2 {
				w.phrase[[2]string{f[0], f[1]}] = class
			}
		}
	}
	for word, prog := range c.Programs {
		w.program[strings.ToLower(word)] = prog
	}
	maps.Copy(w.flagPref, c.FlagPrefix)
}

// clone returns a copy of w that add can change without changing w.
func (w *mcpWords) clone() *mcpWords {
	if w == nil || w.verb == nil {
		return &mcpWords{}
	}
	return &mcpWords{verb: maps.Clone(w.verb), noun: maps.Clone(w.noun), key: maps.Clone(w.key),
		types: maps.Clone(w.types), phrase: maps.Clone(w.phrase), program: maps.Clone(w.program), flagPref: maps.Clone(w.flagPref),
		lang: maps.Clone(w.lang), state: maps.Clone(w.state), keystroke: maps.Clone(w.keystroke), method: maps.Clone(w.method)}
}

// foldMCPKey folds an input key the way the [mcp] table's keys are
// compared: lower case, without "_", "-" and "." but a leading "_", which
// marks a positional argument (govc tools' _args).
func foldMCPKey(k string) string {
	plain := true
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' && i == 0
	}
	if plain {
		return k
	}
	var b strings.Builder
	b.Grow(len(k))
	for i, r := range strings.ToLower(k) {
		if r != '_' && r != '-' && r != '.' || i == 0 && r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mcpRules lists the [mcp] tables in force for `rewind catalog`: the
// config's own, then the catalog's (unless its family is turned off),
// one entry per class with its words as the condition.
func (p *Policy) mcpRules(own string) []RuleInfo {
	out := mcpInfo(&p.cfg.MCP, own, "", "")
	if !p.tightens && !p.disabled(mcpFamily) {
		out = append(out, mcpInfo(&catalogConfig().MCP, catalogOrigin, catalogOrigin+":", mcpFamily)...)
	}
	return out
}

// mcpInfo describes an [mcp] table, one entry per class.
func mcpInfo(c *MCPConfig, origin, prefix, family string) []RuleInfo {
	var out []RuleInfo
	add := func(table string, m map[string][]string, reason func(class string) string) {
		for _, class := range slices.Sorted(maps.Keys(m)) {
			effect := None
			if table == "verbs" {
				effect = mcpVerbEffect()[class]
			}
			out = append(out, RuleInfo{Kind: "mcp", Origin: origin, Family: family, Name: fmt.Sprintf("%smcp %s.%s", prefix, table, class),
				Effect: effect, Reason: reason(class), Conditions: []string{list(m[class])}})
		}
	}
	add("verbs", c.Verbs, mcpVerbReason)
	add("nouns", c.Nouns, func(class string) string { return "words that name " + mcpNounMeaning()[class] })
	add("keys", c.Keys, func(class string) string { return "input keys that hold " + mcpKeyMeaning()[class] })
	add("types", c.Types, func(class string) string { return "resource types that name a " + class })
	add("phrases", c.Phrases, func(class string) string { return "two words read as one " + class + " verb" })
	add("languages", c.Languages, func(class string) string { return "words that say a tool's code is " + class })
	add("states", c.States, func(class string) string { return "values of a state key that say the tool will " + class })
	add("keystrokes", c.Keystrokes, func(class string) string { return "keys typed into a process that " + mcpKeystrokeMeaning()[class] })
	if len(c.Methods) > 0 {
		out = append(out, RuleInfo{Kind: "mcp", Origin: origin, Family: family, Name: prefix + "mcp methods",
			Reason:     "the last word of a name made of a REST path and a method that changes: a verb of the path says what the call does",
			Conditions: []string{list(c.Methods)}})
	}
	if len(c.Programs) > 0 {
		var progs []string
		for _, w := range slices.Sorted(maps.Keys(c.Programs)) {
			progs = append(progs, w+"="+c.Programs[w])
		}
		out = append(out, RuleInfo{Kind: "mcp", Origin: origin, Family: family, Name: prefix + "mcp programs",
			Reason: "a tool named so runs that program: its command is judged as the program's", Conditions: progs})
	}
	return out
}

// mcpVerbEffect is the effect a class of verbs gives a tool that names a
// VM, as `rewind catalog` shows it.
var mcpVerbEffect = sync.OnceValue(func() map[string]Effect {
	return map[string]Effect{"change": Protect, "machine": Protect, "exec": Protect, "destroy": Deny}
})

func mcpVerbReason(class string) string {
	switch class {
	case "read":
		return "reads: never asks"
	case "change", "machine":
		return "changes the VM it names (a checkpoint first); asked when the input names none"
	case "create":
		return "creates a VM (nothing to checkpoint yet), or a disk or snapshot of the VM it names"
	case "destroy":
		return "a checkpoint cannot bring back a deleted VM, disk or snapshot"
	case "exec":
		return "runs a command: the command is judged as in a shell, on the host the input names"
	}
	return ""
}

var mcpNounMeaning = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"vm": "a VM", "disk": "a disk", "snapshot": "a snapshot", "part": "a part of a VM",
		"hosts": "playbooks and tasks run on hosts", "exec": "a command the tool runs",
		"code": "code the tool runs", "input": "text typed into a running process",
		"page":   "a page of a browser, whose keys are no process's code",
		"remote": "a server whose commands run on another host", "powershell": "PowerShell commands",
	}
})

var mcpKeyMeaning = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"vm": "the VM", "name": "the VM of a tool whose noun is a VM", "host": "the host a command runs on",
		"command": "the command a tool runs", "args": "a command's arguments", "flags": "a command's options",
		"action": "the word that says what the tool does", "type": "the kind of resource",
		"state": "the state the tool puts a VM in", "code": "code the tool runs", "language": "the language of the code",
		"input": "text typed into a running process",
	}
})

var mcpKeystrokeMeaning = sync.OnceValue(func() map[string]string {
	return map[string]string{
		keyEnter: "end a line", keyInterrupt: "stop or clear what runs", keyOther: "make text only the process knows",
	}
})
