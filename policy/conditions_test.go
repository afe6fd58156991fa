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
