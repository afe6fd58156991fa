package audit

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/redact"
)

// DefaultExcerptRunes is the length of the excerpts Append keeps.
const DefaultExcerptRunes = 200

// Excerpt returns a bounded, single-line, redacted excerpt of s, at most max
// runes long (DefaultExcerptRunes when max <= 0), ending in "…" when cut.
// Runs of white space and control characters become one space.
//
// Only a window at the start of s, a few times max, is redacted (see
// redact.Command), so a megabyte of tool input costs no more than a short
// one; the window ends at a word boundary, so a secret it cuts in half is
// dropped rather than shown.
func Excerpt(s string, max int) string {
	if max <= 0 {
		max = DefaultExcerptRunes
	}
	window := 8*max + 1024
	cut := false
	if len(s) > window {
		s, cut = clipWord(s, window), true
	}
	s = singleLine(redact.Command(s))
	if cut {
		s += " …"
	}
	return truncate(s, max)
}

// clipWord returns a prefix of s of at most n bytes, ending before the
// last white space in it when there is one in its second half.
func clipWord(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	if i := strings.LastIndexFunc(s, unicode.IsSpace); i >= n/2 {
		s = s[:i]
	}
	return s
}

// singleLine replaces every run of white space, control and format
// characters (which could move a terminal's cursor or reorder text) with one
// space, and trims the ends.
func singleLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// truncate cuts s to at most max runes, the last of them "…" when cut.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	i, n := 0, 0
	for i = range s {
		if n == max-1 {
			break
		}
		n++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}
