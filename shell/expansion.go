package shell

import (
	"fmt"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash expands every word of a simple command before it looks the command
// up: brace expansion first ("{ssh,web-01,reboot}" is three words,
// "s{s,}h" two), then parameters, substitutions and arithmetic, word
// splitting, and pathname expansion ("/usr/bin/ss?", "./[g]ovc"). The
// parser keeps braces and glob characters as literal text, so the analysis
// does the brace expansion itself, bounded, and treats a glob in command
// position as a name decided at run time: which files match is known only
// when the command runs, and the agent can create them.

// Bounds of brace expansion: one word expands to at most maxBraceWords
// words and maxBraceBytes bytes, with braces nested at most maxBraceDepth
// deep; past them the word is known only at run time.
const (
	maxBraceWords = 64
	maxBraceBytes = 64 << 10
	maxBraceDepth = 16
)

// callFields returns the fields of a simple command's words, each brace
// expanded as bash would.
func (c *code) callFields(words []*syntax.Word) []field {
	fields := make([]field, 0, len(words))
	for _, w := range words {
		parts, ok, has := braceExpand(w)
		switch {
		case !has:
			fields = append(fields, c.field(w))
		case !ok:
			// Too large to expand: the words it makes are not known.
			approx, skel := c.approxPair(w.Parts, unescapeUnquoted)
			fields = append(fields, field{val: c.source(w), approx: approx, skel: skel, dyn: true})
		default:
			for _, p := range parts {
				if f, ok := c.partsField(p); ok {
					fields = append(fields, f)
				}
			}
		}
	}
	return fields
}

// partsField is field for the parts of a word that brace expansion made.
// It reports false for an empty word, which bash drops ("{,}ssh" is
// "ssh").
func (c *code) partsField(parts []syntax.WordPart) (field, bool) {
	if len(parts) == 0 {
		return field{}, false
	}
	w := &syntax.Word{Parts: parts}
	param := c.boundParam
	if c.vars == nil {
		param = nil
	}
	if v, ok := wordValue(w, param); ok {
		if v == "" && allUnquoted(parts) {
			return field{}, false
		}
		f := staticField(c.text(v))
		f.glob = hasGlob(parts)
		return f, true
	}
	approx, skel := c.approxPair(parts, unescapeUnquoted)
	return field{val: approx, approx: approx, skel: skel, dyn: true, file: procSubstFile(c, w)}, true
}

func allUnquoted(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if _, ok := p.(*syntax.Lit); !ok {
			return false
		}
	}
	return true
}

// braceExpand returns the words that brace expansion makes of w, as lists
// of parts. has reports whether w holds a brace expansion at all; ok is
// false when the expansion is past the bounds.
func braceExpand(w *syntax.Word) (words [][]syntax.WordPart, ok, has bool) {
	switch n := braceLits(w); {
	case n == 0:
		return nil, true, false
	case n > maxBraces:
		// More braces than an expansion within the bounds can hold:
		// not split at all, which would cost memory for each.
		return nil, false, true
	}
	split := &syntax.Word{Parts: w.Parts}
	if !syntax.SplitBraces(split) || !holdsBraceExp(split.Parts) {
		return nil, true, false
	}
	e := braceExpander{budget: maxBraceBytes}
	words, ok = e.parts(split.Parts, 0)
	return words, ok, true
}

// maxBraces bounds the braces of a word that brace expansion is tried on.
const maxBraces = 256

// braceLits counts the '{' in the unquoted parts of w, which any brace
// expansion needs.
func braceLits(w *syntax.Word) int {
	n := 0
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			n += strings.Count(l.Value, "{")
		}
	}
	return n
}

func holdsBraceExp(parts []syntax.WordPart) bool {
	for _, p := range parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			return true
		}
	}
	return false
}

// braceExpander expands brace expressions within its byte budget.
type braceExpander struct{ budget int }

// parts returns the words a list of parts expands to: the product of the
// alternatives of each brace expression, left to right.
func (e *braceExpander) parts(parts []syntax.WordPart, depth int) ([][]syntax.WordPart, bool) {
	if depth > maxBraceDepth {
		return nil, false
	}
	out := [][]syntax.WordPart{nil}
	for _, p := range parts {
		br, isBrace := p.(*syntax.BraceExp)
		if !isBrace {
			for i := range out {
				out[i] = append(out[i], p)
			}
			continue
		}
		alts, ok := e.alternatives(br, depth)
		if !ok || len(out)*len(alts) > maxBraceWords {
			return nil, false
		}
		next := make([][]syntax.WordPart, 0, len(out)*len(alts))
		for _, prefix := range out {
			for _, alt := range alts {
				word := make([]syntax.WordPart, 0, len(prefix)+len(alt))
				word = append(append(word, prefix...), alt...)
				if e.budget -= partsSize(word); e.budget < 0 {
					return nil, false
				}
				next = append(next, word)
			}
		}
		out = next
	}
	return out, true
}

// partsSize estimates the bytes a word made of parts holds.
func partsSize(parts []syntax.WordPart) int {
	n := 16
	for _, p := range parts {
		if l, ok := p.(*syntax.Lit); ok {
			n += len(l.Value)
		} else {
			n += 16
		}
	}
	return n
}

// alternatives returns the words one brace expression stands for: its
// elements, each expanded in turn, or the values of a sequence.
func (e *braceExpander) alternatives(br *syntax.BraceExp, depth int) ([][]syntax.WordPart, bool) {
	if br.Sequence {
		vals, ok := braceSequence(br)
		if !ok {
			return nil, false
		}
		alts := make([][]syntax.WordPart, len(vals))
		for i, v := range vals {
			alts[i] = []syntax.WordPart{&syntax.Lit{Value: v}}
		}
		return alts, true
	}
	var alts [][]syntax.WordPart
	for _, el := range br.Elems {
		words, ok := e.parts(el.Parts, depth+1)
		if !ok || len(alts)+len(words) > maxBraceWords {
			return nil, false
		}
		alts = append(alts, words...)
	}
	return alts, true
}

// braceSequence returns the values of {x..y[..incr]}: numbers, padded
// to the widest endpoint when one has a leading zero, or letters.
func braceSequence(br *syntax.BraceExp) ([]string, bool) {
	fromLit, toLit := br.Elems[0].Lit(), br.Elems[1].Lit()
	from, err1 := strconv.ParseInt(fromLit, 10, 64)
	to, err2 := strconv.ParseInt(toLit, 10, 64)
	chars := err1 != nil || err2 != nil
	const far = 1 << 40
	if !chars && (from < -far || from > far || to < -far || to > far) {
		return nil, false
	}
	if chars {
		if fromLit == "" || toLit == "" {
			return nil, false
		}
		from, to = int64(fromLit[0]), int64(toLit[0])
	}
	incr := int64(1)
	if len(br.Elems) > 2 {
		n, err := strconv.ParseInt(br.Elems[2].Lit(), 10, 64)
		if err != nil {
			return nil, false
		}
		if n < 0 {
			n = -n
		}
		if n != 0 {
			incr = n
		}
	}
	span := to - from
	if span < 0 {
		span, incr = -span, -incr
	}
	// Overflow-safe count of the values.
	step := incr
	if step < 0 {
		step = -step
	}
	if span/step >= maxBraceWords {
		return nil, false
	}
	width := 0
	if !chars && (leadingZero(fromLit) || leadingZero(toLit)) {
		width = max(len(fromLit), len(toLit))
	}
	var vals []string
	for n, i := from, int64(0); i <= span/step; n, i = n+incr, i+1 {
		switch {
		case chars:
			vals = append(vals, string(rune(n)))
		case width > 0:
			vals = append(vals, fmt.Sprintf("%0*d", width, n))
		default:
			vals = append(vals, strconv.FormatInt(n, 10))
		}
	}
	return vals, true
}

func leadingZero(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return len(s) > 1 && s[0] == '0'
}

// hasGlob reports whether unquoted parts hold a pattern that pathname
// expansion would match against files: '*', '?', or a bracket expression
// "[...]". A lone '[' (the test command) is not one.
func hasGlob(parts []syntax.WordPart) bool {
	for i, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			if globIn(x.Value, parts[i+1:]) {
				return true
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// globIn reports whether the unquoted literal s, followed by the parts
// rest, holds a glob character that is not escaped by a backslash.
func globIn(s string, rest []syntax.WordPart) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			// A bracket expression needs its ']' after at least one
			// character, in this part or a later unquoted one.
			if j := strings.IndexByte(s[i+1:], ']'); j > 0 || j == 0 && strings.IndexByte(s[i+2:], ']') >= 0 {
				return true
			}
			for _, p := range rest {
				if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, ']') >= 0 {
					return true
				}
			}
		}
	}
	return false
}
