package zerto

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// Step is the protect step that asks Zerto for the checkpoints, through
// capture.
type Step struct {
	// CacheDir is the folder of the Zerto token cache; empty means the
	// cache folder the call's environment names (see dirs.Cache).
	CacheDir string
}

// Protect takes the checkpoints of call's verdict within ctx's deadline.
// Should the budget end first, the hook answers from what capture has
// achieved by then (capture.Progress.Overrun).
func (s Step) Protect(ctx context.Context, call *hook.Call) hook.Outcome {
	v, cfg := call.Verdict, call.Config
	z, err := zvm.FromConfig(cfg.Zerto, zvm.Setup{Getenv: call.Getenv, Logger: call.Logger, CacheDir: s.CacheDir})
	if errors.Is(err, zvm.ErrNotConfigured) {
		return hook.Outcome{Kind: hook.NotConfigured, Hint: zvm.Hint(err)}
	}
	if err != nil {
		// Settings that cannot be used: the call would run without a
		// rewind point.
		return hook.Outcome{Kind: hook.Failed, Failures: []string{strings.Join(v.Targets, ", ") + ": " + err.Error()},
			Hint: zvm.Hint(err), Error: err.Error()}
	}
	stateDir, err := dirs.State(call.Getenv)
	if err != nil {
		// Capture works without its state, each call with a tag of its own.
		call.Logger.Warn("checkpoints are not reused", "err", err)
		stateDir = ""
	}
	prog := &capture.Progress{}
	call.OnOverrun(func(ctx context.Context) hook.Outcome {
		return outcome(prog.Overrun(ctx, cfg.Hook.Budget), cfg)
	})
	c := capture.New(z, capture.Options{
		StateDir:      stateDir,
		TagPrefix:     cfg.Hook.TagPrefix,
		ReuseWithin:   cfg.Capture.ReuseWithin,
		Targets:       cfg.Targets,
		PendingMayRun: cfg.Hook.Pending == "ask",
		Progress:      prog,
		Logger:        call.Logger,
	})
	return outcome(c.Capture(ctx, capture.Request{Targets: v.Targets, CallID: call.ID, Advice: call.Advice}), cfg)
}

// kinds are the hook's names of capture's outcomes.
var kinds = map[capture.Kind]hook.Kind{
	capture.Protected:     hook.Protected,
	capture.Pending:       hook.Pending,
	capture.UnknownTarget: hook.UnknownTarget,
	capture.Failed:        hook.Failed,
}

// outcome is the hook's form of a capture outcome under cfg.
func outcome(out capture.Outcome, cfg *policy.Config) hook.Outcome {
	o := hook.Outcome{
		Kind:        kinds[out.Kind],
		Unknown:     out.Unknown,
		Notes:       out.Notes,
		ZVMOffset:   out.ZVMOffset,
		OffsetKnown: out.OffsetKnown,
	}
	var cadence time.Duration
	for _, p := range out.Points {
		hp := hook.Point{VPG: p.VPG, VPGIdentifier: p.VPGIdentifier, Tag: p.Tag, Identifier: p.Identifier,
			Time: p.Time, Expected: p.Expected, Cadence: p.Cadence}
		for _, vm := range p.VMs {
			hp.VMs = append(hp.VMs, hook.VM{Name: vm.Name, Identifier: vm.Identifier})
		}
		o.Points = append(o.Points, hp)
		if p.Identifier == "" {
			cadence = max(cadence, p.Cadence)
		}
	}
	o.RetryWithin = capture.PendingReuseWindow(cfg.Capture.ReuseWithin, cadence)
	var zerr, hints []string
	for i := range out.Failures {
		f := &out.Failures[i]
		o.Failures = append(o.Failures, f.Error())
		var ze *zvm.Error
		if errors.As(f.Err, &ze) && ze.Message != "" {
			zerr = append(zerr, ze.Message)
		}
		if h := zvm.Hint(f.Err); h != "" && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	o.ZertoError, o.Hint = strings.Join(zerr, "; "), strings.Join(hints, "; ")
	return o
}
