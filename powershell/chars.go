package powershell

import (
	"unicode"
	"unicode/utf8"
)

// PowerShell's tokenizer (CharTraits.cs in the PowerShell repository)
// reads some characters beyond ASCII as their ASCII kin: three dashes
// start a parameter as "-" does, four single and four double quotation
// marks open and close strings, and every Unicode separator is white
// space. Code that uses them is read as PowerShell reads it.

const (
	enDash        = '\u2013'
	emDash        = '\u2014'
	horizontalBar = '\u2015'
)

// isDash reports whether r starts a parameter or an operator as "-" does.
func isDash(r rune) bool {
	return r == '-' || r == enDash || r == emDash || r == horizontalBar
}

// isSingleQuote reports whether r opens or closes a verbatim string.
func isSingleQuote(r rune) bool {
	switch r {
	case '\'', '\u2018', '\u2019', '\u201a', '\u201b':
		return true
	}
	return false
}

// isDoubleQuote reports whether r opens or closes an expandable string.
func isDoubleQuote(r rune) bool {
	switch r {
	case '"', '\u201c', '\u201d', '\u201e':
		return true
	}
	return false
}

// isSpace reports whether r is white space between tokens. Newlines are
// not: they end statements.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\v', '\f', '\u00a0', '\u0085':
		return true
	}
	return r > 0xff && unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

// endsToken reports whether r ends a bare word, a command name or an
// argument written without quotes: white space, a newline, or one of
// & ( ) , ; { | }.
func endsToken(r rune) bool {
	switch r {
	case '&', '(', ')', ',', ';', '{', '|', '}', '\n', '\r':
		return true
	}
	return isSpace(r)
}

// isIdentChar reports whether r may follow the first character of an
// identifier: a keyword, a member name, a type name part.
func isIdentChar(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r > 0x7f && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// isVarChar reports whether r may be part of a variable name written
// without braces.
func isVarChar(r rune) bool {
	return isIdentChar(r) || r == '?'
}

// runeAt decodes the character at i of s, and its width; at the end of s
// it returns 0, 0.
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
