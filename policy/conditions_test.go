package policy

import (
	"slices"
	"testing"
)

func TestConditions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule CommandRule
		want []string
	}{
		{CommandRule{Match: "uptime"}, nil},
		{CommandRule{Match: "uptime", On: "any"}, nil},
		{CommandRule{Cmdlets: []string{"Stop-VM"}, Target: "flag:-VM"}, []string{"target=flag:-VM"}},
		{CommandRule{Match: "find", On: "remote", Exact: true, ArgsAny: []string{"-a"}, ArgsNone: []string{"-delete", `-x"y`},
			PayloadContains: []string{"closes #"}, Target: "host", RequireTarget: true, Analysed: true},
			[]string{"on=remote", "exact", "analysed", `args_any=["-a"]`, `args_none=["-delete","-x\"y"]`, `payload_contains=["closes #"]`, "target=host", "require_target"}},
	} {
		if got := commandConditions(tc.rule); !slices.Equal(got, tc.want) {
			t.Errorf("commandConditions(%+v) = %q, want %q", tc.rule, got, tc.want)
		}
	}
	got := toolConditions(ToolRule{Name: "Write", VMArg: "vm", RequireTarget: true, Paths: []string{"src/**"}, PayloadContains: []string{"x"}})
	if want := []string{"vm_arg=vm", "require_target", `paths=["src/**"]`, `payload_contains=["x"]`}; !slices.Equal(got, want) {
		t.Errorf("toolConditions = %q, want %q", got, want)
	}
	got = toolConditions(ToolRule{Name: "mcp__*__apply", InputEquals: map[string]string{"mode": "test", "/spec/dry run": "true"}})
	if want := []string{`input_equals={"/spec/dry run"="true",mode="test"}`}; !slices.Equal(got, want) {
		t.Errorf("toolConditions = %q, want %q", got, want)
	}
}

// TestRunTimeWordCouldBeTheOption: a rule that an option makes stricter
// (args_any) asks about a call where a word decided at run time could be
// that option, instead of leaving it to the lenient rule after it, and
// applies when the option is there with a value decided then; a word that
// is a value (an option's, a single positional word, a PowerShell
// variable, the word that already stands for the subcommand) changes
// nothing.
func TestRunTimeWordCouldBeTheOption(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, `
[[command]]
match = "vmtool restore"
value_options = ["--name", "--level"]
args_any = ["--over", "--mode replace"]
effect = "deny"
reason = "restores over the VM"
[[command]]
match = "vmtool restore"
effect = "none"
reason = "restores into a new VM"
[[command]]
cmdlets = ["Restore-Vm"]
args_any = ["-Over"]
effect = "deny"
reason = "restores over the VM"
`)
	wantEffects(t, p, []effectCase{
		{"vmtool restore --name a --over", Deny},
		{`vmtool restore --name a "$@"`, Ask},
		{`vmtool restore --name a ${opts[@]}`, Ask},
		{`vmtool restore --name a --"$FLAG"`, Ask},
		{`vmtool restore --name a --mode="$M"`, Ask},
		{`vmtool restore --name a --mode "$M"`, Ask},
		{`pwsh -c 'Restore-Vm -Name a @params'`, Ask},
		// The rule's own option, its value known only at run time.
		{`vmtool restore --name a --over="$X"`, Deny},
		{`vmtool restore --name a --ov="$X"`, Deny},
		// Not an option: a value, a single word known only at run
		// time (read as an option, virsh dominfo "$DOM" would ask), a
		// PowerShell variable, the subcommand's own word, a quoted
		// mention.
		{`vmtool restore --name "$NAME" --level="$L"`, None},
		{`vmtool restore --name a "$X"`, None},
		{`vmtool restore --name a $OPTS`, None},
		{`vmtool restore --name a --le"$X"`, None},
		{`vmtool restore --name a --o"$X"`, Ask},
		{`pwsh -c 'Restore-Vm -Name a -Verbose $true'`, None},
		{"vmtool $SUB a", None},
		{`git commit -m 'vmtool restore --name a $OPTS'`, None},
	})
}
