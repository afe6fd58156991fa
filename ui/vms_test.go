package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

func TestPointsOf(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	cp := func(vm, vpg, id string, at time.Duration) audit.Checkpoint {
		return audit.Checkpoint{VM: vm, VMIdentifier: "g." + vm, VPG: vpg, VPGIdentifier: "id-" + vpg, Identifier: id, Tag: "t" + id, Time: t0.Add(at)}
	}
	recs := []audit.Record{
		{ID: "both", Decision: audit.DecisionProtected, Excerpt: "govc vm.power -off web-01 db-01",
			Checkpoints: []audit.Checkpoint{cp("web-01", "fast", "1", 0), cp("db-01", "fast", "1", 0)}},
		// The same checkpoint, reused: still the first call's point.
		{ID: "reuse", Decision: audit.DecisionProtected, Checkpoints: []audit.Checkpoint{cp("web-01", "fast", "1", 0)}},
		{ID: "pending", Decision: audit.DecisionPending, Checkpoints: []audit.Checkpoint{{VM: "web-01", VMIdentifier: "g.web-01", VPG: "fast", VPGIdentifier: "id-fast", Tag: "tp"}}},
		{ID: "later", Decision: audit.DecisionProtected, Tool: "mcp__vsphere__power_off_vm", Checkpoints: []audit.Checkpoint{cp("web-01", "fast", "2", time.Minute)}},
		// A rewind names where it went back to, not a new point.
		{ID: "undo", Decision: audit.DecisionUndoTest, Checkpoints: []audit.Checkpoint{cp("web-01", "fast", "1", 0)}},
		{ID: "app", Decision: audit.DecisionProtected, Checkpoints: []audit.Checkpoint{cp("app-01", "other", "9", 0)}},
	}
	order, byVM, names, calls := pointsOf(recs)
	if got := strings.Join(order, " "); got != "g.web-01 g.db-01 g.app-01" {
		t.Errorf("VMs %s, want in the order the log met them", got)
	}
	var got []string
	for _, p := range byVM["g.web-01"] {
		got = append(got, p.AuditID+":"+p.Checkpoint+":"+strings.Join(p.VMNames(), ","))
	}
	if want := "both:1:web-01,db-01 later:2:web-01"; strings.Join(got, " ") != want {
		t.Errorf("web-01's points %v, want %s", got, want)
	}
	if names["g.db-01"] != "db-01" || len(byVM["g.db-01"]) != 1 {
		t.Errorf("db-01: %q, %v", names["g.db-01"], byVM["g.db-01"])
	}
	if calls["later"] != "mcp__vsphere__power_off_vm" || calls["both"] != "govc vm.power -off web-01 db-01" {
		t.Errorf("calls %v", calls)
	}
}

func TestVMsViewListsNewestPointsFirst(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	t0 := time.Now().UTC()
	for i := range maxPointsPerVM + 3 {
		id := "eeee" + strings.Repeat("0", 6) + string(rune('a'+i/10)) + string(rune('0'+i%10))
		if err := l.Log.Append(&audit.Record{ID: id, Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01"},
			Checkpoints: []audit.Checkpoint{{VM: "web-01", VMIdentifier: "g.web-01", VPG: "fast", VPGIdentifier: "v1",
				Identifier: string(rune('A' + i)), Tag: "t", Time: t0.Add(time.Duration(i) * time.Second)}}}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := l.Log.Read(audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	d := l.srv.vmsView(t.Context(), recs, true)
	if len(d.VMs) != 1 {
		t.Fatalf("%d VMs, want 1", len(d.VMs))
	}
	v := d.VMs[0]
	if len(v.Points) != maxPointsPerVM || v.Older != 3 {
		t.Fatalf("%d points and %d older, want %d and 3", len(v.Points), v.Older, maxPointsPerVM)
	}
	newest, oldest := v.Points[0], v.Points[len(v.Points)-1]
	if !newest.Time.After(oldest.Time) {
		t.Errorf("points not newest first: %v then %v", newest.Time, oldest.Time)
	}
	// Going back to the newest undoes its own call; to the oldest shown,
	// every call from it on.
	if len(newest.Undone) != 1 || len(oldest.Undone) != maxPointsPerVM || oldest.Undone[0].ID != newest.AuditID {
		t.Errorf("undone: newest %d, oldest %d (first %s)", len(newest.Undone), len(oldest.Undone), oldest.Undone[0].ID)
	}
}
