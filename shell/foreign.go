package shell

import (
	"strings"
)

// fish and csh quote and substitute otherwise than bash, so that the same
// text runs other commands: in fish a backslash escapes a single quote
// inside single quotes ('a\' x ' is one word), in csh a backslash inside
// double quotes is a backslash ("a\" is a word). Their code is read by a
// tokenizer of their own quoting, substitutions and separators, which
// writes the commands it finds as bash, each word quoted, its variables
// as run-time parts and its command substitutions as $(...); the bash
// analysis then reads that. Keywords that begin a compound command (fish's
// if, while, begin, and, or, not; csh's if (...) then, foreach) are left
// out, with their words kept where a substitution may run; variables set
// (fish's set, csh's set and setenv) become assignments, so that PAGER and
// the like are read as code.

// foreign is one of the dialects a tokenizer of its own reads.
type foreign struct {
	// fish is set for fish, otherwise csh and tcsh.
	fish bool
	src  string
	i    int
	out  *strings.Builder
	// open is set when the code ends inside a quote or substitution:
	// the shell refuses it.
	open bool
	// hdocs are the heredocs of the command line being read, whose
	// bodies follow it (csh).
	hdocs []string
}

// fishSource analyses fish code.
func (a *analyzer) fishSource(c *code, stdin *input) { a.foreignSource(c, stdin, true) }

// cshSource analyses csh and tcsh code.
func (a *analyzer) cshSource(c *code, stdin *input) { a.foreignSource(c, stdin, false) }

func (a *analyzer) foreignSource(c *code, stdin *input, fish bool) {
	f := &foreign{fish: fish, src: c.src, out: new(strings.Builder)}
	f.commands(0)
	if f.open {
		// The shell parses the whole code first and runs none of it.
		a.out.Unparsed = append(a.out.Unparsed, Unparsed{Text: c.text(c.src), Err: "unterminated quote or substitution", Host: c.host, Via: c.via})
		return
	}
	n := *c
	n.src, n.lang = f.out.String(), dBash
	a.walkSource(&n, stdin)
}

// commands reads commands up to the end of the code or, inside a
// substitution, its closing bracket (or backtick in csh).
func (f *foreign) commands(depth int) {
	if depth > maxTclDepth {
		f.open = true
		return
	}
	atStart := true
	for f.i < len(f.src) {
		ch := f.src[f.i]
		switch {
		case ch == ')' && depth > 0 && f.fish:
			return
		case ch == '`' && depth > 0 && !f.fish:
			return
		case ch == ' ' || ch == '\t' || ch == '\r':
			f.i++
		case ch == '\\' && f.i+1 < len(f.src) && f.src[f.i+1] == '\n':
			f.i += 2
		case ch == '\n' || ch == ';':
			f.out.WriteString("\n")
			f.i++
			if ch == '\n' {
				f.heredocBodies()
			}
			atStart = true
		case ch == '#' && (atStart || f.i > 0 && isBlank(f.src[f.i-1])):
			for f.i < len(f.src) && f.src[f.i] != '\n' {
				f.i++
			}
		case ch == '&' || ch == '|':
			if op := f.operator(); op == "&|" || op == "|&" {
				// A pipe of both outputs.
				f.out.WriteString(" | ")
			} else {
				f.out.WriteString(" " + op + " ")
			}
			atStart = true
		case ch == '(' && !f.fish && atStart:
			// A csh subshell.
			f.i++
			f.out.WriteString("( ")
		case ch == ')' && !f.fish:
			f.i++
			f.out.WriteString(" )\n")
		default:
			at := f.i
			f.command(depth)
			if f.i == at {
				// A byte no command starts with, such as fish's ) outside
				// a substitution: the shell's syntax error.
				f.open = true
				return
			}
			atStart = false
		}
		if f.open {
			return
		}
	}
	if depth > 0 {
		f.open = true
	}
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == ';' }

// operator reads &, &&, |, ||, &|, |&.
func (f *foreign) operator() string {
	start := f.i
	f.i++
	if f.i < len(f.src) && strings.IndexByte("&|", f.src[f.i]) >= 0 {
		f.i++
	}
	return f.src[start:f.i]
}

// heredocBodies copies the bodies of the command line's heredocs, which
// follow it, as they are: bash expands them as csh does.
func (f *foreign) heredocBodies() {
	for _, delim := range f.hdocs {
		for f.i < len(f.src) {
			end := strings.IndexByte(f.src[f.i:], '\n')
			if end < 0 {
				end = len(f.src) - f.i
			}
			line := f.src[f.i : f.i+end]
			f.i = min(f.i+end+1, len(f.src))
			if line == delim {
				break
			}
			f.out.WriteString(line + "\n")
		}
		f.out.WriteString(hdocDelim + "\n")
	}
	f.hdocs = f.hdocs[:0]
}

// hdocDelim ends the heredocs the csh tokenizer writes.
const hdocDelim = "REWIND_CSH_HEREDOC"

// command reads the words of one command, up to a separator, and writes
// it as bash.
func (f *foreign) command(depth int) {
	var words []string
	var raw []string // the words as written, for keywords
	parens := 0      // csh's brackets of if (...), foreach x (...)
	for f.i < len(f.src) {
		ch := f.src[f.i]
		if ch == ' ' || ch == '\t' || ch == '\r' {
			f.i++
			continue
		}
		if !f.fish && (ch == '(' || ch == ')' && parens > 0) {
			parens += map[byte]int{'(': 1, ')': -1}[ch]
			words, raw = append(words, "'"+string(ch)+"'"), append(raw, string(ch))
			f.i++
			continue
		}
		if ch == '&' && f.i+1 < len(f.src) && f.src[f.i+1] == '>' {
			// fish's &>: both outputs to a file.
			f.i++
		} else if ch == '\n' || ch == ';' || ch == '&' || ch == '|' || ch == ')' || ch == '`' && !f.fish && depth > 0 {
			break
		}
		if ch == '#' && f.i > 0 && isBlank(f.src[f.i-1]) {
			break
		}
		if ch == '\\' && f.i+1 < len(f.src) && f.src[f.i+1] == '\n' {
			f.i += 2
			continue
		}
		start := f.i
		if redir := f.redirection(); redir != "" {
			if redir == "<<" {
				// A heredoc: its delimiter, and its body after the line.
				for f.i < len(f.src) && (f.src[f.i] == ' ' || f.src[f.i] == '\t') {
					f.i++
				}
				dstart := f.i
				f.word(depth)
				delim := f.src[dstart:f.i]
				quoted := strings.ContainsAny(delim, "'\"\\")
				f.hdocs = append(f.hdocs, strings.Trim(delim, "'\"\\"))
				if quoted {
					redir += "'" + hdocDelim + "'"
				} else {
					redir += hdocDelim
				}
			}
			words = append(words, redir)
			raw = append(raw, redir)
			continue
		}
		w := f.word(depth)
		if f.open {
			return
		}
		words = append(words, w)
		raw = append(raw, f.src[start:f.i])
	}
	f.out.WriteString(f.rewrite(words, raw))
}

// redirection reads a redirection operator, with the word it names
// following as the next word: >, >>, <, 2>, &> (csh >& and >!).
func (f *foreign) redirection() string {
	s := f.src[f.i:]
	for _, op := range []string{"2>>", "2>&1", ">>&", ">>!", ">&", ">!", ">>", "2>", ">?", "<<", ">", "<", "^^", "^"} {
		if strings.HasPrefix(s, op) {
			if op == "^" || op == "^^" {
				if !f.fish {
					return ""
				}
				// fish's old redirection of standard error.
				op = "2>"
			}
			f.i += len(op)
			switch op {
			case ">&", ">>&":
				return ">"
			case ">!", ">?":
				return ">"
			case ">>!":
				return ">>"
			}
			return op
		}
	}
	return ""
}

// rewrite returns a command's words as a bash command: the keywords of
// fish and csh that begin compound commands left out, and the variables
// they set as assignments.
func (f *foreign) rewrite(words, raw []string) string {
	for len(raw) > 0 {
		kw := raw[0]
		if f.fish {
			switch kw {
			case "and", "or", "not", "if", "while", "else", "begin", "end", "builtin", "time", "!":
				words, raw = words[1:], raw[1:]
				continue
			case "for", "switch", "case", "function", "in":
				// Their words are data, but may hold substitutions.
				return ": " + strings.Join(words[1:], " ") + "\n"
			case "set":
				return fishSet(words, raw)
			}
		} else {
			switch kw {
			case "if", "while", "foreach", "switch":
				// if (expr) then, if (expr) cmd: the expression, then
				// the command; foreach NAME (words).
				from := 1
				if kw == "foreach" && len(raw) > 2 {
					from = 2
				}
				expr, rest := cshExpression(words[from:], raw[from:])
				if len(rest) > 0 && rest[0] != "then" {
					return ": " + expr + "\n" + f.rewrite(words[len(words)-len(rest):], rest)
				}
				return ": " + expr + "\n"
			case "else", "endif", "end", "endsw", "breaksw", "default:", "then":
				words, raw = words[1:], raw[1:]
				continue
			case "case":
				return "\n"
			case "set", "setenv":
				return cshSet(words, raw)
			}
		}
		break
	}
	if len(words) == 0 {
		return ""
	}
	return strings.Join(words, " ") + "\n"
}

// cshExpression splits the (expr) after if, while, foreach and switch
// from the words after it.
func cshExpression(words, raw []string) (string, []string) {
	depth := 0
	for k, r := range raw {
		depth += strings.Count(r, "(") - strings.Count(r, ")")
		if depth <= 0 {
			return strings.Join(words[:k+1], " "), raw[k+1:]
		}
	}
	return strings.Join(words, " "), nil
}

// fishSet writes fish's set [-options] NAME VALUE... as an assignment.
func fishSet(words, raw []string) string {
	k := 1
	for k < len(raw) && strings.HasPrefix(raw[k], "-") {
		k++
	}
	if k >= len(raw) || !validName(raw[k]) {
		return "set " + strings.Join(words[min(1, len(words)):], " ") + "\n"
	}
	return "export " + raw[k] + "=" + strings.Join(words[k+1:], "' '") + "\n"
}

// cshSet writes csh's set NAME = VALUE and setenv NAME VALUE as
// assignments.
func cshSet(words, raw []string) string {
	if len(raw) < 2 {
		return ""
	}
	name, rest := raw[1], words[2:]
	if n, v, ok := strings.Cut(name, "="); ok {
		name, rest = n, append([]string{shellQuote(v)}, rest...)
	}
	if len(rest) > 0 && rest[0] == "'='" {
		rest = rest[1:]
	}
	if !validName(name) {
		return ": " + strings.Join(words[1:], " ") + "\n"
	}
	return "export " + name + "=" + strings.Join(rest, "' '") + "\n"
}

// word reads one word and returns it as bash: its literal text single
// quoted, variables as run-time parts, substitutions as $(...), braces
// and globs as they are.
func (f *foreign) word(depth int) string {
	var b strings.Builder
	lit := func(s string) {
		if s != "" {
			b.WriteString(shellQuote(s))
		}
	}
	if f.i < len(f.src) && (f.src[f.i] == ')' || f.src[f.i] == '(' && !f.fish) {
		// A bracket alone, which the caller reads.
		f.i++
		return ""
	}
	var pending strings.Builder // literal text not yet written
	flush := func() {
		lit(pending.String())
		pending.Reset()
	}
	for f.i < len(f.src) {
		ch := f.src[f.i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ';' || ch == '&' || ch == '|' || ch == '<' || ch == '>':
			flush()
			return b.String()
		case ch == ')' && (depth > 0 || !f.fish), ch == '(' && !f.fish:
			flush()
			return b.String()
		case ch == '\'':
			f.i++
			pending.WriteString(f.singleQuoted())
		case ch == '"':
			f.i++
			flush()
			b.WriteString(f.doubleQuoted(depth))
		case ch == '\\':
			if f.i+1 < len(f.src) {
				pending.WriteString(f.escape())
				continue
			}
			f.i++
		case ch == '$':
			flush()
			b.WriteString(f.variable(depth))
		case ch == '(' && f.fish:
			flush()
			b.WriteString(f.substitution(depth))
		case ch == '`' && !f.fish:
			if depth > 0 {
				flush()
				return b.String()
			}
			flush()
			b.WriteString(f.substitution(depth))
		case ch == '*' || ch == '?' || ch == '{' || ch == '}' || ch == ',' || ch == '[' || ch == ']' || ch == '~' && pending.Len() == 0 && b.Len() == 0:
			// Patterns, braces and ~ expand as in bash.
			flush()
			b.WriteByte(ch)
			f.i++
		default:
			pending.WriteByte(ch)
			f.i++
		}
	}
	flush()
	return b.String()
}

// singleQuoted reads a single-quoted string from just past its quote:
// fish decodes \' and \\ in it, csh nothing.
func (f *foreign) singleQuoted() string {
	var b strings.Builder
	for f.i < len(f.src) {
		ch := f.src[f.i]
		switch {
		case ch == '\'':
			f.i++
			return b.String()
		case ch == '\\' && f.fish && f.i+1 < len(f.src) && (f.src[f.i+1] == '\'' || f.src[f.i+1] == '\\'):
			b.WriteByte(f.src[f.i+1])
			f.i += 2
		default:
			b.WriteByte(ch)
			f.i++
		}
	}
	f.open = true
	return b.String()
}

// doubleQuoted reads a double-quoted string from just past its quote and
// returns it as bash in double quotes: fish decodes \", \$, \\ and
// expands $var and $(cmd); csh expands $var and `cmd`, and keeps
// backslashes but before a newline.
func (f *foreign) doubleQuoted(depth int) string {
	var b strings.Builder
	b.WriteByte('"')
	for f.i < len(f.src) {
		ch := f.src[f.i]
		switch {
		case ch == '"':
			f.i++
			b.WriteByte('"')
			return b.String()
		case ch == '\\' && f.fish && f.i+1 < len(f.src) && strings.IndexByte("\"$\\\n", f.src[f.i+1]) >= 0:
			if f.src[f.i+1] != '\n' {
				b.WriteString(bashDQ(string(f.src[f.i+1])))
			}
			f.i += 2
		case ch == '\\' && !f.fish && f.i+1 < len(f.src) && f.src[f.i+1] == '\n':
			f.i += 2
		case ch == '$' && f.fish && f.i+1 < len(f.src) && f.src[f.i+1] == '(':
			f.i++
			b.WriteString(f.substitution(depth))
		case ch == '$':
			b.WriteString(f.variable(depth))
		case ch == '`' && !f.fish:
			b.WriteString(f.substitution(depth))
		default:
			b.WriteString(bashDQ(string(ch)))
			f.i++
		}
	}
	f.open = true
	return b.String()
}

// bashDQ escapes text for bash double quotes.
func bashDQ(s string) string {
	switch s {
	case "\"", "$", "`", "\\":
		return "\\" + s
	}
	return s
}

// escape reads a backslash escape outside quotes and returns its text.
func (f *foreign) escape() string {
	next := f.src[f.i+1]
	f.i += 2
	if f.fish {
		switch next {
		case 'n':
			return "\n"
		case 't':
			return "\t"
		case 'x', 'X', 'u', 'U':
			// \xHH and the like: decoded as $'...' does.
			j := f.i
			for j < len(f.src) && j < f.i+hexDigits(next|0x20) && isHex(f.src[j]) {
				j++
			}
			s, _ := decodeEscapes("\\"+string(next|0x20)+f.src[f.i:j], false)
			f.i = j
			return s
		}
	}
	return string(next)
}

// variable reads $NAME (fish: also $NAME[...], csh: ${NAME}, $#NAME,
// $NAME[...]) and returns a run-time part.
func (f *foreign) variable(depth int) string {
	f.i++
	if f.fish && f.i < len(f.src) && f.src[f.i] == '(' {
		return f.substitution(depth)
	}
	start := f.i
	if f.i < len(f.src) && (f.src[f.i] == '{' || f.src[f.i] == '#' || f.src[f.i] == '?') {
		f.i++
	}
	for f.i < len(f.src) && (isWordByte(f.src[f.i]) || f.src[f.i] == '}' && start < f.i && f.src[start] == '{') {
		if f.src[f.i] == '}' {
			f.i++
			break
		}
		f.i++
	}
	if f.i < len(f.src) && f.src[f.i] == '[' {
		if end := strings.IndexByte(f.src[f.i:], ']'); end >= 0 {
			f.i += end + 1
		}
	}
	if f.i == start {
		return "'$'"
	}
	return "\"" + dynamicPlaceholder + "\""
}

// substitution reads a command substitution, (cmd) or $(cmd) in fish and
// `cmd` in csh, and returns it as bash's $(...).
func (f *foreign) substitution(depth int) string {
	f.i++ // past ( or `
	outer := f.out
	f.out = new(strings.Builder)
	f.commands(depth + 1)
	inner := f.out.String()
	f.out = outer
	if f.i < len(f.src) {
		f.i++ // past ) or `
	}
	return "\"$(" + inner + ")\""
}

// shellQuote quotes s as one word for bash.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
