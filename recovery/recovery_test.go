package recovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/internal/hook"
	"github.com/rewind-dev/rewind/internal/testlab"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// lab is the shared test lab with a Service over its simulator and log.
type lab struct {
	*testlab.Lab
	svc *Service
}

func newLab(t *testing.T) *lab {
	t.Helper()
	tl := testlab.New(t, testlab.Options{Hook: hook.Run})
	return &lab{Lab: tl, svc: &Service{Z: tl.Zerto(t), Log: tl.Log, Poll: 5 * time.Millisecond}}
}

// protected makes a protected call on vm and returns its record.
func (l *lab) protected(t *testing.T, vm string) audit.Record {
	t.Helper()
	return l.Protected(t, "toolu_01", vm)
}

func (l *lab) find(t *testing.T, id string) Point {
	t.Helper()
	ps, err := l.svc.Find(t.Context(), id)
	if err != nil {
		t.Fatalf("Find(%s): %v", id, err)
	}
	if len(ps) != 1 {
		t.Fatalf("Find(%s) = %+v, want one point", id, ps)
	}
	return ps[0]
}

// lastRecord is the newest audit record.
func (l *lab) lastRecord(t *testing.T) audit.Record {
	t.Helper()
	recs, err := l.Log.Read(audit.Filter{Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("reading the log: %v", err)
	}
	return recs[0]
}

func TestTestAndStop(t *testing.T) {
	l := newLab(t)
	rec := l.protected(t, "web-01")
	cp := rec.Checkpoints[0]
	p := l.find(t, rec.ID[:5])
	want := Point{AuditID: rec.ID, VPG: "fast", VPGIdentifier: cp.VPGIdentifier, VMs: []VM{{"web-01", cp.VMIdentifier}},
		Checkpoint: cp.Identifier, Tag: cp.Tag, Time: cp.Time}
	if !p.Time.Equal(want.Time) || fmt.Sprint(p.VMs) != fmt.Sprint(want.VMs) || p.Checkpoint != want.Checkpoint ||
		p.AuditID != want.AuditID || p.VPG != want.VPG || p.VPGIdentifier != want.VPGIdentifier || p.Tag != want.Tag {
		t.Fatalf("Find = %+v\nwant %+v", p, want)
	}

	var states []zvm.TaskState
	res, err := l.svc.Test(t.Context(), p, func(tk zvm.Task) { states = append(states, tk.State) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(states, zvm.TaskInProgress) || states[len(states)-1] != zvm.TaskCompleted {
		t.Errorf("progress saw %v, want in progress, then completed", states)
	}
	if res.Mode != ModeTest || res.State != "Completed" || res.Task == "" || res.RecoverySite != "DR" ||
		!slices.Equal(res.TestVMs, []string{"web-01 - testing recovery"}) {
		t.Errorf("Test = %+v", res)
	}
	got, testVMs, running := l.Sim.RunningTest("fast")
	if !running || got.ID != cp.Identifier || !slices.Equal(testVMs, res.TestVMs) {
		t.Fatalf("simulator test from %s with %v (running %v), want from %s", got.ID, testVMs, running, cp.Identifier)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoTest || r.Rewinds != rec.ID || r.Tool != DefaultTool ||
		len(r.Checkpoints) != 1 || r.Checkpoints[0].Identifier != cp.Identifier {
		t.Errorf("record of the test: %+v", r)
	}

	// The running test excludes a second one and a restore.
	for name, op := range map[string]func(context.Context, Point, func(zvm.Task)) (Result, error){
		"Test": l.svc.Test, "Restore": l.svc.Restore,
	} {
		_, err := op(t.Context(), p, nil)
		var se *StateError
		if !errors.As(err, &se) || !se.TestRunning || !strings.Contains(err.Error(), "failover test") {
			t.Errorf("%s during a test: %v, want a StateError", name, err)
		}
	}
	if err := l.svc.Check(t.Context(), p, ModeRestore); err == nil {
		t.Error("Check of a restore during a test found nothing wrong")
	}
	if n := l.Sim.Count("restore"); n != 0 {
		t.Errorf("%d restores sent during a test", n)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoFailed || !strings.Contains(r.Error, "failover test") {
		t.Errorf("record of a refused rewind: %+v", r)
	}

	res, err = l.svc.StopTest(t.Context(), p, nil)
	if err != nil || res.State != "Completed" {
		t.Fatalf("StopTest = %+v, %v", res, err)
	}
	if _, _, running := l.Sim.RunningTest("fast"); running {
		t.Error("test still running after StopTest")
	}
	_, err = l.svc.StopTest(t.Context(), p, nil)
	if se := (*StateError)(nil); !errors.As(err, &se) || err.Error() != "no failover test is running on VPG fast" {
		t.Errorf("second StopTest: %v", err)
	}
}

func TestRestore(t *testing.T) {
	l := newLab(t)
	rec := l.protected(t, "db-01")
	p := l.find(t, rec.ID)
	var states []zvm.TaskState
	res, err := l.svc.Restore(t.Context(), p, func(tk zvm.Task) { states = append(states, tk.State) })
	if err != nil {
		t.Fatal(err)
	}
	if res.State != "Completed" || res.Task == "" {
		t.Errorf("Restore = %+v", res)
	}
	if !slices.Contains(states, zvm.TaskWaitingForUserInput) || states[len(states)-1] != zvm.TaskCompleted {
		t.Errorf("progress saw %v: want the restore waiting for its commit, then the commit completed", states)
	}
	cp, op, ok := l.Sim.VMRecovery("db-01")
	if !ok || cp.ID != p.Checkpoint || op != "RestoreCommitted" {
		t.Errorf("simulator: db-01 recovered to %s by %q (%v), want committed to %s", cp.ID, op, ok, p.Checkpoint)
	}
	if _, _, ok := l.Sim.VMRecovery("web-01"); ok {
		t.Error("web-01, which the call did not touch, was restored")
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoRestore || r.Rewinds != rec.ID || !slices.Equal(r.Targets, []string{"db-01"}) {
		t.Errorf("record of the restore: %+v", r)
	}
}

// TestAgedOut: a checkpoint that left the journal is reported with its time
// and the journal's earliest, and nothing is sent.
func TestAgedOut(t *testing.T) {
	l := newLab(t)
	p := l.find(t, l.protected(t, "web-01").ID)
	if err := l.Sim.SetJournalHistory("fast", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sim.WriteCheckpoint("fast"); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func(context.Context, Point, func(zvm.Task)) (Result, error){
		"Test": l.svc.Test, "Restore": l.svc.Restore,
	} {
		_, err := op(t.Context(), p, nil)
		var ae *AgedOutError
		if !errors.As(err, &ae) || !ae.Earliest.After(p.Time) {
			t.Fatalf("%s of an aged-out checkpoint: %v, want an AgedOutError", name, err)
		}
		want := fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s) of %s is no longer in VPG fast's journal: it aged out, the journal's earliest checkpoint is of %s",
			p.Tag, p.Checkpoint, p.Time.UTC().Format(time.RFC3339), ae.Earliest.UTC().Format(time.RFC3339))
		if err.Error() != want {
			t.Errorf("%s error\n got %s\nwant %s", name, err, want)
		}
	}
	if n := l.Sim.Count("failoverTest") + l.Sim.Count("restore"); n != 0 {
		t.Errorf("%d operations sent for an aged-out checkpoint", n)
	}
}

// TestWrongState: a VPG failing over is refused before anything is sent.
func TestWrongState(t *testing.T) {
	l := newLab(t)
	p := l.find(t, l.protected(t, "web-01").ID)
	if err := l.Sim.SetVPGStatus("fast", zvmsim.StatusFailingOver, zvmsim.SubStatusFailingOverBeforeCommit); err != nil {
		t.Fatal(err)
	}
	for name, op := range map[string]func(context.Context, Point, func(zvm.Task)) (Result, error){
		"Test": l.svc.Test, "Restore": l.svc.Restore,
	} {
		_, err := op(t.Context(), p, nil)
		var se *StateError
		want := "VPG fast is FailingOver/FailingOverBeforeCommit: Zerto cannot test or restore it until that ends"
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("%s of a VPG failing over: %v, want %q", name, err, want)
		}
	}
	if n := l.Sim.Count("failoverTest") + l.Sim.Count("restore"); n != 0 {
		t.Errorf("%d operations sent to a VPG failing over", n)
	}
}

// TestZertoRefusal: Zerto's own message comes back in a *zvm.Error, and
// into the audit record.
func TestZertoRefusal(t *testing.T) {
	l := newLab(t)
	p := l.find(t, l.protected(t, "web-01").ID)
	// db-01 waits in a restore, which Zerto says excludes a test.
	if _, err := l.svc.Z.Restore(t.Context(), l.Sim.VMIdentifier("db-01"), p.VPGIdentifier, p.Checkpoint); err != nil {
		t.Fatal(err)
	}
	_, err := l.svc.Test(t.Context(), p, nil)
	var ze *zvm.Error
	msg := "VM db-01 of VPG fast is being restored from the journal; commit or roll back the restore first."
	if !errors.As(err, &ze) || ze.Message != msg {
		t.Fatalf("Test: %v, want Zerto's message %q", err, msg)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoFailed || r.ZertoError != msg {
		t.Errorf("record: %+v", r)
	}
}

func TestFind(t *testing.T) {
	l := newLab(t)
	web := l.protected(t, "web-01")
	denied := audit.Record{ID: "zzzz00000001", Tool: "Bash", Decision: audit.DecisionDeny, Targets: []string{"web-01"}}
	pending := audit.Record{ID: "zzzz00000002", Tool: "Bash", Decision: audit.DecisionPending,
		Checkpoints: []audit.Checkpoint{{VM: "web-01", VMIdentifier: web.Checkpoints[0].VMIdentifier, VPG: "fast",
			VPGIdentifier: web.Checkpoints[0].VPGIdentifier, Tag: "rewind-never-written"}}}
	for _, r := range []*audit.Record{&denied, &pending} {
		if err := l.Log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	cps, _ := l.Sim.Checkpoints("other")
	auto := cps[len(cps)-1]

	tests := []struct {
		id      string
		check   func(error) bool
		wantMsg string
		wantVMs []string
		wantID  string
	}{
		{id: web.ID, wantVMs: []string{"web-01"}, wantID: web.ID},
		{id: strings.ToUpper(web.ID[:6]), wantVMs: []string{"web-01"}, wantID: web.ID},
		// A bare checkpoint the log knows: the VMs the log says it protected.
		{id: web.Checkpoints[0].Identifier, wantVMs: []string{"web-01"}},
		// One it does not: all the VPG's VMs.
		{id: auto.ID, wantVMs: []string{"app-01"}},
		{id: "nosuch", check: func(err error) bool {
			var nf *NotFoundError
			return errors.As(err, &nf) && errors.Is(err, audit.ErrNotFound)
		}, wantMsg: `"nosuch" is neither an audit id in the log nor a checkpoint in a VPG's journal`},
		{id: "zzzz", check: func(err error) bool { var ae *audit.AmbiguousError; return errors.As(err, &ae) }},
		{id: denied.ID, check: func(err error) bool { var np *NotProtectedError; return errors.As(err, &np) },
			wantMsg: "call zzzz00000001 (Bash) was not protected: the hook took no checkpoint for it (decision deny), so there is nothing to go back to"},
		{id: pending.ID, check: func(err error) bool { var np *NotProtectedError; return errors.As(err, &np) },
			wantMsg: `call zzzz00000002 has no checkpoint: Zerto had not written its tag "rewind-never-written" when the hook answered (decision pending), and the journal does not hold it`},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			ps, err := l.svc.Find(t.Context(), tt.id)
			if tt.check != nil {
				if !tt.check(err) {
					t.Fatalf("Find(%s) = %+v, %v: wrong error", tt.id, ps, err)
				}
				if tt.wantMsg != "" && err.Error() != tt.wantMsg {
					t.Errorf("error\n got %s\nwant %s", err, tt.wantMsg)
				}
				return
			}
			if err != nil || len(ps) != 1 {
				t.Fatalf("Find(%s) = %+v, %v", tt.id, ps, err)
			}
			if got := ps[0].VMNames(); !slices.Equal(got, tt.wantVMs) || ps[0].AuditID != tt.wantID {
				t.Errorf("Find(%s): VMs %v, audit id %q; want %v, %q", tt.id, got, ps[0].AuditID, tt.wantVMs, tt.wantID)
			}
		})
	}
}

// TestRestoreAbandoned: a restore that Zerto has started goes on without
// rewind, and once done waits for a commit or a rollback. When rewind
// stops following it (a cancel, a timeout), the error says so, naming the
// task, rather than only "timeout".
func TestRestoreAbandoned(t *testing.T) {
	l := newLab(t)
	rec := l.protected(t, "db-01")
	p := l.find(t, rec.ID)
	l.Sim.SetTaskSteps(1000)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	res, err := l.svc.Restore(ctx, p, nil)
	if err == nil || res.Task == "" {
		t.Fatalf("Restore = %+v, %v; want an error after the restore started", res, err)
	}
	for _, want := range []string{"the restore was started (task " + res.Task + ")", "waits in Zerto for RestoreCommit or RestoreRollback"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
