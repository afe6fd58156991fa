package policy

import (
	"iter"
	"maps"
	"slices"
	"strings"
)

// The hook builds a policy for every call, in a process of its own, so
// what a policy looks its rules up in is laid out for lookup by data, not
// built at start: a table is sorted keys beside their values, which the
// generated catalog (catalog_gen.go) holds as data the program is loaded
// with, where a map would be built by code on every start.

// table maps names to values: keys sorted, values[i] the value of keys[i].
type table[V any] struct {
	keys   []string
	values []V
}

// makeTable returns the table of m.
func makeTable[V any](m map[string]V) table[V] {
	if len(m) == 0 {
		return table[V]{}
	}
	t := table[V]{keys: slices.Sorted(maps.Keys(m))}
	t.values = make([]V, len(t.keys))
	for i, k := range t.keys {
		t.values[i] = m[k]
	}
	return t
}

// get returns the value of k, or the zero value and false.
func (t table[V]) get(k string) (V, bool) {
	if i, ok := slices.BinarySearch(t.keys, k); ok {
		return t.values[i], true
	}
	var zero V
	return zero, false
}

// appendTable returns t with the lists of m appended to its own.
func appendTable[E any](t table[[]E], m map[string][]E) table[[]E] {
	if len(m) == 0 {
		return t
	}
	all := make(map[string][]E, len(t.keys)+len(m))
	for i, k := range t.keys {
		all[k] = slices.Clip(t.values[i])
	}
	for k, v := range m {
		all[k] = append(all[k], v...)
	}
	return makeTable(all)
}

// subAliases returns the subcommand aliases of a config's
// [subcommand_aliases] table, per command, in the order of their words.
func subAliases(m map[string]map[string]string) map[string][]subAlias {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string][]subAlias, len(m))
	for cmd, list := range m {
		for _, from := range slices.Sorted(maps.Keys(list)) {
			out[cmd] = append(out[cmd], subAlias{strings.Fields(from), strings.Fields(list[from])})
		}
	}
	return out
}

// nameIndex indexes rules by a name they spell out, so that judging a
// command costs time in the rules that name it, not in all of them:
// byName holds, for each name a rule spells out, the rules that could
// match a command of that name, in order; unnamed holds those that could
// match a command whose name no rule spells out (a glob such as "*").
type nameIndex struct {
	byName  table[[]*commandRule]
	unnamed []*commandRule
}

// rules returns the rules that could match a command called name.
func (x *nameIndex) rules(name string) []*commandRule {
	if list, ok := x.byName.get(name); ok {
		return list
	}
	return x.unnamed
}

// ruleIndex is a policy's command rules by command name, and its cmdlet
// rules by the lower-case cmdlet name they spell out.
type ruleIndex struct {
	commands, cmdlets nameIndex
}

// indexRules indexes rules by the command and cmdlet names they match.
func indexRules(rules []*commandRule) *ruleIndex {
	x := &ruleIndex{}
	if len(rules) == 0 {
		return x
	}
	x.commands = indexNames(rules, func(r *commandRule) (names []string, glob, ok bool) {
		switch {
		case len(r.words) == 0:
			// A PowerShell rule: it matches cmdlets, not commands.
			return nil, false, false
		case strings.ContainsAny(r.words[0], `*?[\`):
			return nil, true, true
		}
		return r.words[:1], false, true
	})
	x.cmdlets = indexNames(rules, func(r *commandRule) (names []string, glob, ok bool) {
		if len(r.cmdlets) == 0 {
			return nil, false, false
		}
		return r.cmdlets, slices.ContainsFunc(r.cmdlets, func(c string) bool { return globMeta(c) >= 0 }), true
	})
	return x
}

// indexNames indexes the rules that names reports on (ok): by the names
// it gives, or as unnamed when one of them is a glob.
func indexNames(rules []*commandRule, names func(*commandRule) (names []string, glob, ok bool)) nameIndex {
	var x nameIndex
	// Each list merges, in rule order, the rules that spell the name out
	// and those that spell out none; positions keep the order.
	position := make(map[*commandRule]int, len(rules))
	own := make(map[string][]*commandRule)
	for i, r := range rules {
		list, glob, ok := names(r)
		switch {
		case !ok:
			continue
		case glob:
			x.unnamed = append(x.unnamed, r)
		default:
			for _, n := range list {
				if l := own[n]; len(l) == 0 || l[len(l)-1] != r {
					own[n] = append(own[n], r)
				}
			}
		}
		position[r] = i
	}
	merged := make(map[string][]*commandRule, len(own))
	for name, list := range own {
		m := make([]*commandRule, 0, len(list)+len(x.unnamed))
		i, j := 0, 0
		for i < len(list) || j < len(x.unnamed) {
			if j == len(x.unnamed) || i < len(list) && position[list[i]] < position[x.unnamed[j]] {
				m = append(m, list[i])
				i++
			} else {
				m = append(m, x.unnamed[j])
				j++
			}
		}
		merged[name] = m
	}
	x.byName = makeTable(merged)
	return x
}

// rulesFor returns the rules that could match s, in order: the policy's
// own, then the catalog's of the families it has not turned off. A
// PowerShell subject is matched by its cmdlet patterns, indexed apart. A
// policy without an index tries all its rules.
func (p *Policy) rulesFor(s *subject) iter.Seq[*commandRule] {
	lookup := func(x *ruleIndex) []*commandRule {
		if s.ps {
			return x.cmdlets.rules(strings.ToLower(s.name))
		}
		return x.commands.rules(s.name)
	}
	own, cat := p.commands, []*commandRule(nil)
	if p.index != nil {
		own = lookup(p.index)
		if p.catalog != nil {
			cat = lookup(p.catalog.index)
		}
	}
	return func(yield func(*commandRule) bool) {
		for _, r := range own {
			if !yield(r) {
				return
			}
		}
		for _, r := range cat {
			if !p.disabled(r.src.Family) && !yield(r) {
				return
			}
		}
	}
}
