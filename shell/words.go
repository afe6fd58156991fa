package shell

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// field is one word of a command after quote removal.
type field struct {
	// val is the word's value, or its source text when dyn.
	val string
	// approx is the value with run-time parts kept as source text, except
	// that a command substitution with static output, such as
	// $(cat <<'EOF' ... EOF), is replaced by that output. It is what
	// payloads and code skeletons are built from.
	approx string
	// skel is approx for use as code: a run-time part that holds code of
	// its own, such as $(cmd), becomes dynamicPlaceholder, since that code
	// has been walked already and must not be analysed again at each level
	// of re-parsing, which would make the cost exponential.
	skel string
	dyn  bool
	// glob is set on a static word with an unquoted pattern character,
	// which pathname expansion may replace by the names of files.
	glob bool
	// file, when not nil, is what reading the word as a file gives: the
	// word holds a process substitution <(...), whose output is static
	// text or known only at run time.
	file *input
}

// dynamicPlaceholder stands for a run-time part in code skeletons.
const dynamicPlaceholder = "${__rewind_dynamic__}"

func staticField(s string) field {
	return field{val: s, approx: s, skel: s}
}

func (c *code) field(w *syntax.Word) field {
	if v, ok := literal(w); ok {
		f := staticField(c.text(v))
		f.glob = hasGlob(w.Parts)
		return f
	}
	if c.vars != nil {
		if v, ok := c.boundLiteral(w); ok {
			return staticField(c.text(v))
		}
	}
	approx, skel := c.approxPair(w.Parts, unescapeUnquoted)
	return field{val: c.source(w), approx: approx, skel: skel, dyn: true, file: procSubstFile(c, w)}
}

// procSubstFile returns what a word that is, or ends in, a process
// substitution <(...) names as a file: its static output, or text known
// only at run time.
func procSubstFile(c *code, w *syntax.Word) *input {
	if len(w.Parts) == 0 {
		return nil
	}
	p, ok := w.Parts[len(w.Parts)-1].(*syntax.ProcSubst)
	if !ok || p.Op != syntax.CmdIn {
		return nil
	}
	if out, ok := staticOutputs(c, p.Stmts); ok {
		return &input{kind: inText, text: out, code: out, via: "<(...)"}
	}
	return &input{kind: inDynamic, via: "<(...)"}
}

// approxPair returns the approx and skel renderings of parts.
func (c *code) approxPair(parts []syntax.WordPart, unescape func(string) string) (string, string) {
	var b strings.Builder
	c.approx(&b, parts, unescape, false)
	approx := c.text(b.String())
	b.Reset()
	c.approx(&b, parts, unescape, true)
	return approx, c.text(b.String())
}

// assignField renders an argument of declare, export or local.
func (c *code) assignField(as *syntax.Assign) field {
	if as.Naked || as.Array != nil || as.Index != nil {
		s := c.source(as)
		if as.Naked && as.Value != nil {
			return c.field(as.Value)
		}
		f := staticField(s)
		f.dyn = as.Array != nil || as.Index != nil
		return f
	}
	prefix := as.Name.Value + "="
	if as.Append {
		prefix = as.Name.Value + "+="
	}
	if as.Value == nil {
		return staticField(prefix)
	}
	v := c.field(as.Value)
	if v.dyn {
		return field{val: c.source(as), approx: prefix + v.approx, skel: prefix + v.skel, dyn: true}
	}
	return staticField(prefix + v.val)
}

// literal returns the value of a word that holds no run-time part.
func literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, '\\') < 0 {
			return l.Value, true
		}
	}
	return wordValue(w, nil)
}

// wordValue returns the value of w when its only run-time parts are plain
// parameter expansions that param resolves; a nil param resolves none.
func wordValue(w *syntax.Word, param func(*syntax.ParamExp) (string, bool)) (string, bool) {
	var b strings.Builder
	expand := func(x *syntax.ParamExp) bool {
		if param == nil {
			return false
		}
		v, ok := param(x)
		b.WriteString(v)
		return ok
	}
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeUnquoted(x.Value))
		case *syntax.SglQuoted:
			b.WriteString(singleQuoted(x))
		case *syntax.ParamExp:
			if !expand(x) {
				return "", false
			}
		case *syntax.DblQuoted:
			if x.Dollar {
				// $"..." is looked up in the message catalog that
				// TEXTDOMAIN and TEXTDOMAINDIR name: its text is known
				// only at run time.
				return "", false
			}
			for _, q := range x.Parts {
				switch y := q.(type) {
				case *syntax.Lit:
					b.WriteString(unescapeDouble(y.Value))
				case *syntax.ParamExp:
					if !expand(y) {
						return "", false
					}
				default:
					return "", false
				}
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// singleQuoted is the value of '...' (as written) or $'...' (escapes
// decoded, up to a NUL: bash ends the quoted text there, as a C string
// ends, so that $'.rewind.toml\x00x' names .rewind.toml).
func singleQuoted(x *syntax.SglQuoted) string {
	if !x.Dollar {
		return x.Value
	}
	s, _ := decodeEscapes(x.Value, false)
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// approx writes the parts with their static text decoded and the rest as
// source text; unescape decodes literal parts outside quotes. With skel set,
// run-time parts that hold code are written as dynamicPlaceholder.
func (c *code) approx(b *strings.Builder, parts []syntax.WordPart, unescape func(string) string, skel bool) {
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(x.Value))
		case *syntax.SglQuoted:
			b.WriteString(singleQuoted(x))
		case *syntax.DblQuoted:
			c.approx(b, x.Parts, unescapeDouble, skel)
		case *syntax.CmdSubst:
			if out, ok := staticOutputs(c, x.Stmts); ok {
				b.WriteString(strings.TrimRight(out, "\n"))
				continue
			}
			if skel {
				b.WriteString(dynamicPlaceholder)
			} else {
				b.WriteString(clipSource(c.source(x)))
			}
		case *syntax.ParamExp:
			if skel && !simpleParam(x) {
				b.WriteString(dynamicPlaceholder)
			} else {
				b.WriteString(clipSource(c.source(x)))
			}
		case *syntax.ProcSubst, *syntax.ArithmExp:
			if skel {
				b.WriteString(dynamicPlaceholder)
			} else {
				b.WriteString(clipSource(c.source(p)))
			}
		default:
			b.WriteString(clipSource(c.source(p)))
		}
	}
}

// maxSourceText bounds the source text of one run-time part in an approx
// rendering. Without it nested substitutions, each rendered at its own
// level, would copy the text inside them once per level: quadratic cost.
const maxSourceText = 256

// clipSource cuts the source text of a run-time part to maxSourceText bytes,
// at a character boundary, marking the cut with "…".
func clipSource(s string) string {
	if len(s) <= maxSourceText {
		return s
	}
	i := maxSourceText
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// simpleParam reports whether a parameter expansion holds no word or
// expression of its own, as in $DIR and ${DIR}.
func simpleParam(x *syntax.ParamExp) bool {
	return x.NestedParam == nil && x.Index == nil && x.Slice == nil && x.Repl == nil && x.Exp == nil
}

// quotedDelim reports whether a heredoc delimiter has a quoted part, which
// in bash makes the whole body data.
func quotedDelim(w *syntax.Word) bool {
	for _, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || strings.IndexByte(l.Value, '\\') >= 0 {
			return true
		}
	}
	return false
}

// heredocText returns the text a heredoc feeds, with the run-time parts of
// an unquoted body as source text, and whether it is fully static.
func heredocText(c *code, r *syntax.Redirect) (string, bool) {
	text, _, static := heredocTexts(c, r)
	return text, static
}

// heredocTexts is heredocText that also returns the skeleton of the body
// for use as code.
func heredocTexts(c *code, r *syntax.Redirect) (text, skel string, static bool) {
	if r.Hdoc == nil {
		return "", "", true
	}
	if quotedDelim(r.Word) {
		start, line, _, _ := heredocBody(c.src, r)
		raw := c.textAt(start, line)
		if r.Op == syntax.DashHdoc {
			raw = stripTabs(raw)
		}
		return raw, raw, true
	}
	static = true
	for _, p := range r.Hdoc.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			static = false
			break
		}
	}
	if static {
		text = c.text(unescapeHeredoc(literalParts(r.Hdoc.Parts)))
		return text, text, true
	}
	text, skel = c.approxPair(r.Hdoc.Parts, unescapeHeredoc)
	return text, skel, false
}

// literalParts concatenates parts that are all *syntax.Lit.
func literalParts(parts []syntax.WordPart) string {
	if len(parts) == 1 {
		return parts[0].(*syntax.Lit).Value
	}
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.(*syntax.Lit).Value)
	}
	return b.String()
}

func stripTabs(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, "\t")
	}
	return strings.Join(lines, "")
}

// staticOutputs returns what a list of statements writes, when each is a
// static echo, printf or cat, or a { ...; } group or subshell of them.
func staticOutputs(c *code, list []*syntax.Stmt) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	if len(list) == 1 {
		return staticOutput(c, list[0])
	}
	var b strings.Builder
	for _, s := range list {
		out, ok := staticOutput(c, s)
		if !ok {
			return "", false
		}
		b.WriteString(out)
	}
	return b.String(), true
}

// staticOutput returns what a simple echo, printf or cat statement, or a
// group or subshell of them, writes, when it is known statically.
func staticOutput(c *code, s *syntax.Stmt) (string, bool) {
	if s.Negated || s.Background || s.Coprocess {
		return "", false
	}
	for _, r := range s.Redirs {
		// Output sent elsewhere is not the statement's output.
		if r.N == nil && r.Op != syntax.Hdoc && r.Op != syntax.DashHdoc && r.Op != syntax.WordHdoc && r.Op != syntax.RdrIn ||
			r.N != nil && r.N.Value == "1" {
			return "", false
		}
	}
	var call *syntax.CallExpr
	switch x := s.Cmd.(type) {
	case *syntax.Block:
		return staticOutputs(c, x.Stmts)
	case *syntax.Subshell:
		return staticOutputs(c, x.Stmts)
	case *syntax.CallExpr:
		call = x
	}
	if call == nil || len(call.Args) == 0 {
		return "", false
	}
	args := make([]string, len(call.Args))
	for i, w := range call.Args {
		v, ok := literal(w)
		if !ok {
			return "", false
		}
		args[i] = c.text(v)
	}
	switch baseName(args[0]) {
	case "echo":
		if c.lang == dPOSIX {
			// dash's echo decodes backslash escapes; -n is its only
			// option.
			words, newline := args[1:], true
			if len(words) > 0 && words[0] == "-n" {
				words, newline = words[1:], false
			}
			out, stop := decodeEscapes(strings.Join(words, " "), true)
			if newline && !stop {
				out += "\n"
			}
			return out, true
		}
		return echoOutput(args[1:]), true
	case "printf":
		return printfOutput(args[1:])
	case "cat":
		if len(args) > 2 || len(args) == 2 && args[1] != "-" {
			return "", false
		}
		for i := len(s.Redirs) - 1; i >= 0; i-- {
			r := s.Redirs[i]
			if r.N != nil && r.N.Value != "0" {
				continue
			}
			if text, ok := hereText(c, r); ok || r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc {
				return text, ok
			}
		}
	}
	return "", false
}

// hereText returns the static text a heredoc or here-string feeds; it
// reports false for another redirection, or text known only at run time.
func hereText(c *code, r *syntax.Redirect) (string, bool) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		return heredocText(c, r)
	case syntax.WordHdoc:
		v, ok := literal(r.Word)
		return c.text(v) + "\n", ok
	}
	return "", false
}

func echoOutput(args []string) string {
	newline, escapes := true, false
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' || strings.Trim(a[1:], "neE") != "" {
			break
		}
		for _, ch := range a[1:] {
			switch ch {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
	}
	out := strings.Join(args[i:], " ")
	if escapes {
		var stop bool
		if out, stop = decodeEscapes(out, true); stop {
			return out
		}
	}
	if newline {
		out += "\n"
	}
	return out
}

// printfOutput supports the conversions agents use to print text: %s, %b,
// %d and %%. Anything else is not treated as static.
func printfOutput(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false
	}
	format, rest := args[0], args[1:]
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			switch ch := format[i]; ch {
			case '\\':
				j := escapeEnd(format, i)
				s, stop := decodeEscapes(format[i:j], true)
				b.WriteString(s)
				if stop {
					return b.String(), true
				}
				i = j - 1
			case '%':
				if i+1 >= len(format) {
					return "", false
				}
				i++
				conv := format[i]
				if conv == '%' {
					b.WriteByte('%')
					continue
				}
				arg := ""
				if len(rest) > 0 {
					arg, rest = rest[0], rest[1:]
					used++
				}
				switch conv {
				case 's', 'd', 'i':
					b.WriteString(arg)
				case 'b':
					s, stop := decodeEscapes(arg, true)
					b.WriteString(s)
					if stop {
						return b.String(), true
					}
				default:
					return "", false
				}
			default:
				b.WriteByte(ch)
			}
		}
		if len(rest) == 0 || used == 0 {
			return b.String(), true
		}
	}
}

// escapeEnd returns the end of the backslash escape starting at s[i].
func escapeEnd(s string, i int) int {
	j := i + 2
	if j > len(s) {
		return len(s)
	}
	switch s[i+1] {
	case '0', '1', '2', '3', '4', '5', '6', '7':
		for j < len(s) && j < i+5 && s[j] >= '0' && s[j] <= '7' {
			j++
		}
	case 'x', 'u', 'U':
		n := hexDigits(s[i+1])
		for j < len(s) && j < i+2+n && isHex(s[j]) {
			j++
		}
	}
	return j
}

// hexDigits is the most hex digits the escapes \x, \u and \U take.
func hexDigits(escape byte) int {
	switch escape {
	case 'x':
		return 2
	case 'u':
		return 4
	}
	return 8
}

func isHex(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
}

// decodeEscapes decodes backslash escapes as $'...' does, or as echo -e
// and printf do when echo is set (octal is \0nnn and \c ends the output,
// reported by stop).
func decodeEscapes(s string, echo bool) (out string, stop bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(ch)
		case 'c':
			if echo {
				return b.String(), true
			}
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case 'x', 'u', 'U':
			n := hexDigits(ch)
			j := i + 1
			for j < len(s) && j < i+1+n && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(ch)
				continue
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if ch == 'x' {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(rune(v))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j, limit := i, i+3
			if echo && ch == '0' {
				j, limit = i+1, i+4
			}
			for j < len(s) && j < limit && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint("0"+s[i:j], 8, 16)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(ch)
		}
	}
	return b.String(), false
}

// unescapeUnquoted removes the backslashes of unquoted text.
func unescapeUnquoted(s string) string {
	return unescape(s, func(byte) bool { return true })
}

// unescapeDouble removes the backslashes that are special inside double
// quotes.
func unescapeDouble(s string) string {
	return unescape(s, func(b byte) bool { return b == '$' || b == '`' || b == '"' || b == '\\' })
}

// unescapeHeredoc removes the backslashes that are special in the body of
// an unquoted heredoc.
func unescapeHeredoc(s string) string {
	return unescape(s, func(b byte) bool { return b == '$' || b == '`' || b == '\\' })
}

func unescape(s string, special func(byte) bool) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch next := s[i+1]; {
		case next == '\n':
			i++
		case special(next):
			b.WriteByte(next)
			i++
		default:
			b.WriteByte('\\')
		}
	}
	return b.String()
}

// baseName normalises a command name: the shell looks up the last path
// element of a name with a slash.
func baseName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 && i < len(name)-1 {
		return name[i+1:]
	}
	return name
}

// validName reports whether s is a shell variable name, for NAME=VALUE
// words that env and sudo take before the command.
func validName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

func isAssignment(f field) bool {
	i := strings.IndexByte(f.val, '=')
	return i > 0 && validName(f.val[:i])
}
