package jsonscan

// Members calls fn for every member of the outermost object of data, in
// the order they are written, until fn returns false, reading leniently:
// data need not be valid JSON. It is for the events a decoder refuses
// (nested past its depth limit, invalid UTF-8, truncated, a key twice, a
// value of the wrong type), of which the top-level members can still be
// read. A value is skipped by counting the brackets around it, however
// deep they nest, with strings taken as a whole; a member whose value
// data ends inside, or that is not followed by "," or "}", is left out.
// Keys are unescaped as Keys unescapes them. The work is linear in
// len(data), and nothing is allocated for the values.
func Members(data []byte, fn func(key string, value []byte) bool) {
	l := lenient{data: data}
	l.space()
	if l.i >= len(data) || data[l.i] != '{' {
		return
	}
	l.i++
	for {
		l.space()
		if l.i >= len(data) || data[l.i] == '}' {
			return
		}
		if data[l.i] == ',' {
			l.i++
			continue
		}
		if data[l.i] != '"' {
			return // not a member: nothing after it can be trusted
		}
		start := l.i
		if !l.str() {
			return
		}
		key := unquote(data[start:l.i])
		l.space()
		if l.i >= len(data) || data[l.i] != ':' {
			return
		}
		l.i++
		l.space()
		vstart := l.i
		if !l.skipValue() {
			return
		}
		value := data[vstart:l.i]
		l.space()
		if l.i >= len(data) || data[l.i] != ',' && data[l.i] != '}' {
			return
		}
		if !fn(key, value) {
			return
		}
	}
}

type lenient struct {
	data []byte
	i    int
}

func (l *lenient) space() {
	for l.i < len(l.data) {
		switch l.data[l.i] {
		case ' ', '\t', '\n', '\r':
			l.i++
		default:
			return
		}
	}
}

// str moves past the string at l.i, reporting whether it ends before
// data does.
func (l *lenient) str() bool {
	for j := l.i + 1; j < len(l.data); j++ {
		switch l.data[j] {
		case '\\':
			j++ // the escaped byte
		case '"':
			l.i = j + 1
			return true
		}
	}
	l.i = len(l.data)
	return false
}

// skipValue moves past the value at l.i: a string, a bracketed value of
// any depth (counted, not recursed into), or a bare word such as a number.
// It reports whether the value ends before data does.
func (l *lenient) skipValue() bool {
	if l.i >= len(l.data) {
		return false
	}
	switch l.data[l.i] {
	case '"':
		return l.str()
	case '{', '[':
		depth := 0
		for l.i < len(l.data) {
			switch l.data[l.i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					l.i++
					return true
				}
			case '"':
				if !l.str() {
					return false
				}
				continue
			}
			l.i++
		}
		return false
	case '}', ']', ',', ':':
		return false
	}
	start := l.i
	for l.i < len(l.data) {
		switch l.data[l.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return l.i > start
		}
		l.i++
	}
	return false
}
