package powershell

import "strings"

// Tokens: bare words, strings and here-strings, read as PowerShell's
// tokenizer (tokenizer.cs in the PowerShell repository) reads them.

type tokKind uint8

const (
	tWord   tokKind = iota // a bare word
	tSingle                // '...'
	tDouble                // "..."
	tHereS                 // @'...'@
	tHereD                 // @"..."@
)

// tokState is a token being read; it is kept in its frame while a $(...)
// inside it is read.
type tokState struct {
	kind  tokKind
	start int
	pos   int
	dyn   bool
	esc   bool // the value differs from the source: quotes, escapes
	inDQ  bool // a bare word inside an embedded "..." part
	bad   bool // not terminated
	buf   []byte
}

type token struct {
	text   string // the value, or the source when dyn
	src    string
	dyn    bool
	quoted bool
	ident  bool // a plain identifier, which may be a keyword
	bad    bool
}

// beginToken starts reading a token for p.
func (r *reader) beginToken(f *frame, p purpose) {
	c, w := runeAt(r.src, r.pos)
	ts := tokState{start: r.pos}
	switch {
	case isSingleQuote(c):
		ts.kind, ts.pos, ts.esc = tSingle, r.pos+w, true
	case isDoubleQuote(c):
		ts.kind, ts.pos, ts.esc = tDouble, r.pos+w, true
	case c == '@' && r.hereHeader(r.pos+1):
		q, qw := runeAt(r.src, r.pos+1)
		ts.kind = tHereS
		if isDoubleQuote(q) {
			ts.kind = tHereD
		}
		ts.esc = true
		ts.pos = r.pos + 1 + qw
		// The body starts after the header's newline.
		for ts.pos < len(r.src) && r.src[ts.pos] != '\n' {
			ts.pos++
		}
		ts.pos = min(ts.pos+1, len(r.src))
	default:
		ts.kind, ts.pos = tWord, r.pos
	}
	f.tok, f.tokFor = ts, p
	r.scanToken(f)
}

// hereHeader reports whether a here-string header (@' or @" then only
// white space to the end of the line) starts at i, after the @.
func (r *reader) hereHeader(i int) bool {
	q, w := runeAt(r.src, i)
	if !isSingleQuote(q) && !isDoubleQuote(q) {
		return false
	}
	for j := i + w; j < len(r.src); {
		c, cw := runeAt(r.src, j)
		switch {
		case c == '\n' || c == '\r':
			return true
		case !isSpace(c):
			return false
		}
		j += cw
	}
	return false
}

// scanToken reads the token in f.tok from where it stopped, and delivers
// it when it is complete; at a $( inside it, it opens a frame for the
// code and suspends.
func (r *reader) scanToken(f *frame) {
	ts := &f.tok
	s := r.src
	for ts.pos < len(s) {
		c, w := runeAt(s, ts.pos)
		switch ts.kind {
		case tSingle:
			if isSingleQuote(c) {
				if n, nw := runeAt(s, ts.pos+w); isSingleQuote(n) {
					ts.add(s[ts.pos+w : ts.pos+w+nw])
					ts.pos += w + nw
					continue
				}
				ts.pos += w
				r.tokenDone(f)
				return
			}
			ts.add(s[ts.pos : ts.pos+w])
			ts.pos += w
			continue
		case tHereS, tHereD:
			if c == '\n' {
				if q, qw := runeAt(s, ts.pos+1); (ts.kind == tHereS && isSingleQuote(q) || ts.kind == tHereD && isDoubleQuote(q)) && r.at(ts.pos+1+qw, '@') {
					ts.pos += 1 + qw + 1
					r.tokenDone(f)
					return
				}
			}
			if ts.kind == tHereS {
				ts.add(s[ts.pos : ts.pos+w])
				ts.pos += w
				continue
			}
		case tDouble:
			if isDoubleQuote(c) {
				if n, nw := runeAt(s, ts.pos+w); isDoubleQuote(n) {
					ts.add(s[ts.pos+w : ts.pos+w+nw])
					ts.pos += w + nw
					continue
				}
				ts.pos += w
				r.tokenDone(f)
				return
			}
		case tWord:
			if ts.inDQ {
				if isDoubleQuote(c) {
					if n, nw := runeAt(s, ts.pos+w); isDoubleQuote(n) {
						ts.add(s[ts.pos+w : ts.pos+w+nw])
						ts.pos += w + nw
						continue
					}
					ts.inDQ = false
					ts.pos += w
					continue
				}
				break
			}
			switch {
			case endsToken(c):
				r.tokenDone(f)
				return
			case isSingleQuote(c):
				ts.esc = true
				ts.pos += w
				for ts.pos < len(s) {
					q, qw := runeAt(s, ts.pos)
					if isSingleQuote(q) {
						if n, nw := runeAt(s, ts.pos+qw); isSingleQuote(n) {
							ts.add(s[ts.pos+qw : ts.pos+qw+nw])
							ts.pos += qw + nw
							continue
						}
						ts.pos += qw
						break
					}
					ts.add(s[ts.pos : ts.pos+qw])
					ts.pos += qw
				}
				continue
			case isDoubleQuote(c):
				ts.esc, ts.inDQ = true, true
				ts.pos += w
				continue
			}
		}
		// Expandable text: a bare word, "...", @"..."@.
		switch {
		case c == '`':
			n, nw := runeAt(s, ts.pos+1)
			if nw == 0 {
				ts.add("`")
				ts.pos++
				continue
			}
			ts.esc = true
			ts.add(backtick(n, s[ts.pos+1:ts.pos+1+nw]))
			ts.pos += 1 + nw
		case c == '$' && r.at(ts.pos+1, '('):
			// Code inside the token: read it, then resume.
			ts.dyn = true
			r.push(frame{kind: fSub, ret: retResume, open: ts.pos, closer: ')'})
			r.pos = ts.pos + 2
			return
		case c == '$':
			if end := varEnd(s, ts.pos); end > ts.pos {
				ts.dyn = true
				ts.pos = end
				continue
			}
			ts.add("$")
			ts.pos++
		default:
			ts.add(s[ts.pos : ts.pos+w])
			ts.pos += w
		}
	}
	// The code ended inside the token.
	if ts.kind != tWord || ts.inDQ {
		ts.bad = true
	}
	r.tokenDone(f)
}

// add appends text to the token's value.
func (ts *tokState) add(text string) {
	if ts.dyn {
		return
	}
	ts.buf = append(ts.buf, text...)
}

// backtick returns what `n stands for: `n is a newline, `t a tab, and so
// on; any other character stands for itself.
func backtick(n rune, raw string) string {
	switch n {
	case '0':
		return "\x00"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 'e':
		return "\x1b"
	case 'f':
		return "\f"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'v':
		return "\v"
	}
	return raw
}

// varEnd returns the end of the variable at i (a $), or i when no
// variable starts there: $name, $scope:name, ${any name}, $$, $?, $^.
func varEnd(s string, i int) int {
	j := i + 1
	c, w := runeAt(s, j)
	switch {
	case c == '{':
		for k := j + 1; k < len(s); k++ {
			switch s[k] {
			case '`':
				k++
			case '}':
				return k + 1
			}
		}
		return len(s)
	case c == '$' || c == '?' || c == '^':
		return j + w
	case !isVarChar(c):
		return i
	}
	for j < len(s) {
		c, w := runeAt(s, j)
		if isVarChar(c) {
			j += w
			continue
		}
		if c == ':' {
			if n, _ := runeAt(s, j+1); isVarChar(n) {
				j++
				continue
			}
		}
		break
	}
	return j
}

// tokenDone delivers the token f.tok to what it was read for.
func (r *reader) tokenDone(f *frame) {
	ts := &f.tok
	r.pos = ts.pos
	t := token{src: r.src[ts.start:ts.pos], dyn: ts.dyn, quoted: ts.kind != tWord, bad: ts.bad}
	switch {
	case t.dyn:
		t.text = t.src
	case ts.esc:
		t.text = string(ts.buf)
	default:
		t.text = t.src
	}
	ts.buf = ts.buf[:0]
	if ts.kind == tWord && !ts.esc && !ts.dyn {
		t.ident = isIdent(t.text)
	}
	if t.bad {
		r.unterminated(ts.start, t.quoted)
	}
	switch f.tokFor {
	case pName:
		r.nameToken(f, t)
	case pCallName:
		r.callToken(f, t)
	case pArg:
		r.argToken(f, t)
	case pOperand:
		r.operandToken(f, t)
	case pRedirect:
		r.redirectToken(f, t)
	}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); {
		c, w := runeAt(s, i)
		if !isIdentChar(c) && (i == 0 || c != '-') {
			return false
		}
		i += w
	}
	return true
}

// numberEnd returns the end of the number at i, or i when no number
// starts there: digits, a fraction, an exponent, a hex or binary form, a
// type suffix and a multiplier (kb, mb, gb, tb, pb), followed by a
// character that ends it.
func numberEnd(s string, i int) int {
	j := i
	digits := func() {
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	switch {
	case j+1 < len(s) && s[j] == '0' && (s[j+1] == 'x' || s[j+1] == 'X'):
		j += 2
		for j < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[j]) >= 0 {
			j++
		}
	case j+1 < len(s) && s[j] == '0' && (s[j+1] == 'b' || s[j+1] == 'B'):
		j += 2
		for j < len(s) && (s[j] == '0' || s[j] == '1') {
			j++
		}
	default:
		digits()
		if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
			j++
			digits()
		}
		if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && s[k] >= '0' && s[k] <= '9' {
				j = k
				digits()
			}
		}
	}
	if j == i {
		return i
	}
	for _, suf := range []string{"ul", "us", "uy", "l", "d", "u", "s", "y", "n"} {
		if len(s)-j >= len(suf) && strings.EqualFold(s[j:j+len(suf)], suf) {
			j += len(suf)
			break
		}
	}
	for _, m := range []string{"kb", "mb", "gb", "tb", "pb"} {
		if len(s)-j >= 2 && strings.EqualFold(s[j:j+2], m) {
			j += 2
			break
		}
	}
	if c, _ := runeAt(s, j); c != 0 && !endsToken(c) && !strings.ContainsRune("+-*/%=<>!.[]:\"'#", c) && !isDash(c) {
		return i
	}
	return j
}

// startsOperand reports whether c (then n) starts a value in an
// expression.
func startsOperand(c, n rune) bool {
	switch {
	case c == '$' || c == '(' || c == '{' || c == '@' || isSingleQuote(c) || isDoubleQuote(c):
		return true
	case c >= '0' && c <= '9' || isIdentChar(c):
		return true
	}
	return false
}
