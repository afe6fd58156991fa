package hook

import (
	"strings"
	"testing"
)

// TestHostileShapes runs the shapes an agent can write to wear the
// analysis down through the whole hook: each gets its exact decision, or
// ask where it is past a limit, never a crash or a silent pass.
func TestHostileShapes(t *testing.T) {
	e := newEnv(t, "10s", "")
	tests := []struct {
		name, command, decision string
	}{
		{"parens in data hide a destroy", "echo '" + strings.Repeat("(", 1001) + "'; g\\ovc vm.destroy web-01", "deny"},
		{"ifs in data hide a destroy", "echo '" + strings.Repeat("if ", 10001) + "'; g\\ovc vm.destroy web-01", "deny"},
		{"the same bytes as data", "echo '" + strings.Repeat("(", 1001) + "; govc vm.destroy web-01'", ""},
		{"deep test negation", "[[ " + strings.Repeat("! ", 1000000) + "x ]]", "ask"},
		{"sudo chain", strings.Repeat("sudo ", 250000) + "ls", "ask"},
		{"xargs chain", strings.Repeat("xargs ", 300000) + "ls", "ask"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out := e.run(t, "hostile-"+string(rune('a'+i)), tt.command)
			if got := a.HookSpecificOutput.PermissionDecision; got != tt.decision {
				t.Errorf("decision %q, want %q (stdout %.300s)", got, tt.decision, out)
			}
		})
	}
}
