package redact

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"
)

// MinLen is the shortest value a Set scrubs: replacing a two-letter
// password everywhere would mangle every message.
const MinLen = 4

// maxTokens bounds the tokens a Set remembers beside its fixed values: a
// long-running client (the MCP server) gets a new token every few minutes.
const maxTokens = 8

// minFragment is the shortest base64 fragment (see Set) scrubbed: a
// shorter one would match ordinary words.
const minFragment = 8

// Set holds the secret values a program knows, such as the password and
// client secret it logs in with and the tokens it was given, and scrubs
// them from a text in every encoding a server could echo them in:
//
//   - as they are;
//   - JSON-escaped (\", \\, \/, \n, \u00e9 in any case of hex);
//   - percent-encoded in any case of hex and in any mix of escaped and
//     plain characters, as a form (+ for a space), a query or a URL path
//     (a redirect's Location) writes them;
//   - HTML-escaped (&amp;, &#39;, &#x27;);
//   - base64, standard and URL alphabets, with and without padding, whole
//     or as part of a longer encoded text (user:password in a Basic
//     header), at each of the three alignments a value can have in it.
//
// The zero Set is empty and ready to use; it is safe for concurrent use.
type Set struct {
	mu     sync.Mutex
	fixed  []string
	tokens []string // the most recent last
	re     *regexp.Regexp
	built  bool
}

// Add adds values that are scrubbed for the Set's lifetime. Values
// shorter than MinLen are ignored.
func (s *Set) Add(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if len(v) >= MinLen && !slices.Contains(s.fixed, v) {
			s.fixed = append(s.fixed, v)
			s.built = false
		}
	}
}

// AddToken adds values, such as access tokens, of which only the newest
// few are remembered: the oldest are forgotten past a bound.
func (s *Set) AddToken(values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range values {
		if len(v) < MinLen || slices.Contains(s.tokens, v) || slices.Contains(s.fixed, v) {
			continue
		}
		s.tokens = append(s.tokens, v)
		if len(s.tokens) > maxTokens {
			s.tokens = s.tokens[1:]
		}
		s.built = false
	}
}

// Scrub returns text with every value of the Set, in every encoding the
// Set knows, replaced by Redacted.
func (s *Set) Scrub(text string) string {
	if s == nil {
		return text
	}
	re, raw := s.compiled()
	if re != nil {
		text = re.ReplaceAllLiteralString(text, Redacted)
	}
	// A regular expression matches runes, and a value that is not UTF-8
	// may join the byte before it into one: such values are also looked
	// for byte by byte.
	for _, v := range raw {
		text = strings.ReplaceAll(text, v, Redacted)
	}
	return text
}

// compiled returns the Set's pattern, compiling it on first use after a
// change (a client that never shows an error never pays for it), and the
// values that are not valid UTF-8.
func (s *Set) compiled() (*regexp.Regexp, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := append(slices.Clone(s.fixed), s.tokens...)
	if !s.built {
		s.re, s.built = compile(all), true
	}
	return s.re, slices.DeleteFunc(all, utf8.ValidString)
}

// compile builds one pattern for every encoding of every value, longest
// alternatives first: Go's alternation takes the first that matches, and
// a longer encoding must win over the fragment it contains.
func compile(values []string) *regexp.Regexp {
	if len(values) == 0 {
		return nil
	}
	var alts []string
	for _, v := range values {
		alts = append(alts, anyEscape(v))
		for _, b := range base64Forms(v) {
			alts = append(alts, regexp.QuoteMeta(b))
		}
	}
	sort.SliceStable(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	alts = slices.Compact(alts)
	return regexp.MustCompile(strings.Join(alts, "|"))
}

// anyEscape is a pattern matching v with each of its characters as it is
// or escaped the way JSON, percent-encoding and HTML escape it.
func anyEscape(v string) string {
	var b strings.Builder
	for _, r := range v {
		if r == utf8.RuneError {
			b.WriteString(regexp.QuoteMeta(string(r)))
			continue
		}
		forms := []string{regexp.QuoteMeta(string(r))}
		// Percent-encoding: every byte of the character's UTF-8 as %XX,
		// in any case; a form writes a space as +.
		var pct strings.Builder
		for _, c := range []byte(string(r)) {
			fmt.Fprintf(&pct, "%%(?i:%02x)", c)
		}
		forms = append(forms, pct.String())
		if r == ' ' {
			forms = append(forms, `\+`)
		}
		// JSON: \uXXXX (a surrogate pair beyond the BMP), and the short
		// escapes.
		if r < 0x10000 {
			forms = append(forms, fmt.Sprintf(`\\u(?i:%04x)`, r))
		} else {
			r1, r2 := surrogates(r)
			forms = append(forms, fmt.Sprintf(`\\u(?i:%04x)\\u(?i:%04x)`, r1, r2))
		}
		if short, ok := jsonShort[r]; ok {
			forms = append(forms, regexp.QuoteMeta(short))
		}
		// HTML: a numeric reference in decimal or hex, and the named ones.
		forms = append(forms, fmt.Sprintf(`&#0*%d;`, r), fmt.Sprintf(`&#[xX]0*(?i:%x);`, r))
		if named, ok := htmlNamed[r]; ok {
			forms = append(forms, regexp.QuoteMeta(named))
		}
		b.WriteString("(?:" + strings.Join(forms, "|") + ")")
	}
	return b.String()
}

var jsonShort = map[rune]string{'"': `\"`, '\\': `\\`, '/': `\/`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

var htmlNamed = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '"': "&quot;", '\'': "&apos;"}

func surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// base64Forms are the texts v's base64 encodings are certain to contain:
// the whole value's encoding in both alphabets, with and without padding,
// and, for v inside a longer encoded text, the characters that only v's
// bytes decide at each of the three alignments v can start at (the
// characters at its edges mix in its neighbours' bits, and are left).
func base64Forms(v string) []string {
	var forms []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		forms = append(forms, enc.EncodeToString([]byte(v)))
	}
	for align := range 3 {
		rest := v[(3-align)%3:]
		full := rest[:len(rest)/3*3]
		if n := len(full) / 3 * 4; n < minFragment {
			continue
		}
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			forms = append(forms, enc.EncodeToString([]byte(full)))
		}
	}
	return forms
}
