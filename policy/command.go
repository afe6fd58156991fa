package policy

import (
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/powershell"
	"github.com/rewind-dev/rewind/shell"
)

// subject is one command as the rules see it: a shell invocation or a
// PowerShell cmdlet statement.
type subject struct {
	name    string
	path    string // the command as written, when that is a path
	args    []string
	dyn     []bool // nil, or one entry per args element
	host    string
	remote  bool
	ps      bool     // PowerShell: names and options are case-insensitive
	opts    []string // the command's options that take a separate value
	payload []string
	via     []string
	writes  []string // files its output redirections write
	reads   []string // files its input redirections read
	env     []string // NAME=VALUE, the variables it is given
	// aliases are the command's subcommand aliases.
	aliases []subAlias
	// analysed is set when the code the command runs (ssh's remote
	// command or stdin script) was analysed on its own.
	analysed bool
	// hosts are the hosts a remote command runs on when there are several
	// (Invoke-Command -ComputerName a,b); host is then the first.
	hosts []string
	// reached is set on a command that runs code on other hosts (winrs,
	// psexec, gcloud compute ssh...): reach are those hosts as written,
	// reachUnknown tells that some are decided at run time.
	reached      bool
	reach        []string
	reachUnknown bool
	// self says why a command under another name is judged as rewind
	// (see asRewind).
	self string
	// pos caches the positionals for rules without options of their
	// own, once posDone is set; callers only read it.
	pos     []int
	posDone bool
	// vars are the variables the call's code assigns, which a word known
	// only at run time may turn out to be (see anyOptionAtRunTime); nil
	// for none.
	vars *assignments
}

// hostList returns the hosts a remote command runs on.
func (s *subject) hostList() []string {
	if len(s.hosts) > 0 {
		return s.hosts
	}
	if s.host == "" {
		return nil
	}
	return []string{s.host}
}

// isOption reports whether a word is an option: a dash and more.
func isOption(w string) bool { return len(w) > 1 && w[0] == '-' }

func (s *subject) dynamic(i int) bool { return s.dyn != nil && s.dyn[i] }

// fromInvocation makes a subject of a shell invocation. The ssh invocation
// itself carries its destination as Host but runs locally; what runs on a
// host is what the shell reached through "ssh HOST".
func fromInvocation(inv *shell.Invocation) subject {
	s := subject{
		name:     inv.Name,
		path:     inv.Path,
		args:     inv.Args,
		host:     inv.Host,
		payload:  inv.Payload,
		via:      inv.Via,
		writes:   inv.Writes,
		reads:    inv.Reads,
		env:      inv.Env,
		analysed: inv.Analysed,
	}
	if len(inv.ArgDynamic) == len(inv.Args) {
		s.dyn = inv.ArgDynamic
	}
	s.remote = viaSSH(inv.Via) || (inv.Host != "" && !connects()[inv.Name])
	if s.remote && windowsTools()[strings.ToLower(inv.Name)] {
		s.name, s.args = windowsArgs(s)
	}
	// A cmdlet on a remote host (ssh into Windows, whose default shell
	// may be PowerShell) is judged as PowerShell reads it: by the cmdlet
	// rules, its parameters in any case and by any prefix.
	s.ps = s.remote && powershell.IsCmdletName(inv.Name)
	return s
}

// windowsTools are the Windows programs the remote read-only rules name,
// which take options in any case and with / or - alike.
var windowsTools = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"ipconfig": true, "ipconfig.exe": true, "sc": true, "sc.exe": true, "net": true, "net.exe": true,
		"tasklist": true, "tasklist.exe": true, "systeminfo": true, "systeminfo.exe": true,
		"whoami": true, "whoami.exe": true, "findstr": true, "findstr.exe": true, "where": true, "where.exe": true,
	}
})

// windowsArgs returns a Windows program's name and words as its rules
// match them: lower case, without .exe, -x as /x.
func windowsArgs(s subject) (string, []string) {
	args := make([]string, len(s.args))
	for i, a := range s.args {
		if s.dynamic(i) {
			args[i] = a
			continue
		}
		a = strings.ToLower(a)
		if len(a) > 1 && a[0] == '-' {
			a = "/" + a[1:]
		}
		args[i] = a
	}
	return windowsName(s.name), args
}

// connects are the ssh clients whose invocation the shell analysis reports
// with the host they connect to as Host: they run here. scp and rsync
// have one only when -o HostName renames the hosts of their paths.
var connects = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"ssh": true, "dbclient": true, "plink": true, "mosh": true, "sftp": true, "scp": true, "rsync": true}
})

// sessionSteps are the steps of Via by which code reaches a host over ssh:
// a session's remote command or stdin script ("ssh HOST"; the steps of
// local code an option runs, "ssh -o ProxyCommand", name an option), and
// the remote programs of scp, sftp -s, rsync --rsync-path and mosh
// --server.
var (
	sessionSteps   = []string{"ssh ", "dbclient ", "plink ", "mosh ", "scp "}
	remotePrograms = []string{"sftp -s", "rsync --rsync-path", "mosh --server"}
)

// viaSSH reports whether code came over an ssh session to another host.
func viaSSH(via []string) bool {
	for _, v := range via {
		for _, step := range sessionSteps {
			if len(v) > len(step) && strings.HasPrefix(v, step) && v[len(step)] != '-' {
				return true
			}
		}
		if slices.Contains(remotePrograms, v) {
			return true
		}
	}
	return false
}

// commandRule is a CommandRule compiled for matching.
type commandRule struct {
	// src is the rule as its config has it, shared, never changed.
	src     *CommandRule
	label   string // Verdict.Rule
	words   []string
	cmdlets []string // lower case
	on      string
	payload []string // lower case
	targets []targetSpec
	split   string
	// alts holds, for each match word with alternatives ("stop|start"),
	// the alternatives, split once rather than at every match; nil when
	// no word has any.
	alts [][]string
}

func compileCommand(r *CommandRule, origin string) (*commandRule, error) {
	c := &commandRule{src: r, on: r.On, split: r.TargetSplit}
	if c.on == "" {
		c.on = "any"
	}
	if c.split == "" {
		c.split = ","
	}
	var err error
	if c.targets, err = parseTargets(r.Target); err != nil {
		return nil, err
	}
	c.words = strings.Fields(r.Match)
	for i, w := range c.words {
		if strings.IndexByte(w, '|') >= 0 {
			if c.alts == nil {
				c.alts = make([][]string, len(c.words))
			}
			c.alts[i] = strings.Split(w, "|")
		}
	}
	for _, p := range r.Cmdlets {
		c.cmdlets = append(c.cmdlets, strings.ToLower(p))
	}
	for _, p := range r.PayloadContains {
		c.payload = append(c.payload, foldSpace(strings.ToLower(p)))
	}
	c.label = r.Match
	if len(r.Cmdlets) > 0 {
		// A family lists dozens of cmdlets in a rule: the label names
		// the first few, as a reason shown to a person can hold.
		names := r.Cmdlets
		if len(names) > 4 {
			names = append(names[:3:3], "…")
		}
		c.label = "pwsh " + strings.Join(names, "|")
	}
	if origin != "" {
		c.label = origin + ":" + c.label
	}
	return c, nil
}

// catchAll reports whether the rule matches every command at its place:
// match "*" and no other condition.
func (c *commandRule) catchAll() bool {
	return len(c.words) == 1 && c.words[0] == "*" && !c.src.Exact &&
		len(c.src.ArgsAny) == 0 && len(c.payload) == 0
}

// at reports whether the rule applies to a command that runs locally or
// remotely.
func (c *commandRule) at(remote bool) bool {
	switch c.on {
	case "local":
		return !remote
	case "remote":
		return remote
	}
	return true
}

// positionals returns the indexes of the positional words of s: not
// options, not the values of options that take one, and everything after
// "--".
func (c *commandRule) positionals(s *subject) []int {
	return c.positionalsAs(s, false)
}

// positionalsAs is positionals; with greedy set, an option not known to
// take a value is read as taking the next word when that word is not an
// option itself ("kubectl -n prod delete").
func (c *commandRule) positionalsAs(s *subject, greedy bool) []int {
	// Most rules know no options of their own, and then the positionals
	// are the subject's alone: judged against many rules of its command
	// name, the subject works them out once.
	shared := !greedy && len(c.src.ValueOptions) == 0
	if shared && s.posDone {
		return s.pos
	}
	pos := c.positionalWords(s, greedy)
	if shared {
		s.pos, s.posDone = pos, true
	}
	return pos
}

func (c *commandRule) positionalWords(s *subject, greedy bool) []int {
	var pos []int
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		switch {
		case len(a) > 1 && a[0] == '-' && s.dynamic(i):
			// An option with a value known at run time, as in -Confirm:$false.
		case s.dynamic(i):
			pos = append(pos, i)
		case a == "--" && !s.ps:
			for j := i + 1; j < len(s.args); j++ {
				pos = append(pos, j)
			}
			return pos
		case len(a) > 1 && a[0] == '-':
			if c.valueAt(s, i) {
				i++
			} else if greedy && !strings.Contains(a, "=") && i+1 < len(s.args) &&
				!strings.HasPrefix(s.args[i+1], "-") {
				i++
			}
		default:
			pos = append(pos, i)
		}
	}
	return pos
}

// match reports whether the rule matches s, and the positional words that
// follow the matched words.
//
// With lenient set, a word decided at run time matches any word of the
// rule: the rule could apply, depending on what the word turns out to be.
func (c *commandRule) match(s *subject, lenient bool) (rest []int, ok bool) {
	if !c.at(s.remote) || c.src.Analysed && !s.analysed {
		return nil, false
	}
	if s.ps {
		if len(c.cmdlets) == 0 || !anyGlob(c.cmdlets, strings.ToLower(s.name)) {
			return nil, false
		}
	} else if len(c.words) == 0 || !glob(c.words[0], s.name) {
		return nil, false
	}
	pos := c.positionals(s)
	if len(c.words) > 1 {
		// Options the rule does not know may take a value and hide the
		// words: a rule that asks for more than nothing reads them so
		// when that alone makes the words match.
		if !c.wordsMatch(s, pos, lenient) {
			if c.src.Effect == None || !optionBefore(s, pos, len(c.words)-1) {
				return nil, false
			}
			if pos = c.positionalsAs(s, true); !c.wordsMatch(s, pos, lenient) {
				return nil, false
			}
		}
		pos = pos[len(c.words)-1:]
	}
	if c.src.Exact && len(pos) > 0 {
		return nil, false
	}
	// GNU tools take a long option by any prefix that names only it
	// (journalctl --vacuum-s is --vacuum-size). Where reading an option
	// into a word makes the verdict stricter, its prefixes count too:
	// options that keep a read-only rule from applying, and options that
	// make a rule ask for more.
	if len(c.src.ArgsAny) > 0 && !hasAnyArg(s, c.src.ArgsAny, c.src.Effect != None) {
		// Leniently, a word decided at run time after the rule's words
		// could be the option the rule names: "pvesh create
		// /nodes/pve1/qemu $OPTS" may restore a backup over a VM.
		if !lenient || !runTimeOption(s, c.src.ArgsAny) {
			return nil, false
		}
	}
	if len(c.src.ArgsNone) > 0 && (hasAnyArg(s, c.src.ArgsNone, c.src.Effect == None) ||
		c.src.Effect == None && anyOptionAtRunTime(s, c.src.ArgsNone)) {
		// A read-only rule does not apply where one of the options that
		// keep it from applying may be there, known only at run time.
		return nil, false
	}
	if len(c.payload) > 0 && !payloadContains(s.payload, c.payload) {
		return nil, false
	}
	return pos, true
}

// runTimeOption reports whether a word of s decided at run time could be
// one of the options want names (args_any's), which hasAnyArg cannot
// tell: a word that may be any option (anyOptionAtRunTime), or one of
// want's valued options with its value decided then (--mode="$M", --mode
// "$M"). A word of one value ("$DOM", $VM) is not one: read as an option
// it would make everyday reads (virsh dominfo "$DOM") ask. Nor is a URL,
// ID or path known only at run time (--url "$URL"), which names a target
// the rules read as known only then, or no API at all.
func runTimeOption(s *subject, want []string) bool {
	if anyOptionAtRunTime(s, want) {
		return true
	}
	if s.ps {
		return false
	}
	for i, a := range s.args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, hasValue := strings.Cut(a, "=")
		if !(s.dynamic(i) && hasValue || !hasValue && i+1 < len(s.args) && s.dynamic(i+1)) {
			continue
		}
		for _, w := range want {
			if opt, _, ok := strings.Cut(w, " "); ok && !pathOption(opt) && (name == opt || abbreviates(s, name, opt)) {
				return true
			}
		}
	}
	return false
}

// anyOptionAtRunTime reports whether s has a word decided at run time
// that may be one of the options want names: an argument list ("$@",
// "${opts[@]}"), an option whose name is decided then and could be one of
// want's (--"$F", -$F; --state-"$S" only for a want that begins so),
// PowerShell's splatted hashtable (@params; a variable there is always a
// value).
func anyOptionAtRunTime(s *subject, want []string) bool {
	for i, a := range s.args {
		if !s.dynamic(i) {
			continue
		}
		if s.ps {
			if strings.HasPrefix(a, "@") {
				return true
			}
			continue
		}
		if a == runtimeQuery {
			// Query parameters, which hold no "/" (see httpRequest.line).
			if slices.ContainsFunc(want, func(w string) bool { return !strings.Contains(w, "/") }) {
				return true
			}
			continue
		}
		if argumentList(a) {
			return true
		}
		if !strings.HasPrefix(a, "-") {
			// A word that may expand to an option: one the call assigns
			// (f=--force ... "$f"), or a dash after what may be empty.
			if wordOptions(a, s.vars, 0).couldBe(want) {
				return true
			}
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		k := strings.IndexAny(name, runTimeChars)
		if k < 0 {
			continue
		}
		for _, w := range want {
			if opt, _, _ := strings.Cut(w, " "); strings.HasPrefix(opt, name[:k]) {
				return true
			}
		}
	}
	return false
}

// runTimeChars are the characters of a word's source text that make a
// part of it known only at run time.
const runTimeChars = "$`\"'"

// argumentList reports whether the source text of a word is the
// expansion of a whole argument list, which may hold any options: $@, $*
// and ${name[@]}, quoted or not.
func argumentList(a string) bool {
	a = strings.Trim(a, `"`)
	switch a {
	case "$@", "$*", "${@}", "${*}":
		return true
	}
	return strings.HasPrefix(a, "${") && (strings.HasSuffix(a, "[@]}") || strings.HasSuffix(a, "[*]}")) && !strings.ContainsAny(a[2:len(a)-4], "$`\"' ")
}

// optionBefore reports whether an option comes before the n-th positional
// word of s (or anywhere, when there are fewer), which alone could hide a
// word behind a value.
func optionBefore(s *subject, pos []int, n int) bool {
	limit := len(s.args)
	if n <= len(pos) {
		limit = pos[n-1]
	}
	for i := 0; i < limit; i++ {
		if a := s.args[i]; len(a) > 1 && a[0] == '-' && !s.dynamic(i) {
			return true
		}
	}
	return false
}

// wordsMatch reports whether the positional words pos of s begin with
// the rule's words after the command name.
func (c *commandRule) wordsMatch(s *subject, pos []int, lenient bool) bool {
	if len(pos) < len(c.words)-1 {
		return false
	}
	words := s.subcommand(pos, len(c.words)-1)
	for k, w := range c.words[1:] {
		i := pos[k]
		if s.dynamic(i) {
			if w != "*" && !lenient {
				return false
			}
		} else if !c.wordIs(k+1, w, words[k]) {
			return false
		}
	}
	return true
}

// wordIs reports whether word matches the rule's match word at index i,
// pattern.
func (c *commandRule) wordIs(i int, pattern, word string) bool {
	if c.alts == nil || c.alts[i] == nil {
		return globOne(pattern, word)
	}
	for _, alt := range c.alts[i] {
		if globOne(alt, word) {
			return true
		}
	}
	return false
}

// subcommand returns the first n positional words of s, with a
// subcommand alias at their start replaced by the words it stands for:
// gh's "issue new" is "issue create".
func (s *subject) subcommand(pos []int, n int) []string {
	words := make([]string, n)
	for k := range words {
		words[k] = s.args[pos[k]]
	}
alias:
	for _, al := range s.aliases {
		if len(al.from) > n {
			continue
		}
		for k, w := range al.from {
			if s.dynamic(pos[k]) || words[k] != w {
				continue alias
			}
		}
		copy(words, al.to)
		break
	}
	return words
}

// glob reports whether name matches pattern: a word, a path.Match
// pattern, or alternatives of either joined by "|" ("stop|start|reset"),
// so that one rule can list the subcommands it judges alike.
func glob(pattern, name string) bool {
	if strings.IndexByte(pattern, '|') >= 0 {
		for alt := range strings.SplitSeq(pattern, "|") {
			if globOne(alt, name) {
				return true
			}
		}
		return false
	}
	return globOne(pattern, name)
}

func globOne(pattern, name string) bool {
	if pattern == "*" {
		return true
	}
	// Most patterns are a word or a word and a star: spare them
	// path.Match, which every rule of a command runs on every word.
	switch i := globMeta(pattern); {
	case i < 0:
		return pattern == name
	case i == len(pattern)-1 && pattern[i] == '*':
		return strings.HasPrefix(name, pattern[:i]) && strings.IndexByte(name[i:], '/') < 0
	case i == 0 && pattern[0] == '*' && globMeta(pattern[1:]) < 0:
		// "*.info": a suffix.
		return strings.HasSuffix(name, pattern[1:]) && strings.IndexByte(name[:len(name)-len(pattern)+1], '/') < 0
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// globMeta returns the index of the first character special to path.Match
// in pattern, or -1.
func globMeta(pattern string) int {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '*', '?', '[', '\\':
			return i
		}
	}
	return -1
}

func anyGlob(patterns []string, name string) bool {
	for _, p := range patterns {
		if glob(p, name) {
			return true
		}
	}
	return false
}

// hasAnyArg reports whether an argument of s is one of want: the word
// itself, "--opt=value" for "--opt", a short flag inside a cluster ("-fu"
// has "-f"), and for a want with a space ("-m ping") the option and its
// value as one or two words.
//
// An option with a value counts with its last value, as most programs
// read it: "ansible -m ping -m shell" runs shell. Options that want lists
// with a common value ("-m ping", "--module-name ping") are one option.
//
// With prefixes set, a long option written as a prefix of one of want
// ("--vac=1M" for "--vacuum-size") counts, unless the prefix is an option
// of the command's own (journalctl's --cursor is not --cursor-file). So
// does, for a want without a value, the option with a value decided at run
// time ("--method=$M" for "--method"): its name is known, and counting it
// makes the verdict stricter, as prefixes says.
func hasAnyArg(s *subject, want []string, prefixes bool) bool {
	for i, a := range s.args {
		if s.dynamic(i) {
			if prefixes && strings.HasPrefix(a, "-") {
				name, _, _ := strings.Cut(a, "=")
				for _, w := range want {
					if !strings.Contains(w, " ") && !strings.ContainsAny(name, runTimeChars) && (name == w || abbreviates(s, name, w)) {
						return true
					}
				}
			}
			continue
		}
		for _, w := range want {
			if argIs(s, i, a, w) && (!strings.Contains(w, " ") || lastValue(s, want, w, i)) {
				return true
			}
			if prefixes && abbreviates(s, a, w) {
				return true
			}
		}
	}
	return false
}

// abbreviates reports whether the word a is a GNU abbreviation of the long
// option w: "--" and a proper prefix of w's name, with or without a value.
func abbreviates(s *subject, a, w string) bool {
	if s.ps || !strings.HasPrefix(w, "--") || strings.Contains(w, " ") || !strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a, "=")
	return len(name) > 2 && len(name) < len(w) && strings.HasPrefix(w, name) && !slices.Contains(s.opts, name)
}

// lastValue reports whether the option of want w ("-m ping"), found at
// args[i], is not given again later, by itself or by an option want
// lists with the same value.
func lastValue(s *subject, want []string, w string, i int) bool {
	opt, val, _ := strings.Cut(w, " ")
	names := []string{opt}
	for _, o := range want {
		if n, v, ok := strings.Cut(o, " "); ok && v == val && n != opt {
			names = append(names, n)
		}
	}
	for j := i + 1; j < len(s.args); j++ {
		a := s.args[j]
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") || s.ps && strings.HasPrefix(strings.ToLower(a), strings.ToLower(n)+":") ||
				len(n) == 2 && n[1] != '-' && len(a) > 2 && a[:2] == n {
				return false
			}
		}
	}
	return true
}

func argIs(s *subject, i int, a, w string) bool {
	eq := func(x, y string) bool { return x == y || s.ps && strings.EqualFold(x, y) }
	if s.ps && strings.HasPrefix(w, "-") && !strings.Contains(w, " ") && powershell.ParamMatches(a, w) {
		return true
	}
	if opt, val, ok := strings.Cut(w, " "); ok {
		if globMeta(val) >= 0 {
			// A value pattern: "--document-name *Terminate*".
			if eq(a, opt) {
				return i+1 < len(s.args) && !s.dynamic(i+1) && wildMatch(val, s.args[i+1])
			}
			for _, sep := range []string{"=", ":"} {
				if len(a) > len(opt) && eq(a[:len(opt)], opt) && a[len(opt):len(opt)+1] == sep && (sep == "=" || s.ps) {
					return wildMatch(val, a[len(opt)+1:])
				}
			}
			return false
		}
		if eq(a, opt) {
			return i+1 < len(s.args) && !s.dynamic(i+1) && s.args[i+1] == val
		}
		return eq(a, opt+"="+val) || eq(a, opt+":"+val) && s.ps ||
			!s.ps && len(opt) == 2 && opt[1] != '-' && a == opt+val
	}
	if eq(a, w) {
		return true
	}
	if !strings.HasPrefix(w, "-") && globMeta(w) >= 0 {
		// A word pattern: "disk-*" among the arguments.
		return !isOption(a) && wildMatch(w, a)
	}
	if strings.HasPrefix(w, "-") && len(a) > len(w) {
		if eq(a[:len(w)+1], w+"=") || s.ps && eq(a[:len(w)+1], w+":") {
			return true
		}
	}
	// A cluster of short flags: "-fu" holds "-f" and "-u". The first
	// letter of a cluster is always an option, whether the rest are more
	// flags or its value: "-s2020" holds "-s", "-bn1" holds "-b".
	if !s.ps && len(w) == 2 && w[0] == '-' && w[1] != '-' &&
		len(a) > 2 && a[0] == '-' && a[1] != '-' {
		return a[1] == w[1] || isLetters(a[1:]) && strings.IndexByte(a[1:], w[1]) >= 0
	}
	return false
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// payloadContains reports whether a payload holds one of the phrases,
// which are lower case with their white space folded (see foldSpace):
// case and line breaks do not hide a phrase.
func payloadContains(payload, phrases []string) bool {
	for _, p := range payload {
		text := foldSpace(strings.ToLower(p))
		for _, ph := range phrases {
			if strings.Contains(text, ph) {
				return true
			}
		}
	}
	return false
}

// needsFold reports whether s has white space other than single spaces.
func needsFold(s string) bool {
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= utf8.RuneSelf, b == '\t', b == '\n', b == '\v', b == '\f', b == '\r':
			return true
		case b == ' ' && i+1 < len(s) && s[i+1] == ' ':
			return true
		}
	}
	return false
}

// foldSpace replaces each run of white space in s by one space.
func foldSpace(s string) string {
	if !needsFold(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	if space {
		b.WriteByte(' ')
	}
	return b.String()
}

// extract finds the rule's targets in s; rest are the positional words
// after the matched words. unknown reports a target word that is decided
// at run time. The first alternative that finds a target wins.
func (c *commandRule) extract(s *subject, rest []int) (targets []string, unknown bool) {
	for _, spec := range c.targets {
		var words []int
		switch spec.kind {
		case targetFlag, targetFlags:
			targets, unknown = c.flagValues(s, spec.flag, spec.kind == targetFlags, targets, unknown)
		case targetArg:
			if spec.n <= len(rest) {
				words = rest[spec.n-1 : spec.n]
			}
		case targetDest:
			if spec.n <= len(rest) {
				i := rest[spec.n-1]
				if s.dynamic(i) {
					unknown = true
				} else if h := hostOf(s.args[i]); h != "" {
					targets = addUnique(targets, h)
				}
			}
		case targetArgs:
			words = rest
		case targetHost:
			targets, unknown = c.hosts(s, targets, unknown)
		case targetField:
			unknown = fieldValues(s, spec.flag, func(v string) { targets = c.splitAdd(targets, v) }) || unknown
		case targetPath:
			vals, unk := pathValues(s, c.positionals(s), spec.flag, spec.last)
			unknown = unknown || unk
			for _, v := range vals {
				targets = c.splitAdd(targets, v)
			}
		}
		for _, i := range words {
			if s.dynamic(i) {
				unknown = true
				continue
			}
			targets = c.splitAdd(targets, s.args[i])
		}
		if len(targets) > 0 {
			break
		}
	}
	// A name with a wildcard names VMs known only when the tool runs; a
	// value the tool reads from a file (file://ids.json, @ids.txt) is
	// known only to the tool.
	targets = slices.DeleteFunc(uniq(targets), func(t string) bool {
		if globTarget(t) || fromFile(t) {
			unknown = true
			return true
		}
		return false
	})
	return targets, unknown
}

func (c *commandRule) splitAdd(targets []string, word string) []string {
	for t := range strings.FieldsFuncSeq(word, func(r rune) bool { return strings.ContainsRune(c.split, r) }) {
		if c.src.ResourceIDs {
			t = resourceName(t)
		}
		if t = strings.TrimSpace(t); t != "" {
			// Duplicates are dropped once, by extract: a call may
			// name many targets, and dropping them here is quadratic.
			targets = append(targets, t)
		}
	}
	return targets
}

// uniq drops the repeated strings of list, keeping the first of each, in
// time linear in its length.
func uniq(list []string) []string {
	if len(list) < 2 {
		return list
	}
	seen := make(map[string]struct{}, len(list))
	out := list[:0]
	for _, s := range list {
		if _, ok := seen[s]; !ok {
			seen[s] = struct{}{}
			out = append(out, s)
		}
	}
	return out
}

func addUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// flagValues collects the values of option name: "-vm X", "--vm X",
// "-vm=X", for a one-letter name also "-lX", and for PowerShell "-VM:X"
// with any casing. With several set, the option takes every word up to
// the next option, as the az and aws command lines read "--ids A B".
func (c *commandRule) flagValues(s *subject, name string, several bool, targets []string, unknown bool) ([]string, bool) {
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) || len(a) < 2 || a[0] != '-' || a == "--" {
			continue
		}
		body := strings.TrimPrefix(a[1:], "-")
		var value string
		switch {
		case body == name || s.ps && (strings.EqualFold(body, name) || !strings.Contains(body, ":") && powershell.ParamMatches(a, name)):
			if i+1 >= len(s.args) {
				continue
			}
			i++
			if s.dynamic(i) {
				unknown = true
				continue
			}
			value = s.args[i]
			for several && i+1 < len(s.args) && !isOption(s.args[i+1]) {
				targets = c.splitAdd(targets, value)
				i++
				if s.dynamic(i) {
					unknown = true
					value = ""
					continue
				}
				value = s.args[i]
			}
		case len(body) > len(name) && (body[len(name)] == '=' || s.ps && body[len(name)] == ':') &&
			(body[:len(name)] == name || s.ps && strings.EqualFold(body[:len(name)], name)):
			value = body[len(name)+1:]
		case s.ps && strings.Contains(body, ":") && powershell.ParamMatches(a, name):
			// -VMN:web-01, a prefix with its value.
			_, value, _ = strings.Cut(body, ":")
		case !s.ps && len(name) == 1 && a[1] != '-' && a[1] == name[0]:
			value = a[2:]
		default:
			continue
		}
		targets = c.splitAdd(targets, value)
	}
	return targets, unknown
}

// hosts finds the host a command acts on: the destination of ssh, the host
// a remote command runs on, or the host of the last positional word when
// it is a remote path (scp and rsync copy to their last argument).
func (c *commandRule) hosts(s *subject, targets []string, unknown bool) ([]string, bool) {
	pos := c.positionals(s)
	switch {
	case s.reached:
		// A command that runs code on hosts: the hosts it reaches, as
		// reach.go reads them.
		for _, h := range s.reach {
			targets = addUnique(targets, h)
		}
		unknown = unknown || s.reachUnknown
	case connects()[s.name] && s.name != "scp" && s.name != "rsync" && !s.ps:
		// The shell analysis read the host the client connects to,
		// with -o HostName applied.
		if runTimeHost(s.host) {
			return targets, true
		}
		if s.host != "" {
			targets = addUnique(targets, s.host)
		}
	case s.remote:
		if runTimeHost(s.host) {
			return targets, true
		}
		for _, h := range s.hostList() {
			targets = addUnique(targets, h)
		}
		unknown = unknown || s.host == ""
	case len(pos) > 0:
		last := pos[len(pos)-1]
		if s.dynamic(last) {
			return targets, true
		}
		if h, ok := remoteHost(s.args[last]); ok {
			if s.host != "" && connects()[s.name] {
				// scp -o HostName=H connects to H whatever the path says.
				if runTimeHost(s.host) {
					return targets, true
				}
				h = s.host
			}
			targets = addUnique(targets, h)
		}
	}
	return targets, unknown
}
