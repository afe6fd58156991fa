package hook

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// capturing is what the watch in await needs to answer a protect call
// whose capture is still running when the budget ends: such a call is
// never let through unchecked under on_error, which is for rewind's own
// failures. It is answered from the capture's progress instead: pending
// when Zerto accepted a tag for every VPG, protected when every tag
// landed, else deny.
type capturing struct {
	progress *capture.Progress
	v        policy.Verdict
	cfg      *policy.Config
	id       string
	ev       *hostio.Event
}

// afterCapture runs when Capture has returned; tests make it outlast the
// budget, as a capture stuck on a hung state folder would.
var afterCapture = func(context.Context) {}

// announce tells the watch that capture is under way. The channel holds
// every send a run makes (the named config's settings, the event's, this),
// and the watch may have stopped listening: the send never blocks.
func (r *run) announce(c *capturing) {
	select {
	case r.configured <- settings{budget: r.budget, onError: r.onError, capture: c}:
	default:
	}
}

// overrun answers a protect call whose capture did not return within the
// budget. It runs on a run of its own (see Run), while the capture may
// still be at work.
func (r *run) overrun(c *capturing) hostio.Decision {
	// Recording a let-through (for a protected or asked outcome) may take
	// a moment, leaving the log append after it most of what remains.
	ctx, cancel := context.WithTimeout(context.Background(), reserve(r.budget)/8)
	defer cancel()
	out := c.progress.Overrun(ctx, r.budget)
	var (
		d        hostio.Decision
		decision string
	)
	switch out.Kind {
	case capture.Protected:
		d = hostio.Decision{Context: protectedContext(out.Points, c.id)}
		decision = audit.DecisionProtected
	case capture.Pending:
		d = pendingDecision(out.Points, c.cfg)
		decision = audit.DecisionPending
	case capture.UnknownTarget:
		d = hostio.Decision{Permission: hostio.Ask, Reason: unknownReason(out.Unknown, c.v)}
		decision = audit.DecisionAsk
	default:
		d = hostio.Decision{Permission: hostio.Deny, Reason: failedReason(out.Failures)}
		decision = audit.DecisionDeny
	}
	d = withNotes(d, out.Notes)
	r.record(decision, d, c.v)
	r.rec.Checkpoints = auditCheckpoints(out.Points)
	r.rec.Error = fmt.Sprintf("capture did not return within the budget of %s", r.budget)
	setOffset(r.rec, out)
	return d
}

// withNotes adds the capture's notes (an ambiguous name, say) to what the
// host is told.
func withNotes(d hostio.Decision, notes []string) hostio.Decision {
	if len(notes) == 0 {
		return d
	}
	n := " Note: " + strings.Join(notes, "; ") + "."
	switch {
	case d.Reason != "":
		d.Reason += n
	case d.Context != "":
		d.Context += n
	}
	return d
}

// setOffset records the ZVM's clock offset the capture used.
func setOffset(rec *audit.Record, out capture.Outcome) {
	if out.OffsetKnown {
		ms := out.ZVMOffset.Round(time.Millisecond).Milliseconds()
		rec.ZVMOffsetMS = &ms
	}
}
