package zvmsim

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

// monthScenario is a lab with a 30-day journal at a 5 s cadence: 518,400
// checkpoints, none of them stored.
func monthScenario(t testing.TB) *Scenario {
	t.Helper()
	sc, err := ParseScenario("month", []byte(`
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
vms = ["web-01"]
[credentials]
client = [{ id = "rewind", secret = "rewind-secret" }]
`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestMonthJournal: a 30-day journal lists, filters, answers its bounds and
// finds its checkpoints as a stored one does, with identifiers that grow
// with time and stay below the live ones.
func TestMonthJournal(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, monthScenario(t))
	c := newClient(t, ts)
	id := ts.VPGIdentifier("month")
	at := func(s string) time.Time {
		v, err := parseTime(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var stats struct{ Earliest, Latest wireCheckpoint }
	c.get("/v1/vpgs/"+id+"/checkpoints/stats", &stats)
	latest := at(stats.Latest.TimeStamp)
	span := latest.Sub(at(stats.Earliest.TimeStamp))
	if span < 720*time.Hour-time.Minute || span > 720*time.Hour {
		t.Errorf("journal spans %v, want 30 days", span)
	}
	// An hour of it, by the filter.
	from := latest.Add(-time.Hour)
	var hour []wireCheckpoint
	c.get("/v1/vpgs/"+id+"/checkpoints?startDate="+from.Format(time.RFC3339Nano)+"&endDate="+latest.Format(time.RFC3339Nano), &hour)
	if n := len(hour); n < 719 || n > 721 {
		t.Fatalf("an hour holds %d checkpoints, want 720", n)
	}
	for i := 1; i < len(hour); i++ {
		a, _ := strconv.ParseInt(hour[i-1].CheckpointIdentifier, 10, 64)
		b, _ := strconv.ParseInt(hour[i].CheckpointIdentifier, 10, 64)
		if b <= a || !at(hour[i].TimeStamp).After(at(hour[i-1].TimeStamp)) {
			t.Fatalf("checkpoints %d and %d out of order: %+v %+v", i-1, i, hour[i-1], hour[i])
		}
	}
	// The oldest can be tested from, as any other.
	st, body := c.do(http.MethodPost, "/v1/vpgs/"+id+"/FailoverTest", map[string]any{"checkpointIdentifier": stats.Earliest.CheckpointIdentifier})
	if st != http.StatusOK {
		t.Fatalf("failover test from the oldest checkpoint: %d %s", st, body)
	}
	// Live checkpoints come after the history, by identifier too.
	written, err := ts.WriteCheckpoint("month")
	if err != nil {
		t.Fatal(err)
	}
	live, _ := strconv.ParseInt(written[0].ID, 10, 64)
	last, _ := strconv.ParseInt(stats.Latest.CheckpointIdentifier, 10, 64)
	if live <= last {
		t.Errorf("live checkpoint %d is not after the history's %d", live, last)
	}
	// A shorter retention ages the history out.
	if err := ts.SetJournalHistory("month", 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	c.get("/v1/vpgs/"+id+"/checkpoints/stats", &stats)
	if age := time.Since(at(stats.Earliest.TimeStamp)); age > 2*time.Hour+time.Minute {
		t.Errorf("earliest checkpoint %v old after a 2h retention", age)
	}
}

// BenchmarkMonthJournal lists a whole 30-day journal: the answer a client
// that names no window gets (about 80 MB).
func BenchmarkMonthJournal(b *testing.B) {
	ts := NewTestServer(b, monthScenario(b))
	c := newClient(b, ts)
	id := ts.VPGIdentifier("month")
	for b.Loop() {
		st, body := c.do(http.MethodGet, "/v1/vpgs/"+id+"/checkpoints", nil)
		if st != http.StatusOK {
			b.Fatal(st)
		}
		b.SetBytes(int64(len(body)))
	}
}
