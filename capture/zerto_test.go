package capture

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// strictScenario is testScenario with a [strict] table, and more VPGs.
func strictScenario(strict string) string {
	return testScenario + `
[[vpg]]
name = "second"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
history = "10s"
vms = ["shared-01", "dup-01"]

[[vpg]]
name = "third"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "150ms"
history = "10s"
vms = ["shared-01"]

[[vpg]]
name = "aws-dup"
protected_site = "AWS"
recovery_site = "HQ"
status = "MeetingSLA"
cadence = "200ms"
history = "10s"
vms = ["dup-01"]

[[vpg]]
name = "onesec"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "1s"
history = "20s"
vms = ["sec-01"]

[[vpg]]
name = "tickfail"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
history = "10s"
vms = ["tick-01"]
insert_tick_failure = "Failed to write the tagged checkpoint: the journal is full"

[[vpg]]
name = "slowfail"
protected_site = "HQ"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "2s"
history = "1m"
vms = ["slowfail-01"]
insert_tick_failure = "Failed to write the tagged checkpoint: the journal is full"

[[vpg]]
name = "syncing"
protected_site = "HQ"
recovery_site = "DR"
status = "NotMeetingSLA"
substatus = "BitmapSync"
cadence = "200ms"
history = "10s"
vms = ["sync-01"]

[strict]
` + strict
}

func newStrictFixture(t testing.TB, strict string) *fixture {
	t.Helper()
	sc, err := zvmsim.ParseScenario("strict", []byte(strictScenario(strict)))
	if err != nil {
		t.Fatal(err)
	}
	return simFixture(t, sc)
}

// TestZVMClockOffsets: with the ZVM's clock minutes or an hour off this
// machine's, a call is protected by the one tag it inserted, on a 200 ms
// and a 1 s journal, without a false pending; the next call gets a tag of
// its own, and the offset is measured.
func TestZVMClockOffsets(t *testing.T) {
	t.Parallel()
	for _, off := range []time.Duration{-2 * time.Minute, 2 * time.Minute, -time.Hour, time.Hour} {
		t.Run(off.String(), func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := newStrictFixture(t, fmt.Sprintf("clock_offset = %q\n", off))
				c := f.capturer(Options{})
				for i, target := range []string{"web-01", "sec-01", "web-01", "sec-01"} {
					before, reqs := f.sim.CountInserts(), len(f.sim.Requests())
					out := capture(t, c, 4*time.Second, fmt.Sprintf("0ff5e7%02d0000", i), target)
					// Warm calls: VPG, listing, insert, task (on the 1 s
					// journal, whose tick is more than earlyLook away), listing.
					// A clock mistaken costs listings that miss the tag.
					if n := len(f.sim.Requests()) - reqs; i >= 2 && n > 5 {
						t.Errorf("call %d on %s: %d requests, want at most 5", i, target, n)
					}
					if out.Kind != Protected {
						t.Fatalf("call %d on %s: Kind = %v, want protected (%+v)", i, target, out.Kind, out)
					}
					if n := f.sim.CountInserts() - before; n != 1 {
						t.Errorf("call %d on %s: %d inserts, want 1", i, target, n)
					}
					if !out.OffsetKnown || (out.ZVMOffset-off).Abs() > time.Second {
						t.Errorf("offset %v (known %v), want ~%v", out.ZVMOffset, out.OffsetKnown, off)
					}
					if d := out.Points[0].Time.Sub(time.Now().Add(off)).Abs(); d > 5*time.Second {
						t.Errorf("checkpoint time %v is %v from the ZVM's now", out.Points[0].Time, d)
					}
				}
			})
		})
	}
}

// TestZVMClockOffsetPendingRetry: a pending tag on a slow journal is
// expected within one cadence on this machine's clock, whatever the
// ZVM's, and its retry reuses it once it landed.
func TestZVMClockOffsetPendingRetry(t *testing.T) {
	t.Parallel()
	for _, off := range []time.Duration{-2 * time.Minute, time.Hour} {
		t.Run(off.String(), func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := newStrictFixture(t, fmt.Sprintf("clock_offset = %q\n", off))
				c := f.capturer(Options{})
				first := capture(t, c, 2*time.Second, "5e7f00000001", "win2019-1")
				if first.Kind != Pending {
					t.Fatalf("Kind = %v, want pending", first.Kind)
				}
				if until := time.Until(first.Points[0].Expected); until < 0 || until > 631*time.Second {
					t.Errorf("expected in %v on this machine's clock, want within one cadence", until)
				}
				if _, err := f.sim.WriteCheckpoint("aws"); err != nil {
					t.Fatal(err)
				}
				retry := capture(t, c, 2*time.Second, "5e7f00000001", "win2019-1")
				if retry.Kind != Protected || retry.Points[0].Tag != first.Points[0].Tag {
					t.Fatalf("retry: %v on %q, want protected by %q", retry.Kind, retry.Points[0].Tag, first.Points[0].Tag)
				}
				if n := f.sim.CountInserts(); n != 1 {
					t.Errorf("%d inserts, want 1", n)
				}
			})
		})
	}
}

// TestStrictZerto runs the decision-table rows against a ZVM with every
// strict behaviour on.
func TestStrictZerto(t *testing.T) {
	t.Parallel()
	all := `clock_offset = "-2m"
no_client_credentials_refresh = true
unknown_identifier_400 = true
require_json_content_type = true
completed_task_401 = true
`
	tests := []struct {
		name    string
		strict  string
		targets []string
		kind    Kind
		message string // part of the first failure's message
		points  int
		note    string // part of a note
	}{
		{"protected", all, []string{"web-01"}, Protected, "", 1, ""},
		{"one VM in two VPGs by name", all, []string{"shared-01"}, Protected, "", 2, ""},
		{"one VM in two VPGs by identifier", all, []string{"@shared-01"}, Protected, "", 2, ""},
		{"ambiguous name protects every VM", all, []string{"dup-01"}, Protected, "", 2, "is ambiguous: it names 2 VMs"},
		{"unknown identifier is unknown", all, []string{"19b92f66-98f3-5fe4-853e-1da2bca16992.vm-999"}, UnknownTarget, "", 0, ""},
		{"insert failing at the tick", all, []string{"tick-01"}, Failed, "the journal is full", 0, ""},
		{"insert failing at a slow tick", all, []string{"slowfail-01"}, Failed, "the journal is full", 0, ""},
		{"syncing VPG is Zerto's to judge", all, []string{"sync-01"}, Protected, "", 1, ""},
		{"paused VPG is refused", all, []string{"paused-01"}, Failed, "replication is paused", 0, ""},
		{"tags at once on a slow journal", all + "tags_at_once = true\n", []string{"win2019-1"}, Protected, "", 1, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := newStrictFixture(t, tt.strict)
				c := f.capturer(Options{})
				for j, target := range tt.targets {
					if name, ok := strings.CutPrefix(target, "@"); ok {
						tt.targets[j] = f.sim.VMIdentifier(name)
					}
				}
				tokens := f.sim.CountTokens()
				start := time.Now()
				out := capture(t, c, 5*time.Second, fmt.Sprintf("%08x5555", i), tt.targets...)
				if out.Kind != tt.kind {
					t.Fatalf("Kind = %v, want %v (%+v)", out.Kind, tt.kind, out)
				}
				// On the bubble's clock: the 200 ms journals' tags land
				// at their next tick.
				if tt.kind == Protected && time.Since(start) > time.Second {
					t.Errorf("protected after %v: the tag was not seen when written", time.Since(start))
				}
				if len(out.Points) != tt.points && tt.kind == Protected {
					t.Errorf("%d points, want %d: %+v", len(out.Points), tt.points, out.Points)
				}
				if tt.message != "" {
					if len(out.Failures) == 0 || !strings.Contains(Message(out.Failures[0].Err), tt.message) {
						t.Errorf("failures %v, want one carrying %q", out.Failures, tt.message)
					}
				}
				if tt.note != "" && !strings.Contains(strings.Join(out.Notes, "; "), tt.note) {
					t.Errorf("notes %q, want %q", out.Notes, tt.note)
				}
				if tt.note == "" && len(out.Notes) > 0 {
					t.Errorf("notes %q, want none", out.Notes)
				}
				if n := f.sim.CountTokens() - tokens; n > 1 {
					t.Errorf("%d tokens for one call, want at most the first login", n)
				}
			})
		})
	}
}

// TestTagsAtOnceAreSeenAtOnce: a ZVM that writes a tag the moment it
// accepts it, on a journal whose next tick is far, protects the call in a
// few requests instead of waiting for the tick or answering pending.
func TestTagsAtOnceAreSeenAtOnce(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newStrictFixture(t, "tags_at_once = true\n")
		c := f.capturer(Options{})
		capture(t, c, 5*time.Second, "a70aceaa0000", "web-01") // warm the caches
		reqs := len(f.sim.Requests())
		out := capture(t, c, 150*time.Second, "a70aceaa0001", "win2019-1")
		if out.Kind != Protected {
			t.Fatalf("Kind = %v, want protected", out.Kind)
		}
		// VM lookup, VPG, listing, insert, task, listing.
		if n := len(f.sim.Requests()) - reqs; n > 6 {
			t.Errorf("%d requests, want at most 6", n)
		}
	})
}

// TestCompletedTaskListedOnlyWithoutFilter: a task Zerto reports completed
// whose tag a time-filtered listing does not show is listed again with a
// day-wide filter before anything is concluded.
func TestCompletedTaskListedOnlyWithoutFilter(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		sc, err := zvmsim.ParseScenario("capture", []byte(testScenario))
		if err != nil {
			t.Fatal(err)
		}
		s := zvmsim.NewServer(sc)
		z := clientOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start, err := time.Parse(time.RFC3339Nano, r.URL.Query().Get("startDate"))
			if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/checkpoints") || err != nil || start.Before(time.Now().Add(-time.Hour)) {
				s.ServeHTTP(w, r)
				return
			}
			// A listing filtered from the last minutes (as by a clock off
			// by as much) hides the tags; one from a day back shows them.
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, r)
			var cps []map[string]any
			json.Unmarshal(rec.Body.Bytes(), &cps)
			kept := []map[string]any{}
			for _, cp := range cps {
				if cp["Tag"] == nil {
					kept = append(kept, cp)
				}
			}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(kept)
		}))
		t.Cleanup(s.Close)
		c := New(z, Options{StateDir: t.TempDir(), ReuseWithin: 30 * time.Second})
		out := capture(t, c, 4*time.Second, "f117e4000001", "web-01")
		if out.Kind != Protected || out.Points[0].Identifier == "" {
			t.Fatalf("outcome %+v, want protected through the unfiltered listing", out)
		}
	})
}

// TestMissesAreCachedBriefly: an unknown name lists every VM once, not on
// every call, and is looked up again after MissTTL.
func TestMissesAreCachedBriefly(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		now := time.Now()
		clock := func() time.Time { return now }
		c := f.capturer(Options{Now: clock})
		capture(t, c, 3*time.Second, "m1550000001", "nosuch")
		before := f.sim.Count("vms")
		if out := capture(t, c, 3*time.Second, "m1550000002", "nosuch"); out.Kind != UnknownTarget {
			t.Fatalf("Kind = %v, want unknown target", out.Kind)
		}
		if n := f.sim.Count("vms") - before; n != 0 {
			t.Errorf("a known miss made %d VM lookups, want 0", n)
		}
		now = now.Add(DefaultMissTTL + time.Second)
		capture(t, c, 3*time.Second, "m1550000003", "nosuch")
		if n := f.sim.Count("vms") - before; n == 0 {
			t.Error("a miss older than MissTTL was not looked up again")
		}
	})
}

// TestResolutionCachePerZVM: two ZVMs sharing a state folder do not see
// each other's resolutions.
func TestResolutionCachePerZVM(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		a := newFixture(t)
		b := newStrictFixture(t, "")
		dir := t.TempDir()
		ca := New(a.z, Options{StateDir: dir})
		cb := New(b.z, Options{StateDir: dir})
		if out := capture(t, ca, 3*time.Second, "c0c0a0000001", "web-01"); out.Kind != Protected {
			t.Fatalf("ZVM a: %v", out.Kind)
		}
		out := capture(t, cb, 3*time.Second, "c0c0b0000001", "web-01")
		if out.Kind != Protected {
			t.Fatalf("ZVM b: %v", out.Kind)
		}
		if got, want := out.Points[0].VMs[0].Identifier, b.sim.VMIdentifier("web-01"); got != want {
			t.Errorf("ZVM b resolved web-01 to %s, want its own %s", got, want)
		}
		if b.sim.Count("vms") == 0 {
			t.Error("ZVM b was never asked: it used ZVM a's resolution")
		}
	})
}

// TestWrongBaseURLIsNoUnknownVM: a 404 that is not the ZVM API's (an HTML
// page from a web server in front of it) is a failure naming the URL,
// never "not a VM Zerto protects".
func TestWrongBaseURLIsNoUnknownVM(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		// A web server in front of the ZVM, which answers some of the
		// API's paths with a page of its own.
		z := clientOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/v1/vpgs/") {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, "<html><body><h1>404 Not Found</h1></body></html>")
				return
			}
			f.sim.ServeHTTP(w, r)
		}))
		c := New(z, Options{StateDir: t.TempDir()})
		out := capture(t, c, 3*time.Second, "b0b0b0b00001", "web-01")
		if out.Kind != Failed || zvm.KindOf(out.Failures[0].Err) != zvm.KindNotZerto {
			t.Fatalf("outcome %+v, want a failure of kind not-Zerto", out)
		}
		if !strings.Contains(out.Failures[0].Error(), "zerto.url") {
			t.Errorf("failure %q does not point at zerto.url", out.Failures[0].Error())
		}
	})
}
