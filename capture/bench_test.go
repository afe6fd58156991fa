package capture

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkProtectedCall measures a protected call on a VPG with a 200 ms
// journal cadence through a client whose token is already cached, as every
// hook run after the first finds it. It reports how long after the tag
// became visible in the journal the decision came (goal ≤ 250 ms), and the
// ZVM requests (goal ≤ 4) and token requests (goal 0) per call.
//
//	go test -run '^$' -bench ProtectedCall -benchtime 20x ./capture
func BenchmarkProtectedCall(b *testing.B) {
	f := tcpFixture(b)
	c := f.capturer(Options{})
	// Warm the token and the resolution caches, as earlier calls would.
	if out := capture(b, c, 5*time.Second, "warmupcall00", "web-01"); out.Kind != Protected {
		b.Fatalf("warm-up: %v", out.Kind)
	}
	var after time.Duration
	reqs, tokens := len(f.sim.Requests()), f.sim.CountTokens()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out := c.Capture(ctx, Request{Targets: []string{"web-01"}, CallID: fmt.Sprintf("%08x0000", i)})
		cancel()
		decided := time.Now()
		if out.Kind != Protected {
			b.Fatalf("call %d: %v", i, out.Kind)
		}
		// The simulator stamps a checkpoint with the moment it writes it,
		// which is when it becomes visible.
		after += decided.Sub(out.Points[0].Time)
	}
	b.StopTimer()
	b.ReportMetric(float64(after.Milliseconds())/float64(b.N), "ms-after-visible/op")
	b.ReportMetric(float64(len(f.sim.Requests())-reqs)/float64(b.N), "zvm-requests/op")
	b.ReportMetric(float64(f.sim.CountTokens()-tokens)/float64(b.N), "token-requests/op")
}
