package recovery

import (
	"reflect"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// TestLossesIsLossForEach: one read of the log gives each point what Loss
// gives it alone.
func TestLossesIsLossForEach(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	cp := func(vm, id string, at time.Duration) []audit.Checkpoint {
		return []audit.Checkpoint{{VM: vm, VMIdentifier: "g." + vm, VPG: "fast", VPGIdentifier: "v1", Identifier: id, Tag: "t" + id, Time: t0.Add(at)}}
	}
	s := &Service{Log: audit.Open(t.TempDir())}
	for _, r := range []audit.Record{
		{ID: "first", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01"}, Checkpoints: cp("web-01", "1", 0)},
		{ID: "asked", Tool: "Bash", Decision: audit.DecisionAsk, Targets: []string{"web-01"}},
		{ID: "second", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01"}, Checkpoints: cp("web-01", "2", time.Minute)},
		{ID: "db", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"db-01"}, Checkpoints: cp("db-01", "3", 2*time.Minute)},
	} {
		if err := s.Log.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	web, db := []VM{{"web-01", "g.web-01"}}, []VM{{"db-01", "g.db-01"}}
	points := []Point{
		{AuditID: "first", VPG: "fast", VPGIdentifier: "v1", VMs: web, Checkpoint: "1", Tag: "t1", Time: t0},
		{AuditID: "second", VPG: "fast", VPGIdentifier: "v1", VMs: web, Checkpoint: "2", Tag: "t2", Time: t0.Add(time.Minute)},
		{AuditID: "db", VPG: "fast", VPGIdentifier: "v1", VMs: db, Checkpoint: "3", Tag: "t3", Time: t0.Add(2 * time.Minute)},
	}
	got, err := s.Losses(t.Context(), points)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(points) {
		t.Fatalf("%d losses for %d points", len(got), len(points))
	}
	for i, p := range points {
		want, err := s.Loss(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("point %s: Losses gave %+v, Loss %+v", p.AuditID, got[i], want)
		}
	}
	if n := len(got[0].Calls); n != 3 {
		t.Errorf("going back to the first point undoes %d calls, want 3 (first, asked, second)", n)
	}
}
