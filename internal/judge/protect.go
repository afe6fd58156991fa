package judge

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// A Protector is the protect step: it gets the checkpoint a protect
// verdict needs and turns what it got into the decision. The hook's own
// step (package hook) asks Zerto through capture; the light hook front
// (package hookfront) hands the call to the full hook instead, so that a
// program that only judges calls does not link a Zerto client.
type Protector interface {
	Protect(ctx context.Context, call *ProtectCall) Protection
}

// ProtectCall is a call with a protect verdict, handed to a Protector
// with what it needs to know about the run.
type ProtectCall struct {
	// Event is the call.
	Event *hostio.Event
	// Verdict is the policy's protect verdict on it.
	Verdict policy.Verdict
	// Config is the config that judged it.
	Config *policy.Config
	// ID is the call's audit ID, which the decision names.
	ID string
	// Options are the run's options.
	Options *Options
	// announce tells the budget watch how to answer if the budget ends
	// first; see OnOverrun.
	announce func(overrun func(ctx context.Context, budget time.Duration) Protection)
}

// Getenv reads the run's environment.
func (c *ProtectCall) Getenv(key string) string {
	r := run{opts: c.Options}
	return r.getenv(key)
}

// Warnf writes a diagnostic to the run's stderr.
func (c *ProtectCall) Warnf(format string, args ...any) {
	r := run{opts: c.Options}
	r.warnf(format, args...)
}

// OnOverrun tells the budget watch how to answer the call if the budget
// ends before Protect returns: overrun gets what remains of the budget as
// ctx and the budget, and returns the answer, which must never let the call
// through unchecked (on_error is for rewind's own failures, not for a
// checkpoint that is late). It may be called once, from Protect, as soon as
// a checkpoint is under way.
func (c *ProtectCall) OnOverrun(overrun func(ctx context.Context, budget time.Duration) Protection) {
	if c.announce != nil {
		c.announce(overrun)
	}
}

// Protection is what a Protector made of a protect call.
type Protection struct {
	// Decision is the answer for the host.
	Decision hostio.Decision
	// Audit is the decision as the audit log names it
	// (audit.DecisionProtected, ...).
	Audit string
	// Checkpoints, ZertoError, ZVMOffsetMS and Error go into the audit
	// record as they are.
	Checkpoints []audit.Checkpoint
	ZertoError  string
	ZVMOffsetMS *int64
	Error       string
	// RetryAfter is, for a pending call, when the agent was told to retry
	// it (audit.Record.RetryAfter).
	RetryAfter time.Time
	// Answer, when set, is the host's answer as another hook process
	// wrote it, having decided and logged the call itself: it is written
	// as it is, and nothing is logged again.
	Answer *hostio.Response
}

// capturing is what the watch in await needs to answer a protect call
// whose checkpoint is still being taken when the budget ends.
type capturing struct {
	overrun func(ctx context.Context, budget time.Duration) Protection
	v       policy.Verdict
	id      string
	ev      *hostio.Event
}

// announce tells the watch that a checkpoint is under way. The channel
// holds every send a run makes (the named config's settings, the event's,
// this), and the watch may have stopped listening: the send never blocks.
func (r *run) announce(c *capturing) {
	select {
	case r.configured <- settings{budget: r.budget, onError: r.onError, capture: c}:
	default:
	}
}

// protect hands a protect verdict to the protect step.
func (r *run) protect(ctx context.Context, v policy.Verdict, cfg *policy.Config) hostio.Decision {
	if r.opts.Protect == nil {
		return r.apply(v, Protection{
			Decision: hostio.Decision{Permission: hostio.Deny,
				Reason: fmt.Sprintf("rewind: no checkpoint for %s: this program takes no checkpoints", strings.Join(v.Targets, ", "))},
			Audit: audit.DecisionDeny,
			Error: "no protect step",
		})
	}
	id := r.callID()
	call := &ProtectCall{Event: r.ev, Verdict: v, Config: cfg, ID: id, Options: r.opts}
	call.announce = func(overrun func(context.Context, time.Duration) Protection) {
		r.announce(&capturing{overrun: overrun, v: v, id: id, ev: r.ev})
	}
	return r.apply(v, r.opts.Protect.Protect(ctx, call))
}

// apply makes p the run's outcome: its record, or the answer relayed.
func (r *run) apply(v policy.Verdict, p Protection) hostio.Decision {
	if p.Answer != nil {
		r.answer = p.Answer
		return p.Decision
	}
	r.record(p.Audit, p.Decision, v)
	r.rec.Checkpoints, r.rec.ZertoError, r.rec.ZVMOffsetMS, r.rec.Error = p.Checkpoints, p.ZertoError, p.ZVMOffsetMS, p.Error
	r.rec.RetryAfter = p.RetryAfter
	return p.Decision
}

// overrun answers a protect call whose checkpoint was not had within the
// budget. It runs on a run of its own (see Run), while the protect step
// may still be at work.
func (r *run) overrun(c *capturing) hostio.Decision {
	// Recording a let-through (for a protected or asked outcome) may take
	// a moment, leaving the log append after it most of what remains.
	ctx, cancel := context.WithTimeout(context.Background(), reserve(r.budget)/8)
	defer cancel()
	d := r.apply(c.v, c.overrun(ctx, r.budget))
	if r.rec != nil && r.rec.Error == "" {
		r.rec.Error = fmt.Sprintf("capture did not return within the budget of %s", r.budget)
	}
	return d
}
