package ui

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvmsim"
)

// manyPage is the page's server over a site of testlab.ManySize VPGs,
// with a log that has a rewind point of each VPG's VM.
func manyPage(t testing.TB) (*Server, *testlab.Lab, []audit.Record) {
	t.Helper()
	l := testlab.New(t, testlab.Options{Scenario: testlab.ManyScenario(t)})
	now := time.Now().UTC()
	for i := 1; i <= testlab.ManySize(); i++ {
		vpg, vm := fmt.Sprintf("app-%03d", i), fmt.Sprintf("app-%03d", i)
		if err := l.Log.Append(&audit.Record{Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{vm},
			Checkpoints: []audit.Checkpoint{{VM: vm, VMIdentifier: l.Sim.VMIdentifier(vm), VPG: vpg, VPGIdentifier: l.Sim.VPGIdentifier(vpg),
				Identifier: "1", Tag: "rewind-x", Time: now}}}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := l.Log.Read(audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, Options{Log: l.Log, Recovery: &recovery.Service{Z: l.Zerto(t), Log: l.Log}, ZertoWait: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv, l, recs
}

// TestVMsViewAtScale: the VMs view of testlab.ManySize VPGs (500; 50 under -race) reads the VPGs once and
// each journal once at most (it read each VPG and its journal twice, one
// after the other), and not again once their cadences are kept.
func TestVMsViewAtScale(t *testing.T) {
	t.Parallel()
	srv, l, recs := manyPage(t)
	n := testlab.ManySize()
	d := srv.vmsView(t.Context(), recs, true)
	if len(d.VMs) != n || d.Problem != "" {
		t.Fatalf("%d VMs (problem %q), want %d", len(d.VMs), d.Problem, n)
	}
	for _, v := range d.VMs {
		if !v.VPG.Known || v.VPG.Cadence != 5*time.Second || v.VPG.Health != "ok" {
			t.Fatalf("VPG %s: %+v", v.VPG.Name, v.VPG)
		}
	}
	if vpgs, one, cps := l.Sim.Count("vpgs"), l.Sim.Count("vpg"), l.Sim.Count("checkpoints"); vpgs != 1 || one != 0 || cps != n {
		t.Errorf("%d VPG listings, %d VPG reads, %d journal listings; want 1, 0, %d", vpgs, one, cps, n)
	}
	before := l.Sim.Count("checkpoints")
	srv.vmsView(t.Context(), recs, true)
	if n := l.Sim.Count("checkpoints") - before; n != 0 {
		t.Errorf("%d journal listings with every cadence kept, want 0", n)
	}
}

// BenchmarkVMsView builds the VMs view of 500 VPGs of a ZVM that takes
// 5 ms a request, cold and warm.
func BenchmarkVMsView(b *testing.B) {
	srv, l, recs := manyPage(b)
	l.Sim.SetFaults(zvmsim.Faults{Latency: zvmsim.Duration(5 * time.Millisecond)})
	state := filepath.Dir(l.Log.Path())
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			matches, _ := filepath.Glob(filepath.Join(state, "vpg-*"))
			for _, m := range matches {
				os.Remove(m)
			}
			b.StartTimer()
			srv.vmsView(b.Context(), recs, true)
		}
	})
	b.Run("warm", func(b *testing.B) {
		srv.vmsView(b.Context(), recs, true)
		for b.Loop() {
			srv.vmsView(b.Context(), recs, true)
		}
	})
}
