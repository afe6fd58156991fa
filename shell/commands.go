package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call walks a simple command: its assignments and words first, since
// their substitutions run before it, then the command itself.
func (a *analyzer) call(c *code, x *syntax.CallExpr, in *input) {
	for _, as := range x.Assigns {
		a.assign(c, as)
	}
	if len(x.Args) == 0 {
		return
	}
	for _, w := range x.Args {
		a.word(c, w)
	}
	fields := make([]field, len(x.Args))
	for i, w := range x.Args {
		fields[i] = c.field(w)
	}
	a.run(c, c.source(x), fields, in)
}

// run reports the command in fields, unwrapping wrappers and analysing code
// handed to shells. src is the source text of the whole command.
func (a *analyzer) run(c *code, src string, fields []field, in *input) {
	if fields[0].dyn {
		a.dynamic(c, src)
		return
	}
	name := baseName(fields[0].val)
	if name == "" {
		return
	}
	args := fields[1:]
	switch name {
	case "sudo":
		i, seen := sudoOpts.parse(args)
		if seen.has("-l", "--list", "-v", "--validate", "-e", "--edit", "-V", "--version", "-h", "--help", "-K", "--remove-timestamp") {
			break
		}
		for i < len(args) && isAssignment(args[i]) {
			i++
		}
		if i < len(args) {
			a.run(c.with(name), src, args[i:], in)
			return
		}
	case "doas":
		i, seen := doasOpts.parse(args)
		if i < len(args) && !seen.has("-C", "-L") {
			a.run(c.with(name), src, args[i:], in)
			return
		}
	case "env":
		if a.env(c, src, args, in) {
			return
		}
	case "command":
		i, seen := noOpts.parse(args)
		if i < len(args) && !seen.has("-v", "-V") {
			a.run(c.with(name), src, args[i:], in)
			return
		}
	case "builtin", "nohup", "busybox":
		i, _ := noOpts.parse(args)
		if i < len(args) {
			a.run(c.with(name), src, args[i:], in)
			return
		}
	case "exec", "nice", "time", "stdbuf":
		i, _ := wrapperOpts[name].parse(args)
		if i < len(args) {
			a.run(c.with(name), src, args[i:], in)
			return
		}
	case "timeout":
		// The first operand is the duration.
		i, _ := timeoutOpts.parse(args)
		if i+1 < len(args) {
			a.run(c.with(name), src, args[i+1:], in)
			return
		}
	case "ionice":
		i, seen := ioniceOpts.parse(args)
		if i < len(args) && !seen.has("-p", "-P", "-u", "--pid", "--pgid", "--uid") {
			a.run(c.with(name), src, args[i:], in)
			return
		}
	case "xargs":
		// The template runs with arguments read from stdin, not with it.
		i, _ := xargsOpts.parse(args)
		if i < len(args) {
			a.run(c.with(name), src, args[i:], nil)
			return
		}
	case "watch":
		i, seen := watchOpts.parse(args)
		if i < len(args) {
			if seen.has("-x", "--exec") {
				a.run(c.with(name), src, args[i:], nil)
			} else {
				// watch joins its words and runs them with sh -c.
				a.codeFields(c, name, src, args[i:], nil)
			}
			return
		}
	case "eval":
		if len(args) > 0 {
			a.codeFields(c, name, src, args, in)
			return
		}
	case "su":
		if cmd, ok := suCommand(args); ok {
			a.codeFields(c, name+" -c", src, []field{cmd}, in)
			return
		}
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash":
		a.shell(c, name, src, args, in)
		return
	case "ssh":
		a.ssh(c, src, args, in)
		return
	case "find":
		a.invoke(c, c.host, name, args, in)
		a.findExec(c, src, args)
		return
	}
	a.invoke(c, c.host, name, args, in)
}

// env unwraps env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... CMD.
func (a *analyzer) env(c *code, src string, args []field, in *input) bool {
	i, seen := envOpts.parse(args)
	for i < len(args) && (isAssignment(args[i]) || args[i].val == "-" && !args[i].dyn) {
		i++
	}
	if o, ok := seen.get("-S", "--split-string"); ok {
		// -S splits its value into words that come before the rest.
		words := append([]field{o.val}, args[i:]...)
		a.codeFields(c, "env -S", src, words, in)
		return true
	}
	if i < len(args) {
		a.run(c.with("env"), src, args[i:], in)
		return true
	}
	return false
}

// suCommand returns the value of su's -c, which may follow the user name.
func suCommand(args []field) (field, bool) {
	for i, f := range args {
		s := f.val
		switch {
		case f.dyn || len(s) < 2 || s[0] != '-':
			continue
		case strings.HasPrefix(s, "--command="):
			v := s[len("--command="):]
			return staticField(v), true
		case s == "--command" || s[1] != '-' && s[len(s)-1] == 'c' && isLetters(s[1:]):
			if i+1 < len(args) {
				return args[i+1], true
			}
		}
	}
	return field{}, false
}

// shell handles bash, sh and the like: code after -c, code on stdin, or a
// script file (reported as a plain invocation).
func (a *analyzer) shell(c *code, name, src string, args []field, in *input) {
	cmdMode, stdinMode := false, false
	i := 0
loop:
	for i < len(args) {
		f := args[i]
		s := f.val
		switch {
		case f.dyn || s == "" || s[0] != '-' && s[0] != '+':
			break loop
		case s == "-" || s == "--":
			i++
			break loop
		case strings.HasPrefix(s, "--"):
			i++
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
			continue
		}
		i++
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'c':
				cmdMode = cmdMode || s[0] == '-'
			case 's':
				stdinMode = stdinMode || s[0] == '-'
			case 'o', 'O':
				i++
			}
		}
	}
	operands := args[min(i, len(args)):]
	switch {
	case cmdMode && len(operands) > 0:
		a.codeFields(c, name+" -c", src, operands[:1], in)
	case cmdMode || len(operands) > 0 && !stdinMode:
		a.invoke(c, c.host, name, args, in)
	default:
		if !a.stdinCode(c, c.host, c.via, name, src, in) {
			a.invoke(c, c.host, name, args, in)
		}
	}
}

// stdinCode analyses the code a shell reads on stdin. It reports false when
// stdin carries no code the command string shows (a terminal, a file).
func (a *analyzer) stdinCode(c *code, host string, via []string, name, src string, in *input) bool {
	if in == nil || in.kind != inText && in.kind != inDynamic {
		return false
	}
	label := name + " " + in.via
	if in.via == "|" {
		label = "| " + name
	}
	if in.kind == inDynamic {
		a.out.Dynamic = append(a.out.Dynamic, Dynamic{Source: src, Host: host, Via: via})
		if in.code == "" {
			return true
		}
	}
	a.codeAt(c, in.code, host, appendVia(via, label), nil)
	return true
}

// codeFields analyses words joined by spaces as code, the way eval, ssh,
// watch and bash -c run them. Code with run-time parts is reported as
// dynamic and its static skeleton analysed as well.
func (a *analyzer) codeFields(c *code, label, src string, words []field, in *input) {
	a.codeOn(c, c.host, appendVia(c.via, label), src, words, in)
}

func (a *analyzer) codeOn(c *code, host string, via []string, src string, words []field, in *input) {
	dyn := false
	parts := make([]string, len(words))
	for i, w := range words {
		dyn = dyn || w.dyn
		parts[i] = w.skel
	}
	if dyn {
		a.out.Dynamic = append(a.out.Dynamic, Dynamic{Source: src, Host: host, Via: via})
	}
	a.codeAt(c, strings.Join(parts, " "), host, via, in)
}

// codeAt analyses text as code handed on by c, running on host. On another
// host the redirections around the handing command write local files, not
// files of that host, so they do not carry over.
func (a *analyzer) codeAt(c *code, text, host string, via []string, in *input) {
	if host != c.host {
		outer := a.writes
		a.writes = nil
		defer func() { a.writes = outer }()
	}
	a.code(text, host, via, c.depth+1, in)
}

// ssh reports the ssh invocation with its target host and analyses the
// remote command, or a script on stdin, as code running on that host.
func (a *analyzer) ssh(c *code, src string, args []field, in *input) {
	i, seen := sshOpts.parse(args)
	if i >= len(args) {
		a.invoke(c, c.host, "ssh", args, in)
		return
	}
	host := sshHost(args[i])
	a.invoke(c, host, "ssh", args, in)
	if seen.has("-N", "-W", "-O", "-V", "-G") {
		return
	}
	via := appendVia(c.via, "ssh "+host)
	if remote := args[i+1:]; len(remote) > 0 {
		a.codeOn(c, host, via, src, remote, in)
		return
	}
	// Without a command the remote login shell reads stdin as a script.
	a.stdinCode(c, host, via, "ssh", src, in)
}

// sshHost returns the host of an ssh destination: [user@]host or
// ssh://[user@]host[:port].
func sshHost(f field) string {
	s := f.val
	uri := strings.HasPrefix(s, "ssh://")
	s = strings.TrimPrefix(s, "ssh://")
	if !f.dyn {
		if at := strings.LastIndexByte(s, '@'); at >= 0 {
			s = s[at+1:]
		}
	}
	if uri {
		if colon := strings.LastIndexByte(s, ':'); colon >= 0 && !strings.HasSuffix(s, "]") {
			s = s[:colon]
		}
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	}
	return s
}

// findExec reports the commands of find's -exec, -execdir, -ok and -okdir.
func (a *analyzer) findExec(c *code, src string, args []field) {
	for i := 0; i < len(args); i++ {
		action := args[i].val
		if args[i].dyn || action != "-exec" && action != "-execdir" && action != "-ok" && action != "-okdir" {
			continue
		}
		j := i + 1
		for j < len(args) && (args[j].dyn || args[j].val != ";" && args[j].val != "+") {
			j++
		}
		if j > i+1 {
			a.run(c.with("find "+action), src, args[i+1:j], nil)
		}
		i = j
	}
}

// invoke records an invocation.
func (a *analyzer) invoke(c *code, host, name string, args []field, in *input) {
	inv := Invocation{Name: name, Args: make([]string, len(args)), Host: host, Via: c.via}
	if len(a.writes) > 0 {
		inv.Writes = append([]string(nil), a.writes...)
	}
	for i, f := range args {
		inv.Args[i] = f.val
		if f.dyn {
			if inv.ArgDynamic == nil {
				inv.ArgDynamic = make([]bool, len(args))
			}
			inv.ArgDynamic[i] = true
		}
	}
	if in != nil && (in.kind == inText || in.kind == inDynamic) && in.text != "" {
		inv.Payload = append(inv.Payload, in.text)
	}
	inv.Payload = appendFlagPayloads(inv.Payload, args)
	a.out.Invocations = append(a.out.Invocations, inv)
}

// appendFlagPayloads appends the values of body-like flags: --body,
// --message, --title (also with =), -b, -m, -t, -mVALUE and a cluster
// ending in m such as git's -am.
func appendFlagPayloads(out []string, args []field) []string {
	for i, f := range args {
		s := f.approx
		if len(s) < 2 || s[0] != '-' {
			continue
		}
		switch s {
		case "--body", "--message", "--title", "-b", "-m", "-t":
			if i+1 < len(args) {
				out = append(out, args[i+1].approx)
			}
			continue
		}
		if s[1] == '-' {
			name, val, ok := strings.Cut(s[2:], "=")
			if ok && (name == "body" || name == "message" || name == "title") {
				out = append(out, val)
			}
			continue
		}
		if s[1] == 'm' {
			out = append(out, s[2:])
		} else if s[len(s)-1] == 'm' && isLetters(s[1:]) && i+1 < len(args) {
			out = append(out, args[i+1].approx)
		}
	}
	return out
}

func isLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i] | 0x20; b < 'a' || b > 'z' {
			return false
		}
	}
	return true
}

// opts describes the options of a wrapper command.
type opts struct {
	// short holds the letters of options that take a value.
	short string
	// long holds the long options that take a separate value.
	long []string
}

// option is one option seen on a command line; val is its value, if any.
type option struct {
	name string
	val  field
}

type options []option

func (s options) has(names ...string) bool {
	_, ok := s.get(names...)
	return ok
}

func (s options) get(names ...string) (option, bool) {
	for _, o := range s {
		if slices.Contains(names, o.name) {
			return o, true
		}
	}
	return option{}, false
}

var (
	noOpts      = opts{}
	sudoOpts    = opts{short: "CDgpRrTtUu", long: []string{"close-from", "chdir", "group", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user", "host"}}
	doasOpts    = opts{short: "Cu"}
	envOpts     = opts{short: "CSu", long: []string{"chdir", "split-string", "unset"}}
	timeoutOpts = opts{short: "ks", long: []string{"kill-after", "signal"}}
	ioniceOpts  = opts{short: "cnPpu", long: []string{"class", "classdata", "pgid", "pid", "uid"}}
	xargsOpts   = opts{short: "adEILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}}
	watchOpts   = opts{short: "nq", long: []string{"interval", "equexit"}}
	sshOpts     = opts{short: "BbcDEeFIiJLlmOoPpQRSWw"}
	wrapperOpts = map[string]opts{
		"exec":   {short: "a"},
		"nice":   {short: "n", long: []string{"adjustment"}},
		"time":   {short: "fo", long: []string{"format", "output"}},
		"stdbuf": {short: "eio", long: []string{"error", "input", "output"}},
	}
)

// parse skips the leading options in args. It returns the index of the
// first operand and the options seen, with their values.
func (o opts) parse(args []field) (int, options) {
	var seen options
	i := 0
	for i < len(args) {
		f := args[i]
		s := f.val
		if f.dyn || len(s) < 2 || s[0] != '-' {
			break
		}
		i++
		if s == "--" {
			break
		}
		if strings.HasPrefix(s, "--") {
			name, val, hasVal := strings.Cut(s[2:], "=")
			opt := option{name: "--" + name}
			if hasVal {
				opt.val = staticField(val)
			} else if slices.Contains(o.long, name) && i < len(args) {
				opt.val = args[i]
				i++
			}
			seen = append(seen, opt)
			continue
		}
		for j := 1; j < len(s); j++ {
			opt := option{name: "-" + s[j:j+1]}
			if strings.IndexByte(o.short, s[j]) >= 0 {
				if j < len(s)-1 {
					opt.val = staticField(s[j+1:])
				} else if i < len(args) {
					opt.val = args[i]
					i++
				}
				seen = append(seen, opt)
				break
			}
			seen = append(seen, opt)
		}
	}
	return i, seen
}
