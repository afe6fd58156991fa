package shell

import (
	"strings"
)

// The interpreters' code is read by small lexers, one per language: they
// split the code into identifiers, string literals (decoded, and marked
// when they interpolate run-time values), command literals (backticks,
// qx and %x, which run a shell command) and punctuation, skipping
// comments. They do not parse the language: interp.go reads call shapes
// from the tokens. Each is one pass over the code.

type tokKind uint8

const (
	tIdent  tokKind = iota + 1 // a name: os, system, child_process
	tString                    // a string literal
	tPunct                     // one character of punctuation, or "::" and "->"
)

// token is one token of interpreter code.
type token struct {
	kind tokKind
	// text is the identifier or the punctuation; for a string, its value.
	text string
	// dyn marks a string that interpolates run-time values ("#{x}",
	// f"{x}", `${x}`, "$x").
	dyn bool
	// cmd marks a command literal: `...`, qx{...}, %x(...), whose text a
	// shell runs.
	cmd bool
	// flags are the letters after a Perl substitution (s/a/b/e).
	flags string
}

// lexer reads the tokens of one language's code.
type lexer struct {
	src  string
	i    int
	toks []token
	// open is set when the code ends inside a string or comment: the
	// tokens may not be what the interpreter reads.
	open bool
}

func isIdentStart(b byte) bool {
	return b == '_' || b == '$' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

func isIdentByte(b byte) bool {
	return isIdentStart(b) || b >= '0' && b <= '9'
}

// ident reads an identifier at l.i; dollar says whether '$' is part of
// identifiers (JavaScript) or a sigil of its own (Perl, PHP).
func (l *lexer) ident(dollar bool) string {
	start := l.i
	for l.i < len(l.src) && isIdentByte(l.src[l.i]) && (dollar || l.src[l.i] != '$' || l.i == start) {
		l.i++
	}
	return l.src[start:l.i]
}

func (l *lexer) emit(t token) { l.toks = append(l.toks, t) }

// quoted reads a string closed by quote from l.i (just past the opening
// quote). escapes says whether backslash escapes are decoded; interp is
// the start of an interpolation ("#{", "${", "{", "$") or "". It returns
// the value and whether it interpolates.
func (l *lexer) quoted(quote string, escapes bool, interp string) (string, bool) {
	var b strings.Builder
	dyn := false
	for l.i < len(l.src) {
		if strings.HasPrefix(l.src[l.i:], quote) {
			l.i += len(quote)
			return b.String(), dyn
		}
		ch := l.src[l.i]
		switch {
		case ch == '\\' && l.i+1 < len(l.src):
			next := l.src[l.i+1]
			l.i += 2
			if !escapes {
				// Only the quote and the backslash are escaped.
				if strings.HasPrefix(quote, string(next)) || next == '\\' {
					b.WriteByte(next)
				} else {
					b.WriteByte('\\')
					b.WriteByte(next)
				}
				continue
			}
			switch next {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(next)
			}
			continue
		case interp != "" && strings.HasPrefix(l.src[l.i:], interp):
			if interp == "$" {
				// $name interpolates; a lone $ is a dollar sign.
				if l.i+1 < len(l.src) && (isIdentStart(l.src[l.i+1]) || l.src[l.i+1] == '{') {
					dyn = true
				}
			} else if interp == "{" && l.i+1 < len(l.src) && l.src[l.i+1] == '{' {
				// {{ is a brace in an f-string.
				b.WriteByte('{')
				l.i += 2
				continue
			} else {
				dyn = true
			}
		}
		if interp == "{" && ch == '}' && l.i+1 < len(l.src) && l.src[l.i+1] == '}' {
			l.i++ // }} is a brace in an f-string
		}
		b.WriteByte(ch)
		l.i++
	}
	l.open = true
	return b.String(), dyn
}

// skipTo moves past the next end, or to the end of the code.
func (l *lexer) skipTo(end string) {
	if j := strings.Index(l.src[l.i:], end); j >= 0 {
		l.i += j + len(end)
		return
	}
	l.i = len(l.src)
	if end != "\n" {
		l.open = true
	}
}

// regexAllowed reports whether a '/' at this point starts a regular
// expression rather than a division, from the token before it, as
// JavaScript and Perl lexers decide.
func (l *lexer) regexAllowed() bool {
	if len(l.toks) == 0 {
		return true
	}
	t := l.toks[len(l.toks)-1]
	switch t.kind {
	case tString:
		return false
	case tIdent:
		switch t.text {
		case "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else",
			"and", "or", "not", "if", "unless", "while", "until", "split", "grep", "map", "join", "push", "unshift", "x", "lt", "gt", "le", "ge", "eq", "ne", "cmp":
			return true
		}
		return false
	}
	return !strings.Contains(")]}", t.text)
}

// regex skips a regular expression literal from l.i (just past the
// opening delimiter) to its closing delimiter, classes included, and its
// flags.
func (l *lexer) regex(close byte) {
	class := false
	for l.i < len(l.src) {
		ch := l.src[l.i]
		l.i++
		switch {
		case ch == '\\':
			l.i++
		case ch == '[':
			class = true
		case ch == ']':
			class = false
		case ch == close && !class:
			for l.i < len(l.src) && isIdentByte(l.src[l.i]) {
				l.i++
			}
			return
		case ch == '\n' && close == '/':
			return
		}
	}
	l.open = true
}

// lexPython reads Python: # comments; strings with r, b, u, f prefixes,
// single, double and triple quoted; f-strings interpolate {...}.
func lexPython(src string) *lexer {
	l := &lexer{src: src}
	depth := 0
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == '\n' && depth == 0:
			// A newline outside brackets ends a statement.
			l.emit(token{kind: tPunct, text: ";"})
			l.i++
		case ch == '\\' && l.i+1 < len(src) && src[l.i+1] == '\n':
			l.i += 2
		case ch == '(' || ch == '[' || ch == '{':
			depth++
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		case (ch == ')' || ch == ']' || ch == '}') && depth > 0:
			depth--
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		case ch == '#':
			l.skipTo("\n")
		case ch == '\'' || ch == '"' || isIdentStart(ch):
			start := l.i
			prefix := ""
			if ch != '\'' && ch != '"' {
				prefix = l.ident(true)
				if len(prefix) > 2 || l.i >= len(src) || src[l.i] != '\'' && src[l.i] != '"' || strings.Trim(strings.ToLower(prefix), "rbuf") != "" {
					l.emit(token{kind: tIdent, text: src[start:l.i]})
					continue
				}
			}
			q := string(src[l.i])
			if strings.HasPrefix(src[l.i:], q+q+q) {
				q = q + q + q
			}
			l.i += len(q)
			lower := strings.ToLower(prefix)
			interp := ""
			if strings.Contains(lower, "f") {
				interp = "{"
			}
			v, dyn := l.quoted(q, !strings.Contains(lower, "r"), interp)
			l.emit(token{kind: tString, text: v, dyn: dyn})
		case ch <= ' ':
			l.i++
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// lexJS reads JavaScript: // and /* */ comments; '...' and "..."
// strings; `...` templates, which interpolate ${...}; regular expression
// literals, told from division by the token before them.
func lexJS(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case strings.HasPrefix(src[l.i:], "//"):
			l.skipTo("\n")
		case strings.HasPrefix(src[l.i:], "/*"):
			l.i += 2
			l.skipTo("*/")
		case ch == '/' && l.regexAllowed():
			l.i++
			l.regex('/')
		case ch == '\'' || ch == '"':
			l.i++
			v, _ := l.quoted(string(ch), true, "")
			l.emit(token{kind: tString, text: v})
		case ch == '`':
			l.i++
			v, dyn := l.template()
			l.emit(token{kind: tString, text: v, dyn: dyn})
		case isIdentStart(ch):
			l.emit(token{kind: tIdent, text: l.ident(true)})
		case ch <= ' ':
			l.i++
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// template reads a JavaScript template literal, skipping the code of its
// ${...} parts, strings and nested templates included.
func (l *lexer) template() (string, bool) {
	var b strings.Builder
	dyn := false
	for l.i < len(l.src) {
		ch := l.src[l.i]
		switch {
		case ch == '\\' && l.i+1 < len(l.src):
			b.WriteByte(l.src[l.i+1])
			l.i += 2
		case ch == '`':
			l.i++
			return b.String(), dyn
		case strings.HasPrefix(l.src[l.i:], "${"):
			dyn = true
			l.i += 2
			b.WriteString("${}")
			for depth := 1; depth > 0 && l.i < len(l.src); {
				switch c := l.src[l.i]; c {
				case '{':
					depth++
					l.i++
				case '}':
					depth--
					l.i++
				case '\'', '"':
					l.i++
					l.quoted(string(c), true, "")
				case '`':
					l.i++
					l.template()
				default:
					l.i++
				}
			}
		default:
			b.WriteByte(ch)
			l.i++
		}
	}
	l.open = true
	return b.String(), dyn
}

// perlClose returns the closing delimiter of a Perl quote-like operator.
func perlClose(open byte) byte {
	switch open {
	case '(':
		return ')'
	case '[':
		return ']'
	case '{':
		return '}'
	case '<':
		return '>'
	}
	return open
}

// delimited reads the text of a quote-like operator from l.i (just past
// its opening delimiter), nested brackets counted.
func (l *lexer) delimited(open byte) string {
	close := perlClose(open)
	var b strings.Builder
	depth := 1
	for l.i < len(l.src) {
		ch := l.src[l.i]
		l.i++
		switch {
		case ch == '\\' && l.i < len(l.src):
			if next := l.src[l.i]; next != close && next != open {
				b.WriteByte('\\')
			}
			b.WriteByte(l.src[l.i])
			l.i++
			continue
		case ch == close && open != close:
			if depth--; depth == 0 {
				return b.String()
			}
		case ch == open && open != close:
			depth++
		case ch == close:
			return b.String()
		}
		b.WriteByte(ch)
	}
	l.open = true
	return b.String()
}

// perlInterpolates reports whether text, in a Perl interpolating context,
// holds a variable: $name, ${...}, @name.
func perlInterpolates(text string) bool {
	for i := 0; i+1 < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '$', '@':
			if n := text[i+1]; isIdentStart(n) || n == '{' || n == ':' {
				return true
			}
		}
	}
	return false
}

// lexPerl reads Perl: # comments and POD; '...', "...", `...`; the
// quote-like operators q, qq, qw, qx, m, qr, s, tr and y with any
// delimiters (s///e's replacement is code, kept with its flags); regular
// expressions told from division as in JavaScript.
func lexPerl(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == '#':
			l.skipTo("\n")
		case ch == '=' && (l.i == 0 || src[l.i-1] == '\n') && l.i+1 < len(src) && isIdentStart(src[l.i+1]):
			l.skipTo("\n=cut")
		case ch == '\'':
			l.i++
			v, _ := l.quoted("'", false, "")
			l.emit(token{kind: tString, text: v})
		case ch == '"':
			l.i++
			v := l.delimited('"')
			l.emit(token{kind: tString, text: v, dyn: perlInterpolates(v)})
		case ch == '`':
			l.i++
			v := l.delimited('`')
			l.emit(token{kind: tString, text: v, dyn: perlInterpolates(v), cmd: true})
		case ch == '/' && l.regexAllowed():
			l.i++
			l.regex('/')
		case ch == '$' || ch == '@' || ch == '%' && l.i+1 < len(src) && isIdentStart(src[l.i+1]):
			// A variable: $x, @x, %x, and the special ones ($_, $0).
			start := l.i
			l.i++
			if l.i < len(src) && isIdentStart(src[l.i]) {
				l.ident(false)
			} else if l.i < len(src) {
				l.i++
			}
			l.emit(token{kind: tIdent, text: src[start:l.i]})
		case isIdentStart(ch):
			word := l.ident(false)
			if !l.quoteLike(word) {
				l.emit(token{kind: tIdent, text: word})
			}
		case ch <= ' ':
			l.i++
		case strings.HasPrefix(src[l.i:], "::") || strings.HasPrefix(src[l.i:], "->"):
			l.emit(token{kind: tPunct, text: src[l.i : l.i+2]})
			l.i += 2
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// quoteLike reads a Perl quote-like operator named word, when a delimiter
// follows it, and reports whether it did.
func (l *lexer) quoteLike(word string) bool {
	switch word {
	case "q", "qq", "qw", "qx", "m", "qr", "s", "tr", "y":
	default:
		return false
	}
	j := l.i
	for j < len(l.src) && (l.src[j] == ' ' || l.src[j] == '\t') {
		j++
	}
	if j >= len(l.src) {
		return false
	}
	open := l.src[j]
	if isIdentByte(open) || open <= ' ' || open == ',' || open == ';' || open == ')' || open == '=' && word != "s" && word != "y" {
		return false
	}
	if open == '=' && j+1 < len(l.src) && l.src[j+1] == '>' {
		return false // a hash key: q => 1
	}
	l.i = j + 1
	text := l.delimited(open)
	switch word {
	case "q":
		l.emit(token{kind: tString, text: text})
	case "qq":
		l.emit(token{kind: tString, text: text, dyn: perlInterpolates(text)})
	case "qx":
		l.emit(token{kind: tString, text: text, dyn: open != '\'' && perlInterpolates(text), cmd: true})
	case "qw":
		l.emit(token{kind: tPunct, text: "("})
		for i, w := range strings.Fields(text) {
			if i > 0 {
				l.emit(token{kind: tPunct, text: ","})
			}
			l.emit(token{kind: tString, text: w})
		}
		l.emit(token{kind: tPunct, text: ")"})
	case "s", "tr", "y":
		// The second part: s{a}{b} has its own delimiters, s/a/b/ shares.
		if close := perlClose(open); close != open {
			for l.i < len(l.src) && l.src[l.i] <= ' ' {
				l.i++
			}
			if l.i < len(l.src) {
				open = l.src[l.i]
				l.i++
			}
		}
		repl := l.delimited(open)
		start := l.i
		for l.i < len(l.src) && isIdentByte(l.src[l.i]) {
			l.i++
		}
		if word == "s" {
			l.emit(token{kind: tIdent, text: "s///", flags: l.src[start:l.i]})
			l.emit(token{kind: tString, text: repl, dyn: perlInterpolates(repl)})
		}
	default:
		// m// and qr//: a pattern, which runs nothing.
		for l.i < len(l.src) && isIdentByte(l.src[l.i]) {
			l.i++
		}
	}
	return true
}

// lexRuby reads Ruby: # comments and =begin/=end; '...' and "..." (which
// interpolates #{...}), `...` and %x(...) commands, %q %Q %w %W %i
// literals; regular expressions as in JavaScript.
func lexRuby(src string) *lexer {
	l := &lexer{src: src}
	depth := 0
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == '\n' && depth == 0:
			// A newline outside brackets ends a statement.
			l.emit(token{kind: tPunct, text: ";"})
			l.i++
		case ch == '(' || ch == '[' || ch == '{':
			depth++
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		case (ch == ')' || ch == ']' || ch == '}') && depth > 0:
			depth--
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		case ch == '#':
			l.skipTo("\n")
		case strings.HasPrefix(src[l.i:], "=begin") && (l.i == 0 || src[l.i-1] == '\n'):
			l.skipTo("\n=end")
		case ch == '\'':
			l.i++
			v, _ := l.quoted("'", false, "")
			l.emit(token{kind: tString, text: v})
		case ch == '"':
			l.i++
			v, dyn := l.quoted(`"`, true, "#{")
			l.emit(token{kind: tString, text: v, dyn: dyn})
		case ch == '`':
			l.i++
			v, dyn := l.quoted("`", true, "#{")
			l.emit(token{kind: tString, text: v, dyn: dyn, cmd: true})
		case ch == '%' && l.i+1 < len(src) && l.percentLiteral():
		case ch == '/' && l.regexAllowed():
			l.i++
			l.regex('/')
		case ch == ':' && l.i+1 < len(src) && isIdentStart(src[l.i+1]):
			// A symbol: :system.
			l.i++
			l.emit(token{kind: tString, text: l.ident(false)})
		case isIdentStart(ch):
			l.emit(token{kind: tIdent, text: l.ident(false)})
		case ch <= ' ':
			l.i++
		case strings.HasPrefix(src[l.i:], "::"):
			l.emit(token{kind: tPunct, text: "."})
			l.i += 2
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// percentLiteral reads a Ruby %-literal at l.i and reports whether there
// was one.
func (l *lexer) percentLiteral() bool {
	j := l.i + 1
	kind := byte('Q')
	if c := l.src[j]; c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		kind = c
		j++
	}
	if j >= len(l.src) || !strings.ContainsRune("([{<|!/^", rune(l.src[j])) {
		return false
	}
	if kind != 'Q' || l.regexAllowed() {
		l.i = j + 1
		text := l.delimited(l.src[j])
		switch kind {
		case 'x':
			l.emit(token{kind: tString, text: text, dyn: strings.Contains(text, "#{"), cmd: true})
		case 'w', 'W', 'i', 'I':
			l.emit(token{kind: tPunct, text: "["})
			for i, w := range strings.Fields(text) {
				if i > 0 {
					l.emit(token{kind: tPunct, text: ","})
				}
				l.emit(token{kind: tString, text: w, dyn: kind == 'W' && strings.Contains(w, "#{")})
			}
			l.emit(token{kind: tPunct, text: "]"})
		case 'r', 's':
		default:
			l.emit(token{kind: tString, text: text, dyn: kind != 'q' && strings.Contains(text, "#{")})
		}
		return true
	}
	return false
}

// lexPHP reads PHP code (what lies between <?php and ?>, or all of the
// code of php -r): # and // and /* */ comments; '...' and "..." (which
// interpolates $var and {$...}); `...` commands; heredocs and nowdocs.
func lexPHP(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == '#' || strings.HasPrefix(src[l.i:], "//"):
			l.skipTo("\n")
		case strings.HasPrefix(src[l.i:], "/*"):
			l.i += 2
			l.skipTo("*/")
		case ch == '\'':
			l.i++
			v, _ := l.quoted("'", false, "")
			l.emit(token{kind: tString, text: v})
		case ch == '"':
			l.i++
			v, dyn := l.quoted(`"`, true, "$")
			l.emit(token{kind: tString, text: v, dyn: dyn || strings.Contains(v, "{$")})
		case ch == '`':
			l.i++
			v, dyn := l.quoted("`", true, "$")
			l.emit(token{kind: tString, text: v, dyn: dyn, cmd: true})
		case strings.HasPrefix(src[l.i:], "<<<"):
			l.heredoc()
		case ch == '$' && l.i+1 < len(src) && isIdentStart(src[l.i+1]):
			start := l.i
			l.i++
			l.ident(false)
			l.emit(token{kind: tIdent, text: src[start:l.i]})
		case isIdentStart(ch):
			l.emit(token{kind: tIdent, text: strings.ToLower(l.ident(false))})
		case ch <= ' ':
			l.i++
		case strings.HasPrefix(src[l.i:], "::") || strings.HasPrefix(src[l.i:], "->"):
			// A member; "." is PHP's concatenation.
			l.emit(token{kind: tPunct, text: "->"})
			l.i += 2
		case strings.HasPrefix(src[l.i:], "?>"):
			// Back to text, which is output, not code.
			l.i += 2
			if j := strings.Index(src[l.i:], "<?"); j >= 0 {
				l.i += j + 2
				if strings.HasPrefix(src[l.i:], "php") {
					l.i += 3
				}
			} else {
				l.i = len(src)
			}
			l.emit(token{kind: tPunct, text: ";"})
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}

// heredoc reads a PHP heredoc (<<<EOT, interpolating) or nowdoc (<<<'EOT').
func (l *lexer) heredoc() {
	l.i += 3
	for l.i < len(l.src) && (l.src[l.i] == ' ' || l.src[l.i] == '\t') {
		l.i++
	}
	quoted := l.i < len(l.src) && (l.src[l.i] == '\'' || l.src[l.i] == '"')
	nowdoc := quoted && l.src[l.i] == '\''
	if quoted {
		l.i++
	}
	name := l.ident(false)
	if name == "" {
		l.emit(token{kind: tPunct, text: "<"})
		return
	}
	l.skipTo("\n")
	var body strings.Builder
	for l.i < len(l.src) {
		end := strings.IndexByte(l.src[l.i:], '\n')
		line := l.src[l.i:]
		if end >= 0 {
			line = l.src[l.i : l.i+end]
		}
		if t := strings.TrimLeft(line, " \t"); strings.HasPrefix(t, name) && (len(t) == len(name) || !isIdentByte(t[len(name)])) {
			l.i += len(line) - len(t) + len(name)
			text := body.String()
			l.emit(token{kind: tString, text: text, dyn: !nowdoc && (perlInterpolates(text) || strings.Contains(text, "{$"))})
			return
		}
		body.WriteString(line)
		body.WriteByte('\n')
		if end < 0 {
			break
		}
		l.i += end + 1
	}
	l.i = len(l.src)
	l.open = true
}

// lexAwk reads awk: # comments, "..." strings, regular expressions.
func lexAwk(src string) *lexer {
	l := &lexer{src: src}
	for l.i < len(src) {
		ch := src[l.i]
		switch {
		case ch == '#':
			l.skipTo("\n")
		case ch == '"':
			l.i++
			v, _ := l.quoted(`"`, true, "")
			l.emit(token{kind: tString, text: v})
		case ch == '/' && l.regexAllowed():
			l.i++
			l.regex('/')
		case isIdentStart(ch) && ch != '$':
			l.emit(token{kind: tIdent, text: l.ident(false)})
		case ch <= ' ':
			if ch == '\n' {
				l.emit(token{kind: tPunct, text: ";"})
			}
			l.i++
		default:
			l.emit(token{kind: tPunct, text: string(ch)})
			l.i++
		}
	}
	return l
}
