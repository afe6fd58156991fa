package capture

import (
	"testing"
	"time"
)

// TestCadenceIsTheHooks: Cadence answers what capture estimated for the
// hook, from the state folder without a request, and estimates it from the
// journal when nothing is kept, keeping it for the next caller; every
// journal listing names both ends of its window.
func TestCadenceIsTheHooks(t *testing.T) {
	t.Parallel()
	f := newStrictFixture(t, "")
	c := f.capturer(Options{})
	// A protected call: the hook's capture keeps the cadence.
	if out := capture(t, c, 4*time.Second, "cade0000aaaa", "web-01"); out.Kind != Protected {
		t.Fatalf("capture: %+v", out)
	}
	id := f.sim.VPGIdentifier("fast")
	before := f.sim.Count("checkpoints")
	cad, err := c.Cadence(t.Context(), id)
	if err != nil || cad != 200*time.Millisecond {
		t.Fatalf("Cadence = %v, %v; want the journal's 200ms", cad, err)
	}
	if n := f.sim.Count("checkpoints") - before; n != 0 {
		t.Errorf("%d listings for a cadence the hook keeps, want 0", n)
	}
	// Another VPG, never seen: estimated once, then kept.
	other := f.sim.VPGIdentifier("other")
	for range 2 {
		if cad, err := c.Cadence(t.Context(), other); err != nil || cad != 150*time.Millisecond {
			t.Fatalf("Cadence of other = %v, %v", cad, err)
		}
	}
	if n := f.sim.Count("checkpoints") - before; n != 1 {
		t.Errorf("%d listings for a VPG never seen, asked twice; want 1", n)
	}
	if all, ended := f.sim.Count("checkpoints"), f.sim.CountQuery("checkpoints", "endDate"); all != ended || f.sim.CountQuery("checkpoints", "startDate") != all {
		t.Errorf("%d journal listings, %d of them with an end: every one must name its window", all, ended)
	}
	rs := c.Cadences(t.Context(), []string{id, other, "00000000-0000-4000-8000-000000000000"})
	if rs[0].Cadence != 200*time.Millisecond || rs[1].Cadence != 150*time.Millisecond || rs[2].Err == nil {
		t.Errorf("Cadences: %+v", rs)
	}
}
