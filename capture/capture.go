package capture

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// DefaultResolveTTL is how long a target's resolution to VMs and VPGs is
// reused from the state folder before Zerto is asked again.
const DefaultResolveTTL = 10 * time.Minute

// DefaultMissTTL is how long a target Zerto does not know is remembered as
// such: long enough that an agent working on an unprotected host does not
// list every VM on every call, short enough that a VM protected meanwhile
// is soon found.
const DefaultMissTTL = time.Minute

// Options configure a Capturer.
type Options struct {
	// StateDir is the folder for the per-VPG state, the lock files and the
	// resolution cache (see dirs.State). It is created, mode 0700, when
	// first written.
	StateDir string
	// TagPrefix starts every tag rewind writes (hook.tag_prefix).
	TagPrefix string
	// ReuseWithin is how old a rewind tag may be and still protect a call
	// (capture.reuse_within).
	ReuseWithin time.Duration
	// Targets maps host names written in commands to Zerto VM names.
	Targets policy.TargetsConfig
	// PendingMayRun says that a pending outcome is asked, not denied
	// (hook.pending = "ask"), so the call may run before its tag lands.
	PendingMayRun bool
	// ResolveTTL is how long a resolution is cached; DefaultResolveTTL when
	// zero, no caching when negative.
	ResolveTTL time.Duration
	// MissTTL is how long a target Zerto does not know is remembered as
	// unknown; DefaultMissTTL when zero, not at all when negative.
	MissTTL time.Duration
	// Now is this machine's clock; time.Now when nil. Capture adds the
	// ZVM's offset (zvm.Client.Offset) before comparing with Zerto's times.
	Now func() time.Time
	// Progress, when set, follows the Capture, so that a caller can answer
	// from it when its own deadline passes first (see Progress.Overrun).
	Progress *Progress
	// Logger hears of what Capture could not do and went on without (a
	// let-through that could not be recorded); nil discards it.
	Logger *slog.Logger
}

// Capturer takes checkpoints through one ZVM client. It is safe for
// concurrent use, and several processes may use the same StateDir at once.
type Capturer struct {
	z *zvm.Client
	o Options

	mu   sync.Mutex    // guards lead
	lead time.Duration // see sawJournal
}

// New returns a Capturer that talks to Zerto through z.
func New(z *zvm.Client, o Options) *Capturer {
	if o.TagPrefix == "" {
		o.TagPrefix = policy.DefaultTagPrefix
	}
	if o.ResolveTTL == 0 {
		o.ResolveTTL = DefaultResolveTTL
	}
	if o.MissTTL == 0 {
		o.MissTTL = DefaultMissTTL
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Capturer{z: z, o: o}
}

// Request is one protected tool call.
type Request struct {
	// Targets are the VM or host names the call changes, as written in it.
	Targets []string
	// CallID identifies the call (the audit ID); its first 8 characters end
	// the tag, so a person can tell which call a checkpoint belongs to.
	CallID string
	// Advice says the call is checked, not made (rewind's MCP server): the
	// checkpoint is taken, but the call is not recorded as let through, so
	// that the checkpoint protects the call when it is made.
	Advice bool
}

// Kind is the row of the decision table an Outcome selects.
type Kind int

// The kinds of outcome, ordered so that several combine to the largest:
// Failed > UnknownTarget > Pending > Protected.
const (
	Protected     Kind = iota + 1 // every VPG has a confirmed checkpoint
	Pending                       // Zerto took a tag it writes after the deadline
	UnknownTarget                 // a target is not a VM Zerto protects
	Failed                        // a checkpoint could not be had
)

var kindNames = [...]string{Protected: "protected", Pending: "pending", UnknownTarget: "unknown target", Failed: "failed"}

// String returns the kind's name.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// VM is a target resolved to a Zerto VM.
type VM struct {
	// Target is the name as written in the call.
	Target string
	// Name and Identifier are Zerto's VmName and VmIdentifier.
	Name, Identifier string
}

// Point is the checkpoint of one VPG: landed for a protected outcome, or
// accepted but not yet written (Identifier empty, Expected set) for a
// pending one.
type Point struct {
	VPG, VPGIdentifier string
	// VMs are the call's targets in this VPG.
	VMs []VM
	// Tag is the checkpoint's name, as Zerto's console shows it.
	Tag string
	// Identifier is the CheckpointIdentifier, once the tag landed.
	Identifier string
	// Time is the checkpoint's TimeStamp in the journal, once landed: the
	// ZVM's clock, as Zerto's console shows it.
	Time time.Time
	// Expected is when a pending tag should land, on this machine's clock
	// (the one an agent retries by), whatever the ZVM's clock says.
	Expected time.Time
	// Cadence is the VPG's journal cadence as estimated.
	Cadence time.Duration
	// Reused is set when the tag was written for an earlier call.
	Reused bool
}

// Failure is why one VPG, or one target, got no checkpoint.
type Failure struct {
	// Target is the name as written in the call.
	Target string
	// VPG names the VPG, when the target was resolved.
	VPG string
	// Err is the cause: a *zvm.Error, a *VPGStateError, or a context error.
	Err error
}

// Error returns the target, the VPG and the cause's message.
func (f *Failure) Error() string {
	s := f.Target
	if f.VPG != "" {
		s += fmt.Sprintf(" (VPG %q)", f.VPG)
	}
	return s + ": " + Message(f.Err)
}

// Unwrap returns the cause.
func (f *Failure) Unwrap() error { return f.Err }

// Message is the text to show for err: Zerto's own message verbatim when
// Zerto gave one, else the error itself (a transport or TLS failure).
func Message(err error) string {
	var ze *zvm.Error
	if errors.As(err, &ze) && ze.Message != "" {
		return ze.Message
	}
	return err.Error()
}

// VPGStateError reports a VPG that cannot take a checkpoint now: paused,
// failing over, initialising, syncing...
type VPGStateError struct {
	VPG       string
	Status    zvm.VPGStatus
	SubStatus zvm.VPGSubStatus
	Reason    string // as zvm.VPG.CanCheckpoint words it
}

func (e *VPGStateError) Error() string { return e.Reason }

// Outcome is the result of Capture.
type Outcome struct {
	// Kind selects the decision table's row.
	Kind Kind
	// Points are the checkpoints, one per VPG, landed or pending.
	Points []Point
	// Unknown are the targets Zerto does not know.
	Unknown []string
	// Failures say why checkpoints could not be had.
	Failures []Failure
	// Notes are what a person should know beside the outcome, such as a
	// name that matched several VMs (all of which were protected).
	Notes []string
	// ZVMOffset is how far the ZVM's clock was ahead of this machine's
	// (negative: behind), when OffsetKnown: Zerto's times were compared
	// in ZVM time.
	ZVMOffset   time.Duration
	OffsetKnown bool
}

// Capture finds or takes a checkpoint for every VPG that req's targets
// belong to, within ctx's deadline; VPGs are handled in parallel. It always
// returns an Outcome: errors are Failures, and a deadline that is too short
// for the tag is Pending, not an error. A call with no targets is
// UnknownTarget, since a checkpoint of nothing protects nothing.
func (c *Capturer) Capture(ctx context.Context, req Request) Outcome {
	// Arrival is on this machine's clock: the ZVM's offset is known only
	// after the first request. protect converts it.
	start := c.o.Now()
	c.o.Progress.start(c, req.Targets)
	callID := req.CallID
	if callID == "" {
		var b [4]byte
		rand.Read(b[:])
		callID = hex.EncodeToString(b[:])
	}

	groups, unknown, failures, notes := c.resolveAll(ctx, req.Targets)
	c.o.Progress.resolvedTo(groups, unknown, failures)
	var out Outcome
	out.Unknown, out.Failures, out.Notes = unknown, failures, notes

	results := make([]result, len(groups))
	var wg sync.WaitGroup
	for i, g := range groups {
		wg.Go(func() { results[i] = c.protect(ctx, start, g, callID) })
	}
	wg.Wait()

	for _, r := range results {
		switch r.kind {
		case Failed:
			out.Failures = append(out.Failures, Failure{Target: targetsOf(r.point.VMs), VPG: r.point.VPG, Err: r.err})
		case UnknownTarget:
			for _, vm := range r.point.VMs {
				out.Unknown = append(out.Unknown, vm.Target)
			}
		default:
			out.Points = append(out.Points, r.point)
		}
		out.Kind = max(out.Kind, r.kind)
	}
	switch {
	case len(out.Failures) > 0:
		out.Kind = Failed
	case len(out.Unknown) > 0 || len(req.Targets) == 0:
		out.Kind = UnknownTarget
	}
	if c.mayRun(out.Kind) && !req.Advice {
		// The call may run from here on: later calls need a tag newer than
		// now. A record lost (the lock not had within its grace, a state
		// folder that cannot be written) is not retried: the hook's answer
		// comes first.
		now := c.zNow()
		for _, p := range out.Points {
			c.logLost(p, c.letThrough(ctx, p, now))
		}
	}
	out.ZVMOffset, out.OffsetKnown = c.z.Offset()
	c.o.Progress.finish(out)
	return out
}

// mayRun reports whether the call may run after an outcome of kind k: when
// protected, when asked about an unknown target (the user may say yes), and
// when pending is asked rather than denied. A checkpoint that landed for
// such a call predates what the call changes, so it must not protect the
// next call.
func (c *Capturer) mayRun(k Kind) bool {
	return k == Protected || k == UnknownTarget || k == Pending && c.o.PendingMayRun
}

// result is one VPG's part of an Outcome.
type result struct {
	kind  Kind
	point Point
	err   error
}

func targetsOf(vms []VM) string {
	var ts []string
	for _, vm := range vms {
		if !slices.Contains(ts, vm.Target) {
			ts = append(ts, vm.Target)
		}
	}
	return strings.Join(ts, ", ")
}

// tagName returns the tag for a call: <prefix>-<UTC time>-<short call id>.
func (c *Capturer) tagName(now time.Time, callID string) string {
	short := callID
	if len(short) > 8 {
		short = short[:8]
	}
	return c.o.TagPrefix + "-" + now.UTC().Format("20060102T150405Z") + "-" + short
}

// isRewindTag reports whether tag is one rewind wrote with this prefix.
func (c *Capturer) isRewindTag(tag string) bool {
	return strings.HasPrefix(tag, c.o.TagPrefix+"-")
}
