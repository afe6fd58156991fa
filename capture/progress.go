package capture

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Progress follows a Capture in flight, for a caller whose own deadline
// may pass before Capture returns: the hook, whose budget is a hard line.
// At that line the call must not run unchecked; Overrun says what to
// answer from what Capture has achieved so far. Set Options.Progress to
// use one. Its methods are safe for concurrent use with the Capture.
type Progress struct {
	mu       sync.Mutex
	c        *Capturer
	targets  []string
	resolved bool
	groups   []group
	points   map[string]Point // by VPG identifier: the tag accepted or landed
	unknown  []string
	failures []Failure
	final    *Outcome // Capture's own, once it has one
}

func (p *Progress) start(c *Capturer, targets []string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.c, p.targets = c, slices.Clone(targets)
}

func (p *Progress) resolvedTo(groups []group, unknown []string, failures []Failure) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resolved, p.groups = true, slices.Clone(groups)
	p.unknown, p.failures = slices.Clone(unknown), slices.Clone(failures)
}

// finish records Capture's outcome, which has its let-through recorded.
func (p *Progress) finish(out Outcome) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.final = &out
}

// tag records that a VPG's tag was accepted (Identifier empty) or landed.
func (p *Progress) tag(pt Point) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.points == nil {
		p.points = map[string]Point{}
	}
	p.points[pt.VPGIdentifier] = pt
}

// untag forgets a VPG's tag, which will not land: its insert failed.
func (p *Progress) untag(vpgID string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.points, vpgID)
}

// Overrun returns the Outcome for a Capture that has not returned by the
// caller's deadline, which budget names in the reason; for one that did
// return, its own Outcome. Every VPG's tag
// landed: Protected. Every VPG has a tag Zerto accepted: Pending, so the
// retry finds it. Otherwise (the targets not yet resolved, an insert not
// yet accepted): Failed, since no checkpoint can be promised. An unknown
// target beside them is UnknownTarget, as in Capture. When the outcome lets
// the call run, the let-through is recorded, as Capture would, within ctx:
// the caller's answer is due.
func (p *Progress) Overrun(ctx context.Context, budget time.Duration) Outcome {
	p.mu.Lock()
	if p.final != nil {
		// Capture did finish; what held its caller up came after it.
		out := *p.final
		p.mu.Unlock()
		return out
	}
	var out Outcome
	out.Unknown, out.Failures = slices.Clone(p.unknown), slices.Clone(p.failures)
	c := p.c
	late := fmt.Errorf("the checkpoint was not confirmed within the hook's budget of %s", budget)
	if !p.resolved {
		out.Failures = append(out.Failures, Failure{Target: strings.Join(p.targets, ", "), Err: fmt.Errorf("looking the targets up: %w", late)})
	}
	noGroups := len(p.groups) == 0
	out.Kind = Protected
	for _, g := range p.groups {
		pt, ok := p.points[g.vpgID]
		switch {
		case !ok:
			out.Failures = append(out.Failures, Failure{Target: targetsOf(g.vms), VPG: g.vpgName, Err: late})
		case pt.Identifier == "":
			out.Points = append(out.Points, pt)
			out.Kind = Pending
		default:
			out.Points = append(out.Points, pt)
		}
	}
	p.mu.Unlock()
	switch {
	case len(out.Failures) > 0:
		out.Kind = Failed
	case len(out.Unknown) > 0 || noGroups:
		out.Kind = UnknownTarget
	}
	if c != nil {
		out.ZVMOffset, out.OffsetKnown = c.z.Offset()
		if c.mayRun(out.Kind) {
			now := c.zNow()
			for _, pt := range out.Points {
				c.logLost(pt, c.recordLetThrough(ctx, pt, now))
			}
		}
	}
	return out
}
