package judge

import (
	"context"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/policy"
)

// recordOutcome appends the outcome of the post-tool event r.ev to the
// audit log, when the call it follows has a record there: the policy
// judges the call again, as the hook did before it ran, and a call it lets
// pass without a word was never logged, so its outcome is not either (the
// log would fill with the reads that make most calls). It appends and
// reads nothing, so that the post-tool hook costs what a judged call does.
func (r *run) recordOutcome(ctx context.Context) {
	ev := r.ev
	if ev.ToolUseID == "" {
		return // nothing names the call's record
	}
	cfg, err := policy.Find(r.opts.ConfigPath, ev.Cwd, r.getenv)
	if err != nil {
		cfg = policy.Fallback(err)
	}
	r.budget = cfg.Hook.Budget
	ev.ResolveServers(cfg)
	if pol, err := policy.New(cfg); err == nil && pol.Classify(ev.Call()).Effect == policy.None {
		return
	}
	dir, err := dirs.State(r.getenv)
	if err != nil {
		r.warnf("audit log: %v", err)
		return
	}
	ctx, cancel := context.WithDeadline(ctx, r.start.Add(r.budget-reserve(r.budget)))
	defer cancel()
	if err := audit.Open(dir).AppendOutcome(ctx, string(r.opts.Host), ev.SessionID, ev.ToolUseID, ev.ToolName, auditOutcome(ev.Outcome)); err != nil {
		r.warnf("audit log: %v", err)
	}
}

// auditOutcome is the audit log's form of a host's outcome.
func auditOutcome(o *hostio.Outcome) audit.Outcome {
	out := audit.Outcome{ExitCode: o.ExitCode, Error: o.Error}
	switch {
	case !o.Ran:
		out.State = audit.OutcomeNotRun
	case o.Interrupted:
		out.State = audit.OutcomeInterrupted
	case o.Failed || o.ExitCode != nil && *o.ExitCode != 0:
		out.State = audit.OutcomeFailed
	default:
		out.State = audit.OutcomeRan
	}
	if o.HasDuration {
		ms := o.Duration.Milliseconds()
		out.DurationMS = &ms
	}
	out.Time = time.Now()
	return out
}
