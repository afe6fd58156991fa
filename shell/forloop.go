package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds of for-loop expansion: a loop over at most maxLoopWords static
// words has its body analysed once per word, and one analysis makes at most
// maxLoopPasses such passes in all, so that nested loops cannot multiply
// the cost. A loop past the bounds is analysed once, its variable known
// only at run time.
const (
	maxLoopWords  = 16
	maxLoopPasses = 64
)

// forEach analyses the body of "for NAME in WORDS; do BODY; done" once per
// word, with $NAME bound to it, when the words are static and the body
// reads NAME without setting it: "for vm in app-01 app-02; do ssh $vm
// reboot; done" runs reboot on app-01 and on app-02. It reports whether it
// did.
func (a *analyzer) forEach(c *code, l *syntax.WordIter, body []*syntax.Stmt, in *input) bool {
	values, ok := loopWords(l)
	if !ok || a.loopPasses+len(values) > maxLoopPasses || !readsOnly(l.Name.Value, body) {
		return false
	}
	a.loopPasses += len(values)
	for _, v := range values {
		a.stmts(c.bind(l.Name.Value, v), body, in)
	}
	return true
}

// loopWords returns the words a loop iterates over when each is one static
// word that bash neither splits nor expands as a glob or brace pattern.
func loopWords(l *syntax.WordIter) ([]string, bool) {
	if l.Name == nil || !l.InPos.IsValid() || len(l.Items) == 0 || len(l.Items) > maxLoopWords {
		return nil, false
	}
	values := make([]string, len(l.Items))
	for i, w := range l.Items {
		v, ok := literal(w)
		if !ok || v == "" || strings.ContainsAny(v, " \t\n*?[]{}") {
			return nil, false
		}
		values[i] = v
	}
	return values, true
}

// readsOnly reports whether body expands $name and never sets it: no
// assignment, no nested loop over it, and no word "name" that read, unset,
// printf -v or arithmetic could set it through.
func readsOnly(name string, body []*syntax.Stmt) bool {
	reads, sets := false, false
	for _, s := range body {
		syntax.Walk(s, func(n syntax.Node) bool {
			switch x := n.(type) {
			case *syntax.ParamExp:
				if x.Param != nil && x.Param.Value == name {
					// ${name:=word} and the like may set it.
					if !simpleParam(x) {
						sets = true
					}
					reads = true
					return false
				}
			case *syntax.Assign:
				if x.Name != nil && x.Name.Value == name {
					sets = true
				}
			case *syntax.WordIter:
				if x.Name != nil && x.Name.Value == name {
					sets = true
				}
			case *syntax.Lit:
				if x.Value == name {
					sets = true
				}
			}
			return !sets
		})
	}
	return reads && !sets
}

// bind returns a copy of c in which $name stands for value.
func (c *code) bind(name, value string) *code {
	n := *c
	n.vars = make(map[string]string, len(c.vars)+1)
	for k, v := range c.vars {
		n.vars[k] = v
	}
	n.vars[name] = value
	return &n
}

// boundLiteral returns the value of a word whose only run-time parts are
// plain expansions of variables a loop bound ($vm, ${vm}, "$vm").
func (c *code) boundLiteral(w *syntax.Word) (string, bool) {
	return wordValue(w, c.boundParam)
}

func (c *code) boundParam(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil || !simpleParam(x) || x.Excl || x.Length || x.Width || x.Flags != nil {
		return "", false
	}
	v, ok := c.vars[x.Param.Value]
	return v, ok
}
