package zvm_test

import (
	"errors"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/race"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// monthSim is a lab with a 30-day journal at a 5 s cadence (518,400
// checkpoints) beside a day-long one.
func monthSim(t testing.TB) *zvmsim.TestServer {
	t.Helper()
	sc, err := zvmsim.ParseScenario("month", []byte(`
[[site]]
name = "HQ"
[[site]]
name = "DR"
[[vpg]]
name = "month"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "5s"
history = "720h"
vms = ["db-01"]
[[vpg]]
name = "day"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "5s"
history = "24h"
vms = ["web-01"]
[credentials]
client = [{ id = "rewind", secret = "rewind-secret" }]
`))
	if err != nil {
		t.Fatal(err)
	}
	return zvmsim.NewTestServer(t, sc)
}

func monthClient(t testing.TB, sim *zvmsim.TestServer) *zvm.Client {
	t.Helper()
	c, err := zvm.New(zvm.Options{URL: sim.URL, ClientID: "rewind", ClientSecret: "rewind-secret", CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestFindCheckpointInAMonth: a CheckpointIdentifier a week back in a
// 30-day journal at a 5 s cadence (a whole listing of which would pass the
// read cap, see TestReadCap) is found by widening windows, each listing
// far below the cap.
func TestFindCheckpointInAMonth(t *testing.T) {
	t.Parallel()
	race.SkipHuge(t)
	sim := monthSim(t)
	c := monthClient(t, sim)
	month, day := sim.VPGIdentifier("month"), sim.VPGIdentifier("day")
	stats, err := c.CheckpointStats(t.Context(), month)
	if err != nil {
		t.Fatal(err)
	}
	// A checkpoint a week old: in the month's journal, not the day's.
	cps, err := c.Checkpoints(t.Context(), month, stats.Latest.Time.Add(-7*24*time.Hour), stats.Latest.Time.Add(-7*24*time.Hour+time.Minute))
	if err != nil || len(cps) == 0 {
		t.Fatalf("%v, %v", cps, err)
	}
	want := cps[0]
	before := sim.Count("checkpoints")
	got, ok, err := c.FindCheckpoint(t.Context(), zvm.Search{VPGs: []string{day, month}, Identifier: want.Identifier})
	if err != nil || !ok || got.VPGIdentifier != month || got.Checkpoint != want {
		t.Fatalf("FindCheckpoint = %+v, %v, %v; want %+v in %s", got, ok, err, want, month)
	}
	if n := sim.Count("checkpoints") - before; n > zvm.DefaultFindRequests {
		t.Errorf("%d listings, more than the bound", n)
	}
	// Not there at all: every journal read to its start, no error.
	if _, ok, err := c.FindCheckpoint(t.Context(), zvm.Search{VPGs: []string{day}, Identifier: want.Identifier}); ok || err != nil {
		t.Errorf("in the day's journal: %v, %v", ok, err)
	}
}

// TestFindCheckpointBounded: a search that reaches its bounds says how
// much of which journal it read rather than going on.
func TestFindCheckpointBounded(t *testing.T) {
	t.Parallel()
	sim := monthSim(t)
	c := monthClient(t, sim)
	_, ok, err := c.FindCheckpoint(t.Context(), zvm.Search{VPGs: []string{sim.VPGIdentifier("month")}, Identifier: "1", MaxRequests: 4})
	var le *zvm.SearchLimitError
	if ok || !errors.As(err, &le) || le.Requests != 4 || len(le.Searched) != 1 {
		t.Fatalf("FindCheckpoint = %v, %v; want the search's limit", ok, err)
	}
}

// TestFindTagNear: a tag is looked for around when it was written first.
func TestFindTagNear(t *testing.T) {
	t.Parallel()
	sim := monthSim(t)
	c := monthClient(t, sim)
	month := sim.VPGIdentifier("month")
	if _, err := c.InsertTaggedCheckpoint(t.Context(), month, "rewind-near"); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.WriteCheckpoint("month"); err != nil {
		t.Fatal(err)
	}
	before := sim.Count("checkpoints")
	got, ok, err := c.FindCheckpoint(t.Context(), zvm.Search{VPGs: []string{month}, Tag: "rewind-near", Near: c.Now()})
	if err != nil || !ok || got.Checkpoint.Tag != "rewind-near" {
		t.Fatalf("FindCheckpoint = %+v, %v, %v", got, ok, err)
	}
	if n := sim.Count("checkpoints") - before; n != 1 {
		t.Errorf("%d listings for a tag written just now, want 1", n)
	}
}

// BenchmarkFindCheckpointInAMonth finds a checkpoint 29 days old in a
// 30-day journal: the worst case of rewind undo CheckpointIdentifier.
func BenchmarkFindCheckpointInAMonth(b *testing.B) {
	sim := monthSim(b)
	c := monthClient(b, sim)
	month := sim.VPGIdentifier("month")
	stats, err := c.CheckpointStats(b.Context(), month)
	if err != nil {
		b.Fatal(err)
	}
	old := stats.Latest.Time.Add(-29 * 24 * time.Hour)
	cps, err := c.Checkpoints(b.Context(), month, old, old.Add(time.Minute))
	if err != nil || len(cps) == 0 {
		b.Fatal(cps, err)
	}
	for b.Loop() {
		if _, ok, err := c.FindCheckpoint(b.Context(), zvm.Search{VPGs: []string{month}, Identifier: cps[0].Identifier}); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
