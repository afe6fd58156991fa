package hook

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// A Protector is the protect step: it gets the checkpoints a protect
// verdict needs and says what it got. The decision is not its to make:
// the decision table turns the Outcome into the answer (see
// docs/decision-table.md).
//
// The step is handed in, never imported, so that this package links no
// Zerto client: package hook/zerto's step asks Zerto through capture, for
// rewind hook and the MCP server; the light front (rewind-hook) uses
// Relay, which hands the call to rewind hook.
type Protector interface {
	Protect(ctx context.Context, call *Call) Outcome
}

// Call is a call with a protect verdict, handed to a Protector.
type Call struct {
	// Event is the call.
	Event *hostio.Event
	// Verdict is the policy's protect verdict on it.
	Verdict policy.Verdict
	// Config is the config that judged it.
	Config *policy.Config
	// ID is the call's audit ID, which the decision names.
	ID string
	// Advice marks a call that is checked, not made (see Options.Advice).
	Advice bool
	// Getenv reads the run's environment.
	Getenv func(string) string
	// Logger receives the step's diagnostics; it is never nil.
	Logger *slog.Logger
	// OnOverrun tells the budget's watch what to answer if the budget
	// ends before Protect returns: overrun gets what is left for it as
	// ctx and returns the Outcome so far. Whatever it returns, the call is
	// never let through unchecked under hook.on_error, which is for
	// rewind's own failures, not for a checkpoint that is late. Protect
	// calls it once, as soon as a checkpoint is under way, from its own
	// goroutine; overrun runs on another while Protect may still be at
	// work.
	OnOverrun func(overrun func(ctx context.Context) Outcome)
}

// Kind is the kind of an Outcome: which of the decision table's protect
// rows applies.
type Kind int

// The kinds of Outcome.
const (
	// Failed: no checkpoint could be had (Zerto refused, the task failed,
	// the ZVM cannot be reached, the settings are unusable). Denied.
	Failed Kind = iota
	// Protected: every VPG has a checkpoint that landed. Let through, with
	// the checkpoint named.
	Protected
	// Pending: Zerto accepted every VPG's tag but writes it after the
	// budget. Denied (or asked, hook.pending), to be retried.
	Pending
	// UnknownTarget: a target is not a VM Zerto protects, or the rule found
	// no target. Asked: nothing to rewind to.
	UnknownTarget
	// NotConfigured: no Zerto is configured. Asked: nothing to rewind to.
	NotConfigured
	// Relayed: another hook process decided, logged and answered the call;
	// its answer (Outcome.Answer) is passed on as it is.
	Relayed
)

var kindNames = [...]string{Failed: "failed", Protected: "protected", Pending: "pending",
	UnknownTarget: "unknown target", NotConfigured: "not configured", Relayed: "relayed"}

// String returns the kind's name.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Outcome is what a Protector got for a call. The zero Outcome is Failed:
// a step that says nothing has no checkpoint to show, and the call is
// denied.
type Outcome struct {
	Kind Kind
	// Points are the checkpoints, one per VPG, landed or pending.
	Points []Point
	// Unknown are the targets Zerto does not know.
	Unknown []string
	// Failures say, one each, why a target or a VPG got no checkpoint:
	// the target, the VPG and Zerto's own message or the transport error,
	// as in `web-01 (VPG "prod"): the VRA is not responding`.
	Failures []string
	// ZertoError is Zerto's own messages among the failures, for the
	// audit record.
	ZertoError string
	// Hint says how a person fixes the failure, if anything can be fixed
	// (see zvm.Hint).
	Hint string
	// Notes are what a person should know beside the outcome, such as a
	// name that matched several VMs.
	Notes []string
	// RetryWithin is, for a pending outcome, how long after the last tag is
	// expected a retry still finds it (see capture.PendingReuseWindow).
	RetryWithin time.Duration
	// ZVMOffset is how far the ZVM's clock was ahead of this machine's,
	// when OffsetKnown.
	ZVMOffset   time.Duration
	OffsetKnown bool
	// Error goes into the audit record: what went wrong, for a person
	// reading the log.
	Error string
	// Answer is, for a Relayed outcome, the host's answer as the other
	// hook process wrote it.
	Answer *hostio.Response
}

// Point is the checkpoint of one VPG: landed (Identifier set), or
// accepted but not yet written (Expected set).
type Point struct {
	VPG, VPGIdentifier string
	// VMs are the call's targets in this VPG.
	VMs []VM
	// Tag is the checkpoint's name, as Zerto's console shows it.
	Tag string
	// Identifier is the CheckpointIdentifier, once the tag landed.
	Identifier string
	// Time is the checkpoint's time in the journal, on the ZVM's clock.
	Time time.Time
	// Expected is when a pending tag should land, on this machine's clock.
	Expected time.Time
	// Cadence is the VPG's journal cadence as estimated.
	Cadence time.Duration
}

// VM is a target resolved to a Zerto VM.
type VM struct {
	Name, Identifier string
}
