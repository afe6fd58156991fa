package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
)

// postEvent is Claude Code's PostToolUseFailure event for a Bash call.
func postEvent(command, toolUseID string) *bytes.Reader {
	b, _ := json.Marshal(map[string]any{
		"session_id": "s", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": toolUseID,
		"cwd": os.TempDir(), "tool_input": map[string]string{"command": command}, "error": "Exit code 1\nfailed", "duration_ms": 42,
	})
	return bytes.NewReader(b)
}

// TestOutcomeRecorded checks the post-tool event's way: silent, no
// protect step, and an outcome joined to the call's record; none for a
// call the hook let pass without a record.
func TestOutcomeRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	step := stepFunc(func(context.Context, *ProtectCall) Protection {
		return Protection{Decision: hostio.Decision{Context: "rewind: checkpoint"}, Audit: audit.DecisionProtected}
	})
	opts := Options{Host: hostio.Claude, Getenv: env(dir), Protect: step}
	Run(context.Background(), event("ssh web-01 sudo reboot"), &bytes.Buffer{}, opts)

	never := stepFunc(func(context.Context, *ProtectCall) Protection {
		t.Error("a post-tool event reached the protect step")
		return Protection{}
	})
	opts.Protect = never
	for _, ev := range []*bytes.Reader{postEvent("ssh web-01 sudo reboot", "toolu_1"), postEvent("uptime", "toolu_2")} {
		var out, errOut bytes.Buffer
		opts.Stderr = &errOut
		if code := Run(context.Background(), ev, &out, opts); code != 0 || out.Len() > 0 || errOut.Len() > 0 {
			t.Errorf("post-tool event: code %d, stdout %q, stderr %q", code, out.String(), errOut.String())
		}
	}
	recs := logged(t, dir)
	if len(recs) != 1 {
		t.Fatalf("log holds %d records: %+v", len(recs), recs)
	}
	o := recs[0].Outcome
	if o == nil || o.State != audit.OutcomeFailed || o.ExitCode == nil || *o.ExitCode != 1 || *o.DurationMS != 42 || !o.Reported {
		t.Errorf("outcome %+v", o)
	}
	data, _ := os.ReadFile(audit.Open(dir).Path())
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("the log holds %d lines, want the call and its outcome: the read-only call's outcome is not logged\n%s", n, data)
	}
}

// TestExitCodeAnswer checks that Run answers a host that reads exit codes
// with the exit code and the reason on stderr.
func TestExitCodeAnswer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := `{"agent_action_name":"pre_run_command","trajectory_id":"t","execution_id":"e","tool_info":{"command_line":"govc vm.destroy web-01","cwd":"/"}}`
	var out, errOut bytes.Buffer
	code := Run(context.Background(), strings.NewReader(in), &out, Options{Host: hostio.Windsurf, Getenv: env(dir), Stderr: &errOut})
	if code != hostio.Blocking || out.Len() > 0 || !strings.HasPrefix(errOut.String(), "rewind: ") {
		t.Errorf("code %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
