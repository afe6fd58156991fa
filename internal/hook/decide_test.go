package hook

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

func bashEvent(id, command string) *hostio.Event {
	in, _ := json.Marshal(map[string]string{"command": command})
	return &hostio.Event{HookEventName: "PreToolUse", ToolName: "Bash", ToolInput: in, ToolUseID: id, Cwd: "/"}
}

// TestDecideAgreesWithRun checks that Decide answers as the hook does, row
// by row of the decision table, and leaves the logging to its caller.
func TestDecideAgreesWithRun(t *testing.T) {
	tests := []struct {
		name, command string
		effect        policy.Effect
		permission    hostio.Permission
		decision      string // the record's, "" for none
	}{
		{"read-only", "ssh web-01 uptime", policy.None, hostio.NoOpinion, ""},
		{"protected", "govc vm.power -off -vm web-01", policy.Protect, hostio.NoOpinion, audit.DecisionProtected},
		{"failed", "govc vm.power -off -vm legacy-01", policy.Protect, hostio.Deny, audit.DecisionDeny},
		{"unknown", "govc vm.power -off -vm nosuch", policy.Protect, hostio.Ask, audit.DecisionAsk},
		{"deny rule", "govc vm.destroy web-01", policy.Deny, hostio.Deny, audit.DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "3s", "")
			opts := Options{Host: hostio.Claude, Getenv: e.Getenv}
			res := Decide(context.Background(), bashEvent("d-"+tt.name, tt.command), opts)
			if res.Verdict.Effect != tt.effect {
				t.Errorf("verdict %s, want %s", res.Verdict.Effect, tt.effect)
			}
			if res.Decision.Permission != tt.permission {
				t.Errorf("permission %q, want %q (%+v)", res.Decision.Permission, tt.permission, res.Decision)
			}
			switch {
			case tt.decision == "" && res.Record != nil:
				t.Errorf("record %+v, want none", res.Record)
			case tt.decision != "" && (res.Record == nil || res.Record.Decision != tt.decision):
				t.Errorf("record %+v, want decision %s", res.Record, tt.decision)
			}
			if recs := e.Records(t); len(recs) != 0 {
				t.Errorf("Decide logged %+v; its caller logs", recs)
			}
			a, _ := e.run(t, "r-"+tt.name, tt.command)
			if got := hostio.Permission(a.HookSpecificOutput.PermissionDecision); got != tt.permission {
				t.Errorf("hook answered %q, Decide %q", got, tt.permission)
			}
		})
	}
}

// TestDecideAdvice checks that a checkpoint taken for advice protects the
// call when the hook sees it, and that one taken for a call the hook let
// through does not protect the next call.
func TestDecideAdvice(t *testing.T) {
	const cmd = "govc vm.power -off -vm web-01"
	for _, advice := range []bool{true, false} {
		e := newEnv(t, "3s", "")
		opts := Options{Host: "mcp", Getenv: e.Getenv, Advice: advice}
		res := Decide(context.Background(), bashEvent("", cmd), opts)
		if res.Record == nil || len(res.Record.Checkpoints) != 1 || res.Record.Checkpoints[0].Identifier == "" {
			t.Fatalf("advice=%v: record %+v, want one checkpoint", advice, res.Record)
		}
		first := res.Record.Checkpoints[0]
		inserts := e.Sim.CountInserts()
		a, _ := e.run(t, "later", cmd)
		ctx := a.HookSpecificOutput.AdditionalContext
		reused := strings.Contains(ctx, first.Identifier)
		if reused != advice {
			t.Errorf("advice=%v: the hook's checkpoint reused the earlier one: %v (%s)", advice, reused, ctx)
		}
		if got := e.Sim.CountInserts() - inserts; advice && got != 0 {
			t.Errorf("advice: the hook inserted %d more tags", got)
		}
	}
}
