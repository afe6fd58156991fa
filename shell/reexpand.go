package shell

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Bash expands some text a second time, after the quotes that made it
// data are gone, and runs the command substitutions it then finds:
//
//   - An array subscript is an arithmetic expression, expanded when it is
//     evaluated: a quoted string in arithmetic ("(( 'a[$(cmd)]' ))",
//     "${a['$(cmd)']}", "let 'x=a[$(cmd)]'"), the operand of [[ -v ]] and
//     of [[ ]]'s arithmetic comparisons, and a variable name with a
//     subscript given to a builtin that assigns or tests it (declare,
//     local, unset, printf -v, read, test -v, wait -p).
//   - The value of a variable is evaluated as arithmetic when the variable
//     is: "x='a[$(cmd)]'; (( x ))", "${!x}", a nameref, declare -i.
//   - A prompt string is expanded when it is shown: PS4 before each
//     command traced by set -x, PS0, PS1, PS2 in an interactive shell,
//     and "${x@P}".
//
// The analysis expands such text again, as a heredoc body (the expansions
// without the quotes), and analyses the substitutions it holds as code.
// A value that assigns a subscript with a substitution is taken as
// possibly evaluated later. What bash expands again at run time from text
// the analysis cannot see ("${x@P}", a subscript holding an expansion
// given to such a builtin) is dynamic.

// reexpand analyses the command substitutions bash finds when it expands
// text again.
func (a *analyzer) reexpand(c *code, text, label string) {
	if !holdsSubst(text) {
		return
	}
	via := appendVia(c.via, label)
	if c.depth >= maxReparse {
		a.unparsed(text, errTooDeep.Error(), c.host, via)
		return
	}
	if !a.reparse(text, c.host, via) {
		return
	}
	src, cr := protectCR(text)
	inner := &code{src: src, cr: cr, host: c.host, via: via, depth: c.depth + 1, lang: c.lang}
	var (
		w   *syntax.Word
		err error
	)
	func() {
		// As in walkSource: the parser may panic on input it cannot
		// handle, and the hook must answer.
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("parser failure: %v", r)
			}
		}()
		p := a.parser(c.lang)
		if w, err = p.Document(&depthReader{a: a, src: src}); err == nil {
			a.release(c.lang, p)
		}
	}()
	if err != nil {
		a.out.Unparsed = append(a.out.Unparsed, Unparsed{
			Text: text, Err: err.Error(), Host: c.host, Via: via,
			Limit: errors.Is(err, errTooDeep) || errors.Is(err, errTooLarge),
		})
		return
	}
	a.wordIn(inner, w, true)
}

// holdsSubst reports whether text holds a command substitution, $(...) or
// `...`, once expanded.
func holdsSubst(text string) bool {
	return strings.Contains(text, "$(") || strings.IndexByte(text, '`') >= 0
}

// armedSubscript reports whether text names an array element whose
// subscript holds a command substitution, "a[$(cmd)]", which bash runs
// when it evaluates the subscript.
func armedSubscript(text string) bool {
	i := strings.IndexByte(text, '[')
	return i >= 0 && holdsSubst(text[i:])
}

// quotedText returns the text of a word's quoted parts, which an
// arithmetic expansion expands again.
func quotedText(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.SglQuoted:
			b.WriteString(singleQuoted(x))
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				}
			}
		}
	}
	return b.String()
}

// arithWord walks a word of an arithmetic expression: its code, and the
// substitutions its quoted text holds once expanded again.
func (a *analyzer) arithWord(c *code, w *syntax.Word) {
	a.word(c, w)
	if len(w.Parts) > 1 || len(w.Parts) == 1 && !isLit(w.Parts[0]) {
		a.reexpand(c, quotedText(w), "arithmetic")
	}
}

func isLit(p syntax.WordPart) bool {
	_, ok := p.(*syntax.Lit)
	return ok
}

// envKind says what the value of a variable is to the programs that read
// it from their environment.
type envKind uint8

const (
	envNone envKind = iota
	// envCode is shell code, run with sh -c (PAGER, EDITOR,
	// PROMPT_COMMAND).
	envCode
	// envTransport is an ssh command that the program runs with a host
	// and a command of its own (GIT_SSH_COMMAND, RSYNC_RSH).
	envTransport
	// envProgram is a program the program runs with arguments of its
	// own (GIT_ASKPASS, GIT_EXTERNAL_DIFF).
	envProgram
	// envPrompt is a prompt string, expanded when shown (PS4).
	envPrompt
	// envScript names a file of code that runs first (BASH_ENV, ENV), or
	// a library loaded into the program (LD_PRELOAD), or options that
	// load code (PERL5OPT).
	envScript
)

// envVars are the variables whose value is code to some program.
var envVars = sync.OnceValue(func() map[string]envKind {
	return map[string]envKind{
		"PROMPT_COMMAND": envCode, "PAGER": envCode, "GIT_PAGER": envCode, "MANPAGER": envCode,
		"SYSTEMD_PAGER": envCode, "EDITOR": envCode, "VISUAL": envCode, "GIT_EDITOR": envCode,
		"GIT_SEQUENCE_EDITOR": envCode, "SUDO_EDITOR": envCode, "FCEDIT": envCode,
		"LESSOPEN": envCode, "LESSCLOSE": envCode, "KUBE_EDITOR": envCode, "SYSTEMD_EDITOR": envCode,
		"GH_EDITOR": envCode, "GH_PAGER": envCode, "SVN_EDITOR": envCode, "HGEDITOR": envCode,
		"PSQL_EDITOR": envCode, "PSQL_PAGER": envCode, "AWS_PAGER": envCode,
		"GIT_SSH_COMMAND": envTransport, "GIT_SSH": envTransport, "RSYNC_RSH": envTransport,
		"SVN_SSH": envTransport, "CVS_RSH": envTransport,
		"GIT_ASKPASS": envProgram, "SSH_ASKPASS": envProgram, "SUDO_ASKPASS": envProgram,
		"GIT_EXTERNAL_DIFF": envProgram, "GIT_PROXY_COMMAND": envProgram, "BROWSER": envProgram,
		"PS0": envPrompt, "PS1": envPrompt, "PS2": envPrompt, "PS4": envPrompt,
		"BASH_ENV": envScript, "ENV": envScript, "LD_PRELOAD": envScript, "LD_AUDIT": envScript,
		"PERL5OPT": envScript,
	}
})

// assignedCode analyses the code an assignment hands on: a value that is
// code to the programs that read the variable (see envVars), a function
// exported through the environment (BASH_FUNC_NAME%%=() { ... }), and
// a subscript with a substitution, which bash runs when it evaluates it.
func (a *analyzer) assignedCode(c *code, src, name string, value field) {
	if i := strings.IndexByte(name, '['); i > 0 {
		// NAME[SUBSCRIPT]=VALUE given as one word to a builtin.
		a.reexpand(c, name[i:], "subscript")
		name = name[:i]
	}
	if value.val == "" && !value.dyn {
		return
	}
	label := name + "="
	switch envVars()[name] {
	case envCode:
		a.codeFields(c, label, src, []field{value}, nil)
		return
	case envTransport:
		a.transport(c, label, src, value)
		return
	case envProgram:
		a.run(c.with(label), src, []field{value}, nil)
		return
	case envPrompt:
		if value.dyn {
			a.dynamic(c, src)
		} else {
			a.reexpand(c, value.val, label)
		}
		return
	case envScript:
		if value.file != nil && a.stdinCode(c, c.host, c.via, label, src, value.file) {
			return
		}
		a.dynamic(c, src)
		return
	}
	if body, ok := exportedFunction(name); ok {
		a.functionValue(c, src, body, value)
		return
	}
	if a.optionsValue(c, src, name, value) {
		return
	}
	if !value.dyn && armedSubscript(value.val) {
		a.reexpand(c, value.val, label)
	}
}

// exportedFunction reports whether name is how bash exports a function
// through the environment: BASH_FUNC_NAME%%.
func exportedFunction(name string) (string, bool) {
	fn, ok := strings.CutPrefix(name, "BASH_FUNC_")
	fn, ok2 := strings.CutSuffix(fn, "%%")
	return fn, ok && ok2 && fn != ""
}

// functionValue analyses the body of a function a bash started with
// BASH_FUNC_NAME%%="() { BODY }" imports, as the body of a function
// defined in the command string is.
func (a *analyzer) functionValue(c *code, src, name string, value field) {
	if value.dyn {
		a.dynamic(c, src)
		return
	}
	if !validAliasName(name) {
		name = "f"
	}
	a.codeAt(c.handing(dBash), name+" "+value.val, c.host, appendVia(c.via, "BASH_FUNC_"+name+"%%"), nil)
}

// cutAssignment splits a word NAME=VALUE given to a builtin, env or sudo.
// The name must be static.
func cutAssignment(f field) (string, field, bool) {
	name, val, ok := strings.Cut(f.val, "=")
	if !ok || name == "" {
		return "", field{}, false
	}
	if !f.dyn {
		return name, staticField(val), true
	}
	name, approx, ok := strings.Cut(f.approx, "=")
	if !ok || strings.ContainsAny(name, "$`") {
		return "", field{}, false
	}
	_, skel, _ := strings.Cut(f.skel, "=")
	return name, field{val: approx, approx: approx, skel: skel, dyn: true}, true
}

// assignment analyses what an assignment statement, a prefix assignment
// or an argument of declare, export, local or readonly hands on.
func (a *analyzer) assignment(c *code, as *syntax.Assign) {
	src := c.source(as)
	switch {
	case as.Naked && as.Value != nil:
		// declare 'NAME=VALUE', or a quoted name: declare 'a[$(cmd)]'.
		f := c.field(as.Value)
		if name, value, ok := cutAssignment(f); ok {
			a.assignedCode(c, src, name, value)
		} else if !f.dyn {
			a.reexpand(c, subscriptOf(f.val), "subscript")
		}
	case as.Name != nil && as.Value != nil:
		a.assignedCode(c, src, as.Name.Value, c.field(as.Value))
	case as.Name != nil && as.Array != nil && envVars()[as.Name.Value] == envCode:
		// PROMPT_COMMAND=(A B) runs each element.
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				a.assignedCode(c, src, as.Name.Value, c.field(e.Value))
			}
		}
	case as.Array != nil:
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				if f := c.field(e.Value); !f.dyn && armedSubscript(f.val) {
					a.reexpand(c, f.val, "subscript")
				}
			}
		}
	}
}

// subscriptOf returns the subscript of NAME[SUBSCRIPT], or "".
func subscriptOf(s string) string {
	if i := strings.IndexByte(s, '['); i >= 0 {
		return s[i:]
	}
	return ""
}

// evaluated lists, per builtin, the options whose value is a variable
// name the builtin evaluates ("" for its operands), and the options whose
// value is code it runs.
var evaluated = sync.OnceValue(func() map[string]struct {
	opts  opts
	names []string
	code  []string
} {
	return map[string]struct {
		opts  opts
		names []string
		code  []string
	}{
		"unset":     {opts: noOpts, names: []string{""}},
		"read":      {opts: opts{short: "adinNptu"}, names: []string{""}},
		"printf":    {opts: opts{short: "v"}, names: []string{"-v"}},
		"test":      {opts: opts{short: "v"}, names: []string{"-v"}},
		"[":         {opts: opts{short: "v"}, names: []string{"-v"}},
		"wait":      {opts: opts{short: "p"}, names: []string{"-p"}},
		"mapfile":   {opts: opts{short: "dnOsuCc"}, code: []string{"-C"}},
		"readarray": {opts: opts{short: "dnOsuCc"}, code: []string{"-C"}},
		"compgen":   {opts: opts{short: "oAGWFCXPS"}, code: []string{"-C"}},
		"complete":  {opts: opts{short: "oAGWFCXPS"}, code: []string{"-C"}},
	}
})

// evaluatedWords analyses what a builtin evaluates of its words: the
// subscripts of the variable names it assigns or tests, and the code of
// its callback options. A subscript holding a run-time part is expanded
// again at run time: dynamic.
func (a *analyzer) evaluatedWords(c *code, name, src string, args []field) {
	e, ok := evaluated()[name]
	if !ok {
		return
	}
	i, seen := e.opts.parse(args)
	var names []field
	if name == "test" || name == "[" {
		// -v may come anywhere in an expression: [ -n "$x" -a -v NAME ].
		for k := 0; k+1 < len(args); k++ {
			if !args[k].dyn && args[k].val == "-v" {
				names = append(names, args[k+1])
			}
		}
		seen = nil
	}
	for _, n := range e.names {
		if n == "" {
			names = append(names, args[i:]...)
		} else if o, ok := seen.get(n); ok {
			names = append(names, o.val)
		}
	}
	for _, f := range names {
		switch {
		case f.dyn && strings.IndexByte(f.approx, '[') >= 0:
			a.dynamic(c, src)
		case !f.dyn:
			a.reexpand(c, subscriptOf(f.val), "subscript")
		}
	}
	for _, n := range e.code {
		if o, ok := seen.get(n); ok {
			a.codeFields(c, name+" "+n, src, []field{o.val}, nil)
		}
	}
}

// transportPlaceholder stands, in the code of a transport, for the host
// and command the program that runs it adds.
const transportPlaceholder = "${__rewind_transport__}"

// transport analyses an ssh command that a program runs with a host and a
// command of its own (git's core.sshCommand, rsync -e): ssh itself
// connects for that program, and what its options run is analysed (see
// sshTransport); any other command is analysed as code with those words
// decided at run time.
func (a *analyzer) transport(c *code, label, src string, value field) {
	extra := field{val: transportPlaceholder, approx: transportPlaceholder, skel: transportPlaceholder}
	a.codeFields(c, label, src, []field{value, extra}, nil)
}

// optionsValue analyses the variables that give a program options or
// configuration holding code: NODE_OPTIONS (modules node loads first),
// git's GIT_CONFIG_PARAMETERS and GIT_CONFIG_KEY_n with GIT_CONFIG_VALUE_n,
// and MAKEFLAGS (make --eval). It reports false for another variable.
func (a *analyzer) optionsValue(c *code, src, name string, value field) bool {
	switch {
	case name == "NODE_OPTIONS":
		if value.dyn {
			a.dynamic(c, src)
			return true
		}
		words := shellWords(value.val)
		for k := 0; k < len(words); k++ {
			opt, v, hasVal := strings.Cut(words[k], "=")
			switch opt {
			case "-r", "--require", "--import", "--loader", "--experimental-loader":
				if !hasVal && k+1 < len(words) {
					k++
					v = words[k]
				}
				if f, ok := a.moduleCode(c, src, staticField(v), nil, true); ok {
					a.interpCode(c, name+"=", src, "js", f.val)
				}
			}
		}
	case name == "GIT_CONFIG_PARAMETERS":
		if value.dyn {
			a.dynamic(c, src)
			return true
		}
		// 'key'='value' words, as git quotes them.
		for _, w := range shellWords(value.val) {
			if key, v, ok := strings.Cut(w, "="); ok {
				a.gitValue(c, src, key, staticField(v))
			}
		}
	case strings.HasPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_"):
		// A key and its value come in two variables, in either order.
		n, isValue := strings.TrimPrefix(name, "GIT_CONFIG_KEY_"), strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
		if isValue {
			n = strings.TrimPrefix(name, "GIT_CONFIG_VALUE_")
		}
		if a.gitEnv == nil {
			a.gitEnv = make(map[string][2]*field)
		}
		pair := a.gitEnv[n]
		v := value
		pair[btoi(isValue)] = &v
		if len(a.gitEnv) < maxNames {
			a.gitEnv[n] = pair
		}
		switch {
		case pair[0] == nil || pair[1] == nil:
		case pair[0].dyn:
			a.dynamic(c, src)
		default:
			a.gitValue(c, src, pair[0].val, *pair[1])
		}
	case name == "MAKEFLAGS", name == "MFLAGS", name == "GNUMAKEFLAGS":
		if value.dyn {
			a.dynamic(c, src)
			return true
		}
		a.makeFlags(c, src, makeWords(value.val))
	default:
		return false
	}
	return true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
