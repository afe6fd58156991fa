package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/zvmsim"
)

// manyLab is a server over a simulated site of testlab.ManySize VPGs,
// called directly.
func manyLab(t testing.TB) (*Server, *testlab.Lab) {
	t.Helper()
	l := testlab.New(t, testlab.Options{Scenario: testlab.ManyScenario(t), Budget: "60s"})
	return New(Options{Dir: l.Dir, Getenv: l.Getenv}), l
}

// TestListVPGsAtScale: zerto_list_vpgs over testlab.ManySize VPGs (500; 50 under -race) reads the VPGs once
// and each journal once at most (it read each twice, one VPG after the
// other, and ran out of its deadline after about 200); what the hook (or
// an earlier listing) keeps in the state folder is not read again.
func TestListVPGsAtScale(t *testing.T) {
	t.Parallel()
	srv, l := manyLab(t)
	n := testlab.ManySize()
	_, out, err := srv.listVPGs(context.Background(), nil, NoInput{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.VPGs) != n {
		t.Fatalf("%d VPGs listed, want %d", len(out.VPGs), n)
	}
	for _, v := range out.VPGs {
		if v.CadenceSeconds != 5 || !v.CanCheckpoint {
			t.Fatalf("VPG %s: cadence %vs, can checkpoint %v (%s)", v.Name, v.CadenceSeconds, v.CanCheckpoint, v.CadenceUnavailable)
		}
	}
	if vpgs, cps, stats := l.Sim.Count("vpgs"), l.Sim.Count("checkpoints"), l.Sim.Count("checkpointStats"); vpgs != 1 || cps != n || stats != 0 {
		t.Errorf("%d VPG listings, %d journal listings, %d journal stats; want 1, %d, 0", vpgs, cps, stats, n)
	}
	// Again: every cadence is in the state folder now.
	before := l.Sim.Count("checkpoints")
	if _, _, err := srv.listVPGs(context.Background(), nil, NoInput{}); err != nil {
		t.Fatal(err)
	}
	if n := l.Sim.Count("checkpoints") - before; n != 0 {
		t.Errorf("%d journal listings with every cadence kept, want 0", n)
	}
}

// BenchmarkListVPGs lists 500 VPGs of a ZVM that takes 5 ms a request:
// cold (no cadence kept) and warm (every cadence kept by the hook).
func BenchmarkListVPGs(b *testing.B) {
	srv, l := manyLab(b)
	l.Sim.SetFaults(zvmsim.Faults{Latency: zvmsim.Duration(5 * time.Millisecond)})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			l.Vars["REWIND_STATE_DIR"] = b.TempDir()
			b.StartTimer()
			if _, _, err := srv.listVPGs(context.Background(), nil, NoInput{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		if _, _, err := srv.listVPGs(context.Background(), nil, NoInput{}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, _, err := srv.listVPGs(context.Background(), nil, NoInput{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
