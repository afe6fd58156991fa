package shell

import (
	"strings"
)

// Lua, R and Julia are read for the calls that start a process:
//
//   - Lua: os.execute(CMD) and io.popen(CMD), also with a string and no
//     brackets (os.execute "cmd"), and through any table that holds them;
//     load and loadstring of a literal are read again.
//   - R: system(CMD), system2(CMD, ARGS), shell(CMD) and pipe(CMD);
//     eval(parse(text = CODE)) of a literal is read again.
//   - Julia: a command literal `prog args` (run, read, pipeline and open
//     all take one), Cmd([...]); eval(Meta.parse(CODE)) and
//     include_string of a literal are read again.
//
// A command made at run time, a process function handed on rather than
// called, and the others' eval of anything but a literal are dynamic.

// lexLua reads Lua: -- comments, --[[ ]] and [[ ]] long brackets, '...'
// and "..." strings.
func lexLua(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case strings.HasPrefix(src[l.i:], "--"):
			l.i += 2
			if level, ok := luaLongOpen(src[l.i:]); ok {
				l.i += level + 2
				l.skipTo("]" + strings.Repeat("=", level) + "]")
			} else {
				l.skipTo("\n")
			}
		case ch == '[':
			if level, ok := luaLongOpen(src[l.i:]); ok {
				l.i += level + 2
				start := l.i
				l.skipTo("]" + strings.Repeat("=", level) + "]")
				end := max(start, l.i-level-2)
				l.emit(token{kind: tString, text: strings.TrimPrefix(src[start:end], "\n")})
				continue
			}
			l.emit(token{kind: tPunct, text: "["})
			l.i++
		case ch == '"' || ch == '\'':
			l.i++
			v, _ := l.quoted(string(ch), true, "")
			l.emit(token{kind: tString, text: v})
		case isIdentStart(ch) && ch != '$':
			l.emit(token{kind: tIdent, text: l.ident(false)})
		case ch <= ' ':
			l.i++
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// luaLongOpen reports whether s opens a long bracket, [[ or [=[, and its
// level (the number of =).
func luaLongOpen(s string) (int, bool) {
	if !strings.HasPrefix(s, "[") {
		return 0, false
	}
	n := len(s[1:]) - len(strings.TrimLeft(s[1:], "="))
	return n, len(s) > n+1 && s[n+1] == '['
}

// readLua reads Lua's process calls.
func readLua(r *interpResult, toks []token, depth int) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tString && (t.text == "execute" || t.text == "popen") && i > 0 && isPunct(toks, i-1, "[") {
			// os["execute"](...): the member by its name.
			r.unknown(t.text)
			continue
		}
		if t.kind != tIdent {
			continue
		}
		if t.text == "ffi" {
			// ffi.C.system(...) calls C.
			r.unknown("ffi")
			continue
		}
		member := i > 0 && (isPunct(toks, i-1, ".") || isPunct(toks, i-1, ":"))
		switch {
		case member && (t.text == "execute" || t.text == "popen"):
			switch {
			case isPunct(toks, i+1, "("):
				args, end := r.callArgs(toks, i+1)
				r.command(t.text, args, 0, "..", false, false)
				i = end - 1
			case i+1 < len(toks) && toks[i+1].kind == tString:
				r.command(t.text, [][]token{toks[i+1 : i+2]}, 0, "..", false, false)
				i++
			default:
				// The function handed on, as a value.
				r.unknown(t.text)
			}
		case !member && (t.text == "load" || t.text == "loadstring" || t.text == "dofile" || t.text == "loadfile"):
			if !isPunct(toks, i+1, "(") {
				continue
			}
			args, end := r.callArgs(toks, i+1)
			if v, ok := firstLiteral(args, ".."); ok && (t.text == "load" || t.text == "loadstring") {
				readInterp(r, "lua", v, depth+1)
			} else {
				r.unknown(t.text)
			}
			i = end - 1
		}
	}
}

// firstLiteral returns the first argument of a call when it is a literal.
func firstLiteral(args [][]token, concat string) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	return literalOf(args[0], concat, false)
}

// lexR reads R: # comments, '...', "..." and raw r"(...)" strings; names
// hold dots and ::.
func lexR(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == '#':
			l.skipTo("\n")
		case (ch == 'r' || ch == 'R') && l.i+2 < len(src) && (src[l.i+1] == '"' || src[l.i+1] == '\''):
			// r"(...)", r"[...]", r"{...}", with dashes.
			q := src[l.i+1]
			j := l.i + 2
			dashes := 0
			for j < len(src) && src[j] == '-' {
				j++
				dashes++
			}
			if j >= len(src) || strings.IndexByte("([{", src[j]) < 0 {
				l.emit(token{kind: tIdent, text: string(ch)})
				l.i++
				continue
			}
			closer := perlClose(src[j])
			end := string(closer) + strings.Repeat("-", dashes) + string(q)
			l.i = j + 1
			start := l.i
			l.skipTo(end)
			l.emit(token{kind: tString, text: src[start:max(start, l.i-len(end))]})
		case ch == '"' || ch == '\'':
			l.i++
			v, _ := l.quoted(string(ch), true, "")
			l.emit(token{kind: tString, text: v})
		case isIdentStart(ch) && ch != '$' || ch == '.':
			start := l.i
			for l.i < len(src) && (isIdentByte(src[l.i]) && src[l.i] != '$' || src[l.i] == '.') {
				l.i++
			}
			l.emit(token{kind: tIdent, text: src[start:l.i]})
		case ch == ':' && strings.HasPrefix(src[l.i:], "::"):
			l.emit(token{kind: tPunct, text: "::"})
			l.i += 2
			if l.i < len(src) && src[l.i] == ':' {
				l.i++
			}
		case ch <= ' ':
			l.i++
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// readR reads R's process calls.
func readR(r *interpResult, toks []token, depth int) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || i > 0 && isPunct(toks, i-1, "$") {
			continue
		}
		switch t.text {
		case "system", "shell", "pipe", "system2", "do.call", "eval", "source":
		case "get", "get0", "match.fun", "getFunction", "processx", "sys", "callr":
			// A function found by its name, or a package that starts
			// processes: what runs is known only at run time.
			r.unknown(t.text)
			continue
		default:
			continue
		}
		if !isPunct(toks, i+1, "(") {
			if t.text != "eval" && t.text != "source" {
				r.unknown(t.text) // handed on
			}
			continue
		}
		args, end := r.callArgs(toks, i+1)
		i = end - 1
		switch t.text {
		case "system", "shell", "pipe":
			r.command(t.text, args, 0, "", false, false)
		case "system2":
			rAargv(r, args)
		case "eval":
			// eval(parse(text = "CODE")).
			if code, ok := rParseText(args); ok {
				readInterp(r, "r", code, depth+1)
			} else {
				r.unknown("eval")
			}
		default:
			r.unknown(t.text)
		}
	}
}

// rAargv reads system2(command, args = c(...)): a program and its
// arguments, each a literal.
func rAargv(r *interpResult, args [][]token) {
	prog, ok := firstLiteral(args, "")
	if !ok {
		r.unknown("system2")
		return
	}
	argv := []string{prog}
	for k, a := range args[1:] {
		if kwarg(a) {
			if a[0].text != "args" {
				continue
			}
			a = a[2:]
		} else if k > 0 {
			continue
		}
		if v, ok := literalOf(a, "", false); ok {
			argv = append(argv, strings.Fields(v)...)
			continue
		}
		if len(a) > 1 && a[0].kind == tIdent && a[0].text == "c" {
			list, ok := listOf(a[1:], "", false)
			if !ok {
				r.unknown("system2")
				return
			}
			argv = append(argv, list...)
			continue
		}
		r.unknown("system2")
		return
	}
	r.start(procArgv, "system2", "", argv)
}

// rParseText returns the code of eval(parse(text = "CODE")).
func rParseText(args [][]token) (string, bool) {
	if len(args) != 1 || len(args[0]) < 3 || args[0][0].text != "parse" || !isPunct(args[0], 1, "(") {
		return "", false
	}
	inner, _ := callArgs(args[0], 1)
	for _, a := range inner {
		if kwarg(a) && a[0].text == "text" {
			return literalOf(a[2:], "", false)
		}
	}
	return "", false
}

// lexJulia reads Julia: # and #= =# comments, "..." and """...""" strings
// ($ interpolates), and `...` command literals.
func lexJulia(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case strings.HasPrefix(src[l.i:], "#="):
			l.skipTo("=#")
		case ch == '#':
			l.skipTo("\n")
		case strings.HasPrefix(src[l.i:], `"""`):
			l.i += 3
			v, dyn := l.quoted(`"""`, true, "$")
			l.emit(token{kind: tString, text: v, dyn: dyn})
		case ch == '"':
			l.i++
			v, dyn := l.quoted(`"`, true, "$")
			l.emit(token{kind: tString, text: v, dyn: dyn})
		case ch == '`':
			l.i++
			v, dyn := l.quoted("`", false, "$")
			l.emit(token{kind: tString, text: v, dyn: dyn, cmd: true})
		case ch == '\'' && l.i+2 < len(src) && (src[l.i+2] == '\'' || src[l.i+1] == '\\'):
			// A character literal.
			l.i++
			l.quoted("'", true, "")
		case isIdentStart(ch) && ch != '$':
			l.emit(token{kind: tIdent, text: l.ident(false)})
		case ch <= ' ':
			l.i++
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// readJulia reads Julia's command literals and process calls.
func readJulia(r *interpResult, toks []token, depth int) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tString && t.cmd:
			if t.dyn {
				r.unknown("`...`")
				continue
			}
			if words := shellWords(t.text); len(words) > 0 {
				r.start(procArgv, "`...`", "", words)
			}
		case t.kind == tString && !t.cmd && strings.Contains(t.text, "$("):
			// "$(expr)" runs Julia code when the string is made, which may
			// start a process (run(`...`)).
			r.unknown(`"$(...)"`)
		case isPunct(toks, i, "@") && i+1 < len(toks) && toks[i+1].text == "ccall":
			// @ccall system("..."::Cstring)::Cint calls C.
			r.unknown("@ccall")
		case t.kind == tIdent && t.text == "Cmd" && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			if list, ok := listOf(firstArg(args), "", false); ok && len(list) > 0 {
				r.start(procArgv, "Cmd", "", list)
			} else {
				r.unknown("Cmd")
			}
			i = end - 1
		case t.kind == tIdent && (t.text == "include_string" || t.text == "eval" || t.text == "ccall") && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			i = end - 1
			code, ok := "", false
			switch {
			case t.text == "include_string" && len(args) > 1:
				code, ok = literalOf(args[len(args)-1], "", false)
			case t.text == "eval" && len(args) == 1 && len(args[0]) > 4 && args[0][0].text == "Meta" && args[0][2].text == "parse":
				inner, _ := callArgs(args[0], 3)
				code, ok = firstLiteral(inner, "")
			}
			if !ok {
				r.unknown(t.text)
				continue
			}
			readInterp(r, "julia", code, depth+1)
		}
	}
}

func firstArg(args [][]token) []token {
	if len(args) == 0 {
		return nil
	}
	return args[0]
}
