package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/internal/jsonscan"
	"github.com/rewind-dev/rewind/policy"
)

// record is the audit record of a ruling on the call s describes, nil for
// a ruling that logs nothing (a plain none, an answer another hook
// process logged).
func record(host hostio.Host, s *state, r ruling) *audit.Record {
	if r.Logged == "" {
		return nil
	}
	v := s.f.Verdict
	rec := &audit.Record{
		Host:     string(host),
		Decision: r.Logged,
		Rule:     v.Rule,
		Reason:   r.Decision.Reason,
		Targets:  v.Targets,
		Error:    r.Error,
	}
	if vms := s.targets.VMNames(v.Targets); !slices.Equal(vms, v.Targets) {
		rec.VMs = vms
	}
	if rec.Reason == "" {
		rec.Reason = r.Decision.Context
	}
	if ev := s.ev; ev != nil {
		rec.ID = s.f.ID
		rec.Session, rec.ToolUseID, rec.Tool, rec.Cwd = ev.SessionID, ev.ToolUseID, ev.ToolName, ev.Cwd
		rec.Excerpt = excerpt(ev)
	}
	if o := s.f.Outcome; o != nil {
		rec.Checkpoints, rec.ZertoError = auditCheckpoints(o.Points), o.ZertoError
		if o.OffsetKnown {
			ms := o.ZVMOffset.Round(time.Millisecond).Milliseconds()
			rec.ZVMOffsetMS = &ms
		}
		if o.Kind == Pending && r.Logged == audit.DecisionPending {
			// As UTC, so that it reads the same wherever the log is read.
			rec.RetryAfter = latestExpected(o.Points).UTC()
		}
	}
	return rec
}

// excerpt is what the log shows of a call: a shell tool's command, else its
// input object. audit.Append shortens and redacts it.
//
// "command" is read in its exact spelling, as the host reads it (a map: a
// struct field would match "Command" too), the last of a key given twice.
// The input of an event hostio decoded is valid JSON, which jsonscan reads
// as json.Unmarshal does without decoding the rest of it, and without the
// reflection encoding/json costs a process the first time (see package
// jsonappend).
func excerpt(ev *hostio.Event) string {
	in := ev.ToolInput
	if ev.Call().InputValid {
		if t := bytes.TrimLeft(in, " \t\r\n"); len(t) > 0 && t[0] == '{' {
			if raw, ok := jsonscan.Member(in, "command"); ok {
				if command, ok := jsonscan.String(raw); ok && command != "" {
					return command
				}
			}
		}
		return string(in)
	}
	var members map[string]json.RawMessage
	var command string
	if json.Unmarshal(in, &members) == nil && json.Unmarshal(members["command"], &command) == nil && command != "" {
		return command
	}
	return string(in)
}

func auditCheckpoints(points []Point) []audit.Checkpoint {
	var cps []audit.Checkpoint
	for _, p := range points {
		for _, vm := range p.VMs {
			cps = append(cps, audit.Checkpoint{
				VM: vm.Name, VMIdentifier: vm.Identifier,
				VPG: p.VPG, VPGIdentifier: p.VPGIdentifier,
				Identifier: p.Identifier, Tag: p.Tag, Time: p.Time,
			})
		}
	}
	return cps
}

// appendAudit appends rec to the audit log in the state folder getenv
// names, a moment before the budget that started at start ends: the
// answer must be out within the budget, logged or not.
func (r *run) appendAudit(rec *audit.Record, budget time.Duration) {
	rec.ElapsedMS = time.Since(r.start).Milliseconds()
	dir, err := dirs.State(r.opts.Getenv)
	if err != nil {
		r.opts.Logger.Warn("audit log", "err", err)
		return
	}
	ctx, cancel := context.WithDeadline(context.Background(), r.start.Add(budget-reserve(budget)/4))
	defer cancel()
	if err := audit.Open(dir).AppendContext(ctx, rec); err != nil {
		r.opts.Logger.Warn("audit log", "err", err)
	}
}

// auditOutcome is the audit log's form of a host's outcome.
func auditOutcome(o *hostio.Outcome, now time.Time) audit.Outcome {
	out := audit.Outcome{ExitCode: o.ExitCode, Error: o.Error, Time: now}
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
	return out
}

// recordOutcome appends the outcome of the post-tool event ev to the
// audit log, when the call it follows has a record there: the policy
// judges the call again, as the hook did before it ran, and a call it lets
// pass without a word was never logged, so its outcome is not either (the
// log would fill with the reads that make most calls). It appends and
// reads nothing, so that the post-tool hook costs what a judged call does.
func (r *run) recordOutcome(ctx context.Context, ev *hostio.Event) {
	if ev.ToolUseID == "" {
		return // nothing names the call's record
	}
	cfg, err := policy.Find(r.opts.ConfigPath, ev.Cwd, r.opts.Getenv)
	if err != nil {
		cfg = policy.Fallback(err)
	}
	ev.ResolveServers(cfg)
	if pol, err := policy.New(cfg); err == nil && pol.Classify(ev.Call()).Effect == policy.None {
		return
	}
	dir, err := dirs.State(r.opts.Getenv)
	if err != nil {
		r.opts.Logger.Warn("audit log", "err", err)
		return
	}
	budget := cfg.Hook.Budget
	ctx, cancel := context.WithDeadline(ctx, r.start.Add(budget-reserve(budget)))
	defer cancel()
	o := auditOutcome(ev.Outcome, time.Now().UTC())
	if err := audit.Open(dir).AppendOutcome(ctx, string(r.opts.Host), ev.SessionID, ev.ToolUseID, ev.ToolName, o); err != nil {
		r.opts.Logger.Warn("audit log", "err", err)
	}
}
