package shell

import (
	"errors"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Where mvdan.cc/sh reads a command line differently from bash, in a way
// that changes which commands run, the analysis mends the source: it
// replaces a few bytes by as many bytes that the parser reads as bash
// reads the original, and parses the line again from its start. Offsets
// stay as they were, so every position still names the original text.
//
//   - A comment ending in a backslash: bash ends a comment at the newline,
//     the parser takes the backslash and newline for a line continuation
//     and joins the next line to the command ("echo x #\" then "ssh web-01
//     reboot" runs ssh in bash). The backslash becomes a blank.
//   - A heredoc delimiter the parser reads otherwise: bash removes the
//     quotes of the word as written, decoding $'...' and the backslashes
//     of "...", and keeps expansions as their text, while the parser keeps
//     $'...' undecoded and "\$" as it is, and drops $x, $(...) and `...`
//     ("cat <<$'E\x4fF'" ends at a line EOF in bash). The word becomes a
//     quoted word of the same length that the parser reads as bash does;
//     an unquoted delimiter holding an expansion becomes, with the line
//     that ends the body, a word of bytes the source does not hold.
//
// The analysis also follows bash where reading the parse result is
// enough: see the single quotes of "${x-'$(cmd)'}" in wordPart.

// maxMends bounds how often one piece of code is parsed again after a
// mend; past it the rest is past a limit.
const maxMends = 16

// errMend stops the parser once the source is to be mended.
var errMend = errors.New("source mended")

// mend is a change to the source: the n bytes at off replaced by text,
// most often of the same length.
type mend struct {
	off, n int
	text   string
}

// mended returns src with the mends applied.
func mended(src string, ms []mend) string {
	slices.SortFunc(ms, func(x, y mend) int { return x.off - y.off })
	var b strings.Builder
	b.Grow(len(src) + len(ms))
	at := 0
	for _, m := range ms {
		if m.off < at || m.off+m.n > len(src) {
			continue
		}
		b.WriteString(src[at:m.off])
		b.WriteString(m.text)
		at = m.off + m.n
	}
	b.WriteString(src[at:])
	return b.String()
}

// commentJoins returns the mends of the comments in s that end in a
// backslash before a newline: the parser joined the next line to them.
func commentJoins(c *code, s *syntax.Stmt) []mend {
	start, end := int(s.Pos().Offset()), min(int(s.End().Offset()), len(c.src))
	if start >= end || !strings.Contains(c.src[start:end], "\\\n") {
		return nil
	}
	seg := c.src[start:end]
	// The first '#' of each line that ends in a single backslash, and
	// that starts a word.
	var cands []int
	for i := 0; i < len(seg); {
		nl := strings.IndexByte(seg[i:], '\n')
		if nl < 0 {
			break
		}
		line := seg[i : i+nl]
		if strings.HasSuffix(line, "\\") && !strings.HasSuffix(line, "\\\\") {
			for j := 0; j < len(line)-1; j++ {
				if line[j] == '#' && (j == 0 && i > 0 || j > 0 && strings.IndexByte(" \t;&|()<>", line[j-1]) >= 0) {
					cands = append(cands, start+i+j)
				}
			}
		}
		i += nl + 1
	}
	if len(cands) == 0 {
		return nil
	}
	// A '#' is a comment to the parser where no literal, quoted string or
	// arithmetic holds it, or where the innermost thing holding it is a
	// command or process substitution, whose code may have comments.
	type span struct {
		start, end int
		open       bool
	}
	var spans []span
	add := func(from, to syntax.Pos, open bool) {
		if from.IsValid() && to.IsValid() && from.Offset() < to.Offset() {
			spans = append(spans, span{int(from.Offset()), int(to.Offset()), open})
		}
	}
	syntax.Walk(s, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit:
			add(x.ValuePos, x.ValueEnd, false)
		case *syntax.SglQuoted:
			add(x.Pos(), x.End(), false)
		case *syntax.ArithmExp:
			add(x.Pos(), x.End(), false)
		case *syntax.ArithmCmd:
			add(x.Pos(), x.End(), false)
		case *syntax.CmdSubst:
			add(x.Pos(), x.End(), true)
		case *syntax.ProcSubst:
			add(x.Pos(), x.End(), true)
		}
		return true
	})
	slices.SortFunc(spans, func(x, y span) int {
		if x.start != y.start {
			return x.start - y.start
		}
		return y.end - x.end
	})
	var out []mend
	var stack []span
	next, line := 0, -1
	for _, h := range cands {
		for next < len(spans) && spans[next].start <= h {
			for len(stack) > 0 && stack[len(stack)-1].end <= spans[next].start {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, spans[next])
			next++
		}
		for len(stack) > 0 && stack[len(stack)-1].end <= h {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && !stack[len(stack)-1].open {
			continue
		}
		// The comment runs to the end of its line, whose backslash is
		// the parser's line continuation.
		nl := strings.IndexByte(c.src[h:], '\n')
		if b := h + nl - 1; nl > 0 && b != line {
			line = b
			out = append(out, mend{off: b, n: 1, text: " "})
		}
	}
	return out
}

// heredocMends returns the mends of the heredoc delimiters of the
// redirections rs, whose bodies the parser has read, that the parser reads
// differently from bash. It reports false when a delimiter cannot be
// mended, which leaves the code past a limit.
func heredocMends(c *code, rs []*syntax.Redirect) ([]mend, bool) {
	for _, r := range rs {
		body := -1
		if r.Hdoc != nil && r.Hdoc.Pos().IsValid() {
			body = int(r.Hdoc.Pos().Offset())
		}
		if ms, ok := heredocMend(c, c, r, 0, body); len(ms) > 0 || !ok {
			return ms, ok
		}
	}
	return nil, true
}

// heredocMend returns the mends of one heredoc delimiter, read from sub,
// whose text starts at offset base of c's; body is the offset in c of the
// body, or -1 when it is not known.
func heredocMend(c, sub *code, r *syntax.Redirect, base, body int) ([]mend, bool) {
	if r.Word == nil {
		return nil, true
	}
	stop, quoted := bashDelim(sub, r.Word)
	if stop == parserDelim(r.Word) || strings.IndexByte(stop, '\n') >= 0 {
		// A delimiter holding a newline ends no line: bash reads the
		// body to the end of the input, as the parser does or ends it
		// earlier.
		return nil, true
	}
	from, to := base+int(r.Word.Pos().Offset()), base+int(r.Word.End().Offset())
	if quoted {
		w, ok := quotedDelimWord(stop, to-from)
		if !ok {
			return nil, false
		}
		return []mend{{off: from, n: len(w), text: w}}, true
	}
	// An unquoted delimiter is its own text, $x and $(...) included,
	// which no unquoted word the parser reads can be: the word and the
	// line that ends the body become bytes the source does not hold.
	fill, ok := absentByte(c)
	if !ok || body < 0 || len(stop) != to-from {
		return nil, false
	}
	w := strings.Repeat(string(fill), len(stop))
	ms := []mend{{off: from, n: len(w), text: w}}
	if end, ok := terminator(c.src, body, stop, r.Op == syntax.DashHdoc); ok {
		ms = append(ms, mend{off: end, n: len(w), text: w})
	}
	return ms, true
}

// terminator returns the offset of the delimiter on the first line from
// offset body that ends a heredoc delimited by stop.
func terminator(src string, body int, stop string, dash bool) (int, bool) {
	_, off, _, ok := heredocEnd(src, body, stop, dash)
	return off, ok
}

// absentByte returns a control byte that src does not hold, which the
// parser reads as an ordinary word character.
func absentByte(c *code) (byte, bool) {
	for _, b := range []byte(wordControls) {
		if b != c.cr && strings.IndexByte(c.src, b) < 0 && (c.bodies == nil || strings.IndexByte(c.bodies.orig, b) < 0) {
			return b, true
		}
	}
	return 0, false
}

// parserDelim returns the delimiter the parser ends a heredoc at, as
// mvdan.cc/sh's unquotedWordBytes makes it: backslashes removed outside
// double quotes, $'...' undecoded, expansions left out.
func parserDelim(w *syntax.Word) string {
	var b strings.Builder
	var part func(p syntax.WordPart, quotes bool)
	part = func(p syntax.WordPart, quotes bool) {
		switch x := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(x.Value); i++ {
				if x.Value[i] == '\\' && !quotes {
					if i++; i < len(x.Value) {
						b.WriteByte(x.Value[i])
					}
				} else {
					b.WriteByte(x.Value[i])
				}
			}
		case *syntax.SglQuoted:
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				part(q, true)
			}
		}
	}
	for _, p := range w.Parts {
		part(p, false)
	}
	return b.String()
}

// bashDelim returns the delimiter bash ends a heredoc at: the word with
// its quotes removed, $'...' decoded, and expansions as their text; and
// whether any part of it is quoted, which makes the body data.
func bashDelim(c *code, w *syntax.Word) (stop string, quoted bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			quoted = quoted || strings.IndexByte(x.Value, '\\') >= 0
			b.WriteString(unescapeUnquoted(x.Value))
		case *syntax.SglQuoted:
			quoted = true
			b.WriteString(singleQuoted(x))
		case *syntax.DblQuoted:
			quoted = true
			for _, q := range x.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(l.Value))
				} else {
					b.WriteString(c.source(q))
				}
			}
		default:
			b.WriteString(c.source(p))
		}
	}
	return b.String(), quoted
}

// quotedDelimWord returns a quoted word of n bytes that the parser reads
// as the delimiter stop: stop in single quotes (a ' in double quotes),
// perhaps its first byte escaped by a backslash, padded with ” and $”.
func quotedDelimWord(stop string, n int) (string, bool) {
	if n-len(stop) == 1 && stop != "" && !strings.ContainsAny(stop, unquotedSpecial) {
		return "\\" + stop, true
	}
	q := singleQuote(stop)
	if stop == "" {
		q = "''"
	}
	if pad := n - len(q); pad == 1 && stop != "" {
		// A backslash before the first byte takes one byte more than
		// quoting it.
		q = "\\" + stop[:1] + singleQuote(stop[1:])
	}
	pad := n - len(q)
	if pad < 0 || pad == 1 {
		return "", false
	}
	if pad%2 == 1 {
		q += "$''"
		pad -= 3
	}
	return q + strings.Repeat("''", pad/2), true
}

// unquotedSpecial are the bytes the parser does not read as themselves in
// an unquoted word.
const unquotedSpecial = " \t\n;&|()<>'\"\\$`*?[]{}#~=%!"

// singleQuote returns s in single quotes, each ' in double quotes.
func singleQuote(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == '\'' {
			b.WriteString(`"'"`)
			i++
			continue
		}
		j := strings.IndexByte(s[i:], '\'')
		if j < 0 {
			j = len(s) - i
		}
		b.WriteString("'" + s[i:i+j] + "'")
		i += j
	}
	return b.String()
}

// errorHeredoc mends a heredoc delimiter a parse error is about: the
// parser found no end of the body, or refused an expansion in the word,
// which bash takes as its text ("cat <<$x" ends at a line $x). It reads
// the word again from the source, and returns the mends, or false when
// they cannot be made; none when the error is about no such word.
func (a *analyzer) errorHeredoc(c *code, err error) ([]mend, bool) {
	var perr syntax.ParseError
	if !errors.As(err, &perr) {
		return nil, true
	}
	off := min(int(perr.Pos.Offset()), len(c.src))
	var i int
	switch {
	case strings.HasPrefix(perr.Text, "unclosed here-document"):
		// The error is at the redirection.
		if i = strings.Index(c.src[off:], "<<"); i < 0 {
			return nil, true
		}
		i += off
	case strings.HasPrefix(perr.Text, "expansions not allowed in heredoc words"):
		// The error is at the expansion, in the word.
		if i = strings.LastIndex(c.src[:off], "<<"); i < 0 {
			return nil, true
		}
	default:
		return nil, true
	}
	i += 2
	op := syntax.Hdoc
	if i < len(c.src) && c.src[i] == '-' {
		op = syntax.DashHdoc
		i++
	}
	for i < len(c.src) && (c.src[i] == ' ' || c.src[i] == '\t') {
		i++
	}
	var w *syntax.Word
	func() {
		// As in walkSource: the parser may panic on input it cannot
		// handle.
		defer func() {
			if recover() != nil {
				w = nil
			}
		}()
		for word, err := range newParser(c.lang).WordsSeq(strings.NewReader(c.src[i:])) {
			if err == nil {
				w = word
			}
			break
		}
	}()
	if w == nil {
		return nil, true
	}
	// The body starts on the line after the word's, as bash reads a
	// command line that holds no quotes across lines.
	body := -1
	if end := i + int(w.End().Offset()); end <= len(c.src) {
		if nl := strings.IndexByte(c.src[end:], '\n'); nl >= 0 {
			body = end + nl + 1
		}
	}
	sub := &code{src: c.src[i:], cr: c.cr}
	return heredocMend(c, sub, &syntax.Redirect{Op: op, Word: w}, i, body)
}

// posixMend returns the mend of a POSIX parse error that dash reads
// otherwise: "&>" is "&" then ">" ("cmd &>/dev/null other" runs other).
func posixMend(c *code, err error) ([]mend, bool) {
	var lerr syntax.LangError
	if c.lang != dPOSIX || !errors.As(err, &lerr) || !strings.HasPrefix(lerr.Feature, "`&>") {
		return nil, false
	}
	off := int(lerr.Pos.Offset())
	if off+1 >= len(c.src) || c.src[off] != '&' || c.src[off+1] != '>' {
		return nil, false
	}
	return []mend{{off: off + 1, text: " "}}, true
}
