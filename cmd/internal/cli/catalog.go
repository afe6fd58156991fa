package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/policy"
	"github.com/spf13/cobra"
)

func newCatalogCmd() *cobra.Command {
	var (
		configPath string
		asTOML     bool
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "catalog [FAMILY]",
		Short: "Print the catalog's families and the effective rules",
		Long: `catalog prints the built-in catalog's families (one per way of reaching
a VM: ssh, govc, azure...; [catalog] disable = ["gcloud", ...] in the
config turns one off) and then the rules in the order they are tried: the
config's rules first, then the built-in catalog's; within a list the first
matching rule wins. Each rule shows its effect, its kind, its family, the
name verdicts give it, the conditions it needs besides its name (in the
config's own keys: on, args_any, args_none, payload_contains, target,
paths, vm_arg...) and its reason.

With FAMILY it prints that family alone. With --toml it prints the built-in
catalog itself (or FAMILY's file of it), a config file that can be copied
and edited; with --json, the families and rules as one JSON object.`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return familyNames(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			family := ""
			if len(args) == 1 {
				family = args[0]
				if !slices.Contains(familyNames(), family) {
					return &hintError{fmt.Errorf("no catalog family %q", family), "the families are " + strings.Join(familyNames(), ", ")}
				}
			}
			if asTOML {
				if asJSON {
					return fmt.Errorf("--toml and --json cannot be used together")
				}
				if family != "" {
					data, _ := policy.CatalogFile(family)
					_, err := out.Write(data)
					return err
				}
				_, err := out.Write(policy.Catalog())
				return err
			}
			pol, err := loadPolicy(configPath)
			if err != nil {
				return err
			}
			cat := catalogListing(pol, family)
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(cat)
			}
			if err := writeFamilies(out, cat.Families); err != nil {
				return err
			}
			fmt.Fprintln(out)
			return policy.WriteRuleTable(out, cat.Rules)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().BoolVar(&asTOML, "toml", false, "print the built-in catalog (or FAMILY's file) as TOML")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the families and rules as JSON")
	return cmd
}

// familyNames returns the names `rewind catalog FAMILY` takes: the
// catalog's files, in the order they are tried.
func familyNames() []string {
	var names []string
	for _, f := range policy.CatalogFamilies() {
		names = append(names, f.Name)
	}
	return names
}

// catalogJSON is what `rewind catalog --json` prints.
type catalogJSON struct {
	Families []familyJSON      `json:"families"`
	Rules    []policy.RuleInfo `json:"rules"`
}

// familyJSON is a catalog family with how it stands in the config.
type familyJSON struct {
	policy.CatalogFamily
	// Rules counts the family's rules in the effective policy.
	Rules int `json:"rules"`
	// State is "on", "disabled" (by [catalog] disable) or "always" for a
	// family that cannot be disabled.
	State string `json:"state"`
}

// catalogListing lists the catalog's families and the effective rules,
// or, for a family, that family and its rules.
func catalogListing(pol *policy.Policy, family string) catalogJSON {
	rules := pol.Rules()
	count := map[string]int{}
	for _, r := range rules {
		count[r.Family]++
	}
	var out catalogJSON
	disabled := pol.Config().Catalog.Disable
	for _, f := range policy.CatalogFamilies() {
		if family != "" && f.Name != family {
			continue
		}
		st := "on"
		switch {
		case !policy.CanDisable(f.Name):
			st = "always"
		case slices.Contains(disabled, f.Name):
			st = "disabled"
		}
		out.Families = append(out.Families, familyJSON{CatalogFamily: f, Rules: count[f.Name], State: st})
	}
	for _, r := range rules {
		if family == "" || r.Family == family {
			out.Rules = append(out.Rules, r)
		}
	}
	if out.Rules == nil {
		out.Rules = []policy.RuleInfo{}
	}
	return out
}

// familySummaryWidth bounds the SUMMARY column of the families table, so
// that it fits 100 columns.
const familySummaryWidth = 60

// writeFamilies writes the families table that `rewind catalog` starts
// with.
func writeFamilies(w io.Writer, fams []familyJSON) error {
	width := len("FAMILY")
	for _, f := range fams {
		width = max(width, len(f.Name))
	}
	var b strings.Builder
	b.WriteString("# families (policy/catalog; `rewind catalog FAMILY` shows one)\n")
	fmt.Fprintf(&b, "%-*s  %5s  %-8s  %s\n", width, "FAMILY", "RULES", "STATE", "SUMMARY")
	for _, f := range fams {
		fmt.Fprintf(&b, "%-*s  %5d  %-8s  %s\n", width, f.Name, f.Rules, f.State, clip(f.Summary, familySummaryWidth))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// clip shortens s to at most n runes, ending it with "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ,;:") + "…"
}
