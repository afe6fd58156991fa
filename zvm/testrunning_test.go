package zvm_test

import (
	"testing"
	"time"

	"github.com/rewind-dev/rewind/zvmsim"
)

// TestVPGTestRunning: a VPG reports its failover test from the moment it
// starts until it is stopped.
func TestVPGTestRunning(t *testing.T) {
	t.Parallel()
	sim := zvmsim.NewTestServer(t, nil)
	sim.SetTaskSteps(0)
	c := simClient(t, sim.URL, nil)
	ctx := t.Context()
	id := sim.VPGIdentifier("lab-apps")
	running := func() bool {
		t.Helper()
		v, err := c.VPG(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return v.TestRunning
	}
	if running() {
		t.Fatal("TestRunning before any test")
	}
	task, err := c.FailoverTest(ctx, id, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.WaitTask(ctx, task, 10*time.Millisecond, nil); err != nil {
		t.Fatal(err)
	}
	if !running() {
		t.Error("TestRunning false during a test")
	}
	if _, err := c.FailoverTestStop(ctx, id, nil, ""); err != nil {
		t.Fatal(err)
	}
	if running() {
		t.Error("TestRunning after the test stopped")
	}
}
