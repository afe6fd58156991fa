package policy

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// The built-in catalog is a folder of config files, one per family
// (catalog/ssh.toml, catalog/govc.toml...), as the peers keep one file per
// pack: a family is reviewed, disabled and printed as a unit.
// catalog/index.toml lists the files in the order their rules are tried.

//go:embed catalog/*.toml
var catalogFiles embed.FS

// commonFamily names the catalog file of what belongs to no family (how
// git and gh read their options, tests across families). Its rules have
// no family, so no [catalog] disable reaches them.
const commonFamily = "common"

// CatalogFamily is one file of the built-in catalog.
type CatalogFamily struct {
	// Name is the family's name, as rules, [catalog] disable and
	// `rewind catalog FAMILY` name it; "common" for the file of rules that
	// belong to no family.
	Name string `json:"name"`
	// Summary is the file's first comment paragraph, in one line, without
	// the family's name it starts with.
	Summary string `json:"summary"`
	// File is the file's path in the source tree.
	File string `json:"file"`
}

// CatalogFamilies returns the files of the built-in catalog in the order
// their rules are tried.
func CatalogFamilies() []CatalogFamily {
	names, err := catalogIndex()
	if err != nil {
		// The index is embedded and checked by the tests.
		panic(err)
	}
	out := make([]CatalogFamily, len(names))
	for i, n := range names {
		data, _ := catalogFiles.ReadFile(catalogPath(n))
		s, _ := strings.CutPrefix(summary(data), n+": ")
		out[i] = CatalogFamily{Name: n, Summary: s, File: "policy/" + catalogPath(n)}
	}
	return out
}

// CatalogFile returns the config file of one family of the built-in
// catalog, as it is in the source tree.
func CatalogFile(family string) ([]byte, bool) {
	names, _ := catalogIndex()
	if !slices.Contains(names, family) {
		return nil, false
	}
	data, err := catalogFiles.ReadFile(catalogPath(family))
	return data, err == nil
}

func catalogPath(family string) string { return "catalog/" + family + ".toml" }

// catalogIndex reads catalog/index.toml.
func catalogIndex() ([]string, error) { return readIndex(catalogFiles) }

func readIndex(fsys fs.FS) ([]string, error) {
	data, err := fs.ReadFile(fsys, "catalog/index.toml")
	if err != nil {
		return nil, err
	}
	var index struct {
		Families []string `toml:"families"`
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&index); err != nil {
		return nil, fmt.Errorf("catalog/index.toml: %w", err)
	}
	return index.Families, nil
}

// summary returns the first paragraph of comment lines of a file, joined
// into one line.
func summary(data []byte) string {
	var words []string
	for line := range strings.Lines(string(data)) {
		text, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
		if !ok || strings.TrimSpace(text) == "" {
			break
		}
		words = append(words, strings.Fields(text)...)
	}
	return strings.Join(words, " ")
}

// ParseCatalog parses the built-in catalog's files and joins them into
// one config, in the order of the index: each file's options that take a
// value and subcommand aliases add to the others', its rules and tests
// follow theirs. A rule or test that names no family gets its file's; one
// that names another family than its file's is an error (a test may name
// several, its file's among them), so that a family's file holds all its
// rules and only them.
func ParseCatalog() (*Config, error) { return parseCatalog(catalogFiles) }

func parseCatalog(fsys fs.FS) (*Config, error) {
	names, err := readIndex(fsys)
	if err != nil {
		return nil, err
	}
	out := &Config{Path: catalogOrigin + ".toml", ValueOptions: map[string][]string{}, SubcommandAliases: map[string]map[string]string{}}
	var errs []error
	for _, name := range names {
		file := catalogPath(name)
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			errs = append(errs, fmt.Errorf("catalog/index.toml: family %q: %w", name, err))
			continue
		}
		cfg, err := Parse(file, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		family := name
		if name == commonFamily {
			family = ""
		}
		check := func(kind string, i int, f *string, several bool) {
			switch {
			case *f == "":
				*f = family
			case *f == family, several && slices.Contains(strings.Fields(*f), family):
			default:
				errs = append(errs, fmt.Errorf("%s: %s %d: family %q is not the file's (%q)", file, kind, i+1, *f, name))
			}
		}
		for k, v := range cfg.ValueOptions {
			out.ValueOptions[k] = append(out.ValueOptions[k], v...)
		}
		for k, v := range cfg.SubcommandAliases {
			if out.SubcommandAliases[k] == nil {
				out.SubcommandAliases[k] = map[string]string{}
			}
			for from, to := range v {
				out.SubcommandAliases[k][from] = to
			}
		}
		for i := range cfg.Commands {
			check("command rule", i, &cfg.Commands[i].Family, false)
		}
		for i := range cfg.Tools {
			check("tool rule", i, &cfg.Tools[i].Family, false)
		}
		for i := range cfg.Tests {
			check("test", i, &cfg.Tests[i].Family, true)
		}
		if !cfg.MCP.empty() {
			// The words are one family's, which [catalog] disable turns
			// off as a whole.
			if name != mcpFamily {
				errs = append(errs, fmt.Errorf("%s: an [mcp] table belongs in %s", file, catalogPath(mcpFamily)))
			}
			out.MCP = cfg.MCP
		}
		out.Servers = append(out.Servers, cfg.Servers...)
		out.Tools = append(out.Tools, cfg.Tools...)
		out.Commands = append(out.Commands, cfg.Commands...)
		out.Tests = append(out.Tests, cfg.Tests...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Catalog returns the built-in catalog as one config file, as `rewind
// catalog --toml` prints it: every family's options that take a value and
// subcommand aliases in one table each, then each family's rules and
// tests, in the order they are tried, under a line naming the family's
// file. Every rule names its family, so the file can be copied and
// edited as a config of its own.
func Catalog() []byte {
	names, err := catalogIndex()
	if err != nil {
		panic(err)
	}
	index, _ := catalogFiles.ReadFile("catalog/index.toml")
	var head, options, aliases, bodies bytes.Buffer
	for line := range bytes.Lines(index) {
		if !bytes.HasPrefix(line, []byte("#")) {
			break
		}
		head.Write(line)
	}
	for _, name := range names {
		data, _ := catalogFiles.ReadFile(catalogPath(name))
		body := splitTables(data, &options, &aliases)
		fmt.Fprintf(&bodies, "\n# --- %s (policy/%s)\n%s", name, catalogPath(name), body)
	}
	var b bytes.Buffer
	b.Write(head.Bytes())
	b.WriteString("\n# Options that take their value as the next word, per command.\n[value_options]\n")
	b.Write(options.Bytes())
	b.WriteString("\n# Subcommands that stand for others, per command.\n[subcommand_aliases]\n")
	b.Write(aliases.Bytes())
	b.Write(bodies.Bytes())
	return b.Bytes()
}

// splitTables takes a catalog file's [value_options] and
// [subcommand_aliases] tables out of it, writing their lines to options and
// aliases, and returns the rest: the file's rules and tests with the
// comments above them. The catalog's files keep those tables at their top,
// before the first [[...]] header, each a run of key lines.
func splitTables(data []byte, options, aliases *bytes.Buffer) []byte {
	var rest bytes.Buffer
	var table *bytes.Buffer
	var comment []byte
	for line := range bytes.Lines(data) {
		t := bytes.TrimSpace(line)
		switch {
		case table != nil && len(t) > 0 && t[0] != '[' && t[0] != '#':
			table.Write(line)
			continue
		case bytes.Equal(t, []byte("[value_options]")):
			table, comment = options, nil
			continue
		case bytes.Equal(t, []byte("[subcommand_aliases]")):
			table, comment = aliases, nil
			continue
		}
		table = nil
		if len(t) > 0 && t[0] == '#' {
			// A comment belongs to what follows it: a table's is dropped
			// with the table.
			comment = append(comment, line...)
			continue
		}
		rest.Write(comment)
		comment = nil
		rest.Write(line)
	}
	rest.Write(comment)
	return bytes.TrimLeft(rest.Bytes(), "\n")
}

//go:generate go run -tags catalog_gen gen_catalog.go

// catalogConfig returns the catalog as parsed. Parsing the TOML takes longer
// than a hook may spend before it judges a call, and compiling its rules
// about as long as the rest of a read-only call, so the catalog is parsed
// and compiled at build time: catalog_gen.go holds the results as data
// (compiledCatalog returns the compiled catalog), and tests check that
// they match the catalog's files. The parsed catalog is built on the first
// call, which the hook seldom makes: its maps would be built at every
// start were they data. It holds no tests: catalogTestCases returns them,
// which only the self-test reads, so that the hook's program does not
// carry them.
var catalogConfig = sync.OnceValue(newCatalogConfig)

// RuleInfo describes one effective rule, for `rewind catalog`.
type RuleInfo struct {
	// Kind is "command", "tool" or "server".
	Kind string `json:"kind"`
	// Origin is the config file's path, or "catalog".
	Origin string `json:"origin"`
	// Name is how verdicts name the rule.
	Name string `json:"name"`
	// Family is the catalog family the rule belongs to ("govc", "azure"),
	// or "" for a rule without one.
	Family string `json:"family,omitempty"`
	Effect Effect `json:"effect"`
	Reason string `json:"reason,omitempty"`
	// Conditions are what the rule needs besides its name, as config keys:
	// "on=remote", `args_any=["-f"]`, "target=host"...
	Conditions []string `json:"conditions,omitempty"`
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
	if p.cfg != nil {
		out = append(out, p.mcpRules(own)...)
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
