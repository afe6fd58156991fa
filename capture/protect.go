package capture

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rewind-dev/rewind/zvm"
)

// Bounds of the waiting plan, as fractions of the cadence: the first poll
// comes a little after the expected tick (a twentieth of the cadence), and
// later polls every tenth of it, but never more often than every 50 ms nor
// less often than every second.
const (
	minSlack = 10 * time.Millisecond
	maxSlack = 500 * time.Millisecond
	minPoll  = 50 * time.Millisecond
	maxPoll  = time.Second
	// requestTime is what one checkpoint listing is allowed to take when
	// deciding whether a poll still fits before the deadline.
	requestTime = 50 * time.Millisecond
	// defaultCadence is assumed for a VPG whose journal shows too few
	// checkpoints to estimate one: a vSphere VRA's.
	defaultCadence = 5 * time.Second
	// skew is how far before the insert a landed tag is looked for, in case
	// the ZVM's clock is behind this machine's.
	skew = time.Minute
)

func clamp(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }

// wait is a tag to wait for: inserted by this call, or in flight already.
type wait struct {
	tag, task          string
	inserted, expected time.Time
	ours               bool
}

// protect gets one VPG its checkpoint: status first, then, under the VPG's
// lock, reuse or join or insert, then the wait without the lock.
func (c *Capturer) protect(ctx context.Context, arrival time.Time, g group, callID string) result {
	pt := Point{VPG: g.vpgName, VPGIdentifier: g.vpgID, VMs: g.vms}
	vpg, err := c.z.VPG(ctx, g.vpgID)
	switch {
	case zvm.IsNotFound(err):
		// The VPG is gone since the VM was resolved: the VM is no longer
		// known to be protected, and the next call resolves it afresh.
		c.forget(g.vpgID)
		return result{kind: UnknownTarget, point: pt}
	case err != nil:
		return result{kind: Failed, point: pt, err: err}
	}
	if vpg.Name != "" {
		pt.VPG = vpg.Name
	}
	if ok, reason := vpg.CanCheckpoint(); !ok {
		return result{kind: Failed, point: pt, err: &VPGStateError{VPG: pt.VPG, Status: vpg.Status, SubStatus: vpg.SubStatus, Reason: reason}}
	}

	for joined := 0; ; joined++ {
		landed, w, err := c.decide(ctx, arrival, &pt, callID)
		switch {
		case err != nil:
			return result{kind: Failed, point: pt, err: err}
		case landed != nil:
			pt.Tag, pt.Identifier, pt.Time, pt.Reused = landed.Tag, landed.Identifier, landed.Time, true
			return result{kind: Protected, point: pt}
		}
		pt.Reused = !w.ours
		r := c.await(ctx, &pt, w)
		// Another call's insert that failed is not this call's failure:
		// await dropped it, so deciding again inserts a tag of its own.
		if r.kind == Failed && !w.ours && joined == 0 && zvm.KindOf(r.err) == zvm.KindTaskFailed && ctx.Err() == nil {
			continue
		}
		return r
	}
}

// decide, under the VPG's lock, finds a tag that already protects the call,
// or the tag in flight to wait for, or inserts one.
func (c *Capturer) decide(ctx context.Context, arrival time.Time, pt *Point, callID string) (*zvm.Checkpoint, wait, error) {
	id := pt.VPGIdentifier
	st := &vpgState{}
	fl, err := c.lockVPG(ctx, id)
	switch {
	case err == nil:
		defer fl.Unlock()
		st = c.loadState(id)
	case ctx.Err() != nil:
		return nil, wait{}, err
	default:
		// The state folder cannot be used. Without the record of earlier
		// calls no tag is known to be newer than them, so this call gets a
		// tag of its own: no reuse, no joining, no record.
		fl = nil
	}
	save := func() {
		if fl != nil {
			// A lost state write costs a later call one more insert.
			_ = c.saveState(id, st)
		}
	}
	st.VPG = pt.VPG
	now := c.o.Now()
	cps, cadence, err := c.recent(ctx, id, st, now)
	if err != nil {
		return nil, wait{}, err
	}
	st.CadenceMS = cadence.Milliseconds()
	pt.Cadence = cadence

	if cp, ok := c.reusable(cps, st, st.bar(arrival), now, cadence); ok && fl != nil {
		st.dropPending(cp.Tag)
		st.LastTag = &landedTag{Tag: cp.Tag, Identifier: cp.Identifier, Time: cp.Time}
		save()
		return &cp, wait{}, nil
	}

	// A tag in flight is waited for rather than doubled. One that landed
	// without being reusable above, or that is long overdue, is forgotten.
	st.Pending = slices.DeleteFunc(st.Pending, func(p pendingTag) bool {
		landed := slices.ContainsFunc(cps, func(cp zvm.Checkpoint) bool { return cp.Tag == p.Tag })
		return landed || now.After(p.Expected.Add(2*cadence+skew))
	})
	if n := len(st.Pending); n > 0 {
		p := st.Pending[n-1]
		save()
		return nil, wait{tag: p.Tag, task: p.Task, inserted: p.Inserted, expected: p.Expected}, nil
	}

	tag := c.tagName(now, callID)
	// Tags must name one checkpoint each, so that waiting for a tag cannot
	// find an older namesake: the same call inserting twice in one second.
	for n := 2; slices.ContainsFunc(cps, func(cp zvm.Checkpoint) bool { return cp.Tag == tag }); n++ {
		tag = fmt.Sprintf("%s-%d", c.tagName(now, callID), n)
	}
	task, err := c.z.InsertTaggedCheckpoint(ctx, id, tag)
	if err != nil {
		return nil, wait{}, err
	}
	p := pendingTag{Tag: tag, Task: task, Inserted: now, Expected: nextTick(cps, cadence, now)}
	st.Pending = append(st.Pending, p)
	save()
	return nil, wait{tag: p.Tag, task: p.Task, inserted: p.Inserted, expected: p.Expected, ours: true}, nil
}

// recent lists the VPG's recent checkpoints and estimates its cadence from
// them. The window spans several cadences (one hour for a VPG not seen
// before), the reuse window and every tag in flight; a journal too sparse
// for an estimate is listed again over a day.
func (c *Capturer) recent(ctx context.Context, id string, st *vpgState, now time.Time) ([]zvm.Checkpoint, time.Duration, error) {
	lookback := time.Hour
	if cad := st.cadence(); cad > 0 {
		lookback = clamp(8*cad, time.Minute, 2*time.Hour)
	}
	lookback = max(lookback, c.o.ReuseWithin+skew)
	for _, p := range st.Pending {
		lookback = max(lookback, now.Sub(p.Inserted)+skew)
	}
	lookback = min(lookback, 24*time.Hour)
	for {
		cps, err := c.z.Checkpoints(ctx, id, now.Add(-lookback), time.Time{})
		if err != nil {
			return nil, 0, err
		}
		if cad := EstimateCadence(cps); cad > 0 {
			return cps, cad, nil
		}
		if lookback >= 24*time.Hour {
			if cad := st.cadence(); cad > 0 {
				return cps, cad, nil
			}
			return cps, defaultCadence, nil
		}
		lookback = 24 * time.Hour
	}
}

// EstimateCadence returns a VPG's journal cadence as its checkpoints show
// it: the median interval between the newest distinct checkpoint times, or
// 0 with fewer than two. The median shrugs off the odd interval of a
// checkpoint written out of step.
func EstimateCadence(cps []zvm.Checkpoint) time.Duration {
	times := make([]time.Time, 0, len(cps))
	for _, cp := range cps {
		if !cp.Time.IsZero() {
			times = append(times, cp.Time)
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	times = slices.CompactFunc(times, func(a, b time.Time) bool { return a.Sub(b).Abs() < time.Millisecond })
	if len(times) < 2 {
		return 0
	}
	const maxIntervals = 16
	times = times[max(0, len(times)-maxIntervals-1):]
	d := make([]time.Duration, len(times)-1)
	for i := range d {
		d[i] = times[i+1].Sub(times[i])
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// PendingReuseWindow is how long after it lands a tag announced as pending
// protects the retry of the call: reuseWithin, or one journal cadence when
// that is longer.
func PendingReuseWindow(reuseWithin, cadence time.Duration) time.Duration {
	return max(reuseWithin, cadence)
}

// nextTick is when the journal should next write: the first cadence tick
// after now, counting from the newest checkpoint.
func nextTick(cps []zvm.Checkpoint, cadence time.Duration, now time.Time) time.Time {
	var last time.Time
	for _, cp := range cps {
		if cp.Time.After(last) {
			last = cp.Time
		}
	}
	if last.IsZero() || cadence <= 0 {
		return now.Add(cadence)
	}
	if last.After(now) {
		return last.Add(cadence)
	}
	k := now.Sub(last)/cadence + 1
	return last.Add(k * cadence)
}

// reusable returns the newest rewind tag that protects a call: written
// after bar (the last call let through before this one arrived) and not
// older than ReuseWithin. Zerto's untagged checkpoints never qualify, nor
// does one without a CheckpointIdentifier, which nothing can rewind to.
//
// A tag still recorded as pending was announced to an agent, which was told
// to retry once it lands; on a slow journal that retry cannot be timed to
// the second, so such a tag stays valid for a whole cadence after it lands
// (nothing was let through on the VPG since: bar says so).
func (c *Capturer) reusable(cps []zvm.Checkpoint, st *vpgState, b bar, now time.Time, cadence time.Duration) (zvm.Checkpoint, bool) {
	var best zvm.Checkpoint
	found := false
	for _, cp := range cps {
		window := c.o.ReuseWithin
		if st.hasPending(cp.Tag) {
			window = PendingReuseWindow(c.o.ReuseWithin, cadence)
		}
		if !c.isRewindTag(cp.Tag) || cp.Identifier == "" || !b.newer(cp.Time) || now.Sub(cp.Time) > window {
			continue
		}
		if !found || cp.Time.After(best.Time) {
			best, found = cp, true
		}
	}
	return best, found
}

// await waits for w's tag to be in the journal: pending at once when it
// cannot land before the deadline, else asleep until just after the
// expected tick and then polling at a fraction of the cadence.
func (c *Capturer) await(ctx context.Context, pt *Point, w wait) result {
	cadence := pt.Cadence
	slack := clamp(cadence/20, minSlack, maxSlack)
	poll := clamp(cadence/10, minPoll, maxPoll)
	deadline, hasDeadline := ctx.Deadline()
	pt.Tag = w.tag
	expected := w.expected
	if now := c.o.Now(); expected.Before(now) {
		// Overdue, as a tag joined late may be: it can land any moment.
		expected = now
	}
	pending := func() result {
		pt.Expected = expected
		return result{kind: Pending, point: *pt}
	}
	fails := func(err error) result {
		c.update(ctx, pt.VPGIdentifier, func(st *vpgState) { st.dropPending(w.tag) })
		return result{kind: Failed, point: *pt, err: err}
	}
	fits := func(t time.Time) bool { return !hasDeadline || !t.Add(requestTime).After(deadline) }

	first := expected.Add(slack)
	if !fits(first) {
		// Past the deadline: say so now rather than sit out the budget,
		// unless the task already failed, which the retry must not wait for.
		if err := c.taskFailure(ctx, w.task); err != nil {
			return fails(err)
		}
		return pending()
	}
	if first.Sub(c.o.Now()) >= time.Second {
		// A long sleep ahead leaves time to learn of a failed task now.
		if err := c.taskFailure(ctx, w.task); err != nil {
			return fails(err)
		}
	}
	if !sleepUntil(ctx, first) {
		return pending()
	}
	for {
		cps, err := c.z.Checkpoints(ctx, pt.VPGIdentifier, w.inserted.Add(-skew), time.Time{})
		if err != nil {
			if ctx.Err() != nil {
				return pending()
			}
			return result{kind: Failed, point: *pt, err: err}
		}
		if i := slices.IndexFunc(cps, func(cp zvm.Checkpoint) bool { return cp.Tag == w.tag }); i >= 0 {
			cp := cps[i]
			if cp.Identifier == "" {
				return fails(&zvm.Error{Kind: zvm.KindMalformed, Op: "GET checkpoints of VPG " + pt.VPGIdentifier,
					Err: fmt.Errorf("checkpoint %q is listed without a CheckpointIdentifier, so nothing can rewind to it", cp.Tag)})
			}
			pt.Identifier, pt.Time = cp.Identifier, cp.Time
			c.update(ctx, pt.VPGIdentifier, func(st *vpgState) {
				st.dropPending(w.tag)
				st.LastTag = &landedTag{Tag: cp.Tag, Identifier: cp.Identifier, Time: cp.Time}
			})
			return result{kind: Protected, point: *pt}
		}
		now := c.o.Now()
		if now.After(expected.Add(cadence / 2)) {
			// The tick came and went without the tag: a failed task tells
			// why; otherwise the next tick is the new expectation.
			if err := c.taskFailure(ctx, w.task); err != nil {
				return fails(err)
			}
			expected = nextTick([]zvm.Checkpoint{{Time: expected}}, cadence, now)
		}
		next := now.Add(poll)
		if !fits(next) {
			return pending()
		}
		if !sleepUntil(ctx, next) {
			return pending()
		}
	}
}

// taskFailure returns a *zvm.Error of KindTaskFailed, carrying Zerto's
// CompleteReason, when the insert task failed or was stopped, or when Zerto
// no longer knows it (a tag without a task never lands); nil when it did
// not fail, or when its state cannot be had (the journal will tell).
func (c *Capturer) taskFailure(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	t, err := c.z.Task(ctx, id)
	switch {
	case zvm.IsNotFound(err):
		return &zvm.Error{Kind: zvm.KindTaskFailed, Op: "task " + id, Err: err}
	case err != nil || (t.State != zvm.TaskFailed && t.State != zvm.TaskStopped):
		return nil
	}
	return &zvm.Error{Kind: zvm.KindTaskFailed, Op: "task " + id, Message: t.CompleteReason}
}

// update changes a VPG's state under its lock. Failing to is harmless
// beyond one more insert later, so errors are dropped.
func (c *Capturer) update(ctx context.Context, vpgID string, fn func(*vpgState)) {
	ctx, cancel := graceContext(ctx)
	defer cancel()
	fl, err := c.lockVPG(ctx, vpgID)
	if err != nil {
		return
	}
	defer fl.Unlock()
	st := c.loadState(vpgID)
	fn(st)
	c.saveState(vpgID, st)
}

// sleepUntil sleeps until t, reporting false when ctx ends first.
func sleepUntil(ctx context.Context, t time.Time) bool {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-ctx.Done():
		return false
	}
}
