package policy

import (
	"strings"
	"unicode"
)

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
	// eval, source, namerefs, read (from a pipe or a file too: what it
	// reads may be an option written by the same call), printf -v,
	// getopts, mapfile; or past maxAssignments.
	opaque bool
	// memo holds options' answers by name: each is worked out once, so
	// that values naming other variables cost no more than the text.
	memo map[string]maybe
}

// maxAssignments bounds the assignments a call's scan records.
const maxAssignments = 4096

// maxIndexScan bounds how far back an assignment's array index is read.
const maxIndexScan = 256

// maxWordScan bounds the text of a word, or of an assigned value, read to
// tell whether it may begin with a dash; a word whose leading expansions
// run past it may.
const maxWordScan = 4096

// maxParamDepth bounds expansions read inside expansions (${a:-${b:-...}});
// deeper, a word may begin with a dash.
const maxParamDepth = 8

// build scans the text, once, for the assignments and for what makes
// them unknowable.
func (v *assignments) build() {
	if v.built {
		return
	}
	v.built = true
	src := v.src
	v.opaque = hasWord(src, "eval") || hasWord(src, "source") || hasWord(src, "mapfile") || hasWord(src, "readarray") ||
		hasWord(src, "getopts") || hasWord(src, "printf") && strings.Contains(src, "-v") ||
		hasWord(src, "read") ||
		namerefs(src) || sourcesDot(src)
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
			// An element: a[0]=value is what $a gives. An index is read
			// back a short way, and not past a bracket or a space, so that
			// "]=]=..." costs no more than its length.
			k := end - 2
			for k >= 0 && end-k <= maxIndexScan && strings.IndexByte("[] \t\n;&|", src[k]) < 0 {
				k--
			}
			if k >= 0 && src[k] == '[' {
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

// positional reports whether the positional parameters ($1...) may have
// been set by the code: by set, or as a function's arguments.
func (v *assignments) positional() bool {
	if v == nil {
		return false
	}
	v.build()
	return v.opaque || hasWord(v.src, "set") || hasWord(v.src, "function") || strings.Contains(v.src, "()")
}

// maybe is what a word known only at run time may expand to, as options:
// the options it may be, or any option.
type maybe struct {
	opts []string
	any  bool
}

// maxMaybe bounds the options a maybe lists; past it, any option.
const maxMaybe = 64

func (m *maybe) add(o maybe) {
	m.any = m.any || o.any
	if m.any {
		m.opts = nil
		return
	}
	m.opts = append(m.opts, o.opts...)
	if len(m.opts) > maxMaybe {
		m.any, m.opts = true, nil
	}
}

// couldBe reports whether m may be one of the options want names
// ("--force", "-m ping"): by its name, a GNU abbreviation of it, or a
// cluster of short options that holds it.
func (m maybe) couldBe(want []string) bool {
	for _, w := range want {
		opt, _, _ := strings.Cut(w, " ")
		if !strings.HasPrefix(opt, "-") {
			continue
		}
		if m.any {
			return true
		}
		for _, o := range m.opts {
			name, _, _ := strings.Cut(o, "=")
			switch {
			case name == opt,
				strings.HasPrefix(opt, "--") && strings.HasPrefix(name, "--") && len(name) > 2 && strings.HasPrefix(opt, name),
				len(opt) == 2 && opt[1] != '-' && len(name) > 1 && name[1] != '-' && strings.IndexByte(name[1:], opt[1]) >= 0:
				return true
			}
		}
	}
	return false
}

// options returns what the variable name may hold as options: those of
// the values the code assigns it, or any where it cannot tell. $_, the
// last word of the command before, may be any.
func (v *assignments) options(name string) maybe {
	if name == "_" {
		return maybe{any: true}
	}
	if v == nil {
		return maybe{}
	}
	v.build()
	if v.opaque {
		return maybe{any: true}
	}
	if got, ok := v.memo[name]; ok {
		// Worked out, or being worked out: a value that names the
		// variable itself adds nothing to its other values. A variable
		// worked out while one it names was being worked out may lack
		// that one's options only where the query that began with it has
		// them: the call is asked then anyway.
		return got
	}
	if v.memo == nil {
		v.memo = map[string]maybe{}
	}
	v.memo[name] = maybe{}
	var m maybe
	for _, off := range v.at[name] {
		// An array's first element is what $name gives.
		m.add(valueOptions(assignedValue(strings.TrimPrefix(v.src[off:], "(")), v, 0))
		if m.any {
			break
		}
	}
	v.memo[name] = m
	return m
}

// assignedValue returns the word of an assignment's value that text
// begins with: up to unquoted white space or an operator; all of text
// past maxWordScan, which then holds a placeholder for "anything".
func assignedValue(text string) string {
	long := len(text) > maxWordScan
	if long {
		text = text[:maxWordScan]
	}
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '\\':
			i++
		case c == '$' && i+1 < len(text) && (text[i+1] == '(' || text[i+1] == '{'):
			n := closing(text[i+1:])
			if n < 0 {
				return "-$" // past what is read: may be any option
			}
			i += n
		case c == '`':
			k := strings.IndexByte(text[i+1:], '`')
			if k < 0 {
				return "-$"
			}
			i += k + 1
		case strings.IndexByte(" \t\n;&|)}", c) >= 0:
			return text[:i]
		}
	}
	if long {
		return "-$" // past what is read: may be any option
	}
	return text
}

// valueOptions returns what a value (an assignment's, a default's) may
// expand to as options, its words split as an unquoted expansion splits
// them: at white space, or, where the call sets IFS, anywhere.
func valueOptions(raw string, v *assignments, depth int) maybe {
	if strings.Contains(raw, "-") && v.assigns("IFS") {
		// Split at characters the call chooses: any word of it may be
		// an option.
		return maybe{any: true}
	}
	var m maybe
	for _, f := range topFields(strings.NewReplacer(`"`, "", "'", "").Replace(raw)) {
		switch {
		case strings.HasPrefix(f, "-") && strings.ContainsAny(f, "$`"):
			m.add(maybe{any: true})
		case strings.HasPrefix(f, "-"):
			m.add(maybe{opts: []string{f}})
		default:
			m.add(wordOptions(f, v, depth+1))
		}
		if m.any {
			break
		}
	}
	return m
}

// topFields splits text at white space outside $(...), ${...} and
// backquotes; an expansion that does not close goes to the end.
func topFields(text string) []string {
	var fields []string
	start := -1
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' {
			if start >= 0 {
				fields, start = append(fields, text[start:i]), -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
		switch {
		case c == '$' && i+1 < len(text) && (text[i+1] == '(' || text[i+1] == '{'):
			if n := closing(text[i+1:]); n > 0 {
				i += n
			} else {
				i = len(text)
			}
		case c == '`':
			if k := strings.IndexByte(text[i+1:], '`'); k >= 0 {
				i += k + 1
			} else {
				i = len(text)
			}
		}
	}
	if start >= 0 {
		fields = append(fields, text[start:])
	}
	return fields
}

// wordOptions returns what the source text of a word known only at run
// time may expand to as options: a literal dash after what may expand to
// nothing ($EMPTY--force, "$x"-f), a default or a replacement written so
// (${f:---force}), a variable the code assigns options. A command
// substitution's output, like a variable of the environment, is taken for
// a value. It reads the text from its start up to the first literal
// character, which decides.
func wordOptions(a string, v *assignments, depth int) maybe {
	if depth > maxParamDepth {
		return maybe{any: true}
	}
	if len(a) > maxWordScan {
		a = a[:maxWordScan]
	}
	var m maybe
	for len(a) > 0 && !m.any {
		switch c := a[0]; {
		case c == '"' || c == '\'' || c == '\\':
			a = a[1:]
		case c == '-':
			run := a[:len(a)-len(strings.TrimLeft(a, "-"))]
			rest := a[len(run):]
			k := strings.IndexAny(rest, "$`\"'\\ \t\n")
			if k < 0 {
				k = len(rest)
			}
			if k < len(rest) && strings.IndexByte("$`", rest[k]) >= 0 {
				// The option's name goes on at run time.
				m.add(maybe{any: true})
			} else {
				m.add(maybe{opts: []string{run + rest[:k]}})
			}
			return m
		case strings.HasPrefix(a, "$(") || strings.HasPrefix(a, "$["):
			n := closing(a[1:])
			if n < 0 {
				return maybe{any: true} // past what is read
			}
			a = a[1+n:]
		case c == '`':
			k := strings.IndexByte(a[1:], '`')
			if k < 0 {
				return maybe{any: true}
			}
			a = a[k+2:]
		case strings.HasPrefix(a, "${"):
			n := closing(a[1:])
			if n < 0 {
				return maybe{any: true}
			}
			m.add(paramOptions(a[2:n], v, depth+1))
			a = a[1+n:]
		case c == '$' && len(a) > 1 && '0' <= a[1] && a[1] <= '9':
			// $1..$9 may have been set.
			if v.positional() {
				return maybe{any: true}
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
			m.add(v.options(a[1:k]))
			a = a[k:]
		default:
			return m
		}
	}
	return m
}

// paramOptions is wordOptions for the inside of ${...}.
func paramOptions(inner string, v *assignments, depth int) maybe {
	if strings.HasPrefix(inner, "!") {
		return maybe{any: true} // indirect: any variable's value
	}
	if len(inner) > 1 && inner[0] == '#' {
		return maybe{} // a length
	}
	k := 0
	for k < len(inner) && isNameByte(inner[k]) {
		k++
	}
	name, rest := inner[:k], inner[k:]
	if name == "" || '0' <= name[0] && name[0] <= '9' {
		return maybe{any: v.positional()}
	}
	if strings.HasPrefix(rest, "[") {
		n := closing(rest)
		if n < 0 {
			return maybe{any: true}
		}
		rest = rest[n:]
	}
	for _, op := range []string{":-", ":=", ":+", ":?", "-", "=", "+", "?"} {
		if w, ok := strings.CutPrefix(rest, op); ok {
			var m maybe
			if !strings.Contains(op, "?") {
				m.add(valueOptions(w, v, depth))
			}
			if !strings.Contains(op, "+") {
				m.add(v.options(name))
			}
			return m
		}
	}
	if rest == "" {
		return v.options(name)
	}
	var m maybe
	if strings.HasPrefix(rest, "/") {
		// ${name/pattern/replacement}
		if _, repl, ok := strings.Cut(strings.TrimLeft(rest[1:], "/#%"), "/"); ok {
			m.add(valueOptions(repl, v, depth))
		}
	}
	// Removals, substrings, case changes: what is left of a value the
	// code assigns may be any option.
	if v.assigns(name) {
		m.add(maybe{any: true})
	}
	return m
}

// closing returns the length of the bracketed text a begins with, its
// closing bracket included, or -1 when it does not close.
func closing(a string) int {
	if a == "" {
		return -1
	}
	open, end := a[0], byte(0)
	switch open {
	case '(':
		end = ')'
	case '{':
		end = '}'
	case '[':
		end = ']'
	}
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

// namerefs reports whether src may declare a nameref (declare -n,
// local -gn...), through which an assignment sets another variable: an
// option holding an n among the options that follow declare, typeset or
// local, up to the first word that is not an option and within
// maxIndexScan bytes of the keyword. One pass over the words, so that a
// keyword repeated inside a long run of options costs its length.
func namerefs(src string) bool {
	// deadline is where the scan of the options of the latest keyword
	// whose options go on ends; -1 when none go on.
	deadline := -1
	for i := 0; i < len(src); {
		start := i + indexNotSpace(src[i:])
		if start == len(src) {
			break
		}
		end := len(src)
		if k := strings.IndexFunc(src[start:], unicode.IsSpace); k >= 0 {
			end = start + k
		}
		i = end
		// The word as one of the options of the keywords before it.
		if start < deadline {
			if !isOptionWord(src[start:end]) {
				deadline = -1
			} else if n := strings.IndexByte(src[start:end], 'n'); n >= 0 && start+n < deadline {
				return true
			}
		} else {
			deadline = -1
		}
		// The keywords inside the word: what follows one in the word is
		// its first option word, or else the next word is.
		for _, w := range []string{"declare", "typeset", "local"} {
			for from := start; ; {
				k := strings.Index(src[from:end], w)
				if k < 0 {
					break
				}
				after := from + k + len(w)
				from = after
				window := after + maxIndexScan
				switch rest := src[after:end]; {
				case rest == "":
					deadline = max(deadline, window)
				case isOptionWord(rest):
					if n := strings.IndexByte(rest, 'n'); n >= 0 && after+n < window {
						return true
					}
					deadline = max(deadline, window)
				}
			}
		}
	}
	return false
}

// indexNotSpace returns the index of the first rune of s that is not
// white space, len(s) if there is none.
func indexNotSpace(s string) int {
	if k := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) }); k >= 0 {
		return k
	}
	return len(s)
}

// isOptionWord reports whether a word of the options of declare, typeset
// or local is an option (-n, +x).
func isOptionWord(w string) bool {
	return w != "" && (w[0] == '-' || w[0] == '+')
}

// sourcesDot reports whether src may run "." FILE, which sets what the
// file does: a "." of its own, followed by a word.
func sourcesDot(src string) bool {
	for i := 0; ; {
		k := strings.IndexByte(src[i:], '.')
		if k < 0 {
			return false
		}
		k += i
		if (k == 0 || strings.IndexByte(" \t\n;&|({", src[k-1]) >= 0) && k+1 < len(src) && (src[k+1] == ' ' || src[k+1] == '\t') {
			return true
		}
		i = k + 1
	}
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
