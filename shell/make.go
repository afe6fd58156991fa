package shell

import (
	"strings"
	"sync"
)

// make runs the recipes of a makefile, each line with sh -c, and the
// commands of $(shell ...) and "VAR != ..." as it reads the makefile. A
// makefile the command string shows is read: one given as -f - on
// standard input ("make -f - <<<$'all:\n\tcmd'"), as --eval=TEXT (also in
// MAKEFLAGS), or written by the command string (-f FILE, or the
// GNUmakefile, makefile or Makefile of the folder). Its variables are
// expanded as make expands them, with make's defaults for $(CC), $(MAKE)
// and the like and the automatic variables of each rule; a variable it
// neither sets nor knows, a function whose result is decided at run
// time, and an include of a file the command string does not show, are
// dynamic. A makefile it does not show is, like a script file, not read.

// Bounds of the makefile reader: how deep variables expand in variables,
// and how long the expansion of one line may grow.
const (
	maxMakeDepth = 16
	maxMakeLine  = 64 << 10
)

// makeDefaults are the variables make defines itself, as GNU make does.
var makeDefaults = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"CC": "cc", "CXX": "g++", "CPP": "$(CC) -E", "FC": "f77", "LD": "ld", "AR": "ar", "AS": "as",
		"RM": "rm -f", "MAKE": "make", "SHELL": "/bin/sh", "LEX": "lex", "YACC": "yacc", "INSTALL": "install",
		"CFLAGS": "", "CXXFLAGS": "", "CPPFLAGS": "", "LDFLAGS": "", "LDLIBS": "", "ARFLAGS": "rv", "ASFLAGS": "",
		"MAKEFLAGS": "", "MAKECMDGOALS": "", "CURDIR": ".", ".SHELLFLAGS": "-c", "MAKELEVEL": "0",
	}
})

// makeCommand reads make's command line: the makefiles it reads, its
// --eval texts and its VAR=VALUE operands.
func (a *analyzer) makeCommand(c *code, src string, args []field, in *input) {
	m := &makefile{a: a, c: c, src: src, vars: map[string]field{}}
	var files []field
	var evals []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn {
			if name, v, ok := cutAssignment(f); ok && validName(name) {
				m.set(name, v)
			}
			continue
		}
		switch {
		case f.val == "-f" || f.val == "--file" || f.val == "--makefile":
			if i+1 < len(args) {
				i++
				files = append(files, args[i])
			}
		case strings.HasPrefix(f.val, "--file=") || strings.HasPrefix(f.val, "--makefile="):
			_, v, _ := strings.Cut(f.val, "=")
			files = append(files, staticField(v))
		case strings.HasPrefix(f.val, "-f") && len(f.val) > 2:
			files = append(files, staticField(f.val[2:]))
		case f.val == "-E" || f.val == "--eval":
			if i+1 < len(args) {
				i++
				evals = append(evals, args[i])
			}
		case strings.HasPrefix(f.val, "--eval="):
			evals = append(evals, staticField(strings.TrimPrefix(f.val, "--eval=")))
		case strings.HasPrefix(f.val, "-E") && len(f.val) > 2:
			evals = append(evals, staticField(f.val[2:]))
		case strings.HasPrefix(f.val, "-"):
			if len(f.val) == 2 && strings.IndexByte("CIWo", f.val[1]) >= 0 {
				i++
			}
		default:
			if name, v, ok := cutAssignment(f); ok && validName(strings.TrimRight(name, ":+?!")) {
				m.set(strings.TrimRight(name, ":+?!"), v)
			}
		}
	}
	if len(files) == 0 && len(evals) == 0 {
		// The makefile of the folder, when the command string wrote one.
		for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if _, ok := a.written[name]; ok {
				files = append(files, staticField(name))
				break
			}
		}
	}
	for _, f := range files {
		switch {
		case f.dyn:
			a.dynamic(c, src)
		case f.val == "-":
			switch {
			case in == nil || in.kind == inFile:
				a.dynamic(c, src)
			case in.kind == inDynamic:
				a.dynamic(c, src)
				m.read(in.code, 0)
			case in.kind == inText:
				m.read(in.text, 0)
			}
		default:
			if file, ok := a.scriptFile(f, in); ok {
				if file.kind != inText {
					a.dynamic(c, src)
				}
				m.read(file.code, 0)
			}
		}
	}
	for _, e := range evals {
		if e.dyn {
			a.dynamic(c, src)
		}
		m.read(e.skel, 0)
	}
}

// makeFlags reads the options MAKEFLAGS gives make: its --eval texts.
func (a *analyzer) makeFlags(c *code, src string, words []string) {
	m := &makefile{a: a, c: c, src: src, vars: map[string]field{}}
	for k := 0; k < len(words); k++ {
		w := words[k]
		switch {
		case strings.HasPrefix(w, "--eval="):
			m.read(strings.TrimPrefix(w, "--eval="), 0)
		case (w == "--eval" || w == "-E") && k+1 < len(words):
			k++
			m.read(words[k], 0)
		}
	}
}

// makefile is a makefile being read.
type makefile struct {
	a    *analyzer
	c    *code
	src  string
	vars map[string]field
	// appends hold the values of the variables += last set, which later
	// += append to without copying them (see assign).
	appends map[string]*[2]strings.Builder
	// oneShell says that .ONESHELL is set: a recipe is one script.
	oneShell bool
}

// makeWork is what expanding makefiles' variables may cost a call, per
// byte of the command line analysed and at least (analyzer.makeWork): each
// reference of a variable expands it again, and references of references
// would cost the power of their nesting.
const (
	makeWorkPerByte = 64
	minMakeWork     = 1 << 20
)

// rule is the rule whose recipe is being read: its targets and
// prerequisites, for the automatic variables.
type rule struct {
	target, prereqs string
	pattern         bool
}

// read reads makefile text; depth counts the includes and evals it came
// through.
func (m *makefile) read(text string, depth int) {
	if depth > maxMakeDepth {
		m.a.unparsed(text, "makefile nested too deep to read", m.c.host, m.c.via)
		return
	}
	if !m.a.reparse(text, m.c.host, appendVia(m.c.via, "make")) {
		return
	}
	lines := strings.Split(text, "\n")
	var cur *rule
	var recipe []string
	flush := func() {
		if cur != nil && len(recipe) > 0 {
			m.recipe(cur, recipe)
		}
		recipe = recipe[:0]
	}
	for k := 0; k < len(lines); k++ {
		line := lines[k]
		if cur != nil && strings.HasPrefix(line, "\t") {
			// A recipe line, with the lines a backslash continues.
			var full strings.Builder
			full.WriteString(line[1:])
			for strings.HasSuffix(lines[k], "\\") && k+1 < len(lines) {
				k++
				full.WriteString("\n" + strings.TrimPrefix(lines[k], "\t"))
			}
			recipe = append(recipe, full.String())
			continue
		}
		if strings.HasSuffix(line, "\\") && k+1 < len(lines) {
			var joined strings.Builder
			joined.WriteString(strings.TrimSuffix(line, "\\"))
			for strings.HasSuffix(lines[k], "\\") && k+1 < len(lines) {
				k++
				joined.WriteString(" " + strings.TrimSuffix(strings.TrimLeft(lines[k], " \t"), "\\"))
			}
			line = joined.String()
			if strings.HasSuffix(lines[k], "\\") {
				line += "\\"
			}
		}
		line = stripMakeComment(line)
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		word, rest, _ := strings.Cut(trimmed, " ")
		switch word {
		case "ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "export", "unexport", "override", "private", "vpath":
			// Every branch of a conditional is read.
			if word != "export" && word != "override" && word != "private" {
				continue
			}
			trimmed = strings.TrimSpace(rest)
		case "define":
			flush()
			cur = nil
			name, op := defineHeader(rest)
			var body []string
			for k+1 < len(lines) && strings.TrimSpace(lines[k+1]) != "endef" {
				k++
				body = append(body, lines[k])
			}
			k++
			m.assign(name, op, strings.Join(body, "\n"))
			continue
		case "include", "-include", "sinclude":
			flush()
			v := m.expand(rest, nil, 0)
			for _, name := range strings.Fields(v.val) {
				if file, ok := m.a.wroteFile(name); ok && file.kind == inText && !v.dyn {
					m.read(file.text, depth+1)
				} else {
					// A makefile the command string does not show.
					m.a.dynamic(m.c, m.src)
				}
			}
			if v.dyn {
				m.a.dynamic(m.c, m.src)
			}
			continue
		}
		if name, op, value, ok := makeAssignment(trimmed); ok {
			m.assign(name, op, value)
			continue
		}
		if before, after, ok := strings.Cut(trimmed, ":"); ok && !strings.HasPrefix(after, "=") {
			flush()
			after = strings.TrimLeft(after, ":&")
			prereqs, inline, hasInline := strings.Cut(after, ";")
			if name, op, value, ok := makeAssignment(strings.TrimSpace(prereqs)); ok {
				// A target's own variable: "all: CC = gcc".
				m.assign(name, op, value)
				cur = nil
				continue
			}
			target := m.expand(before, nil, 0)
			cur = &rule{target: target.val, prereqs: m.expand(prereqs, nil, 0).val, pattern: strings.Contains(before, "%") || target.dyn}
			if strings.TrimSpace(before) == ".ONESHELL" {
				m.oneShell = true
			}
			if hasInline {
				recipe = append(recipe, inline)
			}
			continue
		}
		// Anything else is expanded, running its $(shell ...) and
		// $(eval ...).
		m.expand(trimmed, nil, 0)
	}
	flush()
}

// stripMakeComment drops a comment from a line that is not a recipe.
func stripMakeComment(line string) string {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '#':
			return line[:i]
		}
	}
	return line
}

// makeAssignment splits a variable assignment: NAME = VALUE, with :=,
// ::=, :::=, ?=, += or != (whose value is a shell command).
func makeAssignment(line string) (name, op, value string, ok bool) {
	i := strings.IndexByte(line, '=')
	if i <= 0 {
		return "", "", "", false
	}
	j := i
	for j > 0 && strings.IndexByte(":+?!", line[j-1]) >= 0 {
		j--
	}
	name = strings.TrimSpace(line[:j])
	if name == "" || strings.ContainsAny(name, " \t:#") && !strings.HasPrefix(name, "$(") {
		return "", "", "", false
	}
	return name, line[j : i+1], strings.TrimSpace(line[i+1:]), true
}

// set gives a variable its value, other than by +=: the builder += kept for
// it no longer holds it.
func (m *makefile) set(name string, v field) {
	delete(m.appends, name)
	m.vars[name] = v
}

// defineHeader reads the rest of a define line: the variable's name and
// the operator the body is assigned with, "=" when none is given (define
// X !=, define X +=...).
func defineHeader(rest string) (name, op string) {
	rest = strings.TrimSpace(rest)
	for _, o := range [...]string{":::=", "::=", ":=", "+=", "?=", "!=", "="} {
		if n, ok := strings.CutSuffix(rest, o); ok {
			return strings.TrimSpace(n), o
		}
	}
	return rest, "="
}

// assign records a variable; "!=" runs its value as a shell command.
func (m *makefile) assign(name, op, value string) {
	switch op {
	case "!=":
		v := m.expand(value, nil, 0)
		m.shell(v, "make !=")
		m.set(name, field{val: value, skel: dynamicPlaceholder, dyn: true})
	case "+=":
		prev := m.vars[name]
		b := m.appends[name]
		if b == nil {
			if m.appends == nil {
				m.appends = make(map[string]*[2]strings.Builder)
			}
			b = new([2]strings.Builder)
			b[0].WriteString(prev.val)
			b[1].WriteString(prev.skel)
			m.appends[name] = b
		}
		b[0].WriteString(" " + value)
		b[1].WriteString(" " + value)
		m.vars[name] = field{val: b[0].String(), skel: b[1].String(), dyn: prev.dyn}
		return
	case "?=":
		if _, ok := m.vars[name]; !ok {
			m.set(name, staticField(value))
		}
	case ":=", "::=", ":::=":
		m.set(name, m.expand(value, nil, 0))
	default:
		m.set(name, staticField(value))
	}
}

// recipe analyses the lines of a rule's recipe, each run by the shell
// (all at once with .ONESHELL), with make's prefixes @, - and + dropped.
func (m *makefile) recipe(r *rule, lines []string) {
	if sh, ok := m.vars["SHELL"]; ok && (sh.dyn || !shells()[baseName(strings.Fields(sh.val + " x")[0])]) {
		// The recipes run with a program that is not a shell.
		m.a.dynamic(m.c, m.src)
		return
	}
	var script []field
	for _, l := range lines {
		l = strings.TrimLeft(l, " \t@-+")
		if l == "" {
			continue
		}
		script = append(script, m.expand(l, r, 0))
	}
	if m.oneShell {
		var b, skel strings.Builder
		dyn := false
		for _, f := range script {
			b.WriteString(f.val + "\n")
			skel.WriteString(f.skel + "\n")
			dyn = dyn || f.dyn
		}
		script = []field{{val: b.String(), approx: b.String(), skel: skel.String(), dyn: dyn}}
	}
	for _, f := range script {
		m.shell(f, "make")
	}
}

// shell analyses a command make hands to the shell.
func (m *makefile) shell(f field, label string) {
	f.approx = f.val
	m.a.codeFields(m.c, label, m.src, []field{f}, nil)
}

// expand expands make's references in s: $$, $(NAME), ${NAME}, $X, the
// automatic variables of rule r, and functions, of which $(shell ...)
// runs its command and $(eval ...) reads its text as makefile. What is
// decided at run time stands as dynamicPlaceholder in the skeleton.
func (m *makefile) expand(s string, r *rule, depth int) field {
	var val, skel strings.Builder
	dyn := false
	put := func(f field) {
		val.WriteString(f.val)
		skel.WriteString(f.skel)
		dyn = dyn || f.dyn
	}
	unknown := func(text string) {
		put(field{val: text, skel: dynamicPlaceholder, dyn: true})
	}
	if depth > maxMakeDepth {
		m.a.unparsed(s, "makefile variables nested too deep to read", m.c.host, m.c.via)
		return field{val: s, skel: dynamicPlaceholder, dyn: true}
	}
	if m.a.makeWork -= len(s) + 1; m.a.makeWork < 0 {
		// Past the bound, this expansion and the rest are known only at
		// run time.
		m.a.passed(&m.a.makeLimit, s, "makefile variables expand to too much to read", m.c.host, m.c.via)
		return field{val: s, skel: dynamicPlaceholder, dyn: true}
	}
	for i := 0; i < len(s); i++ {
		if val.Len() > maxMakeLine || skel.Len() > maxMakeLine {
			m.a.unparsed(s, "makefile line too long to read", m.c.host, m.c.via)
			return field{val: s, skel: dynamicPlaceholder, dyn: true}
		}
		if s[i] != '$' || i+1 >= len(s) {
			val.WriteByte(s[i])
			skel.WriteByte(s[i])
			continue
		}
		i++
		var ref string
		switch s[i] {
		case '$':
			put(staticField("$"))
			continue
		case '(', '{':
			end := matchingClose(s, i)
			if end < 0 {
				unknown(s[i-1:])
				i = len(s)
				continue
			}
			ref = s[i+1 : end]
			i = end
		default:
			ref = s[i : i+1]
		}
		put(m.reference(ref, r, depth))
	}
	return field{val: val.String(), approx: val.String(), skel: skel.String(), dyn: dyn}
}

// matchingClose returns the index of the bracket that closes s[open].
func matchingClose(s string, open int) int {
	closer := perlClose(s[open])
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case s[open]:
			depth++
		case closer:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// reference expands one reference: a variable, an automatic variable or
// a function call.
func (m *makefile) reference(ref string, r *rule, depth int) field {
	unknown := field{val: "$(" + ref + ")", skel: dynamicPlaceholder, dyn: true}
	if fn, args, ok := strings.Cut(ref, " "); ok && makeFunctions()[fn] {
		arg := m.expand(args, r, depth+1)
		switch fn {
		case "shell":
			m.shell(arg, "make $(shell)")
		case "eval":
			if arg.dyn {
				m.a.dynamic(m.c, m.src)
			}
			m.read(arg.skel, depth+1)
		}
		// The result of a function is known when make runs it.
		return unknown
	}
	if r != nil {
		switch strings.TrimRight(ref, "DF") {
		case "@":
			if !r.pattern {
				return staticField(strings.TrimSpace(r.target))
			}
			return unknown
		case "<", "^", "+", "?", "|":
			if !r.pattern && !strings.Contains(r.prereqs, "%") {
				if ref == "<" {
					first, _, _ := strings.Cut(strings.TrimSpace(r.prereqs), " ")
					return staticField(first)
				}
				return staticField(strings.TrimSpace(r.prereqs))
			}
			return unknown
		case "*", "%":
			return unknown
		}
	}
	if v, ok := m.vars[ref]; ok {
		if v.dyn {
			return v
		}
		return m.expand(v.val, r, depth+1)
	}
	if v, ok := makeDefaults()[ref]; ok {
		return m.expand(v, r, depth+1)
	}
	// A variable neither set nor known: the environment, or a computed
	// name ($($(x))), decides it.
	return unknown
}

// makeFunctions are GNU make's functions.
var makeFunctions = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"subst": true, "patsubst": true, "strip": true, "findstring": true, "filter": true, "filter-out": true,
		"sort": true, "word": true, "wordlist": true, "words": true, "firstword": true, "lastword": true,
		"dir": true, "notdir": true, "suffix": true, "basename": true, "addsuffix": true, "addprefix": true,
		"join": true, "wildcard": true, "realpath": true, "abspath": true, "error": true, "warning": true,
		"info": true, "shell": true, "origin": true, "flavor": true, "let": true, "foreach": true, "if": true,
		"or": true, "and": true, "intcmp": true, "call": true, "eval": true, "file": true, "value": true, "guile": true,
	}
})

// makeWords splits MAKEFLAGS as make does: at blanks that no backslash
// escapes.
func makeWords(s string) []string {
	var words []string
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}
