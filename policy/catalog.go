package policy

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed catalog.toml
var catalogTOML []byte

// Catalog returns the built-in catalog: a config file of rules and their
// tests, as `rewind catalog` prints it.
func Catalog() []byte {
	return append([]byte(nil), catalogTOML...)
}

//go:generate go run gen_catalog.go

// catalogConfig returns the catalog as parsed. Parsing the TOML takes longer
// than a hook may spend before it judges a call, so the catalog is parsed
// at build time: catalog_gen.go holds the result, and a test checks that
// it matches catalog.toml.
func catalogConfig() *Config { return generatedCatalog }

// RuleInfo describes one effective rule, for `rewind catalog`.
type RuleInfo struct {
	// Kind is "command", "tool" or "server".
	Kind string
	// Origin is the config file's path, or "catalog".
	Origin string
	// Name is how verdicts name the rule.
	Name string
	// Family is the catalog family the rule belongs to ("govc", "azure"),
	// or "" for a rule without one.
	Family string
	Effect Effect
	Reason string
	// Conditions are what the rule needs besides its name, as config keys:
	// "on=remote", `args_any=["-f"]`, "target=host"...
	Conditions []string
}

func (r RuleInfo) String() string {
	var b strings.Builder
	family := r.Family
	if family == "" {
		family = "-"
	}
	fmt.Fprintf(&b, "%-7s %-8s %-11s %s", r.Effect, r.Kind, family, r.Name)
	if r.Reason != "" {
		b.WriteString("  # ")
		b.WriteString(r.Reason)
	}
	return b.String()
}

// Rules returns the effective rules in the order they are tried: the
// config's, then the catalog's. Servers come after the tool rules: they
// apply only when no tool rule does. The rules with writes follow, judged
// in a pass of their own, and last the rules of the configs that can only
// tighten (an untrusted project config, a broken config's rules read
// leniently).
func (p *Policy) Rules() []RuleInfo {
	out := p.rules(originName(p.cfg), len(p.cfg.Servers))
	for i, t := range p.tighten {
		origin := originName(p.cfg.Tighten[i])
		if p.cfg.Tighten[i].loose {
			origin += " (broken: asks every call its rules could match)"
		} else {
			origin += " (untrusted: can only tighten)"
		}
		out = append(out, t.rules(origin, len(t.servers))...)
	}
	return out
}

func (p *Policy) rules(own string, ownServers int) []RuleInfo {
	origin := func(label string) string {
		if strings.HasPrefix(label, catalogOrigin+":") {
			return catalogOrigin
		}
		return own
	}
	var out []RuleInfo
	for _, c := range p.commands {
		out = append(out, RuleInfo{Kind: "command", Origin: origin(c.label), Name: c.label, Family: c.src.Family, Effect: c.src.Effect, Reason: c.src.Reason, Conditions: commandConditions(*c.src)})
	}
	for _, t := range p.tools {
		out = append(out, RuleInfo{Kind: "tool", Origin: origin(t.label), Name: t.label, Family: t.src.Family, Effect: t.src.Effect, Reason: t.src.Reason, Conditions: toolConditions(*t.src)})
	}
	for i, s := range p.servers {
		o := own
		if i >= ownServers {
			o = catalogOrigin
		}
		out = append(out, RuleInfo{Kind: "server", Origin: o, Name: "server " + s, Effect: Ask, Reason: "a tool in a guarded server that no rule lists"})
	}
	for _, w := range p.writes {
		var cond []string
		var family string
		if w.cmd != nil {
			cond, family = commandConditions(*w.cmd.src), w.cmd.src.Family
		} else {
			cond, family = toolConditions(*w.tool.src), w.tool.src.Family
		}
		cond = append(cond, "writes="+list(w.rawGlobs()))
		out = append(out, RuleInfo{Kind: "writes", Origin: origin(w.label()), Name: w.label(), Family: family, Effect: w.effect(), Reason: w.reason(), Conditions: cond})
	}
	return out
}
