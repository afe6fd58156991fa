package zvmsim

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTaskProgressAcrossPolls: a failover test's task is seen in progress,
// with growing progress, before it completes.
func TestTaskProgressAcrossPolls(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	id := c.post("/v1/vpgs/"+ts.VPGIdentifier("lab-apps")+"/FailoverTest", map[string]any{})
	var seen []wireTask
	for range DefaultTaskSteps + 2 {
		var tk wireTask
		c.get("/v1/tasks/"+id, &tk)
		seen = append(seen, tk)
	}
	for i := range DefaultTaskSteps {
		if seen[i].Status.State != int(TaskInProgress) || (i > 0 && seen[i].Status.Progress <= seen[i-1].Status.Progress) {
			t.Fatalf("poll %d = %+v, want in progress and moving (all: %+v)", i, seen[i].Status, seen)
		}
	}
	if last := seen[DefaultTaskSteps]; last.Status.State != int(TaskCompleted) || last.Status.Progress != 100 || last.Completed == nil {
		t.Errorf("poll %d = %+v, want completed", DefaultTaskSteps, last)
	}

	ts.SetTaskSteps(0)
	stop := c.post("/v1/vpgs/"+ts.VPGIdentifier("lab-apps")+"/FailoverTestStop", map[string]any{})
	var tk wireTask
	if c.get("/v1/tasks/"+stop, &tk); tk.Status.State != int(TaskCompleted) {
		t.Errorf("with no steps the stop task is %+v, want completed at once", tk.Status)
	}
}

// TestRecoveryConflicts: operations that exclude each other are refused
// with Zerto's {"Message"}, before anything changes.
func TestRecoveryConflicts(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	vpg, web, db := ts.VPGIdentifier("lab-apps"), ts.VMIdentifier("web-01"), ts.VMIdentifier("db-01")
	cps, _ := ts.Checkpoints("lab-apps")
	cp := cps[len(cps)-1].ID

	restore := c.post("/v1/vms/"+db+"/Restore", map[string]any{"VpgIdentifier": vpg, "CheckpointIdentifier": cp, "CommitPolicy": 2})
	st, body := c.do(http.MethodPost, "/v1/vpgs/"+vpg+"/FailoverTest", map[string]any{"CheckpointIdentifier": cp})
	if st != 400 || !strings.Contains(string(body), "db-01 of VPG lab-apps is being restored") {
		t.Errorf("test during a restore: HTTP %d %s", st, body)
	}
	if _, _, running := ts.RunningTest("lab-apps"); running {
		t.Error("a refused test is running")
	}
	c.waitTask(restore)
	ts.SetTaskSteps(0)
	c.post("/v1/vms/"+db+"/RestoreRollback", `"`+vpg+`"`)

	c.post("/v1/vpgs/"+vpg+"/FailoverTest", map[string]any{"CheckpointIdentifier": cp, "VmIdentifiers": []string{web}})
	got, vms, running := ts.RunningTest("lab-apps")
	if !running || got.ID != cp || len(vms) != 1 || vms[0] != "web-01 - testing recovery" {
		t.Fatalf("RunningTest = %v %v %v", got, vms, running)
	}
	for _, tt := range []struct{ path, want string }{
		{"/v1/vms/" + web + "/Restore", "VPG lab-apps is in a failover test; stop the test before restoring VM web-01."},
		{"/v1/vpgs/" + vpg + "/FailoverTest", "VPG lab-apps is already in a failover test."},
	} {
		st, body := c.do(http.MethodPost, tt.path, map[string]any{"VpgIdentifier": vpg, "CheckpointIdentifier": cp})
		if st != 400 || !strings.Contains(string(body), `{"Message":"`+tt.want+`"}`) {
			t.Errorf("POST %s during a test: HTTP %d %s, want 400 %q", tt.path, st, body, tt.want)
		}
	}
	if _, _, ok := ts.VMRecovery("web-01"); ok {
		t.Error("a refused restore changed web-01")
	}
}

// TestRestoreCommitPolicy: CommitPolicy 1 keeps the restored VM when the
// restore ends, with no RestoreCommit.
func TestRestoreCommitPolicy(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	vm := ts.VMIdentifier("db-01")
	cps, _ := ts.Checkpoints("lab-apps")
	cp := cps[len(cps)-3]
	id := c.post("/v1/vms/"+vm+"/Restore", map[string]any{"CheckpointIdentifier": cp.ID, "CommitPolicy": 1})
	if tk := c.waitTask(id); tk.Status.State != int(TaskCompleted) {
		t.Fatalf("restore task %+v, want completed", tk.Status)
	}
	if got, op, ok := ts.VMRecovery("db-01"); !ok || got.ID != cp.ID || op != "RestoreCommitted" {
		t.Errorf("VMRecovery = %v %q %v", got, op, ok)
	}
}

// TestJournalHistoryAgesCheckpointsOut: a short journal history drops the
// older checkpoints, and a test from one of them is refused.
func TestJournalHistoryAgesCheckpointsOut(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, fastScenario(t))
	c := newClient(t, ts)
	cps, _ := ts.Checkpoints("fast")
	old := cps[0]
	if err := ts.SetJournalHistory("fast", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.WriteCheckpoint("fast"); err != nil {
		t.Fatal(err)
	}
	left, _ := ts.Checkpoints("fast")
	for _, cp := range left {
		if cp.ID == old.ID {
			t.Fatalf("checkpoint %s still in the journal: %v", old.ID, left)
		}
	}
	var stats struct {
		Earliest *struct{ CheckpointIdentifier string }
	}
	c.get("/v1/vpgs/"+ts.VPGIdentifier("fast")+"/checkpoints/stats", &stats)
	if stats.Earliest == nil || stats.Earliest.CheckpointIdentifier == old.ID {
		t.Errorf("stats after ageing %+v", stats)
	}
	st, body := c.do(http.MethodPost, "/v1/vpgs/"+ts.VPGIdentifier("fast")+"/FailoverTest", map[string]any{"CheckpointIdentifier": old.ID})
	if st != 400 || !strings.Contains(string(body), "was not found in the journal") {
		t.Errorf("test from an aged-out checkpoint: HTTP %d %s", st, body)
	}
	if err := ts.SetJournalHistory("nosuch", time.Hour); err == nil {
		t.Error("SetJournalHistory of an unknown VPG succeeded")
	}
}

// TestRestoreCompletesBeforeCommit: in the strict mode, a restore waiting
// for its commit shows a Completed task, and the VM still waits: only
// RestoreCommit keeps it.
func TestRestoreCompletesBeforeCommit(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	ts.SetStrict(Strict{RestoreCompletesBeforeCommit: true})
	c := newClient(t, ts)
	vpg, vm := ts.VPGIdentifier("lab-apps"), ts.VMIdentifier("db-01")
	cps, _ := ts.Checkpoints("lab-apps")
	cp := cps[len(cps)-2]
	id := c.post("/v1/vms/"+vm+"/Restore", map[string]any{"VpgIdentifier": vpg, "CheckpointIdentifier": cp.ID, "CommitPolicy": 2})
	if tk := c.waitTask(id); tk.Status.State != int(TaskCompleted) {
		t.Fatalf("restore task %+v, want completed", tk.Status)
	}
	if _, op, ok := ts.VMRecovery("db-01"); !ok || op != "Restore" {
		t.Fatalf("VMRecovery after the task = %q %v, want a restore awaiting its commit", op, ok)
	}
	st, body := c.do(http.MethodPost, "/v1/vpgs/"+vpg+"/FailoverTest", map[string]any{"CheckpointIdentifier": cp.ID})
	if st != 400 || !strings.Contains(string(body), "commit or roll back the restore first") {
		t.Errorf("test while the restore waits: HTTP %d %s", st, body)
	}
	ts.SetTaskSteps(0)
	c.post("/v1/vms/"+vm+"/RestoreCommit", `"`+vpg+`"`)
	if got, op, ok := ts.VMRecovery("db-01"); !ok || got.ID != cp.ID || op != "RestoreCommitted" {
		t.Errorf("VMRecovery after the commit = %v %q %v", got, op, ok)
	}
	if h := ts.Strict().Habits(); !slices.Contains(h, "restore tasks complete before their commit") {
		t.Errorf("Habits = %q", h)
	}
}

// TestRestoreRequestKept: the simulator keeps every field of a restore's
// body, so that a test can check what a client asked for.
func TestRestoreRequestKept(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	vpg, vm := ts.VPGIdentifier("lab-apps"), ts.VMIdentifier("web-01")
	cps, _ := ts.Checkpoints("lab-apps")
	c.post("/v1/vms/"+vm+"/Restore", map[string]any{
		"vpgIdentifier": vpg, "checkpointIdentifier": cps[0].ID, "restoredVmName": "web-01", "commitPolicy": 2,
		"shutdownPolicy": 1, "timeToWaitBeforeContinueInSeconds": 300,
		"journalVMRestoreSettings": map[string]any{"datastoreIdentifier": nil, "nics": nil, "volumes": nil},
	})
	r, ok := ts.LastRestore("WEB-01")
	if !ok || r.VpgIdentifier != vpg || r.CheckpointIdentifier != cps[0].ID || r.RestoredVmName == nil || *r.RestoredVmName != "web-01" ||
		r.CommitPolicy == nil || *r.CommitPolicy != 2 || r.ShutdownPolicy == nil || *r.ShutdownPolicy != 1 ||
		r.TimeToWaitBeforeContinueInSeconds == nil || *r.TimeToWaitBeforeContinueInSeconds != 300 ||
		r.JournalVMRestoreSettings == nil || r.JournalVMRestoreSettings.DatastoreIdentifier != nil {
		t.Errorf("LastRestore = %+v, %v", r, ok)
	}
	if _, ok := ts.LastRestore("db-01"); ok {
		t.Error("LastRestore of a VM never restored")
	}
}

// TestOneVMOneRestore: a VM that two VPGs protect is restored from one of
// them at a time; the second restore is refused while the first waits.
func TestOneVMOneRestore(t *testing.T) {
	t.Parallel()
	sc := DefaultScenario()
	sc.VPGs[2].VMs = append(sc.VPGs[2].VMs, "web-01")
	ts := NewTestServer(t, sc)
	c := newClient(t, ts)
	vm := ts.VMIdentifier("web-01")
	first, second := sc.VPGs[0].Name, sc.VPGs[2].Name
	cps1, _ := ts.Checkpoints(first)
	cps2, _ := ts.Checkpoints(second)
	c.post("/v1/vms/"+vm+"/Restore", map[string]any{"VpgIdentifier": ts.VPGIdentifier(first), "CheckpointIdentifier": cps1[0].ID, "CommitPolicy": 2})
	st, body := c.do(http.MethodPost, "/v1/vms/"+vm+"/Restore", map[string]any{"VpgIdentifier": ts.VPGIdentifier(second), "CheckpointIdentifier": cps2[0].ID, "CommitPolicy": 2})
	if st != 400 || !strings.Contains(string(body), "VM web-01 is already being restored from the journal of VPG "+first) {
		t.Errorf("second restore of one VM: HTTP %d %s", st, body)
	}
}

// TestTestSomeoneElseStarted: StartTest runs a drill through the API as a
// person; its task says who started it.
func TestTestSomeoneElseStarted(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	id, err := ts.StartTest("lab-apps", "", "drill-lead")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, running := ts.RunningTest("lab-apps"); !running {
		t.Fatal("no test running after StartTest")
	}
	var tk wireTask
	c.get("/v1/tasks/"+id, &tk)
	if tk.InitiatedBy != "drill-lead" || tk.Type != "FailOverTest" {
		t.Errorf("task %+v, want a FailOverTest initiated by drill-lead", tk)
	}
	if _, err := ts.StartTest("lab-apps", "", "drill-lead"); err == nil || !strings.Contains(err.Error(), "already in a failover test") {
		t.Errorf("a second StartTest: %v", err)
	}
	if _, err := ts.StartTest("nosuch", "", "x"); err == nil {
		t.Error("StartTest of an unknown VPG succeeded")
	}
}

// TestResyncEmptiesJournal: a re-sync drops every checkpoint, while the
// VPG's configured history stays what it was.
func TestResyncEmptiesJournal(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	if err := ts.Resync("lab-apps"); err != nil {
		t.Fatal(err)
	}
	if cps, _ := ts.Checkpoints("lab-apps"); len(cps) != 0 {
		t.Fatalf("%d checkpoints after a re-sync", len(cps))
	}
	var v struct {
		HistoryStatusApi struct{ ConfiguredHistoryInMinutes int }
	}
	c.get("/v1/vpgs/"+ts.VPGIdentifier("lab-apps"), &v)
	if v.HistoryStatusApi.ConfiguredHistoryInMinutes != 24*60 {
		t.Errorf("ConfiguredHistoryInMinutes = %d, want the journal's retention, 1440", v.HistoryStatusApi.ConfiguredHistoryInMinutes)
	}
}
