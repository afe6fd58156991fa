package jsonscan

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// String decodes the JSON string literal raw, quotes included and no
// space around (a value as Keys gives it), exactly as
// json.Unmarshal decodes it into a string: invalid UTF-8 and lone
// surrogates become U+FFFD. ok is false when raw is not a valid JSON
// string. Unlike json.Unmarshal it reads raw once, not twice (once to
// check it, once to decode it), and copies it once, which halves the cost
// of a 200 KB command.
//
// It is encoding/json's unquote (Go 1.26, BSD licence) without the \'
// escape, which json.Unmarshal's check refuses before unquote sees it.
func String(raw []byte) (string, bool) {
	b, ok := unquoteBytes(raw)
	if !ok || len(b) == 0 {
		return "", ok
	}
	if len(raw) >= 2 && &b[0] == &raw[1] {
		// No escapes: b is raw's own bytes, which the caller keeps.
		return string(b), true
	}
	// b is a buffer of unquoteBytes' own, which nothing else holds: it
	// becomes the string without being copied once more.
	return unsafe.String(&b[0], len(b)), true
}

func unquoteBytes(s []byte) (t []byte, ok bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return
	}
	s = s[1 : len(s)-1]

	// Check for unusual characters. If there are none, then no unquoting
	// is needed, so return a slice of the original bytes.
	r := 0
	for r < len(s) {
		c := s[r]
		if c == '\\' || c == '"' || c < ' ' {
			break
		}
		if c < utf8.RuneSelf {
			r++
			continue
		}
		rr, size := utf8.DecodeRune(s[r:])
		if rr == utf8.RuneError && size == 1 {
			break
		}
		r += size
	}
	if r == len(s) {
		return s, true
	}

	b := make([]byte, len(s)+2*utf8.UTFMax)
	w := copy(b, s[0:r])
	for r < len(s) {
		// Out of room? Can only happen if s is full of malformed UTF-8
		// and we're replacing each byte with RuneError.
		if w >= len(b)-2*utf8.UTFMax {
			nb := make([]byte, (len(b)+utf8.UTFMax)*2)
			copy(nb, b[0:w])
			b = nb
		}
		switch c := s[r]; {
		case c == '\\':
			r++
			if r >= len(s) {
				return
			}
			switch s[r] {
			default:
				return
			case '"', '\\', '/':
				b[w] = s[r]
				r++
				w++
			case 'b':
				b[w] = '\b'
				r++
				w++
			case 'f':
				b[w] = '\f'
				r++
				w++
			case 'n':
				b[w] = '\n'
				r++
				w++
			case 'r':
				b[w] = '\r'
				r++
				w++
			case 't':
				b[w] = '\t'
				r++
				w++
			case 'u':
				r--
				rr := getu4(s[r:])
				if rr < 0 {
					return
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						// A valid pair; consume.
						r += 6
						w += utf8.EncodeRune(b[w:], dec)
						break
					}
					// Invalid surrogate; fall back to replacement rune.
					rr = unicode.ReplacementChar
				}
				w += utf8.EncodeRune(b[w:], rr)
			}

		// Quote, control characters are invalid.
		case c == '"', c < ' ':
			return

		// ASCII, copied a run at a time: most of a long command.
		case c < utf8.RuneSelf:
			j := r + 1 + plainRun(s[r+1:], true)
			if w+(j-r) > len(b) {
				nb := make([]byte, w+(j-r)+len(s)-j+2*utf8.UTFMax)
				copy(nb, b[0:w])
				b = nb
			}
			w += copy(b[w:], s[r:j])
			r = j

		// Coerce to well-formed UTF-8.
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			w += utf8.EncodeRune(b[w:], rr)
		}
	}
	return b[0:w], true
}

// getu4 decodes \uXXXX from the beginning of s, returning the hex value,
// or it returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
