package shell

import (
	"strings"
)

// Tcl (tclsh, wish, and expect, which adds spawn and system) runs a
// program with exec ARGS ("exec ssh web-01 reboot", pipelines split at
// |), open "|PROG ARGS", expect's spawn PROG ARGS, and a shell command
// with expect's system ARGS. Every braced word is read as a script too,
// as most hold one (proc bodies, if and while bodies, expect actions); a
// command substitution [...] is a script. eval, uplevel and the like of
// literal text are read again; of anything else, and a command whose name
// is decided at run time ($cmd, [set f]), source and load, are dynamic.

// maxTclDepth bounds how deep braced words and substitutions are read.
const maxTclDepth = 32

// tclWord is one word of a Tcl command.
type tclWord struct {
	text string
	dyn  bool // holds a $variable or [command] substitution
	// braced says the word was {...}, whose text tclReadWord read as a
	// script already: reading it again would double the cost at every
	// level of nesting.
	braced bool
}

// readTcl reads Tcl code into r.
func readTcl(r *interpResult, code string, depth int) {
	if depth > maxTclDepth {
		r.limit = true
		return
	}
	if !r.spend(len(code)/8 + 1) {
		return
	}
	for _, cmd := range tclCommands(r, code, depth) {
		tclCommand(r, cmd, depth)
	}
}

// tclCommands splits a script into its commands' words, reading the
// scripts its braced words and substitutions hold.
func tclCommands(r *interpResult, s string, depth int) [][]tclWord {
	var cmds [][]tclWord
	var cur []tclWord
	end := func() {
		if len(cur) > 0 {
			cmds = append(cmds, cur)
			cur = nil
		}
	}
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '\n' || ch == ';':
			end()
			i++
		case ch == '#' && len(cur) == 0:
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		default:
			w, next := tclReadWord(r, s, i, depth)
			cur = append(cur, w)
			i = next
		}
		if r.limit {
			return nil
		}
	}
	end()
	return cmds
}

// tclReadWord reads the word at s[i] and returns it and the offset after
// it.
func tclReadWord(r *interpResult, s string, i, depth int) (tclWord, int) {
	if strings.HasPrefix(s[i:], "{*}") {
		// {*} expands a list into words decided at run time.
		w, next := tclReadWord(r, s, i+3, depth)
		w.dyn = true
		return w, next
	}
	if s[i] == '{' {
		d, j := 0, i
		for ; j < len(s); j++ {
			switch s[j] {
			case '\\':
				j++
			case '{':
				d++
			case '}':
				d--
			}
			if d == 0 {
				break
			}
		}
		body := s[i+1 : min(j, len(s))]
		readTcl(r, body, depth+1)
		return tclWord{text: strings.ReplaceAll(body, "\\\n", " "), braced: true}, min(j+1, len(s))
	}
	var b strings.Builder
	dyn := false
	quoted := s[i] == '"'
	j := i
	if quoted {
		j++
	}
	for j < len(s) {
		ch := s[j]
		if quoted && ch == '"' {
			j++
			break
		}
		if !quoted && (ch == ' ' || ch == '\t' || ch == '\n' || ch == ';' || ch == '\r') {
			break
		}
		switch ch {
		case '\\':
			if j+1 < len(s) {
				b.WriteByte(tclEscape(s[j+1]))
				j += 2
				continue
			}
		case '$':
			if j+1 < len(s) && (isIdentByte(s[j+1]) || s[j+1] == '{' || s[j+1] == ':') {
				dyn = true
			}
		case '[':
			d, k := 0, j
			for ; k < len(s); k++ {
				switch s[k] {
				case '\\':
					k++
				case '[':
					d++
				case ']':
					d--
				}
				if d == 0 {
					break
				}
			}
			readTcl(r, s[j+1:min(k, len(s))], depth+1)
			dyn = true
			j = min(k+1, len(s))
			continue
		}
		b.WriteByte(ch)
		j++
	}
	return tclWord{text: b.String(), dyn: dyn}, j
}

func tclEscape(ch byte) byte {
	switch ch {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	}
	return ch
}

// tclCommand reads one command.
func tclCommand(r *interpResult, words []tclWord, depth int) {
	name := words[0]
	if name.dyn {
		r.unknown("a command decided at run time")
		return
	}
	args := words[1:]
	switch strings.TrimPrefix(name.text, "::") {
	case "exec":
		for len(args) > 0 && !args[0].dyn && strings.HasPrefix(args[0].text, "-") {
			done := args[0].text == "--"
			args = args[1:]
			if done {
				break
			}
		}
		tclPrograms(r, "exec", args)
	case "open":
		if len(args) > 0 && strings.HasPrefix(args[0].text, "|") {
			if args[0].dyn {
				r.unknown("open |")
				return
			}
			var list []tclWord
			for _, w := range strings.Fields(strings.TrimPrefix(args[0].text, "|")) {
				list = append(list, tclWord{text: w})
			}
			tclPrograms(r, "open |", list)
		}
	case "spawn":
		for len(args) > 0 && !args[0].dyn && strings.HasPrefix(args[0].text, "-") {
			if opt := args[0].text; opt == "-open" || opt == "-leaveopen" || opt == "-ignore" {
				args = args[min(1, len(args)):]
			}
			args = args[min(1, len(args)):]
		}
		tclPrograms(r, "spawn", args)
	case "system":
		var b strings.Builder
		for k, w := range args {
			if w.dyn {
				r.unknown("system")
				return
			}
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w.text)
		}
		r.start(procShell, "system", b.String(), nil)
	case "catch", "if", "elseif", "else", "while", "for", "foreach", "lmap", "namespace", "try", "apply", "dict", "switch":
		// Commands that run their words as scripts, which may be quoted
		// rather than braced: each quoted or bare word is read as a
		// script too (a condition or a list read so names no process).
		for _, w := range args {
			if !w.dyn && !w.braced {
				readTcl(r, w.text, depth+1)
			}
		}
	case "eval", "uplevel", "subst", "after", "time":
		switch {
		case name.text == "uplevel" && len(args) > 1 && !args[0].dyn && strings.Trim(args[0].text, "#0123456789") == "":
			args = args[1:]
		case name.text == "after" && len(args) > 0 && !args[0].dyn && (args[0].text == "idle" || strings.Trim(args[0].text, "0123456789") == ""):
			// after MS SCRIPT...: the delay is no part of the script.
			args = args[1:]
		case name.text == "time" && len(args) > 1:
			// time SCRIPT COUNT.
			args = args[:1]
		}
		if len(args) == 1 && args[0].braced {
			break // read as a script already
		}
		var b strings.Builder
		for _, w := range args {
			if w.dyn {
				r.unknown(name.text)
				return
			}
			b.WriteString(w.text + " ")
		}
		readTcl(r, b.String(), depth+1)
	case "source", "load", "interp", "rename":
		// Code from a file, or a command renamed or aliased (rename exec
		// x; x ssh ...): known only at run time.
		r.unknown(name.text)
	}
}

// tclPrograms starts the programs of an exec pipeline: words split at |
// and |&, with the redirections and a closing & left out.
func tclPrograms(r *interpResult, via string, words []tclWord) {
	var argv []string
	flush := func() {
		if len(argv) > 0 {
			r.start(procArgv, via, "", argv)
			argv = nil
		}
	}
	for k := 0; k < len(words); k++ {
		w := words[k]
		if w.dyn {
			r.unknown(via)
			return
		}
		t := w.text
		switch {
		case t == "|" || t == "|&":
			flush()
		case t == "&" && k == len(words)-1:
		case strings.HasPrefix(t, "<") || strings.HasPrefix(t, ">") || strings.HasPrefix(t, "2>"):
			if strings.TrimLeft(t, "<>2&@") == "" {
				k++ // the file the redirection names
			}
		default:
			argv = append(argv, t)
		}
	}
	flush()
}
