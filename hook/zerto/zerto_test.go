package zerto_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/hook/zerto"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/logline"
)

// TestMain doubles as a hook process when the concurrency test re-executes
// the test binary, so that test needs no separate build.
func TestMain(m *testing.M) {
	if os.Getenv("REWIND_HOOK_TEST_CHILD") == "1" {
		os.Exit(hook.Run(context.Background(), os.Stdin, os.Stdout, hook.Options{
			Host: hostio.Claude, Stderr: os.Stderr, Logger: logline.New(os.Stderr, "rewind"), Protect: zerto.Step{}}))
	}
	os.Exit(m.Run())
}

// env is the shared test lab: rewind hook with the Zerto step.
type env struct{ *testlab.Lab }

// newEnv starts the test lab and a config with budget and extra TOML. A
// test of no budget gives a generous one: the calls answer as soon as
// they can, and the tests run in parallel on a loaded machine.
func newEnv(t *testing.T, budget string, extra string) *env {
	t.Helper()
	return &env{testlab.New(t, testlab.Options{Budget: budget, Extra: extra})}
}

type answer = testlab.Answer

// run makes a Bash call of command through the hook and returns its
// answer, its stdout and its stderr.
func (e *env) run(t *testing.T, id, command string) (answer, string, string) {
	t.Helper()
	out, errs, code := e.Hook(testlab.BashEvent(id, command))
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	return testlab.ParseAnswer(t, out), out, errs
}

// TestDecisionTable runs the protect rows of the decision table against
// the simulator, end to end: what capture gets from Zerto, what the step
// tells the hook, and what the hook answers and logs. The rows and their
// wording are package hook's TestDecisionTable.
func TestDecisionTable(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
			e := newEnv(t, "20s", tt.extra)
			a, raw, _ := e.run(t, strings.ReplaceAll(tt.name, " ", "-"), tt.command)
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
				if recs[0].ZVMOffsetMS == nil {
					t.Error("record without the ZVM's clock offset")
				}
			}
		})
	}
}

// TestOverrun checks what the step tells the hook's watch when the budget
// ends while capture is still at work: the tag Zerto accepted, so that the
// call is pending and its retry finds the tag. (The watch's own timing is
// package hook's TestOverrun; what capture has achieved at any moment is
// capture's TestProgressOverrun.)
func TestOverrun(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "20s", "")
	ev, err := hostio.Decode(bytes.NewReader(testlab.BashEvent("late", "govc vm.power -off -vm win2019-1")), hostio.Claude)
	if err != nil {
		t.Fatal(err)
	}
	overrun := make(chan func(context.Context) hook.Outcome, 1)
	res := hook.Decide(context.Background(), ev, hook.Options{Host: hostio.Claude, Getenv: e.Getenv, Protect: stepFunc(func(ctx context.Context, call *hook.Call) hook.Outcome {
		on := call.OnOverrun
		call.OnOverrun = func(f func(context.Context) hook.Outcome) { on(f); overrun <- f }
		return zerto.Step{}.Protect(ctx, call)
	})})
	if res.Record == nil || res.Record.Decision != audit.DecisionPending {
		t.Fatalf("record %+v, want pending", res.Record)
	}
	o := (<-overrun)(context.Background())
	if o.Kind != hook.Pending || len(o.Points) != 1 || o.Points[0].Tag != res.Record.Checkpoints[0].Tag || o.Points[0].Identifier != "" ||
		o.RetryWithin < 630*time.Second || !o.OffsetKnown {
		t.Errorf("overrun %+v, want the pending tag %q", o, res.Record.Checkpoints[0].Tag)
	}
}

// TestDecideAgreesWithRun checks that Decide, which rewind's MCP server
// checks calls with, answers as the hook does against Zerto.
func TestDecideAgreesWithRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, command string
		permission    hostio.Permission
		decision      string // the record's, "" for none
	}{
		{"read-only", "ssh web-01 uptime", hostio.NoOpinion, ""},
		{"protected", "govc vm.power -off -vm web-01", hostio.NoOpinion, audit.DecisionProtected},
		{"failed", "govc vm.power -off -vm legacy-01", hostio.Deny, audit.DecisionDeny},
		{"unknown", "govc vm.power -off -vm nosuch", hostio.Ask, audit.DecisionAsk},
		{"deny rule", "govc vm.destroy web-01", hostio.Deny, audit.DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "20s", "")
			ev, err := hostio.Decode(bytes.NewReader(testlab.BashEvent("d-"+tt.name, tt.command)), hostio.Claude)
			if err != nil {
				t.Fatal(err)
			}
			res := hook.Decide(context.Background(), ev, hook.Options{Host: hostio.Claude, Getenv: e.Getenv, Protect: zerto.Step{}})
			if res.Decision.Permission != tt.permission {
				t.Errorf("permission %q, want %q (%+v)", res.Decision.Permission, tt.permission, res.Decision)
			}
			switch {
			case tt.decision == "" && res.Record != nil:
				t.Errorf("record %+v, want none", res.Record)
			case tt.decision != "" && (res.Record == nil || res.Record.Decision != tt.decision):
				t.Errorf("record %+v, want decision %s", res.Record, tt.decision)
			}
			a, _, _ := e.run(t, "r-"+tt.name, tt.command)
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
	t.Parallel()
	const cmd = "govc vm.power -off -vm web-01"
	for _, advice := range []bool{true, false} {
		t.Run(fmt.Sprint("advice=", advice), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "20s", "")
			ev, err := hostio.Decode(bytes.NewReader(testlab.BashEvent("", cmd)), hostio.Claude)
			if err != nil {
				t.Fatal(err)
			}
			res := hook.Decide(context.Background(), ev, hook.Options{Host: "mcp", Getenv: e.Getenv, Advice: advice, Protect: zerto.Step{}})
			if res.Record == nil || len(res.Record.Checkpoints) != 1 || res.Record.Checkpoints[0].Identifier == "" {
				t.Fatalf("record %+v, want one checkpoint", res.Record)
			}
			first := res.Record.Checkpoints[0]
			inserts := e.Sim.CountInserts()
			a, _, _ := e.run(t, "later", cmd)
			reused := strings.Contains(a.HookSpecificOutput.AdditionalContext, first.Identifier)
			if reused != advice {
				t.Errorf("the hook's checkpoint reused the earlier one: %v (%s)", reused, a.HookSpecificOutput.AdditionalContext)
			}
			if got := e.Sim.CountInserts() - inserts; advice && got != 0 {
				t.Errorf("the hook inserted %d more tags", got)
			}
		})
	}
}

// stepFunc is a Protector made of a function.
type stepFunc func(ctx context.Context, call *hook.Call) hook.Outcome

func (f stepFunc) Protect(ctx context.Context, call *hook.Call) hook.Outcome { return f(ctx, call) }

// TestAuditIDsIdentifyOneCall: the same tool_use_id from two sessions, and
// the same event run twice, are four calls with four audit IDs, each named
// in its own answer.
func TestAuditIDsIdentifyOneCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "20s", "")
	var answers []string
	for _, session := range []string{"s1", "s2", "s2", "s1"} {
		ev := strings.Replace(string(testlab.BashEvent("toolu_01", "govc vm.power -off -vm web-01")), `"session_id":"s1"`, `"session_id":"`+session+`"`, 1)
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
	t.Parallel()
	e := newEnv(t, "20s", "")
	e.Vars["REWIND_ZVM_URL"] = ""
	a, _, _ := e.run(t, "x", "govc vm.power -off -vm web-01")
	if h := a.HookSpecificOutput; h.PermissionDecision != "ask" || !strings.Contains(h.PermissionDecisionReason, "no Zerto configured: nothing to rewind to") {
		t.Errorf("answer %+v", h)
	}
}

// TestSlowCadencePendingAtOnce: a VPG whose journal writes every 630 s,
// past the budget, is pending at once: capture inserts the tag and does
// not look for it again, let alone sit out the budget.
func TestSlowCadencePendingAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "150s", "")
	a, _, _ := e.run(t, "slow", "govc vm.power -off -vm win2019-1")
	if a.HookSpecificOutput.PermissionDecision != "deny" || !strings.Contains(a.HookSpecificOutput.PermissionDecisionReason, "Retry this call after") {
		t.Errorf("answer %+v, want pending's deny", a.HookSpecificOutput)
	}
	if n := e.Sim.Count("checkpoints"); n > 2 {
		t.Errorf("the journal was listed %d times: capture waited for a tag it knew would not land", n)
	}
	// The retry after the tag lands is protected by it, with no new insert.
	if _, err := e.Sim.WriteCheckpoint("aws"); err != nil {
		t.Fatal(err)
	}
	a2, _, _ := e.run(t, "slow", "govc vm.power -off -vm win2019-1")
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
	t.Parallel()
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
	// Each process looks its VM up before it waits for the lock.
	arrived := make(chan struct{})
	var lookups atomic.Int32
	e.proxy(t, func(r *http.Request) bool {
		if r.URL.Query().Has("vmIdentifier") && lookups.Add(1) == n {
			close(arrived)
		}
		return false
	})
	// The lab's environment alone: the token cache and state are the lab's.
	// atexit_sleep_ms: a -race binary otherwise idles a second at exit.
	environ := []string{"REWIND_HOOK_TEST_CHILD=1", "GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"), "PATH=" + os.Getenv("PATH")}
	for k, v := range e.Vars {
		environ = append(environ, k+"="+v)
	}
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cmd := exec.Command(exe)
		cmd.Env = environ
		cmd.Stdin = bytes.NewReader(testlab.BashEvent(fmt.Sprintf("call-%d", i), "govc vm.power -off -vm web-01"))
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
	<-arrived
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
