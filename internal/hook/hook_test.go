package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/zvmsim"
)

// TestMain doubles as a hook process when the concurrency test re-executes
// the test binary, so that test needs no separate build.
func TestMain(m *testing.M) {
	if os.Getenv("REWIND_HOOK_TEST_CHILD") == "1" {
		os.Exit(Run(context.Background(), os.Stdin, os.Stdout, Options{Host: hostio.Claude, Stderr: os.Stderr}))
	}
	os.Exit(m.Run())
}

// env is the shared test lab, with the hook's own Run as its hook.
type env struct{ *testlab.Lab }

// newEnv starts the test lab and a config with budget and extra TOML.
func newEnv(t *testing.T, budget string, extra string) *env {
	t.Helper()
	return &env{testlab.New(t, testlab.Options{Budget: budget, Extra: extra, Hook: Run})}
}

func event(id, command string) string { return string(testlab.BashEvent(id, command)) }

type answer = testlab.Answer

func (e *env) run(t *testing.T, id, command string) (answer, string) {
	t.Helper()
	out, _, code := e.Hook(testlab.BashEvent(id, command))
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	return testlab.ParseAnswer(t, out), out
}

func TestDecisionTable(t *testing.T) {
	tests := []struct {
		name     string
		extra    string // config TOML
		command  string
		decision string // permissionDecision
		want     []string
		logged   string // audit decision, "" for none
	}{
		{name: "read-only call", command: "ssh web-01 uptime"},
		{
			name: "protected", command: "govc vm.power -off -vm web-01",
			want:   []string{`checkpoint "rewind-`, "CheckpointIdentifier ", `on VPG "fast"`, "protects web-01", "rewind undo "},
			logged: audit.DecisionProtected,
		},
		{
			name: "failed task", command: "govc vm.power -off -vm legacy-01", decision: "deny",
			want:   []string{`no checkpoint for legacy-01 (VPG "failing"): Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding`},
			logged: audit.DecisionDeny,
		},
		{
			name: "rejected insert", command: "govc vm.power -off -vm rej-01", decision: "deny",
			want:   []string{"The checkpoint name is not valid."},
			logged: audit.DecisionDeny,
		},
		{
			name: "paused VPG", command: "govc vm.power -off -vm paused-01", decision: "deny",
			want:   []string{"ReplicationPausedUserInitiated"},
			logged: audit.DecisionDeny,
		},
		{
			name: "pending", command: "govc vm.power -off -vm win2019-1", decision: "deny",
			want:   []string{`Zerto accepted checkpoint tag "rewind-`, `VPG "aws"`, "journal cadence ~630s", "Retry this call after"},
			logged: audit.DecisionPending,
		},
		{
			name: "pending as ask", extra: "pending = \"ask\"\n", command: "govc vm.power -off -vm win2019-1", decision: "ask",
			want:   []string{"Retry this call after", "runs before its checkpoint exists"},
			logged: audit.DecisionPending,
		},
		{
			name: "failed and unknown", command: "govc vm.power -off paused-01 nosuch", decision: "deny",
			want:   []string{"ReplicationPausedUserInitiated", "nosuch is not a VM Zerto protects"},
			logged: audit.DecisionDeny,
		},
		{
			name: "unknown VM", command: "govc vm.power -off -vm nosuch", decision: "ask",
			want:   []string{"nosuch is not a VM Zerto protects: nothing to rewind to"},
			logged: audit.DecisionAsk,
		},
		{
			name: "alias", extra: "[targets]\naliases = { \"www.lab.local\" = \"web-01\" }\n",
			command: "ssh www.lab.local sudo reboot", want: []string{"protects web-01"}, logged: audit.DecisionProtected,
		},
		{
			name: "deny rule", extra: "[[command]]\nmatch = \"git push\"\nargs_any = [\"--force\"]\neffect = \"deny\"\nreason = \"no force pushes\"\n",
			command: "git push --force", decision: "deny", want: []string{"no force pushes"}, logged: audit.DecisionDeny,
		},
		{
			name: "ask rule", extra: "[[command]]\nmatch = \"terraform apply\"\neffect = \"ask\"\nreason = \"changes infrastructure\"\n",
			command: "terraform apply", decision: "ask", want: []string{"changes infrastructure"}, logged: audit.DecisionAsk,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "3s", tt.extra)
			id := strings.ReplaceAll(tt.name, " ", "-")
			if tt.name == "protected" {
				id = "protected"
			}
			a, raw := e.run(t, id, tt.command)
			h := a.HookSpecificOutput
			if h.PermissionDecision != tt.decision {
				t.Fatalf("permissionDecision %q, want %q (stdout %s)", h.PermissionDecision, tt.decision, raw)
			}
			text := h.PermissionDecisionReason + h.AdditionalContext
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("answer %q lacks %q", text, w)
				}
			}
			if tt.decision == "" && tt.logged == "" && raw != "" {
				t.Errorf("stdout %q, want nothing", raw)
			}
			recs := e.Records(t)
			if tt.logged == "" {
				if len(recs) != 0 {
					t.Errorf("logged %+v, want nothing", recs)
				}
				return
			}
			if len(recs) != 1 || recs[0].Decision != tt.logged {
				t.Fatalf("log %+v, want one %s record", recs, tt.logged)
			}
			checkRetryAfter(t, &recs[0])
			if tt.logged == audit.DecisionProtected {
				cp := recs[0].Checkpoints
				if len(cp) != 1 || cp[0].Identifier == "" || !strings.Contains(h.AdditionalContext, cp[0].Identifier) {
					t.Errorf("logged checkpoints %+v do not match the answer %q", cp, h.AdditionalContext)
				}
				if !strings.Contains(h.AdditionalContext, recs[0].ID) {
					t.Errorf("answer does not name audit id %s", recs[0].ID)
				}
			}
		})
	}
}

// TestAuditIDsIdentifyOneCall: the same tool_use_id from two sessions, and
// the same event run twice, are four calls with four audit IDs, each named
// in its own answer.
func TestAuditIDsIdentifyOneCall(t *testing.T) {
	e := newEnv(t, "3s", "")
	var answers []string
	for _, session := range []string{"s1", "s2", "s2", "s1"} {
		ev := strings.Replace(event("toolu_01", "govc vm.power -off -vm web-01"), `"session_id":"s1"`, `"session_id":"`+session+`"`, 1)
		out, _, _ := e.Hook([]byte(ev))
		answers = append(answers, out)
	}
	recs := e.Records(t)
	if len(recs) != len(answers) {
		t.Fatalf("logged %d records, want %d", len(recs), len(answers))
	}
	seen := map[string]bool{}
	for i, r := range recs {
		if seen[r.ID] {
			t.Errorf("audit ID %s given to two calls", r.ID)
		}
		seen[r.ID] = true
		if !strings.Contains(answers[i], "rewind undo "+r.ID+" (audit id)") {
			t.Errorf("answer %d %q does not name its record's ID %s", i, answers[i], r.ID)
		}
	}
}

func TestNoZertoConfigured(t *testing.T) {
	e := newEnv(t, "3s", "")
	e.Vars["REWIND_ZVM_URL"] = ""
	a, _ := e.run(t, "x", "govc vm.power -off -vm web-01")
	if h := a.HookSpecificOutput; h.PermissionDecision != "ask" || !strings.Contains(h.PermissionDecisionReason, "no Zerto configured: nothing to rewind to") {
		t.Errorf("answer %+v", h)
	}
}

func TestHungZVMAnswersWithinBudget(t *testing.T) {
	e := newEnv(t, "1s", "")
	e.Sim.SetFaults(zvmsim.Faults{Hang: true})
	start := time.Now()
	a, _ := e.run(t, "hung", "govc vm.power -off -vm web-01")
	// Capture gives up at 750 ms; the slack is for a loaded machine, and a
	// flow blind to the budget hangs until the test ends.
	if elapsed := time.Since(start); elapsed > time.Second+500*time.Millisecond {
		t.Errorf("answered after %v, past the 1s budget", elapsed)
	}
	if h := a.HookSpecificOutput; h.PermissionDecision != "deny" || !strings.Contains(h.PermissionDecisionReason, "timeout") {
		t.Errorf("answer %+v, want a deny naming the timeout", h)
	}
}

func TestSlowCadencePendingAtOnce(t *testing.T) {
	e := newEnv(t, "150s", "")
	start := time.Now()
	a, _ := e.run(t, "slow", "govc vm.power -off -vm win2019-1")
	// At once, not after sitting out the 150 s budget: the bound leaves a
	// loaded machine room and stays a thirtieth of the budget.
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("pending took %v of a 150s budget, want it at once", elapsed)
	}
	if a.HookSpecificOutput.PermissionDecision != "deny" {
		t.Errorf("answer %+v, want pending's deny", a.HookSpecificOutput)
	}
	// The retry after the tag lands is protected by it, with no new insert.
	if _, err := e.Sim.WriteCheckpoint("aws"); err != nil {
		t.Fatal(err)
	}
	a2, _ := e.run(t, "slow", "govc vm.power -off -vm win2019-1")
	if !strings.Contains(a2.HookSpecificOutput.AdditionalContext, `on VPG "aws"`) {
		t.Errorf("retry answer %+v, want protected", a2.HookSpecificOutput)
	}
	if n := e.Sim.CountInserts(); n != 1 {
		t.Errorf("%d inserts, want 1", n)
	}
}

// TestConcurrentProcesses runs 16 hook processes at once on one VPG: they
// must share one insert, and every one must answer.
func TestConcurrentProcesses(t *testing.T) {
	// The budget is generous: the processes wait for one another below,
	// and sixteen of them start slowly on a loaded machine.
	e := newEnv(t, "30s", "")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Hold the VPG's lock until every process has checked the VPG, so that
	// all of them arrive before any is let through, however slowly they
	// start on a loaded machine.
	vpgID := e.Sim.VPGIdentifier("fast")
	stateDir := e.Vars["REWIND_STATE_DIR"]
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock := flock.New(capture.LockFile(stateDir, vpgID))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	const n = 16
	// atexit_sleep_ms: a -race binary otherwise idles a second at exit.
	environ := append(os.Environ(), "REWIND_HOOK_TEST_CHILD=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	for k, v := range e.Vars {
		environ = append(environ, k+"="+v)
	}
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cmd := exec.Command(exe)
		cmd.Env = environ
		cmd.Stdin = strings.NewReader(event(fmt.Sprintf("call-%d", i), "govc vm.power -off -vm web-01"))
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			errs[i] = cmd.Wait()
			outs[i] = out.String()
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for e.Sim.CountQuery("vms", "vmIdentifier") < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	lock.Unlock()
	wg.Wait()
	var tag string
	for i := range n {
		if errs[i] != nil {
			t.Errorf("process %d: %v", i, errs[i])
		}
		var a answer
		if err := json.Unmarshal([]byte(outs[i]), &a); err != nil || a.HookSpecificOutput.AdditionalContext == "" {
			t.Errorf("process %d answered %q, want a protected decision", i, outs[i])
			continue
		}
		ctx := a.HookSpecificOutput.AdditionalContext
		got := ctx[strings.Index(ctx, `"`)+1:]
		got = got[:strings.Index(got, `"`)]
		if tag == "" {
			tag = got
		} else if got != tag {
			t.Errorf("process %d protected by %q, others by %q", i, got, tag)
		}
	}
	if got := e.Sim.CountInserts(); got != 1 {
		t.Errorf("%d inserts, want 1", got)
	}
	if recs := e.Records(t); len(recs) != n {
		t.Errorf("%d audit records, want %d", len(recs), n)
	}
}

func TestApprox(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{630 * time.Second, "630s"},
		{150 * time.Second, "150s"},
		{1460 * time.Millisecond, "1.46s"},
		{200 * time.Millisecond, "200ms"},
		{-time.Second, "0s"},
	}
	for _, tt := range tests {
		if got := approx(tt.d); got != tt.want {
			t.Errorf("approx(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

// panicReader panics when the hook reads the event, standing for a bug
// anywhere in the flow.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

func TestPanicFollowsOnError(t *testing.T) {
	tests := []struct {
		onError, permission string
	}{
		{"allow", ""},
		{"ask", "ask"},
		{"deny", "deny"},
	}
	for _, tt := range tests {
		t.Run(tt.onError, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "rewind.toml")
			if err := os.WriteFile(cfg, []byte("[hook]\non_error = \""+tt.onError+"\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := Run(context.Background(), panicReader{}, &out, Options{
				Host: hostio.Claude, ConfigPath: cfg, Stderr: &errb,
				Getenv: func(k string) string {
					if k == "REWIND_STATE_DIR" {
						return dir
					}
					return ""
				},
			})
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			var a struct {
				HookSpecificOutput struct {
					PermissionDecision string `json:"permissionDecision"`
				} `json:"hookSpecificOutput"`
				SystemMessage string `json:"systemMessage"`
			}
			if err := json.Unmarshal(out.Bytes(), &a); err != nil {
				t.Fatalf("stdout is not one JSON object: %v: %q", err, out.String())
			}
			if a.HookSpecificOutput.PermissionDecision != tt.permission || !strings.Contains(a.SystemMessage, "internal error: boom") {
				t.Errorf("answer %s, want permission %q and a systemMessage naming the panic", out.String(), tt.permission)
			}
			if strings.Contains(out.String(), "goroutine") {
				t.Errorf("stack trace on stdout: %s", out.String())
			}
		})
	}
}

// endlessStdin is a host that writes an event and never closes stdin.
type endlessStdin struct{ done chan struct{} }

func (e endlessStdin) Read(p []byte) (int, error) {
	<-e.done
	return 0, io.EOF
}

// checkRetryAfter wants a pending record to carry the retry time its
// reason gives the agent, in UTC, and any other record none.
func checkRetryAfter(t *testing.T, r *audit.Record) {
	t.Helper()
	worded := *r
	worded.RetryAfter = time.Time{}
	said, ok := audit.RetryAfter(&worded)
	if r.Decision != audit.DecisionPending {
		if !r.RetryAfter.IsZero() || ok {
			t.Errorf("a %s record has a retry time: %v, %q", r.Decision, r.RetryAfter, r.Reason)
		}
		return
	}
	if !ok || r.RetryAfter.IsZero() || !r.RetryAfter.Truncate(time.Second).Equal(said) {
		t.Errorf("retry_after %v, the reason says %v (%v)", r.RetryAfter, said, ok)
	}
	if r.RetryAfter.Location() != time.UTC {
		t.Errorf("retry_after %v is not in UTC", r.RetryAfter)
	}
}
