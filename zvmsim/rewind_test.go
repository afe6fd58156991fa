package zvmsim

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestFailoverTest(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	vpg := ts.VPGIdentifier("lab-apps")
	cps, _ := ts.Checkpoints("lab-apps")
	cp := cps[len(cps)-5]

	id := c.post("/v1/vpgs/"+vpg+"/FailoverTest", map[string]any{
		"checkpointIdentifier": cp.ID,
		"vmIdentifiers":        []string{ts.VMIdentifier("web-01")},
	})
	if tk := c.waitTask(id); tk.Status.State != int(TaskCompleted) || tk.Type != "FailOverTest" {
		t.Fatalf("task = %+v", tk)
	}
	var vms []wireVM
	c.get("/v1/vms?vmName="+url.QueryEscape("web-01 - testing recovery"), &vms)
	if len(vms) != 1 || vms[0].RecoveryCheckpoint == nil || vms[0].RecoveryCheckpoint.CheckpointIdentifier != cp.ID || vms[0].RecoveryOperation != "FailoverTest" {
		t.Fatalf("test VM = %+v, want one recovered from %s", vms, cp.ID)
	}
	if !strings.HasPrefix(vms[0].VmIdentifier, DefaultScenario().Sites[1].ID+".") {
		t.Errorf("test VM %s is not on the recovery site", vms[0].VmIdentifier)
	}
	var v wireVPG
	c.get("/v1/vpgs/"+vpg, &v)
	if v.ActiveProcessesApi.RunningFailOverTestApi == nil || v.VmsCount != 3 {
		t.Errorf("VPG during test = %+v", v)
	}
	if st, _ := c.do(http.MethodPost, "/v1/vpgs/"+vpg+"/FailoverTest", map[string]any{}); st != 400 {
		t.Errorf("second test: HTTP %d, want 400", st)
	}

	c.post("/v1/vpgs/"+vpg+"/FailoverTestStop", map[string]any{"FailoverTestSuccess": true, "FailoverTestSummary": "ok"})
	c.get("/v1/vms?vmName="+url.QueryEscape("web-01 - testing recovery"), &vms)
	if len(vms) != 0 {
		t.Fatalf("test VM still listed after stop: %+v", vms)
	}
	c.get("/v1/vpgs/"+vpg, &v)
	if v.ActiveProcessesApi.RunningFailOverTestApi != nil || v.LastTest == nil {
		t.Errorf("VPG after test = %+v", v)
	}
}

func TestJournalRestore(t *testing.T) {
	t.Parallel()
	tests := []struct {
		end        string
		wantOp     string
		wantCPKept bool
	}{
		{"RestoreCommit", "RestoreCommitted", true},
		{"RestoreRollback", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.end, func(t *testing.T) {
			ts := NewTestServer(t, nil)
			c := newClient(t, ts)
			vm, vpg := ts.VMIdentifier("db-01"), ts.VPGIdentifier("lab-apps")
			cps, _ := ts.Checkpoints("lab-apps")
			cp := cps[len(cps)-2]
			restore := c.post("/v1/vms/"+vm+"/Restore", map[string]any{"VpgIdentifier": vpg, "CheckpointIdentifier": cp.ID, "CommitPolicy": 2})
			if st, body := c.do(http.MethodPost, "/v1/vms/"+vm+"/"+tt.end, `"`+vpg+`"`); st != 400 || !strings.Contains(string(body), "still in progress") {
				t.Errorf("%s while the restore runs: HTTP %d %s, want 400", tt.end, st, body)
			}
			if tk := c.waitTask(restore); tk.Status.State != int(TaskWaitingForUserInput) || tk.Type != "JournalVmRestore" {
				t.Fatalf("restore task = %+v, want it waiting for commit or rollback", tk)
			}
			var got wireVM
			c.get("/v1/vms/"+vm, &got)
			if got.RecoveryCheckpoint == nil || got.RecoveryCheckpoint.CheckpointIdentifier != cp.ID || got.RecoveryOperation != "Restore" {
				t.Fatalf("restored VM = %+v", got)
			}
			if st, _ := c.do(http.MethodPost, "/v1/vms/"+vm+"/Restore", map[string]any{"CheckpointIdentifier": cp.ID}); st != 400 {
				t.Errorf("second restore: HTTP %d, want 400", st)
			}
			end := c.post("/v1/vms/"+vm+"/"+tt.end, `"`+vpg+`"`)
			if tk := c.waitTask(end); tk.Status.State != int(TaskCompleted) {
				t.Fatalf("%s task = %+v", tt.end, tk)
			}
			if tk := c.waitTask(restore); tk.Status.State != int(TaskCompleted) {
				t.Errorf("restore task after %s = %+v, want it completed", tt.end, tk)
			}
			got = wireVM{} // the extension fields are omitted when empty
			c.get("/v1/vms/"+vm, &got)
			if (got.RecoveryCheckpoint != nil) != tt.wantCPKept || got.RecoveryOperation != tt.wantOp {
				t.Fatalf("after %s: %+v", tt.end, got)
			}
		})
	}
}

func TestLiveFailover(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, fastScenario(t))
	c := newClient(t, ts)
	vpg := ts.VPGIdentifier("fast")
	c.post("/v1/vpgs/"+vpg+"/Failover", map[string]any{"CommitPolicy": 0})
	var v wireVPG
	c.get("/v1/vpgs/"+vpg, &v)
	if v.Status != int(StatusFailingOver) || v.SubStatus != int(SubStatusFailingOverBeforeCommit) {
		t.Fatalf("VPG failing over = %+v", v)
	}
	if st, _ := c.do(http.MethodPost, "/v1/vpgs/"+vpg+"/checkpoints", map[string]string{"checkpointName": "x"}); st != 400 {
		t.Errorf("insert during failover: HTTP %d, want 400", st)
	}
	c.post("/v1/vpgs/"+vpg+"/FailoverRollback", nil)
	c.get("/v1/vpgs/"+vpg, &v)
	if v.Status != int(StatusMeetingSLA) || v.SubStatus != 0 {
		t.Fatalf("VPG after rollback = %+v", v)
	}
	c.post("/v1/vpgs/"+vpg+"/Failover", map[string]any{})
	c.post("/v1/vpgs/"+vpg+"/FailoverCommit", map[string]any{"IsReverseProtection": false})
	c.get("/v1/vpgs/"+vpg, &v)
	if v.Status != int(StatusRecovered) {
		t.Fatalf("VPG after commit = %+v", v)
	}
	var vms []wireVM
	c.get("/v1/vms?vpgName=fast", &vms)
	if len(vms) != 2 {
		t.Fatalf("VMs of the VPG after failover = %+v, want app-01 and app-02", vms)
	}
	for _, vm := range vms {
		if vm.RecoveryOperation != "FailoverCommitted" || vm.RecoveryCheckpoint == nil {
			t.Errorf("VM after failover = %+v", vm)
		}
	}
}
