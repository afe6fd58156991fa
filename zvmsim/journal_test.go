package zvmsim

import (
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

func TestTagLandsOnNextCheckpoint(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, fastScenario(t))
	c := newClient(t, ts)
	vpg := ts.VPGIdentifier("fast")

	id := c.post("/v1/vpgs/"+vpg+"/checkpoints", map[string]string{"CHECKPOINTNAME": "rewind-1"})
	var tk wireTask
	c.get("/v1/tasks/"+id, &tk)
	if tk.Type != "InsertTaggedCP" {
		t.Errorf("task type %q", tk.Type)
	}
	tk = c.waitTask(id)
	if tk.Status.State != int(TaskCompleted) || tk.Status.Progress != 100 || tk.Completed == nil {
		t.Fatalf("task = %+v, want completed", tk)
	}
	var cps []wireCheckpoint
	c.get("/v1/vpgs/"+vpg+"/checkpoints", &cps)
	var tagged []wireCheckpoint
	for _, cp := range cps {
		if cp.Tag != nil {
			tagged = append(tagged, cp)
		}
	}
	if len(tagged) != 1 || *tagged[0].Tag != "rewind-1" {
		t.Fatalf("tagged checkpoints %+v, want one rewind-1", tagged)
	}
	var stats struct{ Earliest, Latest wireCheckpoint }
	c.get("/v1/vpgs/"+vpg+"/checkpoints/stats", &stats)
	if stats.Earliest.CheckpointIdentifier != cps[0].CheckpointIdentifier || stats.Latest.CheckpointIdentifier == "" {
		t.Errorf("stats = %+v", stats)
	}
	if ts.CountInserts() != 1 || ts.Count("insert") != 1 {
		t.Errorf("inserts counted %d / %d, want 1", ts.CountInserts(), ts.Count("insert"))
	}
}

func TestTagWaitsForCadence(t *testing.T) {
	t.Parallel()
	// The slow VPG ticks hourly: a tag stays pending until a checkpoint is
	// written, here forced with WriteCheckpoint.
	ts := NewTestServer(t, fastScenario(t))
	c := newClient(t, ts)
	id := c.post("/v1/vpgs/"+ts.VPGIdentifier("slow")+"/checkpoints", map[string]string{"checkpointName": "a"})
	id2 := c.post("/v1/vpgs/"+ts.VPGIdentifier("slow")+"/checkpoints", map[string]string{"checkpointName": "b"})
	var tk wireTask
	c.get("/v1/tasks/"+id, &tk)
	if tk.Status.State != int(TaskInProgress) || tk.Status.Progress != 0 {
		t.Fatalf("task before the tick = %+v, want in progress", tk)
	}
	written, err := ts.WriteCheckpoint("slow")
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 2 || written[0].Tag != "a" || written[1].Tag != "b" || written[0].ID >= written[1].ID {
		t.Fatalf("written %+v, want tags a and b in order", written)
	}
	for _, id := range []string{id, id2} {
		c.get("/v1/tasks/"+id, &tk)
		if tk.Status.State != int(TaskCompleted) {
			t.Errorf("task after the tick = %+v", tk)
		}
	}
}

func TestBackfillAndCadence(t *testing.T) { inBubble(t, testBackfillAndCadence) }

func testBackfillAndCadence(t *testing.T) {
	s := NewServer(DefaultScenario())
	defer s.Close()
	tests := []struct {
		vpg     string
		min     int
		cadence time.Duration
	}{
		{"lab-apps", 720, 5 * time.Second},
		{"aws-windows", 12, 630 * time.Second},
	}
	for _, tt := range tests {
		cps, err := s.Checkpoints(tt.vpg)
		if err != nil {
			t.Fatal(err)
		}
		if len(cps) < tt.min {
			t.Errorf("%s: %d checkpoints backfilled, want at least %d", tt.vpg, len(cps), tt.min)
		}
		for i := 1; i < len(cps); i++ {
			if d := cps[i].Time.Sub(cps[i-1].Time); d != tt.cadence {
				t.Fatalf("%s: checkpoints %d and %d are %s apart, want %s", tt.vpg, i-1, i, d, tt.cadence)
			}
		}
		if last := cps[len(cps)-1].Time; time.Since(last) > tt.cadence {
			t.Errorf("%s: latest checkpoint %s is older than a cadence", tt.vpg, last)
		}
	}
}

func TestJournalWritesAtCadence(t *testing.T) { inBubble(t, testJournalWritesAtCadence) }

func testJournalWritesAtCadence(t *testing.T) {
	ts, c := memServer(t, fastScenario(t))
	before, _ := ts.Checkpoints("fast")
	// On the bubble's clock, three ticks of the 50 ms journal.
	time.Sleep(150 * time.Millisecond)
	synctest.Wait()
	if after, _ := ts.Checkpoints("fast"); len(after) != len(before)+3 {
		t.Fatalf("journal wrote %d checkpoints in 150ms at a 50ms cadence, want 3", len(after)-len(before))
	}
	// A paused VPG writes nothing and refuses inserts.
	if err := ts.SetVPGStatus("fast", StatusNotMeetingSLA, SubStatusReplicationPausedSystemInitiated); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.WriteCheckpoint("fast"); err == nil {
		t.Error("WriteCheckpoint on a paused VPG succeeded")
	}
	if st, b := c.do(http.MethodPost, "/v1/vpgs/"+ts.VPGIdentifier("fast")+"/checkpoints", map[string]string{"checkpointName": "x"}); st != 400 {
		t.Errorf("insert into paused VPG: HTTP %d %s", st, b)
	}
}

func TestPausingFailsPendingInserts(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, fastScenario(t))
	c := newClient(t, ts)
	id := c.post("/v1/vpgs/"+ts.VPGIdentifier("slow")+"/checkpoints", map[string]string{"checkpointName": "x"})
	if err := ts.SetVPGStatus("slow", StatusNotMeetingSLA, SubStatusReplicationPausedUserInitiated); err != nil {
		t.Fatal(err)
	}
	var tk wireTask
	c.get("/v1/tasks/"+id, &tk)
	if tk.Status.State != int(TaskFailed) || tk.CompleteReason == nil {
		t.Fatalf("task = %+v, want failed with a reason", tk)
	}
}

func TestInsertFailureAndRejection(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)

	// The scenario's failing VPG accepts the insert and fails the task.
	id := c.post("/v1/vpgs/"+ts.VPGIdentifier("lab-legacy")+"/checkpoints", map[string]string{"checkpointName": "x"})
	var tk wireTask
	c.get("/v1/tasks/"+id, &tk)
	if tk.Status.State != int(TaskFailed) || tk.CompleteReason == nil || *tk.CompleteReason != DefaultScenario().VPGs[2].InsertFailure {
		t.Fatalf("task = %+v, want failed with the scenario's reason", tk)
	}

	vpg := ts.VPGIdentifier("lab-apps")
	if err := ts.FailInserts("lab-apps", "VRA unreachable"); err != nil {
		t.Fatal(err)
	}
	c.get("/v1/tasks/"+c.post("/v1/vpgs/"+vpg+"/checkpoints", map[string]string{"checkpointName": "y"}), &tk)
	if tk.Status.State != int(TaskFailed) || *tk.CompleteReason != "VRA unreachable" {
		t.Fatalf("task = %+v", tk)
	}
	ts.FailInserts("lab-apps", "")
	ts.RejectInserts("lab-apps", "The VPG is being edited.")
	if st, b := c.do(http.MethodPost, "/v1/vpgs/"+vpg+"/checkpoints", map[string]string{"checkpointName": "z"}); st != 400 || string(b) != `{"Message":"The VPG is being edited."}` {
		t.Fatalf("rejected insert: HTTP %d %s", st, b)
	}
	ts.RejectInserts("lab-apps", "")
	c.post("/v1/vpgs/"+vpg+"/checkpoints", map[string]string{"checkpointName": "z"})

	var failed []wireTask
	c.get("/v1/tasks?status=4&type=InsertTaggedCP", &failed)
	if len(failed) != 2 {
		t.Errorf("%d failed insert tasks listed, want 2", len(failed))
	}
	if err := ts.FailInserts("nope", "x"); err == nil {
		t.Error("FailInserts on an unknown VPG succeeded")
	}
}

func TestCheckpointDateFilter(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	all, _ := ts.Checkpoints("aws-windows")
	from, to := all[3].Time.Format(timeFormat), all[6].Time.Format(time.RFC3339Nano)
	var cps []wireCheckpoint
	c.get("/v1/vpgs/"+ts.VPGIdentifier("aws-windows")+"/checkpoints?startDate="+from+"&endDate="+to, &cps)
	if len(cps) != 4 || cps[0].CheckpointIdentifier != all[3].ID || cps[3].CheckpointIdentifier != all[6].ID {
		t.Fatalf("filtered = %+v, want checkpoints 3..6", cps)
	}
}

func TestHistoryStaysBounded(t *testing.T) {
	t.Parallel()
	sc := fastScenario(t)
	sc.VPGs[0].Cadence = Duration(time.Millisecond)
	sc.VPGs[0].History = Duration(24 * time.Hour)
	s := NewServer(sc)
	defer s.Close()
	for range maxCheckpoints + 10 {
		s.WriteCheckpoint("fast")
	}
	// A day at 1 ms is 86 million checkpoints: a deep history, computed
	// when asked for, and only the live ones are kept.
	s.mu.Lock()
	v := s.vpgByName("fast")
	kept, deep := len(v.checkpoints), v.deep
	s.mu.Unlock()
	if kept > maxCheckpoints || deep == nil || deep.n != int64(24*time.Hour/time.Millisecond) {
		t.Fatalf("%d checkpoints kept (want at most %d), deep history %+v", kept, maxCheckpoints, deep)
	}
}
