package capture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gofrs/flock"
)

// vpgState is what rewind remembers about one VPG between hook runs, in
// vpg-<id>.json in the state folder.
type vpgState struct {
	VPG string `json:"vpg,omitempty"`
	// Since is when this record began (ZVM time): rewind knows the calls
	// let through on the VPG since then, and nothing of those before. A
	// record that is missing (never kept, or deleted) or damaged begins
	// when it is read, so a call that arrived before that reuses no tag
	// written before it arrived: deleting the state cannot make a tag
	// taken before an earlier call look like a way back from this one.
	Since time.Time `json:"since,omitzero"`
	// LetThrough are the calls on this VPG that rewind let run (or put to
	// the user, who may let them run), newest last: a tag protects a call
	// only if written after every call let through before that call arrived.
	LetThrough []letThrough `json:"let_through,omitempty"`
	// CadenceMS is the journal cadence last estimated, in milliseconds,
	// at CadenceAt (ZVM time).
	CadenceMS int64     `json:"cadence_ms,omitempty"`
	CadenceAt time.Time `json:"cadence_at,omitzero"`
	// Pending are the tags Zerto accepted and has not been seen writing.
	Pending []pendingTag `json:"pending,omitempty"`
	// LastTag is the newest rewind tag seen in the journal.
	LastTag *landedTag `json:"last_tag,omitempty"`
}

// letThrough is one call let through. At is when, in ZVM time (this
// machine's clock plus the measured offset); Checkpoint is the TimeStamp of
// the newest checkpoint that protected the call. Comparing a tag with both
// keeps an error in the offset from making a tag written before the call
// look newer than it.
//
// Every time in the state is the ZVM's: several hosts with clocks of their
// own may share a state folder only through the ZVM's clock.
type letThrough struct {
	At         time.Time `json:"at"`
	Checkpoint time.Time `json:"checkpoint,omitzero"`
}

type pendingTag struct {
	Tag      string    `json:"tag"`
	Task     string    `json:"task,omitempty"`
	Inserted time.Time `json:"inserted"`
	Expected time.Time `json:"expected"`
}

type landedTag struct {
	Tag        string    `json:"tag"`
	Identifier string    `json:"checkpoint"`
	Time       time.Time `json:"time"`
}

// keepLetThrough bounds the let-through history: only the newest one before
// a call's arrival matters, and arrivals are at most a budget apart from now.
const (
	keepLetThrough    = 64
	keepLetThroughAge = 24 * time.Hour
)

func (s *vpgState) cadence() time.Duration { return time.Duration(s.CadenceMS) * time.Millisecond }

// bar is what a tag must be newer than to protect a call: the last call
// let through before the call arrived, on either clock.
type bar struct{ at, checkpoint time.Time }

// newer reports whether checkpoint time t is past the bar.
func (b bar) newer(t time.Time) bool { return t.After(b.at) && t.After(b.checkpoint) }

// bar returns the bar for a call that arrived at arrival. For a call that
// arrived before the record began, the calls let through before it are not
// known: the bar is the call's own arrival.
func (s *vpgState) bar(arrival time.Time) bar {
	var b bar
	if s.Since.IsZero() || !s.Since.Before(arrival) {
		b.at = arrival
	}
	for _, l := range s.LetThrough {
		if l.At.Before(arrival) {
			b.at = later(b.at, l.At)
			b.checkpoint = later(b.checkpoint, l.Checkpoint)
		}
	}
	return b
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (s *vpgState) addLetThrough(l letThrough) {
	s.LetThrough = append(s.LetThrough, l)
	s.LetThrough = slices.DeleteFunc(s.LetThrough, func(o letThrough) bool { return l.At.Sub(o.At) > keepLetThroughAge })
	if n := len(s.LetThrough); n > keepLetThrough {
		s.LetThrough = slices.Delete(s.LetThrough, 0, n-keepLetThrough)
	}
}

func (s *vpgState) hasPending(tag string) bool {
	return slices.ContainsFunc(s.Pending, func(p pendingTag) bool { return p.Tag == tag })
}

func (s *vpgState) dropPending(tag string) {
	s.Pending = slices.DeleteFunc(s.Pending, func(p pendingTag) bool { return p.Tag == tag })
}

// fileStem names a VPG's files. A VPG identifier is a GUID, but whatever a
// ZVM sends must not be able to name a path outside the state folder.
func fileStem(vpgID string) string {
	if vmIDSafe(vpgID) {
		return "vpg-" + vpgID
	}
	sum := sha256.Sum256([]byte(vpgID))
	return "vpg-" + hex.EncodeToString(sum[:8])
}

func vmIDSafe(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// LockFile returns the lock file that serialises rewind processes deciding
// about VPG vpgID in stateDir. Holding it (with github.com/gofrs/flock)
// keeps every hook run from inserting a tag on that VPG.
func LockFile(stateDir, vpgID string) string {
	return filepath.Join(stateDir, fileStem(vpgID)+".lock")
}

// lockPoll is how often a blocked process retries the VPG lock; deciding
// under the lock takes a few requests, so a short retry keeps waiters close.
const lockPoll = 10 * time.Millisecond

// errNoStateDir says that no state folder is configured.
var errNoStateDir = errors.New("no state folder")

// lockVPG takes the VPG's lock, waiting no longer than ctx allows.
func (c *Capturer) lockVPG(ctx context.Context, vpgID string) (*flock.Flock, error) {
	if c.o.StateDir == "" {
		return nil, errNoStateDir
	}
	if err := os.MkdirAll(c.o.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("creating state folder: %w", err)
	}
	name := LockFile(c.o.StateDir, vpgID)
	fl := flock.New(name, flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, lockPoll)
	if err != nil || !ok {
		if ctxErr := ctx.Err(); ctxErr != nil {
			// A process that never lets go (stopped, or hung on a network
			// file system) is found by this name: fuser, lsof.
			return nil, fmt.Errorf("waiting for another rewind process deciding about this VPG (lock %s): %w", name, ctxErr)
		}
		return nil, fmt.Errorf("locking VPG state: %w", err)
	}
	return fl, nil
}

// loadState reads a VPG's state. A missing file (a VPG never seen, or a
// state folder someone emptied) or a damaged one has no record of the calls
// let through, which a tag must be newer than: its record begins now (see
// vpgState.Since), so that no tag from before the call is reused.
func (c *Capturer) loadState(vpgID string) *vpgState {
	s := &vpgState{}
	name := filepath.Join(c.o.StateDir, fileStem(vpgID)+".json")
	data, err := os.ReadFile(name)
	if err != nil || json.Unmarshal(data, s) != nil {
		*s = vpgState{}
	}
	if s.Since.IsZero() {
		// A record of an earlier rewind, which kept no beginning, is
		// known from now on.
		s.Since = c.zvmTime(c.o.Now())
	}
	return s
}

func (c *Capturer) saveState(vpgID string, s *vpgState) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(c.o.StateDir, fileStem(vpgID)+".json", data)
}

// letThrough records that a call protected by p may run from now on.
func (c *Capturer) letThrough(ctx context.Context, p Point, now time.Time) error {
	// The record must not be lost to a deadline that just passed, since it
	// keeps a later call from reusing a tag older than this one.
	ctx, cancel := graceContext(ctx)
	defer cancel()
	return c.recordLetThrough(ctx, p, now)
}

// logLost logs a let-through of p that could not be recorded: a later
// call on its VPG may then be protected by p's checkpoint, older than what
// this call changes. Without a state folder nothing is recorded, as the
// caller was told.
func (c *Capturer) logLost(p Point, err error) {
	if err != nil && !errors.Is(err, errNoStateDir) {
		c.o.Logger.Warn("a call let through is not recorded, so a later call may reuse its older checkpoint", "vpg", p.VPG, "err", err)
	}
}

// recordLetThrough is letThrough within ctx as it is, for a caller whose
// own answer is due (Progress.Overrun).
func (c *Capturer) recordLetThrough(ctx context.Context, p Point, now time.Time) error {
	fl, err := c.lockVPG(ctx, p.VPGIdentifier)
	if err != nil {
		return err
	}
	defer fl.Unlock()
	s := c.loadState(p.VPGIdentifier)
	s.addLetThrough(letThrough{At: now, Checkpoint: p.Time})
	return c.saveState(p.VPGIdentifier, s)
}

// stateGrace is how long a state update may take past the capture's
// deadline: a record of what happened is worth a moment, not the hook's
// answer.
const stateGrace = 200 * time.Millisecond

// graceContext is ctx, uncancelled, with a deadline no earlier than
// stateGrace from now.
func graceContext(ctx context.Context) (context.Context, context.CancelFunc) {
	deadline := time.Now().Add(stateGrace)
	if d, ok := ctx.Deadline(); ok && d.After(deadline) {
		deadline = d
	}
	return context.WithDeadline(context.WithoutCancel(ctx), deadline)
}

// writeFile replaces dir/name with data by atomic rename, so a reader in
// another process never sees half a file.
func writeFile(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
