package hook

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/judge"
	"github.com/rewind-dev/rewind/policy"
)

// afterCapture runs when Capture has returned; tests make it outlast the
// budget, as a capture stuck on a hung state folder would.
var afterCapture = func(context.Context) {}

// overrun answers a protect call whose capture did not return within the
// budget, from the capture's progress: such a call is never let through
// unchecked under on_error, which is for rewind's own failures. It is
// pending when Zerto accepted a tag for every VPG, protected when every
// tag landed, else denied. It runs while the capture may still be at work.
func overrun(ctx context.Context, budget time.Duration, prog *capture.Progress, v policy.Verdict, cfg *policy.Config, id string) judge.Protection {
	out := prog.Overrun(ctx, budget)
	d, decision := outcomeDecision(out, v, cfg, id, func() string { return failedReason(out.Failures) })
	return judge.Protection{
		Decision:    withNotes(d, out.Notes),
		Audit:       decision,
		Checkpoints: auditCheckpoints(out.Points),
		ZVMOffsetMS: offset(out),
		RetryAfter:  retryAfter(out),
		Error:       fmt.Sprintf("capture did not return within the budget of %s", budget),
	}
}

// outcomeDecision is what the host is told and the audit log's decision
// for a capture's outcome; a failed capture is denied with denyReason's
// reason.
func outcomeDecision(out capture.Outcome, v policy.Verdict, cfg *policy.Config, id string, denyReason func() string) (hostio.Decision, string) {
	switch out.Kind {
	case capture.Protected:
		return hostio.Decision{Context: protectedContext(out.Points, id)}, audit.DecisionProtected
	case capture.Pending:
		return pendingDecision(out.Points, cfg), audit.DecisionPending
	case capture.UnknownTarget:
		return hostio.Decision{Permission: hostio.Ask, Reason: unknownReason(out.Unknown, v)}, audit.DecisionAsk
	default:
		return hostio.Decision{Permission: hostio.Deny, Reason: denyReason()}, audit.DecisionDeny
	}
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

// offset is the ZVM's clock offset the capture used, for the record.
func offset(out capture.Outcome) *int64 {
	if !out.OffsetKnown {
		return nil
	}
	ms := out.ZVMOffset.Round(time.Millisecond).Milliseconds()
	return &ms
}
