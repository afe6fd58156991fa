package policy

import "strings"

// assignments are the variables a call's code assigns, read from its text
// at once, whatever the order or the branch (a loop may run an assignment
// before a use that comes first): what a word known only at run time may
// turn out to be, where the call itself says. A variable the call does not
// assign comes from the environment and is taken for a value (see
// design-notes.md), but one the call sets to an option (f=--force; qmrestore
// ARCHIVE 100 "$f") is that option. The text is scanned once, on first use,
// and only for calls that have such a word where a rule could turn on it.
type assignments struct {
	src   string
	built bool
	// at holds, by name, the offsets in src just after "name=" (or
	// "name+=", "${name:=", "${name="): the value assigned.
	at map[string][]int
	// opaque is set when the code may set variables the scan cannot tell:
	// eval, source, namerefs, read from a here-document or -string,
	// printf -v, mapfile; or past maxAssignments.
	opaque bool
	// memo holds mayBeOption's answers by name: each is worked out once,
	// so that values naming other variables cost no more than the text.
	memo map[string]bool
}

// maxAssignments bounds the assignments a call's scan records.
const maxAssignments = 4096

// maxWordScan bounds the text of a word, or of an assigned value, read to
// tell whether it may begin with a dash; a word whose leading expansions
// run past it may.
const maxWordScan = 4096

// maxParamDepth bounds expansions read inside expansions (${a:-${b:-...}});
// deeper, a word may begin with a dash.
const maxParamDepth = 8

func (v *assignments) build() {
	if v.built {
		return
	}
	v.built = true
	src := v.src
	v.opaque = hasWord(src, "eval") || hasWord(src, "source") || hasWord(src, "mapfile") || hasWord(src, "readarray") ||
		strings.Contains(src, "printf -v") || hasWord(src, "read") && strings.Contains(src, "<<") ||
		strings.Contains(src, " -n ") && (hasWord(src, "declare") || hasWord(src, "typeset") || hasWord(src, "local")) ||
		strings.HasPrefix(strings.TrimSpace(src), ". ") || strings.Contains(src, "; . ") || strings.Contains(src, "&& . ") || strings.Contains(src, "\n. ")
	n := 0
	for i := 1; i < len(src); i++ {
		if src[i] != '=' {
			continue
		}
		end := i
		if src[i-1] == '+' || src[i-1] == ':' {
			end = i - 1
		}
		if end > 0 && src[end-1] == ']' {
			// An element: a[0]=value is what $a gives.
			if k := strings.LastIndexByte(src[:end], '['); k > 0 {
				end = k
			}
		}
		start := end
		for start > 0 && isNameByte(src[start-1]) {
			start--
		}
		if start == end || '0' <= src[start] && src[start] <= '9' {
			continue
		}
		before := byte(' ')
		if start > 0 {
			before = src[start-1]
		}
		switch {
		case before == '{' && start > 1 && src[start-2] == '$':
			// ${name=value}, ${name:=value}
		case src[i-1] == ':':
			continue
		case strings.IndexByte(" \t\n;&|({`\"'", before) < 0:
			continue
		}
		if n++; n > maxAssignments {
			v.opaque = true
			return
		}
		if v.at == nil {
			v.at = map[string][]int{}
		}
		name := src[start:end]
		v.at[name] = append(v.at[name], i+1)
	}
}

// assigns reports whether the code may assign name.
func (v *assignments) assigns(name string) bool {
	if v == nil {
		return false
	}
	v.build()
	return v.opaque || len(v.at[name]) > 0
}

// mayBeOption reports whether the variable name may hold a word that
// begins with "-": one the code assigns so, or cannot tell. $_, the last
// word of the command before, may.
func (v *assignments) mayBeOption(name string) bool {
	if name == "_" {
		return true
	}
	if v == nil {
		return false
	}
	v.build()
	if v.opaque {
		return true
	}
	if got, ok := v.memo[name]; ok {
		// Worked out, or being worked out: a value that names the
		// variable itself adds nothing to its other values. A variable
		// worked out as false while one it names was being worked out
		// may be wrong only where that one, and the query that began
		// with it, is true: the call is asked then anyway.
		return got
	}
	if v.memo == nil {
		v.memo = map[string]bool{}
	}
	v.memo[name] = false
	for _, off := range v.at[name] {
		// An array's first element is what $name gives.
		if wordMayBeOption(strings.TrimPrefix(v.src[off:], "("), v, 0) {
			v.memo[name] = true
			return true
		}
	}
	return false
}

// positional reports whether the positional parameters ($1...) may have
// been set by the code: by set, or as a function's arguments.
func (v *assignments) positional() bool {
	if v == nil {
		return false
	}
	v.build()
	return v.opaque || hasWord(v.src, "set") || hasWord(v.src, "function") || strings.Contains(v.src, "()")
}

// wordMayBeOption reports whether the source text of a word known only at
// run time may expand to a word that begins with "-": a literal dash after
// what may expand to nothing ($EMPTY--force, "$x"-f), a default or a
// replacement written so (${f:---force}), or a variable the code assigns
// such a value. A command substitution's output, like a variable of the
// environment, is taken for a value. It reads the text from its start up
// to the first literal character, which decides.
func wordMayBeOption(a string, v *assignments, depth int) bool {
	if depth > maxParamDepth {
		return true
	}
	if len(a) > maxWordScan {
		a = a[:maxWordScan]
	}
	for len(a) > 0 {
		switch c := a[0]; {
		case c == '"' || c == '\'' || c == '\\':
			a = a[1:]
		case c == '-':
			return true
		case strings.HasPrefix(a, "$(") || strings.HasPrefix(a, "$["):
			n := closing(a[1:])
			if n < 0 {
				return true // past what is read
			}
			a = a[1+n:]
		case c == '`':
			k := strings.IndexByte(a[1:], '`')
			if k < 0 {
				return true
			}
			a = a[k+2:]
		case strings.HasPrefix(a, "${"):
			n := closing(a[1:])
			if n < 0 || paramMayBeOption(a[2:n], v, depth+1) {
				return true
			}
			a = a[1+n:]
		case c == '$' && len(a) > 1 && '0' <= a[1] && a[1] <= '9':
			// $1..$9 may have been set.
			if v.positional() {
				return true
			}
			a = a[2:]
		case c == '$':
			k := 1
			for k < len(a) && isNameByte(a[k]) {
				k++
			}
			if k == 1 {
				// $?, $#, $$, $! are numbers and $- the shell's flags.
				a = a[min(2, len(a)):]
				continue
			}
			if v.mayBeOption(a[1:k]) {
				return true
			}
			a = a[k:]
		default:
			return false
		}
	}
	return false
}

// paramMayBeOption is wordMayBeOption for the inside of ${...}.
func paramMayBeOption(inner string, v *assignments, depth int) bool {
	if strings.HasPrefix(inner, "!") {
		return true // indirect: any variable's value
	}
	if len(inner) > 1 && inner[0] == '#' {
		return false // a length
	}
	k := 0
	for k < len(inner) && isNameByte(inner[k]) {
		k++
	}
	name, rest := inner[:k], inner[k:]
	if name == "" {
		return len(rest) > 0 && '0' <= rest[0] && rest[0] <= '9' && v.positional()
	}
	if strings.HasPrefix(rest, "[") {
		n := closing(rest)
		if n < 0 {
			return true
		}
		rest = rest[n:]
	}
	for _, op := range []string{":-", ":=", ":+", ":?", "-", "=", "+", "?"} {
		if w, ok := strings.CutPrefix(rest, op); ok {
			if !strings.Contains(op, "?") && wordMayBeOption(w, v, depth) {
				return true
			}
			return !strings.Contains(op, "+") && v.mayBeOption(name)
		}
	}
	if rest == "" {
		return v.mayBeOption(name)
	}
	if strings.HasPrefix(rest, "/") {
		// ${name/pattern/replacement}
		if _, repl, ok := strings.Cut(strings.TrimLeft(rest[1:], "/#%"), "/"); ok && wordMayBeOption(repl, v, depth) {
			return true
		}
	}
	// Removals, substrings, case changes: what is left of a value the
	// code assigns may begin with a dash.
	return v.assigns(name)
}

// closing returns the length of the bracketed text a begins with, its
// closing bracket included, or -1 when it does not close.
func closing(a string) int {
	if a == "" {
		return -1
	}
	open := a[0]
	end := map[byte]byte{'(': ')', '{': '}', '[': ']'}[open]
	depth := 0
	for i := 0; i < len(a); i++ {
		switch a[i] {
		case open:
			depth++
		case end:
			if depth--; depth == 0 {
				return i + 1
			}
		case '\\':
			i++
		}
	}
	return -1
}

func isNameByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// hasWord reports whether src holds w as a word of its own.
func hasWord(src, w string) bool {
	for i := 0; ; {
		k := strings.Index(src[i:], w)
		if k < 0 {
			return false
		}
		k += i
		if (k == 0 || !isNameByte(src[k-1]) && src[k-1] != '-') && (k+len(w) == len(src) || !isNameByte(src[k+len(w)]) && src[k+len(w)] != '-') {
			return true
		}
		i = k + 1
	}
}
