package shell

import (
	"slices"
	"strings"
	"sync"

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
	outerEnv := a.environ
	defer func() { a.environ = outerEnv }()
	for _, as := range x.Assigns {
		if as.Name != nil && as.Value != nil && as.Index == nil {
			a.setEnv(as.Name.Value, c.field(as.Value))
		}
	}
	if a.expandAlias(c, x, in) {
		return
	}
	for _, w := range x.Args {
		a.word(c, w)
	}
	if len(x.Args[0].Parts) == 1 {
		if g, ok := x.Args[0].Parts[0].(*syntax.ExtGlob); ok && g.Op == syntax.GlobExcept {
			// With extglob off, as in a script, "!(cmd)" is a negated
			// subshell; with it on, a pattern naming files (dynamic,
			// below).
			a.codeFields(c, "!(...)", c.source(x), []field{staticField(g.Pattern.Value)}, in)
		}
	}
	fields := c.callFields(x.Args)
	if len(fields) == 0 {
		// "{,}" expands to no word at all: nothing runs.
		return
	}
	a.callLine = x.End().Line()
	outer := a.steps
	a.steps = 0
	a.run(c, c.source(x), fields, in)
	a.steps = outer
}

// maxSteps bounds the wrappers one simple command is unwrapped through
// ("sudo env nice xargs ..."). Unwrapping reads the words after each
// wrapper again, so a longer chain would cost time growing with the
// square of its length; what is past it is reported as Unparsed.
const maxSteps = 64

// findWeight is what a find run by -exec counts against maxSteps.
const findWeight = maxSteps / 8

// tailCall is the command a wrapper runs, for run to unwrap next.
type tailCall struct {
	c      *code
	fields []field
	in     *input
}

// then makes the command in fields, reached through c, the next one run
// unwraps. Wrappers hand on their command this way rather than by calling
// run, so that a chain of them as long as the input costs no stack.
func (a *analyzer) then(c *code, fields []field, in *input) {
	a.tail = &tailCall{c: c, fields: fields, in: in}
}

// run reports the command in fields, unwrapping wrappers and analysing code
// handed to shells. src is the source text of the whole command.
func (a *analyzer) run(c *code, src string, fields []field, in *input) {
	for {
		if a.steps++; a.steps > maxSteps {
			a.unparsed(src, "too many wrappers", c.host, c.via)
			return
		}
		a.step(c, src, fields, in)
		t := a.tail
		if t == nil {
			return
		}
		a.tail = nil
		if consumedGlob(fields, t.fields) {
			// A pattern among the wrapper's own words may match several
			// files, or none, and so move the command it runs.
			a.dynamic(c, src)
			return
		}
		c, fields, in = t.c, t.fields, t.in
	}
}

// consumedGlob reports whether a word a wrapper read before the command it
// hands on, next, holds a glob. next is most often the tail of fields.
func consumedGlob(fields, next []field) bool {
	if len(next) == 0 {
		return false
	}
	for k := 1; k < len(fields); k++ {
		if &fields[k] == &next[0] {
			for _, f := range fields[1:k] {
				if f.glob {
					return true
				}
			}
			return false
		}
	}
	return false
}

// step reports the command in fields, or, for a wrapper, hands on the
// command it runs with then.
func (a *analyzer) step(c *code, src string, fields []field, in *input) {
	if fields[0].dyn || fields[0].glob {
		// A name made by an expansion or matched against files is
		// decided at run time.
		a.dynamic(c, src)
		return
	}
	if cmd, ok := zshCommand(fields[0].val); ok {
		// zsh runs =cmd as the path of cmd.
		fields = append([]field{staticField(cmd)}, fields[1:]...)
	}
	name := a.resolve(fields[0].val)
	if name == "" {
		return
	}
	if strings.Contains(fields[0].val, "/") && a.runsWritten(c, src, fields, in) {
		// A file the command string wrote, run by its path.
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
			if n, v, ok := cutAssignment(args[i]); ok {
				a.assignedCode(c, src, n, v)
				a.setEnv(n, v)
			}
			i++
		}
		if i < len(args) {
			a.then(c.with(name), args[i:], in)
			return
		}
		// sudo -s and sudo -i without a command start a shell, which
		// reads stdin.
		if seen.has("-s", "--shell", "-i", "--login") && a.stdinCode(c, c.host, appendVia(c.via, name), name, src, in) {
			return
		}
	case "doas":
		i, seen := doasOpts.parse(args)
		if i < len(args) && !seen.has("-C", "-L") {
			a.then(c.with(name), args[i:], in)
			return
		}
		if i == len(args) && seen.has("-s") && a.stdinCode(c, c.host, appendVia(c.via, name), name, src, in) {
			return
		}
	case "env":
		if a.env(c, src, args, in) {
			return
		}
	case "command":
		i, seen := noOpts.parse(args)
		if i < len(args) && !seen.has("-v", "-V") {
			a.then(c.with(name), args[i:], in)
			return
		}
	case "builtin", "nohup", "busybox", "noglob", "nocorrect", "-":
		// zsh's precommand modifiers noglob, nocorrect and - run the
		// command after them.
		i, _ := noOpts.parse(args)
		if name == "-" {
			i = 0
		}
		if i < len(args) {
			a.then(c.with(name), args[i:], in)
			return
		}
	case "exec", "nice", "time", "stdbuf":
		i, _ := wrapperOpts()[name].parse(args)
		if i < len(args) {
			a.then(c.with(name), args[i:], in)
			return
		}
	case "repeat":
		// zsh's repeat N CMD.
		if len(args) > 1 {
			a.then(c.with(name), args[1:], in)
			return
		}
	case "timeout":
		// The first operand is the duration.
		i, _ := timeoutOpts.parse(args)
		if i+1 < len(args) {
			a.then(c.with(name), args[i+1:], in)
			return
		}
	case "ionice":
		i, seen := ioniceOpts.parse(args)
		if i < len(args) && !seen.has("-p", "-P", "-u", "--pid", "--pgid", "--uid") {
			a.then(c.with(name), args[i:], in)
			return
		}
	case "xargs":
		if a.xargs(c, src, args, in) {
			return
		}
	case "watch":
		i, seen := watchOpts.parse(args)
		if i < len(args) {
			if seen.has("-x", "--exec") {
				a.then(c.with(name), args[i:], nil)
			} else {
				// watch joins its words and runs them with sh -c.
				a.codeFields(c, name, src, args[i:], nil)
			}
			return
		}
	case "eval":
		if len(args) > 0 {
			a.codeFields(c.handing(c.lang), name, src, args, in)
			return
		}
	case "su":
		if cmd, ok := suOpts.codeOption(args, 1, 'c', "command"); ok {
			a.codeFields(c, name+" -c", src, []field{cmd}, in)
			return
		}
		// Without -c su starts the user's shell, which reads stdin.
		if a.stdinCode(c, c.host, appendVia(c.via, name), name, src, in) {
			return
		}
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "tcsh", "csh", "yash", "posh", "rbash", "ksh93", "oksh", "loksh":
		a.shell(c, name, src, args, in)
		return
	case "ssh":
		a.ssh(c, src, args, in)
		return
	case "autossh":
		if a.autossh(c, args, in) {
			return
		}
	case "dbclient":
		a.dbclient(c, src, args, in)
		return
	case "plink", "plink.exe", "PLINK.EXE":
		a.plink(c, "plink", src, args, in)
		return
	case "mosh":
		a.mosh(c, src, args, in)
		return
	case "scp":
		a.scp(c, src, args, in)
		return
	case "sftp":
		a.sftp(c, src, args, in)
		return
	case "rsync":
		a.rsync(c, src, args, in)
		return
	case "find":
		a.invoke(c, c.host, name, args, in)
		a.findExec(c, src, args)
		return
	case "source", ".":
		if len(args) > 0 {
			if f, ok := a.scriptFile(args[0], in); ok {
				a.fileCode(c.handing(c.lang), name, src, f)
				return
			}
		}
	case "trap":
		// trap ACTION SIGNAL...: the action is code that runs later.
		i := 0
		if len(args) > 0 && !args[0].dyn && args[0].val == "--" {
			i = 1
		}
		if len(args) > i+1 && (args[i].dyn || args[i].val != "-" && args[i].val != "" && args[i].val[0] != '-' || i == 1) {
			a.codeFields(c.handing(c.lang), name, src, args[i:i+1], nil)
			return
		}
	case "alias":
		a.defineAliases(c, src, args)
	case "unalias":
		a.unalias(args)
	case "hash":
		a.hash(c, src, args)
	case "enable":
		// enable -f FILE NAME loads a builtin from a shared object: code
		// the command string does not show.
		if _, seen := enableOpts.parse(args); seen.has("-f") {
			a.dynamic(c, src)
		}
	case "parallel":
		if a.parallel(c, src, args, in) {
			return
		}
	case "at", "batch":
		a.at(c, name, src, args, in)
	case "crontab":
		a.crontab(c, src, args, in)
	case "sed", "gsed":
		a.sed(c, src, args)
	case "make", "gmake":
		a.makeCommand(c, src, args, in)
	case "pwsh", "powershell", "pwsh.exe", "powershell.exe":
		a.powershellFile(c, name, src, args, in)
	case "gdb", "cgdb":
		a.gdb(c, src, args, in)
	case "sqlite3":
		a.sqlite3(c, src, args, in)
	case "git":
		a.git(c, src, args)
	case "tar", "gtar", "bsdtar":
		a.tar(c, src, args)
	case "tmux":
		a.tmux(c, src, args)
	case "screen":
		a.screen(c, src, args)
	case "socat":
		a.socat(c, src, args)
	case "nc", "ncat", "netcat":
		a.netcat(c, name, src, args)
	case "fd", "fdfind":
		a.fdExec(c, src, args)
	case "rg":
		for _, v := range optionValues(args, []string{"--pre"}) {
			a.run(c.with("rg --pre"), src, []field{v}, nil)
		}
	case "entr":
		if i, seen := entrOpts.parse(args); i < len(args) {
			if seen.has("-s") {
				a.codeFields(c, "entr -s", src, args[i:i+1], nil)
			} else {
				a.then(c.with(name), args[i:], nil)
			}
			return
		}
	case "unset", "read", "printf", "test", "[", "wait", "mapfile", "readarray", "compgen", "complete":
		a.evaluatedWords(c, name, src, args)
	default:
		switch {
		case name == "npm", name == "yarn", name == "pnpm", name == "bun":
			a.packageScripts(c, name, src, args)
		case vimName(name):
			a.vim(c, name, src, args, in)
		}
		if (len(a.written) > 0 || a.writtenLost) && !builtins()[name] && a.runsWritten(c, src, fields, in) {
			// A file the command string wrote, which a folder of PATH
			// may hold.
			return
		}
		if it, label, ok := interpreterOf(name); ok {
			if it.lang == "python" {
				a.pythonStartup(c, label, src)
			}
			a.interp(c, it, label, src, args, in)
			break
		}
		if !wrapperName(name) {
			break
		}
		if w, ok := wrappers()[name]; ok {
			if a.wrapped(c, name, src, w, args, in) {
				return
			}
		} else if _, ok := subWrappers()[name]; ok {
			if a.subWrapped(c, name, src, args, in) {
				return
			}
		}
	}
	a.toolWrites(c, name, args, in)
	i := a.invoke(c, c.host, name, args, in)
	if strings.Contains(fields[0].val, "/") {
		a.out.Invocations[i].Path = fields[0].val
	}
}

// shells are the shells whose code the analysis reads.
var shells = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"bash": true, "sh": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true,
		"tcsh": true, "csh": true, "yash": true, "posh": true, "rbash": true, "ksh93": true, "oksh": true, "loksh": true,
	}
})

// builtins are bash's builtins and keywords, which no file of PATH
// replaces.
var builtins = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"alias": true, "bg": true, "bind": true, "break": true, "builtin": true, "caller": true, "cd": true,
		"command": true, "compgen": true, "complete": true, "compopt": true, "continue": true, "declare": true,
		"dirs": true, "disown": true, "echo": true, "enable": true, "eval": true, "exec": true, "exit": true,
		"export": true, "false": true, "fc": true, "fg": true, "getopts": true, "hash": true, "help": true,
		"history": true, "jobs": true, "kill": true, "let": true, "local": true, "logout": true, "mapfile": true,
		"popd": true, "printf": true, "pushd": true, "pwd": true, "read": true, "readarray": true,
		"readonly": true, "return": true, "set": true, "shift": true, "shopt": true, "source": true,
		"suspend": true, "test": true, "times": true, "trap": true, "true": true, "type": true, "typeset": true,
		"ulimit": true, "umask": true, "unalias": true, "unset": true, "wait": true, ".": true, ":": true, "[": true,
	}
})

// xargsInput stands for the arguments xargs reads at run time.
var xargsInput = field{val: "<stdin>", approx: "<stdin>", skel: dynamicPlaceholder, dyn: true}

// maxXargsLines bounds the runs of an xargs -I template reported for
// static input, one per line.
const maxXargsLines = 16

// xargs runs its template with arguments read from stdin: appended to the
// template or, with -I, in place of the replace string. Static input gives
// those words; otherwise they are known only at run time. The template's
// own stdin is not xargs's, but its text is reported as its payload.
func (a *analyzer) xargs(c *code, src string, args []field, in *input) bool {
	i, seen := xargsOpts.parse(args)
	if i >= len(args) {
		return false
	}
	tmpl := args[i:]
	static := in != nil && in.kind == inText && !seen.has("-a", "--arg-file", "-0", "--null", "-d", "--delimiter", "-E", "-e", "--eof")
	var pay *input
	if in != nil && (in.kind == inText || in.kind == inDynamic) && in.text != "" {
		pay = &input{kind: inArgs, text: in.text}
	}
	c = c.with("xargs")
	repl, hasRepl := seen.get("-I", "-i", "--replace")
	if !hasRepl {
		words := []field{xargsInput}
		if static {
			words = words[:0]
			for _, w := range strings.Fields(in.text) {
				words = append(words, staticField(strings.Trim(w, `'"`)))
			}
		}
		// tmpl ends the fields of the command being unwrapped, which
		// nothing else reads, so that words are appended in place and a
		// chain of xargs costs linear time. Slices that end elsewhere
		// are clipped where they are made (findExec, replaceWords).
		a.then(c, append(tmpl, words...), pay)
		return true
	}
	token := "{}"
	if repl.val.val != "" && !repl.val.dyn {
		token = repl.val.val
	}
	if lines := strings.Split(strings.TrimRight(in.textOr(""), "\n"), "\n"); static && len(lines) <= maxXargsLines {
		for _, l := range lines {
			a.run(c, src, replaceWords(tmpl, token, &l), pay)
		}
		return true
	}
	a.then(c, replaceWords(tmpl, token, nil), pay)
	return true
}

func (in *input) textOr(def string) string {
	if in == nil {
		return def
	}
	return in.text
}

// replaceWords returns words with token replaced by value in each, or,
// when value is nil, with each word holding token marked as known only at
// run time (its skeleton holds a dynamic part in its place).
func replaceWords(words []field, token string, value *string) []field {
	words = slices.Clip(words)
	i := slices.IndexFunc(words, func(w field) bool { return !w.dyn && strings.Contains(w.val, token) })
	if i < 0 {
		return words
	}
	out := slices.Clone(words)
	for ; i < len(words); i++ {
		w := words[i]
		if w.dyn || !strings.Contains(w.val, token) {
			continue
		}
		if value != nil {
			out[i] = staticField(strings.ReplaceAll(w.val, token, *value))
			continue
		}
		out[i] = field{val: w.val, approx: w.approx, skel: strings.ReplaceAll(w.skel, token, dynamicPlaceholder), dyn: true}
	}
	return out
}

// env unwraps env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]... CMD.
func (a *analyzer) env(c *code, src string, args []field, in *input) bool {
	i, seen := envOpts.parse(args)
	for ; i < len(args); i++ {
		if !args[i].dyn && args[i].val == "-" {
			continue
		}
		// env takes any word with "=" after its first character for
		// NAME=VALUE, whatever the name.
		n, v, ok := cutAssignment(args[i])
		if !ok {
			break
		}
		a.assignedCode(c, src, n, v)
		a.setEnv(n, v)
	}
	if o, ok := seen.get("-S", "--split-string"); ok {
		// -S splits its value into words that come before the rest.
		words := append([]field{o.val}, args[i:]...)
		a.codeFields(c, "env -S", src, words, in)
		return true
	}
	if i < len(args) {
		a.then(c.with("env"), args[i:], in)
		return true
	}
	return false
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
	c = c.handing(shellDialect(name))
	switch {
	case cmdMode && len(operands) > 0:
		a.codeFields(c, name+" -c", src, operands[:1], in)
	case !cmdMode && !stdinMode && len(operands) > 0 && a.runsScript(c, name, src, operands[0], in):
		// bash <(...), bash /dev/stdin and the like run what the
		// command string feeds them.
	case cmdMode || len(operands) > 0 && !stdinMode:
		a.invoke(c, c.host, name, args, in)
	default:
		if !a.stdinCode(c, c.host, c.via, name, src, in) {
			a.invoke(c, c.host, name, args, in)
		}
	}
}

// runsScript analyses the script a shell runs from a file when the
// command string shows what the file reads: a process substitution or a
// descriptor (see scriptFile).
func (a *analyzer) runsScript(c *code, name, src string, f field, in *input) bool {
	file, ok := a.scriptFile(f, in)
	if ok {
		a.fileCode(c, name, src, file)
	}
	return ok
}

// fileCode analyses the script a shell reads from a process substitution
// or a descriptor.
func (a *analyzer) fileCode(c *code, name, src string, f *input) {
	if !a.stdinCode(c, c.host, c.via, name, src, f) {
		a.dynamic(c, src)
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
		// Nor do the environment and the descriptors of this side.
		outer, reads, env, fds, outFds := a.writes, a.reads, a.environ, a.fds, a.outFds
		a.writes, a.reads, a.environ, a.fds, a.outFds = nil, nil, nil, [maxDescriptors]*input{}, [maxDescriptors]string{}
		defer func() { a.writes, a.reads, a.environ, a.fds, a.outFds = outer, reads, env, fds, outFds }()
	}
	a.codeIn(c.handTo, text, host, via, c.depth+1, in)
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
			// Each find reports an invocation with all its words, so a
			// find run by a find costs as much as its command line: it
			// counts as findWeight wrappers against maxSteps.
			a.steps += findWeight
			// find puts the paths it finds in place of {}.
			a.run(c.with("find "+action), src, replaceWords(args[i+1:j], "{}", nil), nil)
		}
		i = j
	}
}

// maxEnv bounds Invocation.Env.
const maxEnv = 16

// setEnv records a variable the command being walked gets.
func (a *analyzer) setEnv(name string, value field) {
	if len(a.environ) < maxEnv {
		// Copy on append: the slice is shared with enclosing commands.
		a.environ = append(a.environ[:len(a.environ):len(a.environ)], name+"="+value.val)
	}
}

// invoke records an invocation and returns its index.
func (a *analyzer) invoke(c *code, host, name string, args []field, in *input) int {
	inv := Invocation{Name: name, Args: make([]string, len(args)), Host: host, Via: c.via, Env: a.environ}
	if len(a.writes) > 0 {
		inv.Writes = append([]string(nil), a.writes...)
	}
	if len(a.reads) > 0 {
		inv.Reads = append([]string(nil), a.reads...)
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
	if in != nil && (in.kind == inText || in.kind == inDynamic || in.kind == inArgs) && in.text != "" {
		inv.Payload = append(inv.Payload, in.text)
	}
	for _, f := range args {
		// A file it reads that a <(...) fills with static text.
		if f.file != nil && f.file.kind == inText && f.file.text != "" {
			inv.Payload = append(inv.Payload, f.file.text)
		}
	}
	inv.Payload = appendFlagPayloads(inv.Payload, args)
	a.out.Invocations = append(a.out.Invocations, inv)
	return len(a.out.Invocations) - 1
}

// appendFlagPayloads appends the values of body-like flags: --body,
// --message, --title (also with =), -b, -m, -t, -mVALUE, -bVALUE, -tVALUE,
// a cluster ending in m such as git's -am, and body=, message= and title=
// fields such as gh api's -f body=TEXT.
func appendFlagPayloads(out []string, args []field) []string {
	for i, f := range args {
		s := f.approx
		if name, val, ok := strings.Cut(s, "="); ok && (name == "body" || name == "message" || name == "title") {
			out = append(out, val)
			continue
		}
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
		if s[1] == 'm' || s[1] == 'b' || s[1] == 't' {
			// -mVALUE, -bVALUE, -tVALUE; a cluster of flags such as -bt
			// adds its letters, which no payload phrase is made of.
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
	// longN holds the long options that take more than one value, with
	// how many (bwrap --bind SRC DEST).
	longN map[string]int
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
	enableOpts  = opts{short: "f"}
	entrOpts    = opts{}
	suOpts      = opts{short: "gGsw", long: []string{"group", "supp-group", "shell", "whitelist-environment"}}
	sudoOpts    = opts{short: "CDgpRrTtUu", long: []string{"close-from", "chdir", "group", "prompt", "chroot", "role", "command-timeout", "type", "other-user", "user", "host"}}
	doasOpts    = opts{short: "Cu"}
	envOpts     = opts{short: "CSu", long: []string{"chdir", "split-string", "unset"}}
	timeoutOpts = opts{short: "ks", long: []string{"kill-after", "signal"}}
	ioniceOpts  = opts{short: "cnPpu", long: []string{"class", "classdata", "pgid", "pid", "uid"}}
	xargsOpts   = opts{short: "adEILnPs", long: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}}
	watchOpts   = opts{short: "nq", long: []string{"interval", "equexit"}}
	wrapperOpts = sync.OnceValue(func() map[string]opts {
		return map[string]opts{
			"exec":   {short: "a"},
			"nice":   {short: "n", long: []string{"adjustment"}},
			"time":   {short: "fo", long: []string{"format", "output"}},
			"stdbuf": {short: "eio", long: []string{"error", "input", "output"}},
		}
	})
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
			} else if n := o.longN[name]; n > 0 && i < len(args) {
				opt.val = args[i]
				i = min(i+n, len(args))
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
