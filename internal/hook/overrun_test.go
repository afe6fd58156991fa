package hook

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// TestCaptureOverrunIsNeverLetThrough: a protect call still at work when
// the budget ends (here: held past it after capture returned) is answered
// from capture's progress, never by on_error's fail-open. What capture
// answers while still running is capture.TestProgressOverrun's.
func TestCaptureOverrunIsNeverLetThrough(t *testing.T) {
	old := afterCapture
	// Each held capture says when it let go, so that the seam is restored
	// only once no run reads it.
	released := make(chan struct{}, 1)
	afterCapture = func(ctx context.Context) {
		defer func() { released <- struct{}{} }()
		<-ctx.Done()
		// Past the net, which fires reserve/2 after the capture's deadline.
		time.Sleep(time.Second)
	}
	defer func() { afterCapture = old }()

	tests := []struct {
		name, command, decision string
		logged                  string
		want                    []string
		extra                   string
	}{
		{
			name: "tag accepted is pending", command: "govc vm.power -off -vm win2019-1", decision: "deny",
			logged: audit.DecisionPending, want: []string{`Zerto accepted checkpoint tag "rewind-`, "Retry this call after"},
		},
		{
			name: "no tag is deny", command: "govc vm.power -off -vm rej-01", decision: "deny",
			logged: audit.DecisionDeny, want: []string{"no checkpoint for rej-01", "The checkpoint name is not valid."},
		},
		{
			name: "on_error allow does not apply", extra: "on_error = \"allow\"\n", command: "govc vm.power -off -vm rej-01", decision: "deny",
			logged: audit.DecisionDeny, want: []string{"no checkpoint for rej-01"},
		},
		{
			name: "landed tag is protected", command: "govc vm.power -off -vm web-01",
			logged: audit.DecisionProtected, want: []string{`on VPG "fast"`, "protects web-01"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "2s", tt.extra)
			a, raw := e.run(t, "overrun", tt.command)
			<-released
			h := a.HookSpecificOutput
			if h.PermissionDecision != tt.decision {
				t.Fatalf("permissionDecision %q, want %q (stdout %s)", h.PermissionDecision, tt.decision, raw)
			}
			if strings.Contains(a.SystemMessage, "not checked") {
				t.Errorf("the call was let through unchecked: %s", raw)
			}
			text := h.PermissionDecisionReason + h.AdditionalContext
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer %q lacks %q", text, w)
				}
			}
			recs := e.Records(t)
			if len(recs) != 1 || recs[0].Decision != tt.logged {
				t.Fatalf("log %+v, want one %s record", recs, tt.logged)
			}
			if !strings.Contains(recs[0].Error, "did not return within the budget") {
				t.Errorf("record error %q, want the overrun named", recs[0].Error)
			}
			checkRetryAfter(t, &recs[0])
			if recs[0].ZVMOffsetMS == nil {
				t.Error("record without the ZVM's clock offset")
			}
		})
	}
}
