package recovery

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// The operator of the labs' scenarios: a person's own Zerto user.
const (
	operatorUser     = "operator"
	operatorPassword = "op-secret"
)

// lab is the shared test lab with a Service over its simulator and log.
type lab struct {
	*testlab.Lab
	svc *Service
}

func newLab(t *testing.T) *lab { return newLabOf(t, "") }

func newLabOf(t *testing.T, scenario string) *lab {
	t.Helper()
	tl := testlab.New(t, testlab.Options{Scenario: scenario})
	z := tl.Zerto(t)
	svc := &Service{
		Z: z, Log: tl.Log, Poll: 5 * time.Millisecond,
		ZertoOptions: zvm.Options{URL: tl.Sim.URL, ClientID: testlab.ClientID, ClientSecret: testlab.ClientSecret, CacheDir: "-"},
		Capture:      capture.New(z, capture.Options{StateDir: filepath.Join(tl.Dir, "state")}),
	}
	return &lab{Lab: tl, svc: svc}
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

// asOperator confirms with the labs' operator, as a person typing their
// own credentials does.
func (l *lab) asOperator() func(context.Context, *Plan) (*Operator, error) {
	return func(context.Context, *Plan) (*Operator, error) {
		return l.svc.NewOperator(operatorUser, operatorPassword)
	}
}

// one runs req and wants one result.
func (l *lab) one(t *testing.T, req Request) Result {
	t.Helper()
	res, err := l.svc.Run(t.Context(), req)
	if err != nil {
		t.Fatalf("Run(%+v): %v", req, err)
	}
	if len(res) != 1 {
		t.Fatalf("Run(%+v) = %+v, want one result", req, res)
	}
	return res[0]
}

func TestTestAndStop(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	rec := l.protected(t, "web-01")
	cp := rec.Checkpoints[0]
	p := l.find(t, rec.ID[:6])
	want := Point{AuditID: rec.ID, VPG: "fast", VPGIdentifier: cp.VPGIdentifier, VMs: []VM{{"web-01", cp.VMIdentifier}},
		Checkpoint: cp.Identifier, Tag: cp.Tag, Time: cp.Time}
	if !p.Time.Equal(want.Time) || fmt.Sprint(p.VMs) != fmt.Sprint(want.VMs) || p.Checkpoint != want.Checkpoint ||
		p.AuditID != want.AuditID || p.VPG != want.VPG || p.VPGIdentifier != want.VPGIdentifier || p.Tag != want.Tag {
		t.Fatalf("Find = %+v\nwant %+v", p, want)
	}

	var states []zvm.TaskState
	res := l.one(t, Request{ID: rec.ID, Mode: ModeTest, Progress: func(pr Progress) {
		if pr.Text == "" {
			states = append(states, pr.Task.State)
		}
	}})
	if !slices.Contains(states, zvm.TaskInProgress) || states[len(states)-1] != zvm.TaskCompleted {
		t.Errorf("progress saw %v, want in progress, then completed", states)
	}
	if res.Mode != ModeTest || res.State != "Completed" || res.Task == "" || res.RecoverySite != "DR" ||
		!slices.Equal(res.TestVMs, []string{"web-01 - testing recovery"}) {
		t.Errorf("test = %+v", res)
	}
	got, testVMs, running := l.Sim.RunningTest("fast")
	if !running || got.ID != cp.Identifier || !slices.Equal(testVMs, res.TestVMs) {
		t.Fatalf("simulator test from %s with %v (running %v), want from %s", got.ID, testVMs, running, cp.Identifier)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoTest || r.Rewinds != rec.ID || r.Tool != DefaultTool ||
		r.Task != res.Task || len(r.Checkpoints) != 1 || r.Checkpoints[0].Identifier != cp.Identifier {
		t.Errorf("record of the test: %+v", r)
	}

	// The running test excludes a second one and a restore.
	for _, mode := range []string{ModeTest, ModeRestore} {
		_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: mode, Confirm: l.asOperator()})
		var se *StateError
		if !errors.As(err, &se) || !se.TestRunning || !strings.Contains(err.Error(), "failover test") {
			t.Errorf("%s during a test: %v, want a StateError", mode, err)
		}
	}
	if n := l.Sim.Count("restore") + l.Sim.Count("insert"); n != 1 {
		t.Errorf("%d restores and inserts during a test, want only the hook's insert", n)
	}

	// rewind started this test: stopping it asks nobody, and files no
	// verdict in Zerto's test report.
	res = l.one(t, Request{ID: rec.ID, Mode: ModeStopTest})
	if res.State != "Completed" {
		t.Fatalf("stop = %+v", res)
	}
	if _, _, running := l.Sim.RunningTest("fast"); running {
		t.Error("test still running after the stop")
	}
	if st, ok := l.Sim.LastTestStop("fast"); !ok || st.FailoverTestSuccess != nil {
		t.Errorf("stop filed %+v in Zerto's test report, want no verdict", st)
	}
	_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeStopTest})
	if se := (*StateError)(nil); !errors.As(err, &se) || err.Error() != "no failover test is running on VPG fast" {
		t.Errorf("second stop: %v", err)
	}

	// Told the test passed, the stop says so.
	l.one(t, Request{ID: rec.ID, Mode: ModeTest})
	passed := true
	l.one(t, Request{ID: rec.ID, Mode: ModeStopTest, Passed: &passed})
	if st, _ := l.Sim.LastTestStop("fast"); st.FailoverTestSuccess == nil || !*st.FailoverTestSuccess {
		t.Errorf("stop filed %+v, want success", st)
	}
}

// TestStopSomeoneElsesTest: a drill someone started in Zerto is not
// rewind's to end: stopping it is asked, names who started it, and goes
// ahead only when the person confirms.
func TestStopSomeoneElsesTest(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	rec := l.protected(t, "web-01")
	if _, err := l.Sim.StartTest("fast", "", operatorUser); err != nil {
		t.Fatal(err)
	}
	_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeStopTest})
	var ce *ConfirmError
	if !errors.As(err, &ce) {
		t.Fatalf("stop of someone else's test without a confirmation: %v", err)
	}
	if _, _, running := l.Sim.RunningTest("fast"); !running || l.Sim.CountAccepted("failoverTestStop") != 0 {
		t.Fatal("someone else's test was stopped without asking")
	}

	declined := errors.New("not now")
	var shown *Plan
	_, err = l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeStopTest, Confirm: func(_ context.Context, p *Plan) (*Operator, error) {
		shown = p
		return nil, declined
	}})
	if !errors.Is(err, declined) || shown == nil || len(shown.Tests) != 1 || shown.Tests[0].Rewind || shown.Tests[0].By != operatorUser {
		t.Fatalf("declined stop: %v, plan %+v", err, shown)
	}
	if !strings.Contains(shown.Text(), "was not started by rewind: operator started it at") {
		t.Errorf("plan text %q does not say who started the test", shown.Text())
	}
	l.one(t, Request{ID: rec.ID, Mode: ModeStopTest, Confirm: func(context.Context, *Plan) (*Operator, error) { return nil, nil }})
	if _, _, running := l.Sim.RunningTest("fast"); running {
		t.Error("the confirmed stop left the test running")
	}
	if st, _ := l.Sim.LastTestStop("fast"); st.FailoverTestSuccess != nil || st.FailoverTestSummary == nil ||
		!strings.Contains(*st.FailoverTestSummary, "started by operator") {
		t.Errorf("stop filed %+v", st)
	}
}

// TestRestore: a restore is committed when Zerto shows it committed,
// whichever way the ZVM reports a restore that waits for its commit: with
// the task WaitingForUserInput, or with the task Completed while the VM
// still waits (strict). A checkpoint of the VM as it was just before is
// taken first and named in the result; the request names every field
// Zerto's SDK sends.
func TestRestore(t *testing.T) {
	t.Parallel()
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			l := newLab(t)
			l.Sim.SetStrict(zvmsim.Strict{RestoreCompletesBeforeCommit: strict})
			rec := l.protected(t, "db-01")
			p := l.find(t, rec.ID)
			var (
				states []zvm.TaskState
				texts  []string
				shown  string
			)
			confirm := func(ctx context.Context, p *Plan) (*Operator, error) {
				shown = p.Text()
				return l.asOperator()(ctx, p)
			}
			res := l.one(t, Request{ID: rec.ID, Mode: ModeRestore, Confirm: confirm, Progress: func(pr Progress) {
				if pr.Text != "" {
					texts = append(texts, pr.Text)
					return
				}
				states = append(states, pr.Task.State)
			}})
			if res.State != "Completed" || res.Task == "" || !slices.Equal(res.Committed, []string{"db-01"}) {
				t.Errorf("restore = %+v", res)
			}
			if last := states[len(states)-1]; last != zvm.TaskCompleted {
				t.Errorf("progress saw %v: want the commit completed last", states)
			}
			cp, op, ok := l.Sim.VMRecovery("db-01")
			if !ok || cp.ID != p.Checkpoint || op != "RestoreCommitted" {
				t.Errorf("simulator: db-01 recovered to %s by %q (%v), want committed to %s", cp.ID, op, ok, p.Checkpoint)
			}
			if _, _, ok := l.Sim.VMRecovery("web-01"); ok {
				t.Error("web-01, which the call did not touch, was restored")
			}

			// The checkpoint of now: taken before the confirmation, named
			// in it and in the result, logged as a rewind point.
			b := res.Before
			if b.AuditID == "" || b.Checkpoint == "" || !strings.HasPrefix(b.Tag, "rewind-") || !b.Time.After(p.Time) ||
				!strings.Contains(shown, "Before restoring, rewind takes a checkpoint of db-01 as it is now") {
				t.Errorf("checkpoint of now %+v, shown %+v", b, shown)
			}
			if len(texts) != 2 || !strings.Contains(texts[0], "taking a checkpoint of db-01 as it is now") ||
				!strings.Contains(texts[1], b.Tag) || !strings.Contains(texts[1], "rewind undo "+b.AuditID+" --restore undoes this restore") {
				t.Errorf("progress texts %q", texts)
			}
			recs, _ := l.Log.Read(audit.Filter{Limit: 2})
			if len(recs) != 2 || recs[0].ID != b.AuditID || recs[0].Decision != audit.DecisionCheckpoint ||
				recs[0].Checkpoints[0].Identifier != b.Checkpoint {
				t.Errorf("records %+v, want the checkpoint of now, then the restore", recs)
			}
			if r := recs[1]; r.Decision != audit.DecisionUndoRestore || r.Rewinds != rec.ID || !slices.Equal(r.Targets, []string{"db-01"}) ||
				!strings.Contains(r.Reason, "rewind undo "+b.AuditID+" --restore") {
				t.Errorf("record of the restore: %+v", r)
			}

			// Every field of Zerto's own request, the running VM's fate
			// and the placement included.
			body, ok := l.Sim.LastRestore("db-01")
			if !ok || body.RestoredVmName == nil || *body.RestoredVmName != "db-01" || *body.CommitPolicy != 2 || *body.ShutdownPolicy != 1 ||
				body.TimeToWaitBeforeContinueInSeconds == nil || *body.TimeToWaitBeforeContinueInSeconds != 300 ||
				body.JournalVMRestoreSettings == nil || body.JournalVMRestoreSettings.DatastoreIdentifier != nil ||
				body.JournalVMRestoreSettings.Nics != nil || body.JournalVMRestoreSettings.Volumes != nil {
				t.Errorf("restore request %+v", body)
			}

			// The restore is undone by going back to the checkpoint of now.
			back := l.one(t, Request{ID: b.AuditID, Mode: ModeRestore, Confirm: l.asOperator()})
			if cp, op, _ := l.Sim.VMRecovery("db-01"); cp.ID != b.Checkpoint || op != "RestoreCommitted" || !slices.Equal(back.Committed, []string{"db-01"}) {
				t.Errorf("undoing the restore: db-01 at %s by %q, result %+v", cp.ID, op, back)
			}
		})
	}
}

// TestRestoreNeedsTheOperator: a restore runs with a person's own Zerto
// credentials, never the hook's, and without them nothing is restored, nor
// any checkpoint taken.
func TestRestoreNeedsTheOperator(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	rec := l.protected(t, "db-01")
	tests := []struct {
		name    string
		confirm func(context.Context, *Plan) (*Operator, error)
		check   func(error) bool
	}{
		{"no confirmation", nil, func(err error) bool { var ce *ConfirmError; return errors.As(err, &ce) }},
		{"no operator", func(context.Context, *Plan) (*Operator, error) { return nil, nil },
			func(err error) bool { return errors.Is(err, errNoOperator) }},
		{"wrong password", func(context.Context, *Plan) (*Operator, error) { return l.svc.NewOperator(operatorUser, "guess") },
			zvm.IsUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeRestore, Confirm: tt.confirm})
			if !tt.check(err) {
				t.Errorf("Run: %v", err)
			}
		})
	}
	if n, ins := l.Sim.Count("restore"), l.Sim.Count("insert"); n != 0 || ins != 1 {
		t.Errorf("%d restores and %d inserts sent without the operator, want only the hook's insert", n, ins)
	}
	// The hook's credentials, as the agent's environment holds them, are
	// refused as an operator's.
	for _, c := range [][2]string{{"service-account-rewind", "x"}, {operatorUser, testlab.ClientSecret}} {
		var he *HookCredentialsError
		if _, err := l.svc.NewOperator(c[0], c[1]); !errors.As(err, &he) {
			t.Errorf("NewOperator(%q, %q): %v, want a HookCredentialsError", c[0], c[1], err)
		}
	}
	hook := zvm.Options{URL: l.Sim.URL, Username: "svc-rewind", Password: "hook-pw"}
	for _, c := range [][2]string{{"SVC-REWIND", "other"}, {"someone", "hook-pw"}} {
		var he *HookCredentialsError
		if _, err := NewOperator(hook, c[0], c[1]); !errors.As(err, &he) {
			t.Errorf("NewOperator(%q, %q) against a password-grant hook: %v", c[0], c[1], err)
		}
	}
	if _, err := NewOperator(hook, " ", "pw"); err == nil {
		t.Error("NewOperator with no user succeeded")
	}
}

// TestRestoreStopsFollowing: a restore rewind stops following (here, its
// caller gives up) goes on in Zerto and then waits for a commit or a
// rollback; the error says so, with the commands that finish or undo it,
// and those commands do.
func TestRestoreStopsFollowing(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	rec := l.protected(t, "db-01")
	l.Sim.SetTaskSteps(3)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, err := l.svc.Run(ctx, Request{ID: rec.ID, Mode: ModeRestore, Confirm: l.asOperator(), Progress: func(pr Progress) {
		if pr.Task.State == zvm.TaskInProgress {
			cancel()
		}
	}})
	var we *WaitsError
	if !errors.As(err, &we) || we.VM != "db-01" || we.Task == "" {
		t.Fatalf("Run: %v, want a WaitsError", err)
	}
	for _, want := range []string{"rewind undo " + rec.ID + " --commit --vpg fast", "rewind undo " + rec.ID + " --rollback --vpg fast", "Zerto shows VPG fast MeetingSLA"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if _, op, _ := l.Sim.VMRecovery("db-01"); op != "Restore" {
		t.Fatalf("db-01 %q in the simulator, want a restore", op)
	}
	// Zerto finishes the restore on its own; then it waits.
	if _, err := l.svc.Z.WaitTask(t.Context(), we.Task, time.Millisecond, nil); err != nil {
		t.Fatal(err)
	}
	l.Sim.SetTaskSteps(0)
	// Rolled back, the VM is as it was before the restore.
	res := l.one(t, Request{ID: rec.ID, Mode: ModeRollback, Confirm: l.asOperator()})
	if _, _, ok := l.Sim.VMRecovery("db-01"); ok || !slices.Equal(res.Committed, []string{"db-01"}) {
		t.Errorf("after the rollback db-01 is still recovered (%+v)", res)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoRollback {
		t.Errorf("record of the rollback: %+v", r)
	}
	// With nothing waiting, Zerto refuses and says why.
	_, err = l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeCommit, Confirm: l.asOperator()})
	var ze *zvm.Error
	if !errors.As(err, &ze) || !strings.Contains(ze.Message, "no journal restore awaiting commit or rollback for VM db-01") {
		t.Errorf("commit of nothing: %v", err)
	}
	// The commit of one that waits keeps it.
	l.Sim.SetTaskSteps(0)
	z := l.svc.Z
	task, err := z.Restore(t.Context(), l.Sim.VMIdentifier("db-01"), zvm.RestoreOptions{VPGIdentifier: rec.Checkpoints[0].VPGIdentifier,
		CheckpointIdentifier: rec.Checkpoints[0].Identifier, CommitPolicy: zvm.CommitNone})
	if err != nil || task == "" {
		t.Fatal(err)
	}
	l.one(t, Request{ID: rec.ID, Mode: ModeCommit, Confirm: l.asOperator()})
	if _, op, _ := l.Sim.VMRecovery("db-01"); op != "RestoreCommitted" {
		t.Errorf("after the commit db-01 is %q", op)
	}
}

// TestOneVMOneRestore: a VM the hook protected in two VPGs goes back in the
// one the person chooses, once; without a choice nothing is sent.
func TestOneVMOneRestore(t *testing.T) {
	t.Parallel()
	l := newLabOf(t, "testdata/shared.toml")
	rec := l.Call(t, "toolu_01", "govc vm.power -off -vm web-01")
	if len(rec.Checkpoints) != 2 {
		t.Fatalf("the hook took %d checkpoints, want one in each VPG", len(rec.Checkpoints))
	}
	before := len(l.Sim.Requests())
	for _, mode := range []string{ModeTest, ModeRestore} {
		_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: mode, Confirm: l.asOperator()})
		var ce *ChoiceError
		if !errors.As(err, &ce) || err.Error() != "web-01 has a rewind point in VPGs fast and other: choose the one to go back in; nothing was sent to Zerto" {
			t.Errorf("%s without a choice: %v", mode, err)
		}
	}
	_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeTest, VPGs: []string{"nosuch"}})
	if ce := (*ChoiceError)(nil); !errors.As(err, &ce) || ce.Unknown != "nosuch" {
		t.Errorf("choice of an unknown VPG: %v", err)
	}
	_, err = l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeTest, VPGs: []string{"fast", "other"}})
	if ce := (*ChoiceError)(nil); !errors.As(err, &ce) {
		t.Errorf("both VPGs chosen: %v", err)
	}
	if n := len(l.Sim.Requests()) - before; n != 0 {
		t.Errorf("%d requests sent before a choice", n)
	}

	res := l.one(t, Request{ID: rec.ID, Mode: ModeRestore, VPGs: []string{"OTHER"}, Confirm: l.asOperator()})
	if res.Point.VPG != "other" || l.Sim.Count("restore") != 1 {
		t.Errorf("restore from other: %+v, %d restores sent", res, l.Sim.Count("restore"))
	}
	if body, _ := l.Sim.LastRestore("web-01"); !strings.EqualFold(body.VpgIdentifier, l.Sim.VPGIdentifier("other")) {
		t.Errorf("restore sent to VPG %s", body.VpgIdentifier)
	}
}

// TestAllOrNone: a call that touched VMs in two VPGs goes back in both or
// in neither: a VPG that cannot restore stops the rest before the first.
func TestAllOrNone(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	rec := l.Call(t, "toolu_01", "govc vm.power -off -vm web-01 && govc vm.power -off -vm app-01")
	if len(rec.Checkpoints) != 2 {
		t.Fatalf("record %+v, want a checkpoint in each VPG", rec)
	}
	if _, err := l.Sim.StartTest("other", "", operatorUser); err != nil {
		t.Fatal(err)
	}
	_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeRestore, Confirm: l.asOperator()})
	var se *StateError
	if !errors.As(err, &se) || se.VPG != "other" {
		t.Fatalf("Run: %v, want other's refusal", err)
	}
	if n, ins := l.Sim.Count("restore"), l.Sim.Count("insert"); n != 0 || ins != 2 {
		t.Errorf("%d restores and %d inserts sent before the refusal, want only the hook's two inserts", n, ins)
	}
}

// TestAgedOutOrEmptied: a checkpoint no longer in the journal is said to
// have aged out when it is older than the journal's history, and to have
// been emptied, as a re-sync does, when it is younger; nothing is sent.
func TestAgedOutOrEmptied(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	p := l.find(t, l.protected(t, "web-01").ID)
	if err := l.Sim.Resync("fast"); err != nil {
		t.Fatal(err)
	}
	_, err := l.svc.Run(t.Context(), Request{ID: p.AuditID, Mode: ModeTest})
	var ae *AgedOutError
	if !errors.As(err, &ae) || !ae.Emptied || ae.History != 24*time.Hour {
		t.Fatalf("test after a re-sync: %v", err)
	}
	want := fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s) of %s is no longer in VPG fast's journal although the journal keeps 24h of history: the journal was emptied, as a re-sync does (",
		p.Tag, p.Checkpoint, p.Time.UTC().Format(time.RFC3339))
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error\n got %s\nwant %s...", err, want)
	}

	// A journal that keeps less than a minute: the checkpoint aged out,
	// and Zerto does not say for how long it keeps them.
	if err := l.Sim.SetJournalHistory("fast", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Sim.WriteCheckpoint("fast"); err != nil {
		t.Fatal(err)
	}
	_, err = l.svc.Run(t.Context(), Request{ID: p.AuditID, Mode: ModeRestore, Confirm: l.asOperator()})
	if !errors.As(err, &ae) || ae.Emptied || !ae.Earliest.After(p.Time) ||
		!strings.Contains(err.Error(), "it aged out or the journal was emptied by a re-sync") {
		t.Fatalf("restore of an aged-out checkpoint: %v", err)
	}
	if n := l.Sim.Count("failoverTest") + l.Sim.Count("restore"); n != 0 {
		t.Errorf("%d operations sent for a checkpoint no longer in the journal", n)
	}
	// With a known history, ageing is said as such.
	e := &AgedOutError{Point: p, Earliest: p.Time.Add(time.Hour), History: time.Hour}
	if got := e.Error(); !strings.HasSuffix(got, "it aged out, the journal keeps 1h and its earliest checkpoint is of "+p.Time.Add(time.Hour).UTC().Format(time.RFC3339)) {
		t.Errorf("aged out: %s", got)
	}
}

// TestWrongState: a VPG failing over is refused before anything is sent.
func TestWrongState(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	p := l.find(t, l.protected(t, "web-01").ID)
	if err := l.Sim.SetVPGStatus("fast", zvmsim.StatusFailingOver, zvmsim.SubStatusFailingOverBeforeCommit); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{ModeTest, ModeRestore} {
		_, err := l.svc.Run(t.Context(), Request{ID: p.AuditID, Mode: mode, Confirm: l.asOperator()})
		var se *StateError
		want := "VPG fast is FailingOver/FailingOverBeforeCommit: Zerto cannot test or restore it until that ends"
		if !errors.As(err, &se) || err.Error() != want {
			t.Errorf("%s of a VPG failing over: %v, want %q", mode, err, want)
		}
	}
	if n := l.Sim.Count("failoverTest") + l.Sim.Count("restore"); n != 0 {
		t.Errorf("%d operations sent to a VPG failing over", n)
	}
}

// TestZertoRefusal: Zerto's own message comes back in a *zvm.Error, and
// into the audit record.
func TestZertoRefusal(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	p := l.find(t, l.protected(t, "web-01").ID)
	// db-01 waits in a restore, which Zerto says excludes a test.
	if _, err := l.svc.Z.Restore(t.Context(), l.Sim.VMIdentifier("db-01"), zvm.RestoreOptions{VPGIdentifier: p.VPGIdentifier,
		CheckpointIdentifier: p.Checkpoint, CommitPolicy: zvm.CommitNone}); err != nil {
		t.Fatal(err)
	}
	_, err := l.svc.Run(t.Context(), Request{ID: p.AuditID, Mode: ModeTest})
	var ze *zvm.Error
	msg := "VM db-01 of VPG fast is being restored from the journal; commit or roll back the restore first."
	if !errors.As(err, &ze) || ze.Message != msg {
		t.Fatalf("test: %v, want Zerto's message %q", err, msg)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoFailed || r.ZertoError != msg {
		t.Errorf("record: %+v", r)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	web := l.protected(t, "web-01")
	denied := audit.Record{ID: "zzzz00000001", Tool: "Bash", Decision: audit.DecisionDeny, Targets: []string{"web-01"}}
	pending := audit.Record{ID: "zzzz00000002", Tool: "Bash", Decision: audit.DecisionPending,
		Checkpoints: []audit.Checkpoint{{VM: "web-01", VMIdentifier: web.Checkpoints[0].VMIdentifier, VPG: "fast",
			VPGIdentifier: web.Checkpoints[0].VPGIdentifier, Tag: "rewind-never-written"}}}
	// The hook's record has a random id, whose first five characters are
	// digits in one run of 300: the prefix cases name a copy of it whose
	// id starts with a letter.
	web.ID = "wk3m9qz2xw4t"
	// An audit id that starts with digits, as in a log of an earlier rewind.
	digits := web
	digits.ID = "1234567abcde"
	for _, r := range []*audit.Record{&web, &denied, &pending, &digits} {
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
		{id: web.ID[:5], check: func(err error) bool { var pe *PrefixError; return errors.As(err, &pe) && !pe.Digits },
			wantMsg: fmt.Sprintf("audit id prefix %q is too short: type at least 6 characters of the id", web.ID[:5])},
		{id: "1234567", check: func(err error) bool { var pe *PrefixError; return errors.As(err, &pe) && pe.Digits },
			wantMsg: `"1234567" could be a CheckpointIdentifier or the start of audit id 1234567abcde: rewind does not guess which`},
		{id: "1", check: func(err error) bool { var pe *PrefixError; return errors.As(err, &pe) && pe.Digits }},
		{id: digits.ID, wantVMs: []string{"web-01"}, wantID: digits.ID},
		// A bare checkpoint the log knows: the VMs the log says it protected.
		{id: web.Checkpoints[0].Identifier, wantVMs: []string{"web-01"}},
		// One it does not: all the VPG's VMs.
		{id: auto.ID, wantVMs: []string{"app-01"}},
		{id: "nosuch", check: func(err error) bool {
			var nf *NotFoundError
			return errors.As(err, &nf) && errors.Is(err, audit.ErrNotFound)
		}, wantMsg: `"nosuch" is neither an audit id in the log nor a checkpoint in a VPG's journal`},
		{id: "zzzz000000", check: func(err error) bool { var ae *audit.AmbiguousError; return errors.As(err, &ae) }},
		{id: "zzzz", check: func(err error) bool { var pe *PrefixError; return errors.As(err, &pe) }},
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
	// A prefix of digits that also starts an audit id is still a
	// checkpoint when named as one.
	if _, err := l.svc.Run(t.Context(), Request{ID: "1234567", Checkpoint: true, Mode: ModeTest}); !errors.Is(err, audit.ErrNotFound) {
		t.Errorf("checkpoint 1234567: %v, want not found", err)
	}
}

// TestRestoreEndpoints: doctor's check finds the simulator's journal
// restore, and says what a ZVM without it lacks.
func TestRestoreEndpoints(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	missing, err := RestoreEndpoints(t.Context(), l.svc.Z)
	if err != nil || len(missing) != 0 {
		t.Fatalf("RestoreEndpoints = %v, %v", missing, err)
	}
	if got := RestoreEndpointsText(missing); !strings.HasPrefix(got, "the ZVM offers journal VM restore") {
		t.Errorf("text %q", got)
	}
	if n := l.Sim.Count("restore"); n != 0 {
		t.Errorf("the check restored %d VMs", n)
	}
	if got := RestoreEndpointsText([]string{"POST /v1/vms/{id}/Restore"}); got != "the ZVM does not offer POST /v1/vms/{id}/Restore: rewind undo --restore cannot work on it; --test can" {
		t.Errorf("text %q", got)
	}
}

func TestCommand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		id         string
		checkpoint bool
		mode       string
		vpgs       []string
		want       string
	}{
		{"4en4xgkf6jph", false, ModeRestore, nil, "rewind undo 4en4xgkf6jph --restore"},
		{"1000118", true, ModeTest, []string{"fast"}, "rewind undo --checkpoint 1000118 --test --vpg fast"},
		{"4en4xg", false, ModeRollback, []string{"lab apps", "it's"}, `rewind undo 4en4xg --rollback --vpg 'lab apps' --vpg 'it'\''s'`},
		{"x;rm -rf ~", false, ModeCommit, []string{"$(id)\n"}, `rewind undo 'x;rm -rf ~' --commit --vpg '$(id) '`},
	} {
		if got := Command(tt.id, tt.checkpoint, tt.mode, tt.vpgs); got != tt.want {
			t.Errorf("Command(%q, %v, %q, %q) = %s, want %s", tt.id, tt.checkpoint, tt.mode, tt.vpgs, got, tt.want)
		}
	}
}
