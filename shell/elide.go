package shell

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// A quoted heredoc's body is data: the parser reads it a byte at a time
// and keeps it as one literal, which the analysis then reads from the
// source (see heredocTexts). A commit message of thousands of lines,
// written by an agent as `git commit -F - <<'EOF'` or `-m "$(cat <<'EOF'
// ...)"`, was most of what judging it cost. So before code is parsed, the
// bodies of its quoted heredocs are taken out of the source: each becomes
// a placeholder line, and code.text puts the body back wherever the
// analysis reads text of the source. The parser then reads a line where it
// read the body, and every node and offset refers to the shorter source.
//
// The bodies are found by reading the text, not parsed, so a "<<'EOF'"
// in a quoted string or comment looks like one too. What the parser makes
// of the shorter source proves them: each placeholder must be the whole
// body of a heredoc whose delimiter is the quoted word the text had, not
// inside backquotes, and the source must parse. The parser reads the
// source before a body as it reads the whole source, since the two are
// the same up to there; from the body's first byte it reads lines until
// one equals the delimiter, which is the line that follows the
// placeholder, and the source after that line is the same again. Where
// anything fails to prove, nothing is taken out.

// minElided is the least a code's heredoc bodies must hold, in bytes, to
// be taken out: below it, proving them costs more than it saves. The
// bodies must also hold more than the rest of the source, which is read
// twice.
const minElided = 4 << 10

// maxProved bounds the source, less its bodies, that is parsed whole to
// prove them: the parse keeps its whole tree, which for the dearest
// shapes costs a kilobyte or two a byte (see maxAllocPerByte).
const maxProved = 16 << 10

// bodies are the heredoc bodies taken out of a code's source, each
// replaced by a placeholder line: mark, the body's index, mark, newline.
type bodies struct {
	mark byte
	orig string   // the source with its bodies
	text []string // the bodies, slices of orig
	from []int    // where each body starts in orig
	at   []int    // where each placeholder starts in the source
	next []int    // where the line after each placeholder starts there
}

// origAt returns the offset in the source with its bodies of offset x in
// the source without them. An offset within a placeholder is that of its
// body's start, or of its end when end is set.
func (b *bodies) origAt(x int, end bool) int {
	k, _ := slices.BinarySearch(b.at, x+1)
	k-- // the last placeholder at or before x
	switch {
	case k < 0:
		return x
	case x >= b.next[k]:
		return b.from[k] + len(b.text[k]) + x - b.next[k]
	case end && x > b.at[k]:
		return b.from[k] + len(b.text[k])
	}
	return b.from[k]
}

// restore puts the bodies back into s, a slice of the source. A
// placeholder cut by the slice stays as it is.
func (b *bodies) restore(s string) string {
	var out strings.Builder
	at := 0
	b.each(s, func(start, end, n int) bool {
		if out.Len() == 0 {
			out.Grow(len(s) + len(b.text[n]))
		}
		out.WriteString(s[at:start])
		out.WriteString(b.text[n])
		at = end
		return true
	})
	if at == 0 {
		return s
	}
	out.WriteString(s[at:])
	return out.String()
}

// each calls f with the start, the end (past its newline) and the body's
// index of each whole placeholder in s, in order, until f returns false.
func (b *bodies) each(s string, f func(start, end, n int) bool) {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], b.mark)
		if j < 0 {
			return
		}
		start := i + j
		n, end, ok := b.placeholder(s, start)
		if !ok {
			i = start + 1
			continue
		}
		if !f(start, end, n) {
			return
		}
		i = end
	}
}

// placeholder reads the placeholder at s[start:], returning the index of
// its body and the offset just past its newline.
func (b *bodies) placeholder(s string, start int) (n, end int, ok bool) {
	rest := s[start+1:]
	k := strings.IndexByte(rest, b.mark)
	if k <= 0 || k+1 >= len(rest) || rest[k+1] != '\n' {
		return 0, 0, false
	}
	n, err := strconv.Atoi(rest[:k])
	if err != nil || n < 0 || n >= len(b.text) {
		return 0, 0, false
	}
	return n, start + 1 + k + 2, true
}

// restoreMends returns rest, the source from a line's start that is to be
// read again mended, with the bodies back, and the mends moved to match.
// It reports false when a mend would fall in a placeholder, which no mend
// does: mends are at operators, delimiters and comments.
func (b *bodies) restoreMends(rest string, fix []mend) (string, []mend, bool) {
	moved := slices.Clone(fix)
	slices.SortFunc(moved, func(x, y mend) int { return x.off - y.off })
	shift, m := 0, 0
	ok := true
	b.each(rest, func(start, end, n int) bool {
		for ; m < len(moved) && moved[m].off < start; m++ {
			if moved[m].off+moved[m].n > start {
				ok = false
				return false
			}
			moved[m].off += shift
		}
		if m < len(moved) && moved[m].off < end {
			ok = false
			return false
		}
		shift += len(b.text[n]) - (end - start)
		return true
	})
	if !ok {
		return "", nil, false
	}
	for ; m < len(moved); m++ {
		moved[m].off += shift
	}
	return b.restore(rest), moved, true
}

// heredocSpan is a quoted heredoc body found in the text: src[body:line],
// the lines before the one holding only delim.
type heredocSpan struct {
	body, line int
	delim      string
}

// quotedBodies returns the bodies of quoted heredocs, `<<'WORD'` or
// `<<"WORD"` with WORD of letters, digits and underscores, that src seems
// to hold, and the bytes they hold. Only the first heredoc of a line is
// taken, whose body starts on the next line; <<- is left alone. It reads
// each byte of src a bounded number of times, and stops with none once the
// text outside bodies is past maxProved.
func quotedBodies(src string) (spans []heredocSpan, total int) {
	for i := 0; ; {
		j := strings.Index(src[i:], "<<")
		if j < 0 {
			return spans, total
		}
		op := i + j
		if op-total > maxProved {
			// More than the rest may hold: nothing will be taken out.
			return nil, 0
		}
		i = op + 2
		if op > 0 && src[op-1] == '<' || i < len(src) && (src[i] == '<' || src[i] == '-') {
			for i < len(src) && src[i] == '<' {
				i++
			}
			continue
		}
		k := i
		for k < len(src) && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k == len(src) || src[k] != '\'' && src[k] != '"' {
			continue
		}
		q := src[k]
		k++
		w := k
		for k < len(src) && isWordByte(src[k]) {
			k++
		}
		if k == w || k == len(src) || src[k] != q {
			continue
		}
		delim := src[w:k]
		nl := strings.IndexByte(src[k:], '\n')
		if nl < 0 {
			return spans, total
		}
		body := k + nl + 1
		line, _, next, ok := heredocEnd(src, body, delim, false)
		if !ok {
			// The rest is this heredoc's body, or the text only
			// seemed to hold one. Looking on would read the rest again
			// for each "<<" in it.
			return spans, total
		}
		if line > body && utf8.ValidString(src[body:line]) {
			spans = append(spans, heredocSpan{body: body, line: line, delim: delim})
			total += line - body
		}
		i = next
	}
}

// elide takes the quoted heredoc bodies out of c's source when they hold
// enough to be worth it and the parser proves them (see above), and
// records them in c.bodies.
func (a *analyzer) elide(c *code) {
	if a.elideMin <= 0 || len(c.src) < a.elideMin || strings.IndexByte(c.src, 0) >= 0 {
		// The parser skips NUL bytes, which would let a line it
		// compares with the delimiter differ from the text's.
		return
	}
	spans, total := quotedBodies(c.src)
	if total < a.elideMin || len(c.src)-total > maxProved || a.elideRatio && total < len(c.src)-total {
		return
	}
	mark, ok := placeholderMark(c)
	if !ok {
		return
	}
	b := &bodies{mark: mark, orig: c.src, text: make([]string, len(spans)),
		from: make([]int, len(spans)), at: make([]int, len(spans)), next: make([]int, len(spans))}
	var s strings.Builder
	s.Grow(len(c.src) - total + len(spans)*8)
	done := 0
	for n, sp := range spans {
		s.WriteString(c.src[done:sp.body])
		b.at[n] = s.Len()
		s.WriteByte(mark)
		s.WriteString(strconv.Itoa(n))
		s.WriteByte(mark)
		s.WriteByte('\n')
		b.next[n] = s.Len()
		b.text[n], b.from[n] = c.src[sp.body:sp.line], sp.body
		done = sp.line
	}
	s.WriteString(c.src[done:])
	short := s.String()
	if !a.proveBodies(c.lang, short, spans, b) {
		return
	}
	c.src, c.bodies = short, b
}

// placeholderMark returns the byte that marks placeholders in c's source:
// a control byte the source does not hold and that does not stand for
// '\r'. It is the last of those absentByte reads, and there must be
// another, so that absentByte returns the same byte for the source with
// and without its bodies.
func placeholderMark(c *code) (byte, bool) {
	free := 0
	var last byte
	for i := 0; i < len(wordControls); i++ {
		if b := wordControls[i]; b != c.cr && strings.IndexByte(c.src, b) < 0 {
			free++
			last = b
		}
	}
	return last, free >= 2
}

// proveBodies parses short, the source with its bodies taken out, and
// reports whether each placeholder is the whole body of a heredoc of
// its delimiter, outside backquotes, in a source that parses.
func (a *analyzer) proveBodies(lang dialect, short string, spans []heredocSpan, b *bodies) (proved bool) {
	defer func() {
		if recover() != nil {
			proved = false
		}
	}()
	f, err := newParser(lang).Parse(&guardReader{a: a, src: short}, "")
	if err != nil {
		return false
	}
	seen := make([]bool, len(spans))
	found := 0
	bad := false
	// quoted says, for each node being walked, whether it is a
	// backquoted substitution; inQuotes counts those.
	var quoted []bool
	inQuotes := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		if n == nil {
			if quoted[len(quoted)-1] {
				inQuotes--
			}
			quoted = quoted[:len(quoted)-1]
			return true
		}
		if bad {
			return false
		}
		if x, ok := n.(*syntax.Redirect); ok && x.Op == syntax.Hdoc && x.Hdoc != nil && len(x.Hdoc.Parts) == 1 {
			if l, ok := x.Hdoc.Parts[0].(*syntax.Lit); ok && strings.IndexByte(l.Value, b.mark) >= 0 {
				k, end, ok := b.placeholder(l.Value, 0)
				if !ok || end != len(l.Value) || seen[k] || int(l.Pos().Offset()) != b.at[k] ||
					!quotedDelim(x.Word) || parserDelim(x.Word) != spans[k].delim || inQuotes > 0 {
					bad = true
					return false
				}
				seen[k] = true
				found++
			}
		}
		x, ok := n.(*syntax.CmdSubst)
		q := ok && x.Backquotes
		if q {
			inQuotes++
		}
		quoted = append(quoted, q)
		return true
	})
	return !bad && found == len(spans)
}

// guardReader feeds src to the parser that proves heredoc bodies and
// stops it, as depthReader stops the analysis's, once the stack is deeper
// than the analysis allows.
type guardReader struct {
	a     *analyzer
	src   string
	reads int
	pcs   [1]uintptr
}

func (r *guardReader) Read(p []byte) (int, error) {
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	if r.a.tooDeep(&r.reads, r.pcs[:]) {
		return 0, errTooDeep
	}
	n := copy(p, r.src)
	r.src = r.src[n:]
	return n, nil
}
