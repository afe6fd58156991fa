package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/internal/judge"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// Options configure one hook run (see judge.Options). Protect is set to
// the Zerto step when nil.
type Options = judge.Options

// Result is what Decide makes of one event.
type Result = judge.Result

// Run reads one event from stdin and writes the decision to stdout, within
// the config's hook.budget counted from Run's start, taking the checkpoint
// of a protect verdict from Zerto, and returns the answer's exit code: see
// judge.Run.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) int {
	return judge.Run(ctx, stdin, stdout, withZerto(opts))
}

// Decide judges one decoded event the way Run does; see judge.Decide.
// Run and rewind's MCP server both decide through it, so that the advice
// the server gives and what the hook enforces cannot disagree.
func Decide(ctx context.Context, ev *hostio.Event, opts Options) Result {
	return judge.Decide(ctx, ev, withZerto(opts))
}

// Zerto is the protect step that asks Zerto for the checkpoints, through
// capture: the one Run and Decide use unless told otherwise.
var Zerto judge.Protector = zertoStep{}

func withZerto(opts Options) Options {
	if opts.Protect == nil {
		opts.Protect = Zerto
	}
	return opts
}

// zertoStep is the hook's protect step: capture takes the checkpoints,
// and the decision table's protect rows apply to its outcome.
type zertoStep struct{}

func (zertoStep) Protect(ctx context.Context, call *judge.ProtectCall) judge.Protection {
	v, cfg := call.Verdict, call.Config
	z, err := zvm.FromConfig(cfg.Zerto, zvm.Setup{Getenv: call.Getenv, Warnf: call.Warnf, CacheDir: call.Options.CacheDir})
	if errors.Is(err, zvm.ErrNotConfigured) {
		return judge.Protection{
			Decision: hostio.Decision{
				Permission: hostio.Ask,
				Reason: withHint(fmt.Sprintf("rewind: no Zerto configured: nothing to rewind to (%s would change %s)",
					judge.RuleName(v), strings.Join(v.Targets, ", ")), zvm.Hint(err)),
			},
			Audit: audit.DecisionAsk,
		}
	}
	if err != nil {
		return noCheckpoint(v, err)
	}
	stateDir, err := dirs.State(call.Getenv)
	if err != nil {
		// Capture works without its state, each call with a tag of its own.
		call.Warnf("%v: checkpoints are not reused", err)
		stateDir = ""
	}
	id := call.ID
	prog := &capture.Progress{}
	call.OnOverrun(func(ctx context.Context, budget time.Duration) judge.Protection {
		return overrun(ctx, budget, prog, v, cfg, id)
	})
	c := capture.New(z, capture.Options{
		StateDir:      stateDir,
		TagPrefix:     cfg.Hook.TagPrefix,
		ReuseWithin:   cfg.Capture.ReuseWithin,
		Targets:       cfg.Targets,
		PendingMayRun: cfg.Hook.Pending == "ask",
		Progress:      prog,
	})
	out := c.Capture(ctx, capture.Request{Targets: v.Targets, CallID: id, Advice: call.Options.Advice})
	afterCapture(ctx)

	d, decision := outcomeDecision(out, v, cfg, id, func() string {
		reason := failedReason(out.Failures)
		if len(out.Unknown) > 0 {
			// Said as well, so that a retry after the failure is mended
			// is not met by a second surprise.
			reason += "; " + strings.TrimPrefix(unknownReason(out.Unknown, v), "rewind: ")
		}
		return withHint(reason, failureHints(out.Failures))
	})
	var zerr []string
	for _, f := range out.Failures {
		var ze *zvm.Error
		if errors.As(f.Err, &ze) && ze.Message != "" {
			zerr = append(zerr, ze.Message)
		}
	}
	return judge.Protection{
		Decision:    withNotes(d, out.Notes),
		Audit:       decision,
		Checkpoints: auditCheckpoints(out.Points),
		ZertoError:  strings.Join(zerr, "; "),
		ZVMOffsetMS: offset(out),
		RetryAfter:  retryAfter(out),
	}
}

// noCheckpoint denies a protect verdict that cannot reach Zerto because its
// settings are unusable: the call would run without a rewind point.
func noCheckpoint(v policy.Verdict, err error) judge.Protection {
	return judge.Protection{
		Decision: hostio.Decision{
			Permission: hostio.Deny,
			Reason:     withHint(fmt.Sprintf("rewind: no checkpoint for %s: %v", strings.Join(v.Targets, ", "), err), zvm.Hint(err)),
		},
		Audit: audit.DecisionDeny,
		Error: err.Error(),
	}
}

// protectedContext tells the model which checkpoints undo the call and how.
func protectedContext(points []capture.Point, id string) string {
	var b strings.Builder
	b.WriteString("rewind: ")
	for i, p := range points {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "checkpoint %q (CheckpointIdentifier %s) on VPG %q at %s protects %s",
			p.Tag, p.Identifier, p.VPG, p.Time.UTC().Format(time.RFC3339), vmNames(p.VMs))
	}
	fmt.Fprintf(&b, ". To undo this call: rewind undo %s (audit id).", id)
	return b.String()
}

// pendingDecision says which tags are on their way, when they are expected,
// and when to retry: hook.pending decides between deny and ask.
func pendingDecision(points []capture.Point, cfg *policy.Config) hostio.Decision {
	var b strings.Builder
	b.WriteString("rewind: ")
	now := time.Now()
	n := 0
	var cadence time.Duration
	for _, p := range points {
		if p.Identifier != "" {
			continue
		}
		if n > 0 {
			b.WriteString("; ")
		}
		n++
		fmt.Fprintf(&b, "Zerto accepted checkpoint tag %q for VPG %q (journal cadence ~%s); it is expected at %s (in ~%s)",
			p.Tag, p.VPG, approx(p.Cadence), p.Expected.UTC().Format(time.RFC3339), approx(p.Expected.Sub(now)))
		cadence = max(cadence, p.Cadence)
	}
	fmt.Fprintf(&b, ", past this hook's budget of %s. Retry this call after %s: the retry will use that checkpoint.",
		approx(cfg.Hook.Budget), latestExpected(points).UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, " Retry within %s of it, or a fresh checkpoint is taken.",
		approx(capture.PendingReuseWindow(cfg.Capture.ReuseWithin, cadence)))
	if cfg.Hook.Pending == "ask" {
		b.WriteString(" Allowed now, the call runs before its checkpoint exists.")
		return hostio.Decision{Permission: hostio.Ask, Reason: b.String()}
	}
	return hostio.Decision{Permission: hostio.Deny, Reason: b.String()}
}

// unknownReason asks about targets Zerto does not know: a lookup miss is
// nothing to rewind to, never a failure.
func unknownReason(unknown []string, v policy.Verdict) string {
	if len(unknown) == 0 {
		return "rewind: " + judge.Describe(v) + ": the rule found no target in the call, so there is nothing to rewind to"
	}
	is := "is not a VM"
	if len(unknown) > 1 {
		is = "are not VMs"
	}
	return fmt.Sprintf("rewind: %s %s Zerto protects: nothing to rewind to (%s). If it is a protected VM under another name, map it in [targets] aliases.",
		strings.Join(unknown, ", "), is, judge.RuleName(v))
}

// failedReason carries Zerto's own message, or the transport error, for
// every VPG that got no checkpoint.
func failedReason(failures []capture.Failure) string {
	parts := make([]string, len(failures))
	for i, f := range failures {
		parts[i] = "no checkpoint for " + f.Error()
	}
	return "rewind: " + strings.Join(parts, "; ")
}

func vmNames(vms []capture.VM) string {
	names := make([]string, len(vms))
	for i, vm := range vms {
		names[i] = vm.Name
	}
	return strings.Join(names, ", ")
}

// approx writes a duration for a person: whole seconds from ten seconds up.
func approx(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d >= 10*time.Second:
		return fmt.Sprintf("%ds", int64((d+time.Second/2)/time.Second))
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

// latestExpected is when the last of the pending tags among points is
// expected, on this machine's clock: when the agent is told to retry.
func latestExpected(points []capture.Point) time.Time {
	var latest time.Time
	for _, p := range points {
		if p.Identifier == "" && p.Expected.After(latest) {
			latest = p.Expected
		}
	}
	return latest
}

// retryAfter is, for a pending outcome, the retry time the hook gives the
// agent, for the record (as UTC, so that it reads the same wherever the log
// is read); zero for any other.
func retryAfter(out capture.Outcome) time.Time {
	if out.Kind != capture.Pending {
		return time.Time{}
	}
	return latestExpected(out.Points).UTC()
}

func auditCheckpoints(points []capture.Point) []audit.Checkpoint {
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
