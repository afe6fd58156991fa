package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
)

// event is a Bash PreToolUse event.
func event(command string) io.Reader {
	b, _ := json.Marshal(map[string]any{
		"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_use_id": "toolu_1", "cwd": os.TempDir(), "tool_input": map[string]string{"command": command},
	})
	return bytes.NewReader(b)
}

// env is a run's environment with its state in dir and no config.
func env(dir string) func(string) string {
	return func(k string) string {
		if k == "REWIND_STATE_DIR" {
			return dir
		}
		return ""
	}
}

func logged(t *testing.T, dir string) []audit.Record {
	t.Helper()
	recs, err := audit.Open(dir).Read(audit.Filter{})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return recs
}

// stepFunc is a Protector made of a function.
type stepFunc func(ctx context.Context, call *ProtectCall) Protection

func (f stepFunc) Protect(ctx context.Context, call *ProtectCall) Protection { return f(ctx, call) }

// TestProtectStep checks what Run makes of each kind of Protection: a
// decision it records, an answer relayed as it is, and no step at all.
func TestProtectStep(t *testing.T) {
	protected := Protection{
		Decision:    hostio.Decision{Context: "rewind: checkpoint taken"},
		Audit:       audit.DecisionProtected,
		Checkpoints: []audit.Checkpoint{{VM: "web-01", Tag: "rewind-1"}},
	}
	relayed := []byte(`{"relayed":true}` + "\n")
	tests := []struct {
		name       string
		step       Protector
		wantOut    string // a part of stdout
		wantLogged string // the decision logged, "" for none
	}{
		{"Recorded", stepFunc(func(ctx context.Context, call *ProtectCall) Protection {
			if call.Verdict.Targets[0] != "web-01" || call.ID == "" || call.Event.ToolUseID != "toolu_1" {
				t.Errorf("call %+v", call)
			}
			return protected
		}), `"additionalContext":"rewind: checkpoint taken"`, audit.DecisionProtected},
		{"Relayed", stepFunc(func(context.Context, *ProtectCall) Protection {
			return Protection{Answer: &hostio.Response{Stdout: relayed}}
		}), string(relayed), ""},
		{"NoStep", nil, `"permissionDecision":"deny"`, audit.DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var out bytes.Buffer
			Run(context.Background(), event("ssh web-01 sudo reboot"), &out, Options{Host: hostio.Claude, Getenv: env(dir), Protect: tt.step})
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q, want %q in it", out.String(), tt.wantOut)
			}
			recs := logged(t, dir)
			switch {
			case tt.wantLogged == "" && len(recs) != 0:
				t.Errorf("logged %+v, want nothing: the relayed answer was logged by its maker", recs)
			case tt.wantLogged != "" && (len(recs) != 1 || recs[0].Decision != tt.wantLogged || recs[0].Targets[0] != "web-01"):
				t.Errorf("logged %+v, want one %s record for web-01", recs, tt.wantLogged)
			}
		})
	}
}

// TestProtectOverrun checks that a protect step that outlasts the budget
// is answered by what it announced with OnOverrun, not under on_error.
func TestProtectOverrun(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, []byte("[hook]\nbudget = \"1s\"\non_error = \"allow\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	step := stepFunc(func(ctx context.Context, call *ProtectCall) Protection {
		call.OnOverrun(func(ctx context.Context, budget time.Duration) Protection {
			return Protection{Decision: hostio.Decision{Permission: hostio.Deny, Reason: "rewind: late"}, Audit: audit.DecisionDeny}
		})
		<-release
		return Protection{Decision: hostio.Decision{Context: "too late"}, Audit: audit.DecisionProtected}
	})
	var out bytes.Buffer
	Run(context.Background(), event("ssh web-01 sudo reboot"), &out, Options{Host: hostio.Claude, ConfigPath: cfg, Getenv: env(dir), Protect: step})
	if !strings.Contains(out.String(), `"permissionDecisionReason":"rewind: late"`) {
		t.Errorf("stdout %s, want the overrun's answer", out.String())
	}
	recs := logged(t, dir)
	if len(recs) != 1 || recs[0].Decision != audit.DecisionDeny || !strings.Contains(recs[0].Error, "within the budget of 1s") {
		t.Errorf("logged %+v, want the overrun's deny naming the budget", recs)
	}
}

func TestAnswersWhenStdinNeverEnds(t *testing.T) {
	old := watchBudget
	watchBudget = time.Second
	defer func() { watchBudget = old }()
	stdin := endlessStdin{done: make(chan struct{})}
	defer close(stdin.done)

	dir := t.TempDir()
	var out bytes.Buffer
	start := time.Now()
	code := Run(context.Background(), stdin, &out, Options{
		Host: hostio.Claude,
		Getenv: func(k string) string {
			if k == "REWIND_STATE_DIR" {
				return dir
			}
			return ""
		},
	})
	if elapsed := time.Since(start); code != 0 || elapsed > 2*time.Second {
		t.Fatalf("exit %d after %v", code, elapsed)
	}
	if !strings.Contains(out.String(), `"systemMessage":"rewind: no decision within the hook's budget of 1s`) {
		t.Errorf("stdout %s, want the on_error answer naming the budget", out.String())
	}
}

// endlessStdin is a host that writes an event and never closes stdin.
type endlessStdin struct{ done chan struct{} }

func (e endlessStdin) Read(p []byte) (int, error) {
	<-e.done
	return 0, io.EOF
}

// TestBrokenProjectConfigOnlyAddsQuestions: a .rewind.toml that does not
// parse (which the agent can write) cannot loosen what the rest of the
// policy decides: a denied call stays denied, a call to protect still gets
// its checkpoint first (then is put to the person, since the broken file's
// rules might apply), and nothing is let through unchecked.
func TestBrokenProjectConfigOnlyAddsQuestions(t *testing.T) {
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, ".rewind.toml"), []byte("[[command]]\nmatch = \"ssh\"\neffect = none of your business\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ev := func(command string) io.Reader {
		b, _ := json.Marshal(map[string]any{
			"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_use_id": "toolu_1", "cwd": project, "tool_input": map[string]string{"command": command},
		})
		return bytes.NewReader(b)
	}
	protected := 0
	step := stepFunc(func(ctx context.Context, call *ProtectCall) Protection {
		protected++
		return Protection{Decision: hostio.Decision{Context: "rewind: checkpoint taken"}, Audit: audit.DecisionProtected,
			Checkpoints: []audit.Checkpoint{{VM: "web-01", Tag: "rewind-1"}}}
	})
	tests := []struct {
		command   string
		want      []string // parts of stdout
		protected int
	}{
		{"govc vm.destroy -vm web-01", []string{`"permissionDecision":"deny"`, "a checkpoint cannot bring a destroyed VM back"}, 0},
		{"ssh web-01 sudo reboot", []string{`"permissionDecision":"ask"`, `"additionalContext":"rewind: checkpoint taken"`, "config error"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			protected = 0
			var out bytes.Buffer
			Run(context.Background(), ev(tt.command), &out, Options{Host: hostio.Claude, Getenv: env(t.TempDir()), Protect: step})
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout %s, want %q in it", out.String(), w)
				}
			}
			if protected != tt.protected {
				t.Errorf("the protect step ran %d times, want %d", protected, tt.protected)
			}
		})
	}
}
