package policy

import (
	"os"
	"strings"
	"testing"
)

// TestCmdletSurfaces checks the PowerShell families against the cmdlet
// lists their modules publish (testdata/cmdlets): every cmdlet of the
// module is judged by a rule of its family, read-only ones included, and
// every cmdlet a rule names exactly is one of the module's, so that a
// misspelt name cannot leave a cmdlet to no rule.
func TestCmdletSurfaces(t *testing.T) {
	p := newPolicy(t, "")
	for _, family := range []string{"hyperv", "powercli"} {
		t.Run(family, func(t *testing.T) {
			b, err := os.ReadFile("testdata/cmdlets/" + family + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			listed := map[string]bool{}
			for line := range strings.SplitSeq(string(b), "\n") {
				if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
					listed[strings.ToLower(line)] = true
				}
			}
			var rules []*commandRule
			for _, r := range p.commands {
				if r.src.Family == family && len(r.cmdlets) > 0 {
					rules = append(rules, r)
				}
			}
			for name := range listed {
				if !namesCmdletIn(rules, name) {
					t.Errorf("no %s rule judges %s", family, name)
				}
			}
			for _, r := range rules {
				for _, c := range r.cmdlets {
					if globMeta(c) < 0 && !listed[c] {
						t.Errorf("rule %s names %s, which the module does not have", r.label, c)
					}
				}
			}
		})
	}
}

func namesCmdletIn(rules []*commandRule, name string) bool {
	for _, r := range rules {
		if namesCmdlet(r.cmdlets, name) {
			return true
		}
	}
	return false
}
