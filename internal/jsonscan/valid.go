package jsonscan

// Valid reports whether data is one valid JSON value, as json.Valid does
// (a fuzz test holds the two to the same answer), reading a string's plain
// bytes eight at a time (see plainRun): encoding/json's scanner calls
// a step function for every byte, and a hook event can hold a 200 KB
// heredoc. Like encoding/json it takes invalid UTF-8 inside strings and
// refuses nesting deeper than 10000.
func Valid(data []byte) bool {
	v := validator{data: data}
	v.space()
	if !v.value() {
		return false
	}
	v.space()
	return v.i == len(data)
}

type validator struct {
	data []byte
	i    int
	// open are the objects ('{') and arrays ('[') open, innermost last.
	open []byte
}

func (v *validator) space() {
	for v.i < len(v.data) {
		switch v.data[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

// value reads one value and whatever it opens, iterating where the input
// nests.
func (v *validator) value() bool {
	for {
		if !v.scalar() {
			return false
		}
		// After a value: close what ends, until a comma asks for the
		// next value or the outermost one is complete.
		for {
			if len(v.open) == 0 {
				return true
			}
			v.space()
			if v.i >= len(v.data) {
				return false
			}
			c, closer := v.data[v.i], byte('}')
			if v.open[len(v.open)-1] == '[' {
				closer = ']'
			}
			v.i++
			if c == closer {
				v.open = v.open[:len(v.open)-1]
				continue
			}
			if c != ',' {
				return false
			}
			if v.open[len(v.open)-1] == '{' && !v.key() {
				return false
			}
			break
		}
	}
}

// scalar reads a string, number or literal, or the start of an object or
// array up to its first value (which it then reads as a scalar too, and
// so on down). An empty object or array is read whole.
func (v *validator) scalar() bool {
	for {
		v.space()
		if v.i >= len(v.data) {
			return false
		}
		switch c := v.data[v.i]; c {
		case '{', '[':
			if len(v.open) == maxNest {
				return false
			}
			v.i++
			v.space()
			if v.i < len(v.data) && (c == '{' && v.data[v.i] == '}' || c == '[' && v.data[v.i] == ']') {
				v.i++
				return true
			}
			v.open = append(v.open, c)
			if c == '{' && !v.key() {
				return false
			}
		case '"':
			return v.str()
		case 't':
			return v.literal("true")
		case 'f':
			return v.literal("false")
		case 'n':
			return v.literal("null")
		default:
			return v.number()
		}
	}
}

// key reads an object's key and its colon.
func (v *validator) key() bool {
	v.space()
	if v.i >= len(v.data) || v.data[v.i] != '"' || !v.str() {
		return false
	}
	v.space()
	if v.i >= len(v.data) || v.data[v.i] != ':' {
		return false
	}
	v.i++
	return true
}

func (v *validator) literal(word string) bool {
	if len(v.data)-v.i < len(word) || string(v.data[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

// str reads the string at v.i, quotes included.
func (v *validator) str() bool {
	v.i++
	for {
		v.i += plainRun(v.data[v.i:], false)
		if v.i >= len(v.data) {
			return false
		}
		switch v.data[v.i] {
		case '"':
			v.i++
			return true
		case '\\':
			v.i++
			if v.i >= len(v.data) {
				return false
			}
			switch v.data[v.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				v.i++
			case 'u':
				if len(v.data)-v.i < 5 {
					return false
				}
				for _, h := range v.data[v.i+1 : v.i+5] {
					if !isHex(h) {
						return false
					}
				}
				v.i += 5
			default:
				return false
			}
		default:
			return false // a control character
		}
	}
}

// number reads -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (v *validator) number() bool {
	if v.i < len(v.data) && v.data[v.i] == '-' {
		v.i++
	}
	switch {
	case v.i < len(v.data) && v.data[v.i] == '0':
		v.i++
	case v.digits() == 0:
		return false
	}
	if v.i < len(v.data) && v.data[v.i] == '.' {
		v.i++
		if v.digits() == 0 {
			return false
		}
	}
	if v.i < len(v.data) && (v.data[v.i] == 'e' || v.data[v.i] == 'E') {
		v.i++
		if v.i < len(v.data) && (v.data[v.i] == '+' || v.data[v.i] == '-') {
			v.i++
		}
		if v.digits() == 0 {
			return false
		}
	}
	return true
}

func (v *validator) digits() int {
	start := v.i
	for v.i < len(v.data) && '0' <= v.data[v.i] && v.data[v.i] <= '9' {
		v.i++
	}
	return v.i - start
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
