package capture

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/internal/memnet"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// testScenario is a lab with short cadences, so that tags land within a
// test's patience, beside the slow and unhealthy VPGs of the real lab.
const testScenario = `
name = "capture"
[[site]]
name = "HQ"
type = "vSphere"
[[site]]
name = "DR"
type = "vSphere"
[[site]]
name = "AWS"
type = "AWS"

[[vpg]]
name = "fast"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
history = "10s"
vms = ["web-01", "db-01"]

[[vpg]]
name = "other"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "150ms"
history = "10s"
vms = ["app-01"]

[[vpg]]
name = "aws"
protected_site = "AWS"
recovery_site = "HQ"
status = "MeetingSLA"
cadence = "630s"
vms = ["win2019-1"]

[[vpg]]
name = "failing"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
history = "10s"
vms = ["legacy-01"]
insert_failure = "Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding"

[[vpg]]
name = "rejecting"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
history = "10s"
vms = ["rej-01"]
insert_rejection = "The checkpoint name is not valid."

[[vpg]]
name = "paused"
protected_site = "HQ"
recovery_site = "DR"
status = "NotMeetingSLA"
substatus = "ReplicationPausedUserInitiated"
cadence = "200ms"
history = "10s"
vms = ["paused-01"]

[[vpg]]
name = "phased"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "1h"
phase = "1500ms"
vms = ["late-01"]

[credentials]
client = [{ id = "rewind", secret = "rewind-secret" }]
`

type fixture struct {
	sim *zvmsim.TestServer
	z   *zvm.Client
	dir string
}

// newFixture is a simulator of testScenario and a client of it, in memory
// (see simFixture).
func newFixture(t testing.TB) *fixture {
	t.Helper()
	sc, err := zvmsim.ParseScenario("capture", []byte(testScenario))
	if err != nil {
		t.Fatal(err)
	}
	return simFixture(t, sc)
}

// simFixture starts a simulator of sc in memory (see memnet), and a client
// of it. A test calls it inside its bubble (see inBubble), where the
// simulator's journals, the capture's waits and the client's timeouts all
// keep the bubble's clock: a tag that lands in 200 ms lands at once, at
// 200 ms on that clock, and a test's times are exact.
func simFixture(t testing.TB, sc *zvmsim.Scenario) *fixture {
	t.Helper()
	s := zvmsim.NewServer(sc)
	z := clientOf(t, s)
	t.Cleanup(s.Close) // first: it releases hanging requests the server waits for
	return &fixture{sim: &zvmsim.TestServer{Server: s, URL: memnet.URL}, z: z, dir: t.TempDir()}
}

// clientOf serves h as the ZVM, in memory, and returns a client of it.
func clientOf(t testing.TB, h http.Handler) *zvm.Client {
	t.Helper()
	z, err := zvm.New(zvm.Options{URL: memnet.URL, ClientID: "rewind", ClientSecret: "rewind-secret", CacheDir: "-", HTTPClient: memnet.Serve(t, h)})
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// tcpFixture is newFixture on a real socket and this machine's clock, for
// the benchmarks.
func tcpFixture(t testing.TB) *fixture {
	t.Helper()
	sc, err := zvmsim.ParseScenario("capture", []byte(testScenario))
	if err != nil {
		t.Fatal(err)
	}
	sim := zvmsim.NewTestServer(t, sc)
	z, err := zvm.New(zvm.Options{URL: sim.URL, ClientID: "rewind", ClientSecret: "rewind-secret", CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{sim: sim, z: z, dir: t.TempDir()}
}

// inBubble runs f in parallel with the package's other tests, in a
// testing/synctest bubble of its own.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Parallel()
	synctest.Test(t, f)
}

func (f *fixture) capturer(o Options) *Capturer {
	o.StateDir = f.dir
	if o.ReuseWithin == 0 {
		o.ReuseWithin = 30 * time.Second
	}
	return New(f.z, o)
}

func capture(t testing.TB, c *Capturer, budget time.Duration, id string, targets ...string) Outcome {
	t.Helper()
	// A call comes a moment after whatever came before it, as a hook
	// process takes that long to start: in a bubble, where nothing takes
	// time but a wait, it would come at the very instant the call before
	// it returned, which the journal's times cannot tell apart.
	time.Sleep(time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	return c.Capture(ctx, Request{Targets: targets, CallID: id})
}

func TestCaptureRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		targets []string
		kind    Kind
		// message is a part of the first failure's message.
		message string
	}{
		{"protected", []string{"web-01"}, Protected, ""},
		{"two VPGs in parallel", []string{"web-01", "app-01"}, Protected, ""},
		{"slow cadence is pending", []string{"win2019-1"}, Pending, ""},
		{"failed task carries Zerto's reason", []string{"legacy-01"}, Failed, "the VRA on host esx-03.lab.local is not responding"},
		{"rejected insert carries Zerto's message", []string{"rej-01"}, Failed, "The checkpoint name is not valid."},
		{"paused VPG is named with its status", []string{"paused-01"}, Failed, "ReplicationPausedUserInitiated"},
		{"unknown VM", []string{"nosuch"}, UnknownTarget, ""},
		{"no target", nil, UnknownTarget, ""},
		{"failure beats unknown", []string{"nosuch", "paused-01"}, Failed, "paused"},
		{"unknown beats pending", []string{"nosuch", "win2019-1"}, UnknownTarget, ""},
		{"pending beats protected", []string{"web-01", "win2019-1"}, Pending, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := newFixture(t)
				c := f.capturer(Options{})
				id := fmt.Sprintf("%08x", i) + "abcd"
				out := capture(t, c, 3*time.Second, id, tt.targets...)
				if out.Kind != tt.kind {
					t.Fatalf("Kind = %v, want %v (outcome %+v)", out.Kind, tt.kind, out)
				}
				switch tt.kind {
				case Protected:
					if len(out.Points) == 0 {
						t.Fatal("protected without points")
					}
					for _, p := range out.Points {
						if p.Identifier == "" || p.Time.IsZero() || !strings.HasPrefix(p.Tag, "rewind-") || !strings.HasSuffix(p.Tag, "-"+id[:8]) {
							t.Errorf("point %+v: want a landed rewind tag ending in the call's short id", p)
						}
					}
				case Pending:
					pending := false
					for _, p := range out.Points {
						if p.Identifier == "" && p.Tag != "" && !p.Expected.IsZero() {
							pending = true
						}
					}
					if !pending {
						t.Errorf("pending without a tag in flight: %+v", out.Points)
					}
				case UnknownTarget:
					if slices.Contains(tt.targets, "nosuch") && !slices.Contains(out.Unknown, "nosuch") {
						t.Errorf("Unknown = %v, want nosuch named", out.Unknown)
					}
				case Failed:
					if got := Message(out.Failures[0].Err); !strings.Contains(got, tt.message) {
						t.Errorf("message %q does not contain %q", got, tt.message)
					}
				}
			})
		})
	}
}

func TestUntaggedCheckpointsAreNeverRewindPoints(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		out := capture(t, c, 3*time.Second, "aaaaaaaaaaaa", "web-01")
		if out.Kind != Protected {
			t.Fatalf("Kind = %v", out.Kind)
		}
		cps, err := f.sim.Checkpoints("fast")
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, cp := range cps {
			if cp.ID != out.Points[0].Identifier {
				continue
			}
			found = true
			if cp.Tag == "" || cp.Tag != out.Points[0].Tag {
				t.Fatalf("rewind point %s has tag %q, want %q", cp.ID, cp.Tag, out.Points[0].Tag)
			}
		}
		if !found {
			t.Fatalf("rewind point %s is not in the journal", out.Points[0].Identifier)
		}
	})
}

func TestSlowCadenceAnswersPendingAtOnce(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		start := time.Now()
		out := capture(t, c, 150*time.Second, "bbbbbbbbbbbb", "win2019-1")
		// At once, not after sitting out the 150 s budget or the tick: on
		// the bubble's clock only waits take time.
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Errorf("pending took %v of a 150s budget, want it at once", elapsed)
		}
		if out.Kind != Pending {
			t.Fatalf("Kind = %v, want pending", out.Kind)
		}
		p := out.Points[0]
		if p.Cadence < 600*time.Second || p.Cadence > 660*time.Second {
			t.Errorf("cadence estimated %v, want ~630s", p.Cadence)
		}
		if until := time.Until(p.Expected); until < 0 || until > 631*time.Second {
			t.Errorf("expected in %v, want within one cadence", until)
		}
		if p.Tag == "" || p.Identifier != "" {
			t.Errorf("pending point %+v: want a tag and no identifier", p)
		}
	})
}

func TestRetryAfterLandingReusesTheTag(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		first := capture(t, c, 2*time.Second, "cccccccccccc", "win2019-1")
		if first.Kind != Pending {
			t.Fatalf("first: Kind = %v, want pending", first.Kind)
		}
		// A retry before the tag lands waits for it instead of inserting.
		again := capture(t, c, 2*time.Second, "cccccccccccc", "win2019-1")
		if again.Kind != Pending || again.Points[0].Tag != first.Points[0].Tag {
			t.Fatalf("early retry: %v %q, want pending on %q", again.Kind, again.Points[0].Tag, first.Points[0].Tag)
		}
		if _, err := f.sim.WriteCheckpoint("aws"); err != nil {
			t.Fatal(err)
		}
		retry := capture(t, c, 2*time.Second, "cccccccccccc", "win2019-1")
		if retry.Kind != Protected {
			t.Fatalf("retry: Kind = %v, want protected", retry.Kind)
		}
		if retry.Points[0].Tag != first.Points[0].Tag {
			t.Errorf("retry tag %q, want %q", retry.Points[0].Tag, first.Points[0].Tag)
		}
		if n := f.sim.CountInserts(); n != 1 {
			t.Errorf("%d inserts, want 1", n)
		}
		// The call ran: the next call needs a tag written after it.
		next := capture(t, c, 2*time.Second, "dddddddddddd", "win2019-1")
		if next.Kind != Pending || next.Points[0].Tag == first.Points[0].Tag {
			t.Errorf("next call: %v on %q, want pending on a new tag", next.Kind, next.Points[0].Tag)
		}
	})
}

// TestLateRetryOfPendingCall: an agent told to retry once a slow tag lands
// cannot time the retry to the second. The tag it was told about protects
// the retry for a whole cadence after landing, not only reuse_within.
func TestLateRetryOfPendingCall(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		first := capture(t, f.capturer(Options{}), 2*time.Second, "ffffffffffff", "win2019-1")
		if first.Kind != Pending {
			t.Fatalf("first: Kind = %v, want pending", first.Kind)
		}
		if _, err := f.sim.WriteCheckpoint("aws"); err != nil {
			t.Fatal(err)
		}
		later := func(d time.Duration) *Capturer {
			return f.capturer(Options{Now: func() time.Time { return time.Now().Add(d) }})
		}
		// Five minutes on: past reuse_within (30 s), within the 630 s cadence.
		retry := capture(t, later(5*time.Minute), 2*time.Second, "ffffffffffff", "win2019-1")
		if retry.Kind != Protected || retry.Points[0].Tag != first.Points[0].Tag {
			t.Fatalf("retry after 5m: %v on %q, want protected by %q", retry.Kind, retry.Points[0].Tag, first.Points[0].Tag)
		}
		if n := f.sim.CountInserts(); n != 1 {
			t.Errorf("%d inserts, want 1", n)
		}
	})
}

// TestLateRetryPastTheCadence: once a cadence has passed since the pending
// tag landed, the retry gets a fresh checkpoint.
func TestLateRetryPastTheCadence(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		first := capture(t, f.capturer(Options{}), 2*time.Second, "ffffffffffff", "win2019-1")
		if first.Kind != Pending {
			t.Fatalf("first: Kind = %v, want pending", first.Kind)
		}
		if _, err := f.sim.WriteCheckpoint("aws"); err != nil {
			t.Fatal(err)
		}
		c := f.capturer(Options{Now: func() time.Time { return time.Now().Add(15 * time.Minute) }})
		retry := capture(t, c, 2*time.Second, "ffffffffffff", "win2019-1")
		if retry.Kind == Protected && retry.Points[0].Tag == first.Points[0].Tag {
			t.Fatalf("retry after 15m protected by the old tag %q", first.Points[0].Tag)
		}
		if n := f.sim.CountInserts(); n != 2 {
			t.Errorf("%d inserts, want 2", n)
		}
	})
}

func TestTagLandingAfterBudgetIsFoundByRetry(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		// "phased" writes its next checkpoint 1.5 s after the server started,
		// past a 500 ms budget.
		first := capture(t, c, 500*time.Millisecond, "eeeeeeeeeeee", "late-01")
		if first.Kind != Pending {
			t.Fatalf("first: Kind = %v, want pending", first.Kind)
		}
		tag := first.Points[0].Tag
		if time.Until(first.Points[0].Expected) > 10*time.Second {
			// A machine so starved that the insert came after the 1.5 s tick:
			// the next one is an hour away, so the journal ticks now.
			if _, err := f.sim.WriteCheckpoint("phased"); err != nil {
				t.Fatal(err)
			}
		}
		waitForTag(t, f.sim, "phased", tag)
		retry := capture(t, c, 5*time.Second, "eeeeeeeeeeee", "late-01")
		if retry.Kind != Protected || retry.Points[0].Tag != first.Points[0].Tag {
			t.Fatalf("retry: %v on %q, want protected by %q", retry.Kind, retry.Points[0].Tag, first.Points[0].Tag)
		}
		if n := f.sim.CountInserts(); n != 1 {
			t.Errorf("%d inserts, want 1", n)
		}
	})
}

func TestConcurrentCallsShareOneInsert(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		// Hold the VPG's lock until every call has checked the VPG, so that
		// all of them arrive before any is let through.
		if err := os.MkdirAll(f.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		lock := flock.New(LockFile(f.dir, f.sim.VPGIdentifier("fast")))
		if err := lock.Lock(); err != nil {
			t.Fatal(err)
		}
		before := f.sim.CountQuery("vms", "vmIdentifier")
		const n = 16
		var wg sync.WaitGroup
		outs := make([]Outcome, n)
		for i := range n {
			wg.Go(func() {
				// A Capturer each, as separate hook processes have.
				c := f.capturer(Options{})
				outs[i] = capture(t, c, 20*time.Second, strings.Repeat(string(rune('a'+i)), 12), "web-01")
			})
		}
		// The calls' lookups come before the lock; the bubble's clock
		// moves on in steps until every call has made its own.
		for deadline := time.Now().Add(10 * time.Second); f.sim.CountQuery("vms", "vmIdentifier")-before < n && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		lock.Unlock()
		wg.Wait()
		for i, out := range outs {
			if out.Kind != Protected {
				t.Errorf("call %d: Kind = %v, want protected", i, out.Kind)
			}
		}
		if got := f.sim.CountInserts(); got != 1 {
			t.Errorf("%d inserts, want 1", got)
		}
	})
}

func TestHungZVMKeepsTheDeadline(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		f.sim.SetFaults(zvmsim.Faults{Hang: true})
		start := time.Now()
		out := capture(t, c, 400*time.Millisecond, "ffffffffffff", "web-01")
		// On the bubble's clock: a capture blind to the deadline hangs
		// until the test ends.
		if elapsed := time.Since(start); elapsed > 400*time.Millisecond+stateGrace {
			t.Errorf("took %v past a 400ms deadline", elapsed)
		}
		if out.Kind != Failed {
			t.Fatalf("Kind = %v, want failed", out.Kind)
		}
		if !zvm.IsTimeout(out.Failures[0].Err) {
			t.Errorf("error %v, want a zvm timeout", out.Failures[0].Err)
		}
	})
}

func TestResolve(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	webID := f.sim.VMIdentifier("web-01")
	tests := []struct {
		target  string
		targets policy.TargetsConfig
		want    string // VM name, "" for unknown
	}{
		{"web-01", policy.TargetsConfig{}, "web-01"},
		{"WEB-01", policy.TargetsConfig{}, "web-01"},
		{webID, policy.TargetsConfig{}, "web-01"},
		{"web-01.lab.local", policy.TargetsConfig{}, ""},
		{"web-01.lab.local", policy.TargetsConfig{StripDomain: true}, "web-01"},
		{"www", policy.TargetsConfig{Aliases: map[string]string{"www": "web-01"}}, "web-01"},
		{"10.0.0.7", policy.TargetsConfig{StripDomain: true}, ""},
		{"nosuch", policy.TargetsConfig{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			c := f.capturer(Options{Targets: tt.targets, ResolveTTL: -1})
			vms, err := c.resolve(context.Background(), map[string]resolution{}, tt.target)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if len(vms) > 0 {
				got = vms[0].Name
			}
			if got != tt.want {
				t.Errorf("resolve(%q) = %q, want %q", tt.target, got, tt.want)
			}
		})
	}
}

func TestResolutionCacheSavesLookups(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		// Lookups by name; the VM's own rows (by identifier) are read on
		// every call, to see it is still in its VPG.
		protectedBy(t, c, "111111111111", "web-01")
		before := f.sim.CountQuery("vms", "vmName")
		if before == 0 {
			t.Fatal("the first call made no VM lookup")
		}
		protectedBy(t, c, "222222222222", "web-01")
		if after := f.sim.CountQuery("vms", "vmName"); after != before {
			t.Errorf("second call made %d VM lookups, want 0", after-before)
		}
	})
}

func TestEstimateCadence(t *testing.T) {
	t.Parallel()
	at := func(secs ...float64) []zvm.Checkpoint {
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		var cps []zvm.Checkpoint
		for _, s := range secs {
			cps = append(cps, zvm.Checkpoint{Time: base.Add(time.Duration(s * float64(time.Second)))})
		}
		return cps
	}
	tests := []struct {
		name string
		cps  []zvm.Checkpoint
		want time.Duration
	}{
		{"none", nil, 0},
		{"one", at(0), 0},
		{"regular", at(0, 5, 10, 15), 5 * time.Second},
		{"unsorted", at(15, 0, 10, 5), 5 * time.Second},
		{"tags on one tick", at(0, 5, 5, 10, 10, 15), 5 * time.Second},
		{"an odd insert", at(0, 630, 1260, 1300, 1890, 2520), 630 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EstimateCadence(tt.cps); got != tt.want {
				t.Errorf("EstimateCadence = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNextTick(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cps := []zvm.Checkpoint{{Time: base}}
	tests := []struct {
		now, want time.Duration
	}{
		{time.Second, 5 * time.Second},
		{5 * time.Second, 10 * time.Second},
		{23 * time.Second, 25 * time.Second},
		{-time.Second, 5 * time.Second}, // the ZVM's clock is ahead
	}
	for _, tt := range tests {
		if got := nextTick(cps, 5*time.Second, base.Add(tt.now)); !got.Equal(base.Add(tt.want)) {
			t.Errorf("now +%v: next tick +%v, want +%v", tt.now, got.Sub(base), tt.want)
		}
	}
}

func TestStateBar(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &vpgState{Since: base.Add(-time.Hour)}
	for _, d := range []time.Duration{1, 5, 9} {
		s.addLetThrough(letThrough{At: base.Add(d * time.Second), Checkpoint: base.Add(d*time.Second + time.Minute)})
	}
	if got := s.bar(base.Add(6 * time.Second)); !got.at.Equal(base.Add(5*time.Second)) || !got.checkpoint.Equal(base.Add(65*time.Second)) {
		t.Errorf("bar = %v/%v, want the let-through at +5s (+65s on the ZVM's clock)", got.at.Sub(base), got.checkpoint.Sub(base))
	}
	if got := s.bar(base); !got.at.IsZero() || !got.checkpoint.IsZero() {
		t.Errorf("bar before any let-through = %+v, want zero", got)
	}
	if b := s.bar(base.Add(6 * time.Second)); b.newer(base.Add(time.Minute)) || !b.newer(base.Add(66*time.Second)) {
		t.Error("a tag must be newer than the bar on both clocks")
	}
	// A call that arrived before the record began knows no let-through
	// before it: its bar is its arrival.
	fresh := &vpgState{Since: base.Add(10 * time.Second)}
	if got := fresh.bar(base.Add(8 * time.Second)); !got.at.Equal(base.Add(8 * time.Second)) {
		t.Errorf("bar of a call older than the record = %v, want its arrival", got.at.Sub(base))
	}
	if got := (&vpgState{}).bar(base); !got.at.Equal(base) {
		t.Errorf("bar with no record = %v, want the arrival", got.at)
	}
}

func TestFailureMessageIsVerbatim(t *testing.T) {
	t.Parallel()
	ze := &zvm.Error{Kind: zvm.KindBadRequest, Status: 400, Message: "Zerto's own words."}
	f := &Failure{Target: "web-01", VPG: "fast", Err: ze}
	if got, want := f.Error(), `web-01 (VPG "fast"): Zerto's own words.`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(f, ze) {
		t.Error("Failure does not unwrap to its cause")
	}
}

func TestTagsAreUnique(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		// The same call protected twice within one second: the second insert
		// must not be satisfied by the first's checkpoint.
		first := capture(t, c, 3*time.Second, "999999999999", "web-01")
		second := capture(t, c, 3*time.Second, "999999999999", "web-01")
		if first.Kind != Protected || second.Kind != Protected {
			t.Fatalf("kinds %v, %v", first.Kind, second.Kind)
		}
		if a, b := first.Points[0], second.Points[0]; a.Tag == b.Tag || a.Identifier == b.Identifier {
			t.Errorf("second call protected by %q (%s), the first by %q (%s): want distinct checkpoints", b.Tag, b.Identifier, a.Tag, a.Identifier)
		}
	})
}

// waitForTag waits until tag is in the VPG's journal, failing the test
// after ten seconds.
func waitForTag(t *testing.T, sim *zvmsim.TestServer, vpg, tag string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		cps, err := sim.Checkpoints(vpg)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(cps, func(cp zvmsim.Checkpoint) bool { return cp.Tag == tag }) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tag %q not in the journal of %s after 10s", tag, vpg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
