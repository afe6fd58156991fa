package capture

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// protectedBy captures targets and fails the test unless the outcome is
// protected; it returns the first point's tag.
func protectedBy(t *testing.T, c *Capturer, id string, targets ...string) string {
	t.Helper()
	out := capture(t, c, 3*time.Second, id, targets...)
	if out.Kind != Protected {
		t.Fatalf("%s: Kind = %v, want protected (%+v)", id, out.Kind, out)
	}
	return out.Points[0].Tag
}

// TestDamagedStateIsNotAnEmptyHistory: a truncated vpg-*.json has lost its
// let-through record, so a tag from before it must not protect the next call.
func TestDamagedStateIsNotAnEmptyHistory(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		first := protectedBy(t, c, "aaaaaaaa0001", "web-01")
		name := filepath.Join(f.dir, fileStem(f.sim.VPGIdentifier("fast"))+".json")
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data[:len(data)/2], 0o600); err != nil {
			t.Fatal(err)
		}
		if next := protectedBy(t, c, "aaaaaaaa0002", "web-01"); next == first {
			t.Errorf("after a damaged state file the next call reused %q, which predates the call let through", first)
		}
		// The file is whole again.
		data, _ = os.ReadFile(name)
		if !json.Valid(data) {
			t.Errorf("state file still damaged: %q", data)
		}
	})
}

// TestDeletedStateReusesNoEarlierTag: an agent that deletes rewind's state
// folder between two calls must not make the second reuse the tag that
// protected the first: the record of the first call let through is gone,
// so no tag from before the second call arrived protects it.
func TestDeletedStateReusesNoEarlierTag(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		first := protectedBy(t, c, "aaaaaaaa0001", "web-01")
		entries, err := os.ReadDir(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(f.dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
		if next := protectedBy(t, c, "aaaaaaaa0002", "web-01"); next == first {
			t.Errorf("after the state was deleted the next call reused %q, which was written before the first call ran", first)
		}
		// The record begins again, with the second call let through.
		st := c.loadState(f.sim.VPGIdentifier("fast"))
		if st.Since.IsZero() || len(st.LetThrough) == 0 {
			t.Errorf("state after the second call: since %v, %d let-throughs; want a beginning and a record", st.Since, len(st.LetThrough))
		}
	})
}

// TestZVMClockAhead: with the ZVM's clock ahead of this machine's, the tag
// that protected a call looks newer than the call's let-through; it still
// must not protect the next call.
func TestZVMClockAhead(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{Now: func() time.Time { return time.Now().Add(-5 * time.Second) }})
		first := protectedBy(t, c, "bbbbbbbb0001", "web-01")
		if next := protectedBy(t, c, "bbbbbbbb0002", "web-01"); next == first {
			t.Errorf("ZVM 5s ahead: the next call reused %q, which predates the call let through", first)
		}
	})
}

// TestAskedCallRecordsLetThrough: an unknown target beside a protected one
// is asked, and the user may let the call run: the protected VPG's tag then
// predates a change and must not protect the next call.
func TestAskedCallRecordsLetThrough(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		out := capture(t, c, 3*time.Second, "cccccccc0001", "web-01", "nosuch")
		if out.Kind != UnknownTarget || len(out.Points) != 1 || out.Points[0].Identifier == "" {
			t.Fatalf("outcome %+v, want unknown target with web-01's checkpoint", out)
		}
		if next := protectedBy(t, c, "cccccccc0002", "web-01"); next == out.Points[0].Tag {
			t.Errorf("next call reused %q, the tag of a call that may have run", next)
		}
	})
}

// TestPendingAskRecordsLetThrough: with hook.pending = "ask" a pending call
// may run now; a tag of another VPG that landed for it must not be reused.
func TestPendingAskRecordsLetThrough(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{PendingMayRun: true})
		out := capture(t, c, 5*time.Second, "dddddddd0001", "web-01", "win2019-1")
		if out.Kind != Pending {
			t.Fatalf("Kind = %v, want pending", out.Kind)
		}
		var landed string
		for _, p := range out.Points {
			if p.Identifier != "" {
				landed = p.Tag
			}
		}
		if landed == "" {
			t.Fatalf("points %+v: want web-01's tag landed beside the pending one", out.Points)
		}
		if next := protectedBy(t, c, "dddddddd0002", "web-01"); next == landed {
			t.Errorf("next call reused %q, the tag of a call that may have run", next)
		}
	})
}

// stripIdentifiers serves the simulator with every CheckpointIdentifier
// removed from checkpoint listings.
func stripIdentifiers(t *testing.T) (*zvmsim.Server, *zvm.Client) {
	t.Helper()
	sc, err := zvmsim.ParseScenario("capture", []byte(testScenario))
	if err != nil {
		t.Fatal(err)
	}
	s := zvmsim.NewServer(sc)
	z := clientOf(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, "/checkpoints") {
			s.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		var cps []map[string]any
		if json.Unmarshal(rec.Body.Bytes(), &cps) != nil {
			w.WriteHeader(rec.Code)
			w.Write(rec.Body.Bytes())
			return
		}
		for _, cp := range cps {
			for k := range cp {
				if strings.EqualFold(k, "CheckpointIdentifier") {
					cp[k] = ""
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(cps)
	}))
	t.Cleanup(s.Close)
	return s, z
}

// TestEmptyIdentifierIsNoRewindPoint: a checkpoint Zerto lists without a
// CheckpointIdentifier cannot be rewound to, landed or reused.
func TestEmptyIdentifierIsNoRewindPoint(t *testing.T) {
	t.Parallel()
	_, z := stripIdentifiers(t)
	c := New(z, Options{StateDir: t.TempDir(), ReuseWithin: 30 * time.Second})
	for _, id := range []string{"eeeeeeee0001", "eeeeeeee0002"} {
		out := capture(t, c, 5*time.Second, id, "web-01")
		if out.Kind == Protected {
			t.Fatalf("%s: protected by %+v, a checkpoint without an identifier", id, out.Points)
		}
		// Failed for the missing identifier, not merely out of time.
		if out.Kind != Failed || !strings.Contains(Message(out.Failures[0].Err), "CheckpointIdentifier") {
			t.Fatalf("%s: outcome %+v, want a failure naming the missing CheckpointIdentifier", id, out)
		}
	}
}

// TestStateFolderUnusable: a state folder that cannot be created costs the
// reuse bookkeeping, not the checkpoint.
func TestStateFolderUnusable(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		file := filepath.Join(f.dir, "not-a-folder")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, dir := range []string{filepath.Join(file, "state"), ""} {
			c := New(f.z, Options{StateDir: dir, ReuseWithin: 30 * time.Second})
			first := protectedBy(t, c, "ffffffff0001", "web-01")
			// Without a record of let-throughs nothing is reused.
			if next := protectedBy(t, c, "ffffffff0002", "web-01"); next == first {
				t.Errorf("state dir %q: next call reused %q", dir, first)
			}
		}
		if m, _ := filepath.Glob("targets*.json"); len(m) > 0 {
			t.Error("an empty StateDir wrote targets.json in the working folder")
		}
	})
}

// TestLockOfAnotherVPGDoesNotBlock: a process stuck holding one VPG's lock
// holds up calls on that VPG only.
func TestLockOfAnotherVPGDoesNotBlock(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		if err := os.MkdirAll(f.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		fl := flock.New(LockFile(f.dir, f.sim.VPGIdentifier("fast")))
		if err := fl.Lock(); err != nil {
			t.Fatal(err)
		}
		defer fl.Unlock()
		c := f.capturer(Options{})
		protectedBy(t, c, "gggggggg0001", "app-01")
		start := time.Now()
		out := capture(t, c, 500*time.Millisecond, "gggggggg0002", "web-01")
		// On the bubble's clock: a wait blind to the deadline lasts as long
		// as the lock is held, until the test ends.
		if el := time.Since(start); el > 500*time.Millisecond+stateGrace {
			t.Errorf("took %v past a 500ms deadline", el)
		}
		if out.Kind != Failed || !strings.Contains(Message(out.Failures[0].Err), "another rewind process") {
			t.Errorf("outcome %+v, want a failure naming the lock holder", out)
		}
	})
}

// TestStateFilePermissions: the state folder is 0700 and its files 0600,
// with no temporary files left behind.
func TestStateFilePermissions(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		f.dir = filepath.Join(f.dir, "state")
		c := f.capturer(Options{})
		protectedBy(t, c, "hhhhhhhh0001", "web-01", "app-01")
		fi, err := os.Stat(f.dir)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o700 {
			t.Errorf("state folder mode %v, want 0700", fi.Mode().Perm())
		}
		n := 0
		filepath.WalkDir(f.dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			n++
			info, _ := d.Info()
			if info.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", d.Name(), info.Mode().Perm())
			}
			if strings.HasSuffix(d.Name(), ".tmp") {
				t.Errorf("temporary file %s left behind", d.Name())
			}
			return nil
		})
		if n < 5 { // two locks, two states, targets.json
			t.Errorf("%d files in the state folder, want 5", n)
		}
	})
}

// TestDamagedTargetsFile: a damaged resolution cache is no cache.
func TestDamagedTargetsFile(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		name := filepath.Join(f.dir, c.resolutionName())
		if err := os.WriteFile(name, []byte(`{"web-01":{"at":"`), 0o600); err != nil {
			t.Fatal(err)
		}
		protectedBy(t, c, "iiiiiiii0001", "web-01")
		data, _ := os.ReadFile(name)
		if !bytes.Contains(data, []byte("web-01")) || !json.Valid(data) {
			t.Errorf("targets.json not rewritten: %q", data)
		}
	})
}

// TestStalePendingOfDeadProcess: a pending tag left by a process that died
// before Zerto accepted it (no such tag will ever land) is waited for no
// longer than it can plausibly take, then replaced.
func TestStalePendingOfDeadProcess(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		protectedBy(t, c, "jjjjjjjj0001", "web-01")
		vpgID := f.sim.VPGIdentifier("fast")
		st := c.loadState(vpgID)
		now := time.Now()
		st.Pending = append(st.Pending, pendingTag{Tag: "rewind-ghost", Task: "no-such-task", Inserted: now.Add(-time.Second), Expected: now.Add(-800 * time.Millisecond)})
		if err := c.saveState(vpgID, st); err != nil {
			t.Fatal(err)
		}
		protectedBy(t, c, "jjjjjjjj0002", "web-01")
	})
}

// TestVMThatLeftItsVPG: the resolution is cached, so a VM that Zerto moved
// to another VPG since is still filed under the old one. A checkpoint of
// that VPG cannot rewind the VM: the call is not protected by it, the
// cache entry is dropped, and the retry protects the VM where it is.
func TestVMThatLeftItsVPG(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFixture(t)
		c := f.capturer(Options{})
		protectedBy(t, c, "aaaaaaaa0001", "web-01")

		// File web-01 under VPG "other", as if Zerto had moved it from there.
		name := filepath.Join(f.dir, c.resolutionName())
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]resolution
		if err := json.Unmarshal(data, &m); err != nil || len(m) == 0 {
			t.Fatalf("resolution cache %s: %v", data, err)
		}
		for k, r := range m {
			for i := range r.VMs {
				r.VMs[i].VPGIdentifier, r.VMs[i].VPGName = f.sim.VPGIdentifier("other"), "other"
			}
			m[k] = r
		}
		if data, err = json.Marshal(m); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, data, 0o600); err != nil {
			t.Fatal(err)
		}
		inserts := f.sim.CountInserts()

		out := capture(t, c, 3*time.Second, "aaaaaaaa0002", "web-01")
		if out.Kind == Protected {
			t.Fatalf("protected by %+v, a checkpoint of a VPG web-01 is not in", out.Points)
		}
		if out.Kind != Failed || len(out.Failures) != 1 || !strings.Contains(out.Failures[0].Error(), "web-01 is no longer in the VPG rewind found it in (other)") {
			t.Errorf("outcome %v %+v, want failed: web-01 left VPG other", out.Kind, out.Failures)
		}
		if got := f.sim.CountInserts(); got != inserts {
			t.Errorf("%d inserts into VPG other, want none", got-inserts)
		}

		out = capture(t, c, 3*time.Second, "aaaaaaaa0003", "web-01")
		if out.Kind != Protected || out.Points[0].VPG != "fast" {
			t.Errorf("retry: %v %+v, want protected on VPG fast", out.Kind, out.Points)
		}
	})
}
