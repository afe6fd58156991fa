package powershell

import (
	"strings"
	"sync"
)

// Keyword statements: if, foreach, try, function, class... Their
// conditions and bodies are code; their names and options are not.

// keyword expectations.
const (
	kwCond  uint8 = iota // ( ... )
	kwBlock              // { ... }
	kwName               // a name: function NAME, class NAME
	kwCont               // after a block: a continuation (else, catch...) or the end
	kwOpts               // options (switch -regex, foreach -parallel), then ( or {
	kwTypes              // [type] lists (catch, trap), then {
	kwBase               // class NAME : base, then {
	kwEnd                // the statement ends
)

// keywords are PowerShell's statement keywords.
var keywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"if": true, "elseif": true, "else": true, "switch": true, "foreach": true, "for": true,
		"while": true, "do": true, "try": true, "catch": true, "finally": true, "trap": true,
		"function": true, "filter": true, "workflow": true, "configuration": true, "param": true,
		"begin": true, "process": true, "end": true, "clean": true, "dynamicparam": true,
		"data": true, "class": true, "enum": true, "interface": true, "using": true,
		"return": true, "throw": true, "exit": true, "break": true, "continue": true,
	}
})

// beginKeyword starts a keyword statement.
func (r *reader) beginKeyword(f *frame, kw string) {
	f.mode, f.kw, f.kwValue = mKw, kw, false
	switch kw {
	case "if", "elseif", "while", "for":
		f.kwExpect = kwCond
	case "switch", "foreach", "data":
		f.kwExpect = kwOpts
	case "else", "try", "finally", "do", "begin", "process", "end", "clean", "dynamicparam":
		f.kwExpect = kwBlock
	case "catch", "trap":
		f.kwExpect = kwTypes
	case "function", "filter", "workflow", "configuration", "class", "enum", "interface":
		f.kwExpect = kwName
	case "param":
		f.kwExpect = kwCond
	case "using":
		f.mode = mLine
	case "return", "throw", "exit":
		f.mode, f.assign = mStmt, true
	case "break", "continue":
		// An optional label on the same line.
		r.blank(f)
		if c, _ := runeAt(r.src, r.pos); r.pos < len(r.src) && !endsToken(c) && c != '}' && c != ')' {
			r.skipWord(false)
		}
		f.kwExpect = kwEnd
	}
}

// keyword reads the next part of a keyword statement.
func (r *reader) keyword(f *frame) {
	c, w := runeAt(r.src, r.pos)
	switch {
	case c == '\n' || c == '\r' || c == ';':
		r.pos += w
		r.endStatement(f)
		return
	case f.closes(c):
		r.closeFrame(f)
		return
	}
	switch f.kwExpect {
	case kwName:
		if c == '{' || c == '(' {
			f.kwExpect = kwCond
			if c == '{' {
				f.kwExpect = kwBlock
			}
			r.keyword(f)
			return
		}
		r.skipWord(f.kw == "class" || f.kw == "enum" || f.kw == "interface")
		switch f.kw {
		case "class", "enum", "interface":
			f.kwExpect = kwBase
		default:
			f.kwExpect = kwCond // an optional (params), then the body
		}
		return
	case kwOpts:
		switch {
		case isDash(c):
			word := r.skipWord(false)
			f.kwValue = strings.EqualFold(strings.TrimLeft(word, "-–—―"), "file")
			return
		case f.kwValue:
			f.kwValue = false
			if c == '(' || c == '{' || c == '$' {
				break
			}
			r.skipWord(false)
			f.kwExpect = kwBlock // switch -file path { ... }
			return
		case c == '(':
			f.kwExpect = kwCond
		case c == '{':
			f.kwExpect = kwBlock
		default:
			r.skipWord(false)
			return
		}
	case kwTypes:
		switch {
		case c == '[':
			r.pos++
			r.push(frame{kind: fBracket, ret: retKeyword, open: r.pos - 1, closer: ']'})
			return
		case c == ',':
			r.pos++
			return
		case c == '{':
			f.kwExpect = kwBlock
		default:
			r.endStatement(f)
			return
		}
	case kwBase:
		switch {
		case c == ':' || c == ',':
			r.pos++
			return
		case c == '{':
			f.kwExpect = kwBlock
		default:
			r.skipWord(false)
			return
		}
	case kwCont:
		if kw, _ := r.continuation(f); kw != "" {
			r.skipWord(false)
			f.kw = kw
			switch kw {
			case "elseif":
				f.kwExpect = kwCond
			case "catch":
				f.kwExpect = kwTypes
			case "while", "until":
				f.kw = "do-" + kw
				f.kwExpect = kwCond
			default:
				f.kwExpect = kwBlock
			}
			return
		}
		r.endStatement(f)
		return
	case kwEnd:
		r.endStatement(f)
		return
	}
	switch {
	case f.kwExpect == kwCond && c == '(':
		r.pos++
		r.push(frame{kind: fCond, ret: retKeyword, open: r.pos - 1, closer: ')', foreachIn: f.kw == "foreach"})
	case f.kwExpect == kwCond && c == '{' && (f.kw == "function" || f.kw == "filter" || f.kw == "workflow" || f.kw == "configuration"):
		f.kwExpect = kwBlock
		r.keyword(f)
	case f.kwExpect == kwBlock && c == '{':
		r.pos++
		kind := fBlock
		switch {
		case f.kw == "switch":
			kind = fSwitch
		case f.kw == "class" || f.kw == "interface":
			kind = fClass
		case f.kw == "enum":
			kind = fHash
		}
		r.push(frame{kind: kind, ret: retKeyword, open: r.pos - 1, closer: '}'})
	default:
		// Not the keyword's syntax: read on as a new statement.
		r.endStatement(f)
	}
}

// keywordPart moves a keyword statement on after its condition or block.
func (r *reader) keywordPart(f *frame, child *frame) {
	if child.kind == fBracket {
		return
	}
	if child.kind == fCond {
		switch f.kw {
		case "param", "do-while", "do-until":
			f.kwExpect = kwEnd
		default:
			f.kwExpect = kwBlock
		}
		return
	}
	switch f.kw {
	case "if", "elseif":
		f.kwExpect, f.kw = kwCont, "if"
	case "try", "catch":
		f.kwExpect, f.kw = kwCont, "try"
	case "do":
		f.kwExpect = kwCont
	default:
		f.kwExpect = kwEnd
	}
}

// continuation returns the keyword that continues the statement in f
// after its block (else after if, catch after try...), skipping newlines
// and comments, and where it starts; or "".
func (r *reader) continuation(f *frame) (string, int) {
	var want []string
	switch f.kw {
	case "if":
		want = []string{"elseif", "else"}
	case "try":
		want = []string{"catch", "finally"}
	case "do":
		want = []string{"while", "until"}
	default:
		return "", 0
	}
	i := r.pos
	for i < len(r.src) {
		c, w := runeAt(r.src, i)
		switch {
		case isSpace(c) || c == '\n' || c == '\r':
			i += w
			continue
		case c == '#':
			j := strings.IndexAny(r.src[i:], "\r\n")
			if j < 0 {
				return "", 0
			}
			i += j
			continue
		case c == '<' && r.at(i+1, '#'):
			j := strings.Index(r.src[i+2:], "#>")
			if j < 0 {
				return "", 0
			}
			i += 2 + j + 2
			continue
		}
		j := i
		for j < len(r.src) && isIdentChar(rune(r.src[j])) {
			j++
		}
		word := strings.ToLower(r.src[i:j])
		for _, k := range want {
			if word == k {
				if n, _ := runeAt(r.src, j); endsToken(n) || n == 0 {
					return k, i
				}
			}
		}
		return "", 0
	}
	return "", 0
}

// skipWord skips newlines, blanks and one word (up to white space or a
// bracket), and returns it.
func (r *reader) skipWord(stopColon bool) string {
	for r.pos < len(r.src) && (r.src[r.pos] == '\n' || r.src[r.pos] == '\r') {
		r.pos++
	}
	r.blank(r.top())
	start := r.pos
	for r.pos < len(r.src) {
		c, w := runeAt(r.src, r.pos)
		if endsToken(c) || c == '[' || stopColon && c == ':' && r.pos > start {
			break
		}
		r.pos += w
	}
	if r.pos == start && r.pos < len(r.src) {
		_, w := runeAt(r.src, r.pos)
		r.pos += w
	}
	return r.src[start:r.pos]
}

// restOfLine skips a using statement.
func (r *reader) restOfLine(f *frame) {
	for r.pos < len(r.src) && r.src[r.pos] != '\n' && r.src[r.pos] != '\r' && r.src[r.pos] != ';' {
		r.pos++
	}
	f.mode = mStmt
	r.endStatement(f)
}

func (r *reader) endKeyword(f *frame) {
	f.kw, f.kwExpect = "", kwEnd
}
