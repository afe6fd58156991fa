package zvmsim

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTaskProgressAcrossPolls: a failover test's task is seen in progress,
// with growing progress, before it completes.
func TestTaskProgressAcrossPolls(t *testing.T) {
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
