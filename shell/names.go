package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash resolves a command name through aliases (on the lines read after
// their definition, also when set through the BASH_ALIASES array, and for
// the word after an alias whose value ends in a blank), then functions,
// builtins, the paths "hash -p PATH NAME" binds, and PATH. The analysis
// follows the aliases and hashed names a command string defines; what it
// cannot resolve (a name or value decided at run time, more definitions
// than it keeps, a builtin loaded from a shared object) is dynamic.

// aliasDef is an alias the command string defines.
type aliasDef struct {
	value string
	dyn   bool
	// src and line are where it was defined: bash expands an alias only
	// on the lines it reads after the definition.
	src    string
	line   uint
	active bool // being expanded: an alias does not expand in itself
}

// maxAliasExpansions bounds the alias expansions of one analysis, since
// each parses the rest of its command again.
const maxAliasExpansions = 32

// maxNames bounds the aliases and hashed names one analysis keeps; a
// definition past it is reported as dynamic.
const maxNames = 256

// defineAlias records an alias, or reports the definition as dynamic when
// its name is decided at run time or the analysis keeps no more.
func (a *analyzer) defineAlias(c *code, src, name, value string, dyn bool) {
	if !validAliasName(name) || len(a.aliases) >= maxNames {
		a.dynamic(c, src)
		return
	}
	if a.aliases == nil {
		a.aliases = make(map[string]*aliasDef)
	}
	a.aliases[name] = &aliasDef{value: value, dyn: dyn, src: c.src, line: a.callLine}
}

// defineAliases records the NAME=VALUE operands of alias. An operand
// without "=" prints an alias; one whose name is decided at run time may
// define any alias.
func (a *analyzer) defineAliases(c *code, src string, args []field) {
	for _, f := range args {
		name, value, ok := strings.Cut(f.val, "=")
		switch {
		case !f.dyn && !ok, !f.dyn && name == "-p", !f.dyn && name == "--":
			continue
		case f.dyn && (!ok || !validAliasName(name)):
			// The name is decided at run time ("alias $N=...").
			a.dynamic(c, src)
			continue
		}
		if f.dyn {
			// The value has run-time parts: its text is not known.
			_, value, _ = strings.Cut(f.approx, "=")
		}
		a.defineAlias(c, src, name, value, f.dyn)
	}
}

// unalias drops the aliases unalias names; -a drops them all.
func (a *analyzer) unalias(args []field) {
	for _, f := range args {
		switch {
		case f.dyn:
		case f.val == "-a":
			clear(a.aliases)
		default:
			delete(a.aliases, f.val)
		}
	}
}

// aliasArray reads an assignment to BASH_ALIASES, which defines aliases as
// alias does: BASH_ALIASES[NAME]=VALUE, or a list ([NAME]=VALUE ...).
func (a *analyzer) aliasArray(c *code, as *syntax.Assign) {
	src := c.source(as)
	define := func(index syntax.ArithmExpr, value *syntax.Word) {
		key, ok := arithLiteral(index)
		if !ok || value == nil {
			a.dynamic(c, src)
			return
		}
		v := c.field(value)
		a.defineAlias(c, src, key, v.approx, v.dyn)
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			define(e.Index, e.Value)
		}
		return
	}
	if as.Index == nil {
		// "BASH_ALIASES=x" sets element 0, which is no alias name.
		return
	}
	define(as.Index, as.Value)
}

// arithLiteral returns the text of an index that is one static word.
func arithLiteral(e syntax.ArithmExpr) (string, bool) {
	w, ok := e.(*syntax.Word)
	if !ok {
		return "", false
	}
	return literal(w)
}

func validAliasName(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return r <= ' ' || strings.ContainsRune("/$`=\\'\"|&;()<>", r)
	}) < 0
}

// expandAlias analyses a simple command whose name is an alias defined
// before it: the alias value followed by the rest of the command, parsed
// again, as bash does. A name with any quoting is not an alias. When the
// value ends in a blank, the next word is checked for an alias too, and
// so on.
func (a *analyzer) expandAlias(c *code, x *syntax.CallExpr, in *input) bool {
	if len(a.aliases) == 0 {
		return false
	}
	def := a.aliasAt(c, x, 0)
	if def == nil {
		return false
	}
	name := x.Args[0].Parts[0].(*syntax.Lit).Value
	via := appendVia(c.via, "alias "+name)
	if def.dyn {
		a.dynamic(c, c.source(x))
		return true
	}
	if a.expansions++; a.expansions > maxAliasExpansions {
		a.unparsed(c.source(x), "too many alias expansions", c.host, via)
		return true
	}
	var text strings.Builder
	text.WriteString(def.value)
	used := []*aliasDef{def}
	def.active = true
	defer func() {
		for _, d := range used {
			d.active = false
		}
	}()
	next := 1
	for last := def; next < len(x.Args) && endsInBlank(last.value); next++ {
		d := a.aliasAt(c, x, next)
		if d == nil {
			break
		}
		if d.dyn {
			a.dynamic(c, c.source(x))
			return true
		}
		text.WriteString(d.value)
		d.active = true
		used = append(used, d)
		last = d
	}
	end := min(int(x.End().Offset()), len(c.src))
	from := int(x.Args[next-1].End().Offset())
	text.WriteString(c.textAt(min(from, end), end))
	a.codeAt(c.handing(c.lang), text.String(), c.host, via, in)
	return true
}

func endsInBlank(s string) bool {
	return strings.HasSuffix(s, " ") || strings.HasSuffix(s, "\t")
}

// aliasAt returns the alias the i-th word of x names, when it is an
// unquoted literal that names one defined on an earlier line and not
// being expanded.
func (a *analyzer) aliasAt(c *code, x *syntax.CallExpr, i int) *aliasDef {
	w := x.Args[i]
	if len(w.Parts) != 1 {
		return nil
	}
	lit, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.IndexByte(lit.Value, '\\') >= 0 {
		return nil
	}
	def := a.aliases[lit.Value]
	if def == nil || def.active || def.src == c.src && def.line >= x.Pos().Line() {
		return nil
	}
	return def
}

// hash reads "hash -p PATH NAME": NAME runs PATH from then on. A binding
// the analysis cannot follow, because PATH or NAME is decided at run time
// or because code written before it may run after it (a function body, a
// loop), is dynamic.
func (a *analyzer) hash(c *code, src string, args []field) {
	i, seen := hashOpts.parse(args)
	p, ok := seen.get("-p")
	if !ok {
		return
	}
	if p.val.dyn || i >= len(args) || a.bodies > 0 || a.funcs {
		a.dynamic(c, src)
		return
	}
	for _, f := range args[i:] {
		if f.dyn || len(a.hashed) >= maxNames {
			a.dynamic(c, src)
			return
		}
		if a.hashed == nil {
			a.hashed = make(map[string]string)
		}
		a.hashed[f.val] = p.val.val
	}
}

var hashOpts = opts{short: "p"}

// resolve returns the name a command word runs as: the program a hashed
// name is bound to, or the word's last path element.
func (a *analyzer) resolve(word string) string {
	if p, ok := a.hashed[word]; ok && strings.IndexByte(word, '/') < 0 {
		return baseName(p)
	}
	return baseName(word)
}
