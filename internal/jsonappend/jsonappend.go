package jsonappend

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// String appends s quoted as encoding/json quotes a string with HTML
// escaping off: quotes, backslashes and control characters escaped,
// invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped for JavaScript.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// Key appends the start of the member key after a comma: `,"key":`. key is
// a Go identifier's JSON name, which needs no escaping.
func Key(b []byte, key string) []byte {
	return append(append(append(b, `,"`...), key...), `":`...)
}

// Field appends the member key: s after a comma, unless s is empty
// (omitempty).
func Field(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return String(Key(b, key), s)
}

// Bool appends the member key: v after a comma.
func Bool(b []byte, key string, v bool) []byte {
	if v {
		return append(Key(b, key), "true"...)
	}
	return append(Key(b, key), "false"...)
}

// Close ends the object that starts at b[start], whose members were each
// written after a comma (by Key, Field or Bool): the first comma goes.
func Close(b []byte, start int) []byte {
	if len(b) > start+1 && b[start+1] == ',' {
		b = append(b[:start+1], b[start+2:]...)
	}
	return append(b, '}')
}
