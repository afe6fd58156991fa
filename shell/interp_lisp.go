package shell

// Emacs Lisp (emacs --eval, --batch -l, --script) starts processes with
// shell-command, shell-command-to-string, async-shell-command,
// call-process-shell-command and start-process-shell-command (a command
// line), and call-process, process-file, process-lines, start-process and
// make-process (a program and its arguments). Forms are read wherever
// they are, quoted ones too; eval, funcall and apply of anything but a
// quoted name of a function that starts no process, and load, are
// dynamic.

// lexLisp reads Lisp: ; comments, "..." strings, ?c characters, brackets
// and symbols.
func lexLisp(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == ';':
			l.skipTo("\n")
		case ch == '"':
			l.i++
			v, _ := l.quoted(`"`, true, "")
			l.emit(token{kind: tString, text: v})
		case ch == '?' && l.i+1 < len(src):
			l.i += 2
			if src[l.i-1] == '\\' && l.i < len(src) {
				l.i++
			}
		case ch == '(' || ch == ')' || ch == '[' || ch == ']' || ch == '\'' || ch == '`' || ch == ',':
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		case ch <= ' ':
			l.i++
		default:
			start := l.i
			for l.i < len(src) && src[l.i] > ' ' && !isLispDelimiter(src[l.i]) {
				if src[l.i] == '\\' {
					l.i++
				}
				l.i++
			}
			l.emit(token{kind: tIdent, text: src[start:min(l.i, len(src))]})
		}
	}
	return l
}

func isLispDelimiter(b byte) bool {
	switch b {
	case '(', ')', '[', ']', '"', ';', '\'', '`', ',':
		return true
	}
	return false
}

// lispShell are the functions whose argument at the index given is a
// command line; lispArgv those whose program is at the index given and
// whose arguments start at the second.
var (
	lispShell = map[string]int{
		"shell-command": 0, "shell-command-to-string": 0, "async-shell-command": 0,
		"call-process-shell-command": 0, "process-file-shell-command": 0, "start-process-shell-command": 2,
		"start-file-process-shell-command": 2,
	}
	lispArgv = map[string][2]int{
		"call-process": {0, 4}, "process-file": {0, 4}, "process-lines": {0, 1},
		"process-lines-ignore-status": {0, 1}, "start-process": {2, 3}, "start-file-process": {2, 3},
	}
)

// readLisp reads the process calls of Emacs Lisp.
func readLisp(r *interpResult, toks []token) {
	for i := 0; i+1 < len(toks); i++ {
		if !isPunct(toks, i, "(") || toks[i+1].kind != tIdent {
			continue
		}
		fn := toks[i+1].text
		idx, isShell := lispShell[fn]
		argv, isArgv := lispArgv[fn]
		dynamic := fn == "eval" || fn == "funcall" || fn == "apply" || fn == "load" || fn == "make-process" || fn == "make-pipe-process"
		if !isShell && !isArgv && !dynamic {
			continue
		}
		args, _ := lispArgs(r, toks, i+1)
		switch {
		case isShell:
			r.command(fn, args, idx, "", false, false)
		case isArgv:
			var words [][]token
			if argv[0] < len(args) {
				words = append(words, args[argv[0]])
				if argv[1] < len(args) {
					words = append(words, args[argv[1]:]...)
				}
			}
			r.command(fn, words, 0, "", false, true)
		case fn == "make-process" || fn == "make-pipe-process":
			lispMakeProcess(r, fn, args)
		case (fn == "funcall" || fn == "apply") && len(args) > 0 && len(args[0]) == 2 && isPunct(args[0], 0, "'"):
			// A function by its name: one of the above is called with
			// the other arguments; another starts no process.
			name := args[0][1].text
			if k, ok := lispShell[name]; ok {
				r.command(name, args[1:], k, "", false, false)
			} else if _, ok := lispArgv[name]; ok || name == "make-process" {
				r.unknown(fn)
			}
		case fn == "eval" && len(args) > 0 && isPunct(args[0], 0, "'"):
			// A quoted form, read where it is.
		default:
			r.unknown(fn)
		}
		// The forms inside this one are read too, as the loop goes on:
		// a call in an argument runs first, and eval's quoted form where
		// it is.
	}
}

// lispArgs returns the arguments of the form whose function is toks[at],
// each a token or a bracketed form, and the index after the form.
func lispArgs(r *interpResult, toks []token, at int) ([][]token, int) {
	var out [][]token
	depth := 0
	start := at + 1
	for i := at + 1; i < len(toks); i++ {
		if !r.spend(1) {
			return nil, len(toks)
		}
		t := toks[i]
		switch {
		case isPunct(toks, i, "(") || isPunct(toks, i, "["):
			depth++
		case isPunct(toks, i, ")") || isPunct(toks, i, "]"):
			if depth == 0 {
				return out, i + 1
			}
			depth--
			if depth == 0 {
				out = append(out, toks[start:i+1])
				start = i + 1
			}
			continue
		case t.kind == tPunct && (t.text == "'" || t.text == "`" || t.text == ","):
			continue
		}
		if depth == 0 && !isPunct(toks, i, "(") && !isPunct(toks, i, "[") {
			out = append(out, toks[start:i+1])
			start = i + 1
		}
	}
	return out, len(toks)
}

// lispMakeProcess reads (make-process ... :command '("prog" "args")).
func lispMakeProcess(r *interpResult, fn string, args [][]token) {
	for k := 0; k+1 < len(args); k++ {
		if len(args[k]) != 1 || args[k][0].text != ":command" {
			continue
		}
		list := args[k+1]
		if len(list) > 0 && isPunct(list, 0, "'") {
			list = list[1:]
		}
		if len(list) > 0 && list[0].kind == tIdent && list[0].text == "list" {
			list = list[1:]
		}
		var argv []string
		for _, t := range list {
			switch {
			case t.kind == tString:
				argv = append(argv, t.text)
			case t.kind == tPunct && (t.text == "(" || t.text == ")"):
			case t.kind == tIdent && t.text == "list":
			default:
				r.unknown(fn)
				return
			}
		}
		if len(argv) > 0 {
			r.start(procArgv, fn, "", argv)
			return
		}
	}
	r.unknown(fn)
}
