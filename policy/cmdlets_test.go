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
	t.Parallel()
	p := newPolicy(t, "")
	for _, family := range []string{"hyperv", "powercli", "azure-powershell"} {
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

// TestCmdletIndex checks that the cmdlet index gives, for any name, the
// rules in order that a scan of them all would try and find matching.
func TestCmdletIndex(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "[[command]]\ncmdlets = [\"Stop-*\"]\neffect = \"ask\"\n[[command]]\ncmdlets = [\"Stop-VM\"]\neffect = \"deny\"\n")
	names := []string{"Stop-VM", "stop-vm", "Get-VM", "Remove-VM", "Invoke-Command", "icm", "Frob-Nicate", "Set-VMHost", "Restart-Service"}
	for _, f := range []string{"hyperv", "powercli", "azure-powershell"} {
		b, _ := os.ReadFile("testdata/cmdlets/" + f + ".txt")
		for line := range strings.SplitSeq(string(b), "\n") {
			if line != "" && !strings.HasPrefix(line, "#") {
				names = append(names, line)
			}
		}
	}
	for _, name := range names {
		var want []string
		for _, r := range p.commands {
			if len(r.cmdlets) > 0 && anyGlob(r.cmdlets, strings.ToLower(name)) {
				want = append(want, r.label)
			}
		}
		var got []string
		for r := range p.rulesFor(&subject{ps: true, name: name}) {
			if anyGlob(r.cmdlets, strings.ToLower(name)) {
				got = append(got, r.label)
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: index gives\n\t%s\nwant\n\t%s", name, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
		}
	}
}
