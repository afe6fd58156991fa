package shell

import (
	"encoding/base64"
	"slices"
	"strings"
	"sync"
)

// Interpreters run code given on their command line or on stdin
// (python -c, python3 - <<EOF, perl -e, ruby -e, node -e, php -r, awk's
// program), and that code can start processes: os.system("ssh web-01
// reboot") runs ssh as surely as the shell would. The analysis reads such
// code with a bounded reader of each language's string literals and call
// shapes (see interplex.go for the tokens): a process started with a
// literal command is analysed as that command, through the same shell
// analysis; a process started with a command known only at run time, or
// by a function the reader sees handed on rather than called, is dynamic;
// code that starts no process reports nothing. It is not a parser of those
// languages: what it reads is listed per language below and in
// docs/shell-analysis.md.

// Bounds of the interpreter reader: code longer than maxInterpCode bytes
// is past a limit (asked), and code a literal eval hands on is read at
// most maxInterpDepth deep.
const (
	maxInterpCode  = 1 << 20
	maxInterpDepth = 4
)

// procKind is how a process is started.
type procKind uint8

const (
	procShell procKind = iota + 1 // a command line run by a shell
	procArgv                      // a program and its arguments
)

// proc is a process the code starts.
type proc struct {
	kind procKind
	text string   // for procShell
	argv []string // for procArgv
	via  string   // the function that starts it, for Via
}

// interpResult is what the reader found in some code.
type interpResult struct {
	procs []proc
	// dynamic lists the functions that start a process with a command
	// known only at run time, or that the code hands on.
	dynamic []string
	// limit is set when the code is past a bound of the reader.
	limit bool
	// budget is how many more tokens the reader may scan for call
	// arguments, which bounds its cost however the calls nest.
	budget int
}

// spend takes n tokens from the budget, and sets limit past it.
func (r *interpResult) spend(n int) bool {
	r.budget -= n
	if r.budget < 0 {
		r.limit = true
		return false
	}
	return true
}

func (r *interpResult) start(kind procKind, via, text string, argv []string) {
	r.procs = append(r.procs, proc{kind: kind, text: text, argv: argv, via: via})
}

func (r *interpResult) unknown(via string) { r.dynamic = append(r.dynamic, via) }

// interpreter describes how an interpreter is given code.
type interpreter struct {
	lang string
	// code are the options whose value is code ("-c", "-e"); they may end
	// a cluster ("-uc", "-ne") or hold the code ("-e'print 1'").
	code string
	// long are the long options whose value is code ("--eval").
	long []string
	// values are the letters of other options that take a value.
	values string
	// longValues are the long options that take a value.
	longValues []string
	// many says that the code options may repeat, their code joined by
	// newlines (perl -e, ruby -e).
	many bool
	// module names the option that runs a module instead of code
	// (python -m), after which the words are the module's.
	module byte
	// files are the letters and long options that name a program file
	// instead (awk -f), read when the command string wrote it.
	files     string
	longFiles []string
	// preload are the letters and long options whose value is a module
	// loaded before the code (node -r, --import): a data: URL is code,
	// and so is a module the command string wrote.
	preload     string
	longPreload []string
	// noScript says that the operands are not a script (emacs visits
	// them as files).
	noScript bool
}

// interpreters are the interpreters the analysis reads, by command name
// (python3.12 and php8.2 are python and php).
var interpreters = sync.OnceValue(func() map[string]interpreter {
	return map[string]interpreter{
		"python": {lang: "python", code: "c", values: "WXQ", module: 'm'},
		"perl":   {lang: "perl", code: "eE", many: true},
		"ruby":   {lang: "ruby", code: "e", values: "ICErF", many: true},
		"node":   {lang: "js", code: "ep", long: []string{"eval", "print"}, values: "C", longValues: []string{"input-type", "conditions", "env-file"}, preload: "r", longPreload: []string{"require", "import", "loader", "experimental-loader"}},
		"bun":    {lang: "js", code: "ep", long: []string{"eval", "print"}, values: "", longValues: []string{"cwd", "env-file"}, preload: "r", longPreload: []string{"preload"}},
		"php":    {lang: "php", code: "rBRE", values: "cdzt", many: true, files: "fF", longValues: []string{"define"}},
		"awk":    {lang: "awk", code: "e", values: "vFilL", many: true, files: "fE", long: []string{"source"}, longValues: []string{"assign", "field-separator", "include", "load"}, longFiles: []string{"file", "exec"}},
		"tclsh":  {lang: "tcl"},
		"lua":    {lang: "lua", code: "e", many: true, values: "l"},
		"R":      {lang: "r", code: "e", many: true, files: "f", longFiles: []string{"file"}, longValues: []string{"encoding", "args"}},
		"julia":  {lang: "julia", code: "eE", many: true, files: "L", values: "CJOgpMt", longFiles: []string{"load"}, longValues: []string{"project", "threads", "sysimage", "startup-file", "history-file", "compile", "optimize", "check-bounds", "depwarn", "color", "banner", "inline", "math-mode", "procs", "machine-file"}},
		"emacs":  {lang: "elisp", long: []string{"eval", "execute"}, many: true, longFiles: []string{"load", "script"}, longValues: []string{"funcall", "directory", "chdir", "eval-file", "insert", "display", "name", "title", "font", "geometry", "user", "init-directory"}, noScript: true},
	}
})

// interpreterOf returns the interpreter a command name runs, and the name
// it is known by.
func interpreterOf(name string) (interpreter, string, bool) {
	base := strings.TrimRight(name, "0123456789.")
	switch base {
	case "python", "pypy":
		return interpreters()["python"], "python", true
	case "perl", "ruby", "php", "bun":
		return interpreters()[base], base, true
	case "node", "nodejs":
		return interpreters()["node"], "node", true
	case "awk", "gawk", "mawk", "nawk":
		return interpreters()["awk"], "awk", true
	case "tclsh", "wish", "jimsh":
		return interpreters()["tclsh"], base, true
	case "lua", "luajit":
		return interpreters()["lua"], base, true
	case "R", "Rscript":
		return interpreters()["R"], base, true
	case "julia":
		return interpreters()["julia"], base, true
	case "emacs", "emacs-nox":
		return interpreters()["emacs"], "emacs", true
	}
	return interpreter{}, "", false
}

// interp analyses the code an interpreter runs: the value of its code
// options, its program operand (awk), the script it reads on stdin (also
// from /dev/stdin or a descriptor, or as "-"), a program file (awk -f,
// php -f) or module (python -m, node -r, --import) the command string
// wrote, and a module given as a data: URL. A script or program in a
// file the command string does not show is not read, as for the shell.
// The interpreter itself is reported as an invocation by the caller.
func (a *analyzer) interp(c *code, it interpreter, label, src string, args []field, in *input) {
	if it.lang == "elisp" {
		args = emacsArgs(args)
	}
	var codes, loaded []field
	program := false // the program came from a file option
	i := 0
	// load reads the file or module an option names; it reports false
	// for one the command string does not show.
	load := func(v field, preload bool) {
		if f, ok := a.moduleCode(c, src, v, in, preload); ok {
			loaded = append(loaded, f)
		}
		program = program || !preload
	}
options:
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
			opt, val, hasVal := strings.Cut(s[2:], "=")
			switch {
			case slices.Contains(it.longFiles, opt), slices.Contains(it.longPreload, opt):
				v := staticField(val)
				if !hasVal && i < len(args) {
					v, i = args[i], i+1
				}
				load(v, slices.Contains(it.longPreload, opt))
			case slices.Contains(it.long, opt):
				if hasVal {
					codes = append(codes, staticField(val))
				} else if i < len(args) {
					codes = append(codes, args[i])
					i++
				}
				if !it.many {
					break options
				}
			case slices.Contains(it.longValues, opt) && !hasVal && i < len(args):
				i++
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			letter := s[j]
			switch {
			case strings.IndexByte(it.code, letter) >= 0:
				if j < len(s)-1 {
					codes = append(codes, staticField(s[j+1:]))
				} else if i < len(args) {
					codes = append(codes, args[i])
					i++
				}
				if !it.many {
					break options
				}
				continue options
			case strings.IndexByte(it.files, letter) >= 0, strings.IndexByte(it.preload, letter) >= 0:
				v := staticField(s[j+1:])
				if j == len(s)-1 && i < len(args) {
					v, i = args[i], i+1
				}
				load(v, strings.IndexByte(it.preload, letter) >= 0)
				continue options
			case it.module != 0 && letter == it.module:
				// python -m MODULE runs MODULE.py or MODULE/__main__.py.
				mod := staticField(s[j+1:])
				if mod.val == "" && i < len(args) {
					mod = args[i]
				}
				if !mod.dyn {
					p := strings.ReplaceAll(mod.val, ".", "/")
					if _, ok := a.wroteFile(p + ".py"); !ok {
						p += "/__main__"
					}
					mod.val = p + ".py"
				}
				load(mod, false)
				break options
			case it.lang == "perl" && (letter == 'M' || letter == 'm'):
				// perl runs -MModule=args as "use Module args;".
				codes = append(codes, staticField("use "+strings.Replace(s[j+1:], "=", " ", 1)+";"))
				continue options
			case strings.IndexByte(it.values, letter) >= 0:
				if j == len(s)-1 && i < len(args) {
					i++
				}
				continue options
			}
		}
	}
	var script *input
	switch {
	case program:
		// The program, or the script, is the file an option named.
	case len(codes) > 0:
	case it.lang == "awk":
		// The first operand is the program.
		if i < len(args) {
			codes = append(codes, args[i])
		}
	case it.noScript:
	case i < len(args) && !args[i].dyn && args[i].val == "-", i >= len(args):
		script = in
	default:
		if f, isFile := a.scriptFile(args[i], in); isFile {
			script = f
		}
	}
	codes = append(loaded, codes...)
	lang := it.lang
	if lang == "php" && script == nil && !program {
		// php -r and its kin take code without <?php tags.
		lang = "php-code"
	}
	if script != nil {
		switch script.kind {
		case inText:
			codes = append(codes, staticField(script.text))
		case inDynamic:
			// A script known only at run time: curl ... | python3.
			a.dynamic(c, src)
			if script.code == "" {
				return
			}
			codes = append(codes, staticField(script.code))
		default:
			return
		}
	}
	if len(codes) == 0 {
		return
	}
	var text strings.Builder
	for k, f := range codes {
		if k > 0 {
			text.WriteByte('\n')
		}
		if f.dyn {
			// Code with run-time parts: its static parts are read.
			a.dynamic(c, src)
			text.WriteString(f.skel)
			continue
		}
		text.WriteString(f.val)
	}
	a.interpCode(c, label, src, lang, text.String())
}

// emacsArgs returns emacs's arguments with its options of one dash and
// its short options spelled long, as the interpreter table names them.
func emacsArgs(args []field) []field {
	out := make([]field, len(args))
	for i, f := range args {
		out[i] = f
		if f.dyn {
			continue
		}
		switch name, val, hasVal := strings.Cut(f.val, "="); name {
		case "-eval", "-execute", "-load", "-script", "-batch", "-funcall", "-directory", "-chdir", "-insert", "-l", "-x", "-f":
			long := map[string]string{"-l": "--load", "-x": "--script", "-f": "--funcall"}[name]
			if long == "" {
				long = "-" + name
			}
			if hasVal {
				long += "=" + val
			}
			out[i] = staticField(long)
		}
	}
	return out
}

// moduleCode returns the code of a file or module an interpreter's option
// names: a data: URL's (node --import=data:text/javascript,CODE), or what
// the command string wrote there; one decided at run time is dynamic. It
// reports false for a file the command string does not show.
func (a *analyzer) moduleCode(c *code, src string, v field, in *input, preload bool) (field, bool) {
	if v.dyn {
		a.dynamic(c, src)
		return field{}, false
	}
	if preload {
		if code, ok := dataURL(v.val); ok {
			return staticField(code), true
		} else if strings.HasPrefix(v.val, "data:") {
			a.dynamic(c, src)
			return field{}, false
		}
	}
	f, ok := a.scriptFile(v, in)
	switch {
	case !ok:
		return field{}, false
	case f.kind == inText:
		return staticField(f.text), true
	case f.kind == inDynamic:
		a.dynamic(c, src)
		if f.code != "" {
			return staticField(f.code), true
		}
	}
	return field{}, false
}

// dataURL returns the text of a data: URL, percent-decoded or, with
// ;base64, base64-decoded.
func dataURL(u string) (string, bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", false
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", false
	}
	if strings.HasSuffix(meta, ";base64") {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			if b, err = base64.RawStdEncoding.DecodeString(data); err != nil {
				return "", false
			}
		}
		return string(b), true
	}
	return percentDecode(data)
}

// percentDecode decodes a data: URL's %XX escapes, as url.PathUnescape
// does (which would link net/url, and net/netip's start-up, into every
// hook process); it reports false on a malformed escape.
func percentDecode(s string) (string, bool) {
	if !strings.Contains(s, "%") {
		return s, true
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", false
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), true
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// interpCode reads code of a language and analyses the processes it
// starts.
func (a *analyzer) interpCode(c *code, label, src, lang, code string) {
	if len(code) > maxInterpCode {
		a.unparsed(code, label+" code too long to read", c.host, c.via)
		return
	}
	if !a.reparse(code, c.host, c.via) {
		return
	}
	var r interpResult
	readInterp(&r, lang, code, 0)
	if r.limit {
		a.unparsed(code, label+" code nested too deep to read", c.host, c.via)
	}
	if len(r.dynamic) > 0 {
		a.dynamic(c, src)
	}
	for _, p := range r.procs {
		step := label + " " + p.via
		if bareShell(p) {
			// A shell reading the script the code writes to it.
			a.dynamic(c, src)
			continue
		}
		switch p.kind {
		case procShell:
			a.codeFields(c, step, src, []field{staticField(p.text)}, nil)
		case procArgv:
			fields := make([]field, len(p.argv))
			for k, w := range p.argv {
				fields[k] = staticField(w)
			}
			if len(fields) > 0 {
				a.run(c.with(step), src, fields, nil)
			}
		}
	}
}

// bareShell reports whether a process is a shell with neither a command
// nor a script, which runs what it reads on stdin: code the interpreter
// writes at run time.
func bareShell(p proc) bool {
	words := p.argv
	if p.kind == procShell {
		words = strings.Fields(p.text)
	}
	if len(words) == 0 {
		return false
	}
	switch baseName(words[0]) {
	case "sh", "bash", "dash", "zsh", "ksh", "ash", "fish", "csh", "tcsh":
	default:
		return false
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") || strings.Contains(w, "c") && !strings.HasPrefix(w, "--") {
			return false
		}
	}
	return true
}

// readInterp reads code of a language into r; depth counts the literal
// evals it came through.
func readInterp(r *interpResult, lang, code string, depth int) {
	if depth > maxInterpDepth {
		r.limit = true
		return
	}
	if depth == 0 {
		r.budget = 8*len(code) + 1024
	}
	switch lang {
	case "python":
		readPython(r, lexPython(code).toks, depth)
	case "js":
		readJS(r, lexJS(code).toks, depth)
	case "perl":
		readPerl(r, lexPerl(code).toks, depth)
	case "ruby":
		readRuby(r, lexRuby(code).toks, depth)
	case "php":
		readPHP(r, lexPHP(phpCode(code)).toks, depth)
	case "php-code":
		readPHP(r, lexPHP(code).toks, depth)
	case "awk":
		readAwk(r, lexAwk(code).toks)
	case "tcl":
		readTcl(r, code, 0)
	case "lua":
		readLua(r, lexLua(code).toks, depth)
	case "r":
		readR(r, lexR(code).toks, depth)
	case "julia":
		readJulia(r, lexJulia(code).toks, depth)
	case "elisp":
		readLisp(r, lexLisp(code).toks)
	}
}

// phpCode returns the code of a PHP file: what lies between <?php (or
// <?= or <?) and ?>; the text around it is output.
func phpCode(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "<?")
		if i < 0 {
			return b.String()
		}
		s = s[i+2:]
		s = strings.TrimPrefix(strings.TrimPrefix(s, "php"), "=")
		end := strings.Index(s, "?>")
		if end < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:end])
		b.WriteString(";\n")
		s = s[end+2:]
	}
}

// args splits the tokens of a call's arguments, toks[open] being its
// opening bracket, into arguments at depth 0, and returns the index after
// the closing bracket.
func (r *interpResult) callArgs(toks []token, open int) ([][]token, int) {
	if r.limit {
		return nil, len(toks)
	}
	// The scan stops where the budget ends.
	out, end := callArgsWithin(toks, open, r.budget)
	if !r.spend(end - open) {
		return nil, len(toks)
	}
	return out, end
}

func callArgs(toks []token, open int) ([][]token, int) {
	return callArgsWithin(toks, open, len(toks))
}

// closers are the closing brackets of the opening ones.
var closers = sync.OnceValue(func() map[string]string {
	return map[string]string{"(": ")", "[": "]", "{": "}"}
})

// callArgsWithin is callArgs scanning at most limit tokens.
func callArgsWithin(toks []token, open, limit int) ([][]token, int) {
	want := closers()[toks[open].text]
	var out [][]token
	depth := 0
	start := open + 1
	for i := open + 1; i < len(toks); i++ {
		if i-open > limit {
			return nil, i
		}
		t := toks[i]
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			if depth == 0 {
				if t.text == want && i > start {
					out = append(out, toks[start:i])
				}
				return out, i + 1
			}
			depth--
		case ",":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		}
	}
	if start < len(toks) {
		out = append(out, toks[start:])
	}
	return out, len(toks)
}

// bareArgs splits the arguments of a call without brackets (perl's
// system LIST, ruby's system "cmd") that end at a ";", a closing bracket
// or one of stops.
func (r *interpResult) bareArgs(toks []token, from int, stops map[string]bool) ([][]token, int) {
	if r.limit {
		return nil, len(toks)
	}
	out, end := bareArgs(toks, from, stops)
	if !r.spend(end - from) {
		return nil, len(toks)
	}
	return out, end
}

func bareArgs(toks []token, from int, stops map[string]bool) ([][]token, int) {
	var out [][]token
	depth := 0
	start := from
	i := from
	for ; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tIdent && depth == 0 && stops[t.text] {
			break
		}
		if t.kind != tPunct {
			continue
		}
		switch t.text {
		case "(", "[", "{":
			depth++
			continue
		case ")", "]", "}":
			if depth == 0 {
				goto done
			}
			depth--
			continue
		case ";":
			if depth == 0 {
				goto done
			}
		case ",":
			if depth == 0 {
				out = append(out, toks[start:i])
				start = i + 1
			}
		}
	}
done:
	if i > start {
		out = append(out, toks[start:i])
	}
	return out, i
}

// literal returns the value of an argument made only of string literals
// joined by concat (or side by side, where adjacent is set). dyn reports
// a literal that interpolates; ok is false for anything else.
func literalOf(arg []token, concat string, adjacent bool) (val string, ok bool) {
	if len(arg) == 0 {
		return "", false
	}
	var b strings.Builder
	wantString := true
	for _, t := range arg {
		switch {
		case t.kind == tString && !t.dyn && !t.cmd && (wantString || adjacent):
			b.WriteString(t.text)
			wantString = false
		case t.kind == tPunct && t.text == concat && !wantString:
			wantString = true
		case t.kind == tPunct && (t.text == "(" || t.text == ")") && len(arg) > 1:
			// ("ls" + " -l")
		default:
			return "", false
		}
	}
	return b.String(), !wantString
}

// listOf returns the strings of a list literal argument: [a, b] (or (a,
// b) where parens is set), each a literal.
func listOf(arg []token, concat string, adjacent bool) ([]string, bool) {
	if len(arg) < 2 || arg[0].kind != tPunct || arg[0].text != "[" && arg[0].text != "(" {
		return nil, false
	}
	elems, end := callArgs(arg, 0)
	if end != len(arg) {
		return nil, false
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		v, ok := literalOf(e, concat, adjacent)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

// command reads the command a process-starting function is given as its
// arguments from first on: a literal string is a command line, a list of
// literals (or, with spread set, several literal arguments) a program
// and its arguments; anything else is known only at run time.
func (r *interpResult) command(via string, args [][]token, first int, concat string, adjacent, spread bool) {
	if first >= len(args) {
		r.unknown(via)
		return
	}
	arg := args[first]
	if v, ok := literalOf(arg, concat, adjacent); ok {
		if spread && first+1 < len(args) {
			argv := []string{v}
			for _, a := range args[first+1:] {
				if kwarg(a) {
					continue
				}
				w, ok := literalOf(a, concat, adjacent)
				if !ok {
					r.unknown(via)
					return
				}
				argv = append(argv, w)
			}
			r.start(procArgv, via, "", argv)
			return
		}
		r.start(procShell, via, v, nil)
		return
	}
	if list, ok := listOf(arg, concat, adjacent); ok && len(list) > 0 {
		r.start(procArgv, via, "", list)
		return
	}
	r.unknown(via)
}

// kwarg reports whether an argument is a keyword argument (name=value)
// or an options object.
func kwarg(arg []token) bool {
	return len(arg) > 1 && arg[0].kind == tIdent && arg[1].kind == tPunct && (arg[1].text == "=" || arg[1].text == ":") ||
		len(arg) > 0 && arg[0].kind == tPunct && arg[0].text == "{"
}

// dottedName reads a name such as os.path.join or child_process.execSync
// from toks[i] and returns its parts and the index after it.
func dottedName(toks []token, i int) ([]string, int) {
	parts := []string{toks[i].text}
	i++
	for i+1 < len(toks) && toks[i].kind == tPunct && toks[i].text == "." && toks[i+1].kind == tIdent {
		parts = append(parts, toks[i+1].text)
		i += 2
	}
	return parts, i
}

func isPunct(toks []token, i int, text string) bool {
	return i < len(toks) && toks[i].kind == tPunct && toks[i].text == text
}
