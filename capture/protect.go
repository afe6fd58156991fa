package capture

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	// skew is how far before the insert a landed tag is looked for: the
	// insert time is in ZVM time already, so this only covers an offset
	// that changed since it was measured, and a ZVM that stamps a tag with
	// the tick before the insert.
	skew = time.Minute
	// earlyLook is the wait for the first poll beyond which the insert's
	// task is asked at once: a ZVM may write a tag the moment it accepts
	// it, and a decision is due within this of the tag being visible.
	earlyLook = 250 * time.Millisecond
)

func clamp(d, lo, hi time.Duration) time.Duration { return min(max(d, lo), hi) }

// wideLookback is how far before the insert the second, wider listing of
// a completed insert's journal looks for its tag.
const wideLookback = 24 * time.Hour

// ahead is how far past the ZVM's time, as estimated, a listing reaches.
// No checkpoint lies past the ZVM's own now, so it costs nothing; it is
// the end of every listing's window, wide enough for a ZVM clock stepped
// forward since the offset was measured (see findTag).
const ahead = wideLookback

// errNotProtected and errLeftVPG are membership's answers for a VM that
// Zerto no longer lists, and for one that is no longer in the VPG it was
// resolved to.
var (
	errNotProtected = errors.New("not a VM Zerto protects any longer")
	errLeftVPG      = errors.New("no longer in the VPG rewind found it in")
)

// membership reads the state of the group's VPG from its VMs' own rows
// (GET /v1/vms?vmIdentifier=, one row per VPG that holds the VM), which
// also proves each VM is still in that VPG: the resolution is cached, and
// a checkpoint of a VPG the VM has left since would protect nothing. One
// request for the usual one VM, as the VPG's own record would cost.
func (c *Capturer) membership(ctx context.Context, g group) (zvm.VPG, error) {
	var vpg zvm.VPG
	for i, vm := range g.vms {
		rows, err := c.z.VMsByIdentifier(ctx, vm.Identifier)
		if err != nil {
			return zvm.VPG{}, err
		}
		if len(rows) == 0 {
			return zvm.VPG{}, fmt.Errorf("%s: %w", vm.Name, errNotProtected)
		}
		k := slices.IndexFunc(rows, func(r zvm.VM) bool { return strings.EqualFold(r.VPGIdentifier, g.vpgID) })
		if k < 0 {
			return zvm.VPG{}, fmt.Errorf("%s is %w (%s): Zerto moved or removed it since; retry the call, and rewind looks it up afresh", vm.Name, errLeftVPG, g.vpgName)
		}
		if i == 0 {
			vpg = zvm.VPG{Identifier: g.vpgID, Name: rows[k].VPGName, Status: rows[k].Status, SubStatus: rows[k].SubStatus}
		}
	}
	return vpg, nil
}

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
	vpg, err := c.membership(ctx, g)
	switch {
	case errors.Is(err, errNotProtected):
		// The VM is gone from Zerto since it was resolved: it is no longer
		// known to be protected, and the next call resolves it afresh.
		c.forget(g.vpgID)
		return result{kind: UnknownTarget, point: pt}
	case errors.Is(err, errLeftVPG):
		// A checkpoint of a VPG the VM has left cannot rewind it.
		c.forget(g.vpgID)
		return result{kind: Failed, point: pt, err: err}
	case err != nil:
		return result{kind: Failed, point: pt, err: err}
	}
	if vpg.Name != "" {
		pt.VPG = vpg.Name
	}
	// Only a state in which Zerto certainly cannot insert is refused
	// here; in any other, Zerto's own answer to the insert decides.
	if refused, reason := vpg.InsertRefused(); refused {
		return result{kind: Failed, point: pt, err: &VPGStateError{VPG: pt.VPG, Status: vpg.Status, SubStatus: vpg.SubStatus, Reason: reason}}
	}

	for joined := 0; ; joined++ {
		landed, w, err := c.decide(ctx, arrival, &pt, callID)
		switch {
		case err != nil:
			return result{kind: Failed, point: pt, err: err}
		case landed != nil:
			pt.Tag, pt.Identifier, pt.Time, pt.Reused = landed.Tag, landed.Identifier, landed.Time, true
			c.o.Progress.tag(pt)
			return result{kind: Protected, point: pt}
		}
		pt.Reused = !w.ours
		accepted := pt
		accepted.Tag, accepted.Expected = w.tag, c.wallTime(w.expected)
		c.o.Progress.tag(accepted)
		r := c.await(ctx, &pt, w)
		switch r.kind {
		case Protected:
			c.o.Progress.tag(r.point)
		case Failed:
			c.o.Progress.untag(pt.VPGIdentifier)
		}
		// Another call's insert that failed is not this call's failure:
		// await dropped it, so deciding again inserts a tag of its own.
		if r.kind == Failed && !w.ours && joined == 0 && zvm.KindOf(r.err) == zvm.KindTaskFailed && ctx.Err() == nil {
			continue
		}
		return r
	}
}

// decide, under the VPG's lock, finds a tag that already protects the call,
// or the tag in flight to wait for, or inserts one. arrival is on
// Options.Now's clock; every time decide compares is the ZVM's.
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
	now := c.zNow()
	cps, cadence, _, err := c.recent(ctx, id, st, now)
	if err != nil {
		return nil, wait{}, err
	}
	// The journal may have corrected the clock (see sawJournal).
	now, arrival = c.zNow(), c.zvmTime(arrival)
	st.CadenceMS, st.CadenceAt = cadence.Milliseconds(), now
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
	// The listing took time: the tick is counted from after the insert.
	now = c.zNow()
	p := pendingTag{Tag: tag, Task: task, Inserted: now, Expected: nextTick(cps, cadence, now)}
	st.Pending = append(st.Pending, p)
	save()
	return nil, wait{tag: p.Tag, task: p.Task, inserted: p.Inserted, expected: p.Expected, ours: true}, nil
}

// recent lists the VPG's recent checkpoints and estimates its cadence from
// them. The window spans several cadences (one hour for a VPG not seen
// before), the reuse window and every tag in flight; a journal too sparse
// for an estimate is listed again over a day, and then the cadence is the
// one estimated before, else defaultCadence, and estimated is false.
func (c *Capturer) recent(ctx context.Context, id string, st *vpgState, now time.Time) (cps []zvm.Checkpoint, cadence time.Duration, estimated bool, err error) {
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
		cps, err := c.z.Checkpoints(ctx, id, now.Add(-lookback), now.Add(ahead))
		if err != nil {
			return nil, 0, false, err
		}
		c.sawJournal(cps)
		if cad := EstimateCadence(cps); cad > 0 {
			return cps, cad, true, nil
		}
		if lookback >= 24*time.Hour {
			if cad := st.cadence(); cad > 0 {
				return cps, cad, false, nil
			}
			return cps, defaultCadence, false, nil
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

// await waits for w's tag to be in the journal, with the insert's task as
// the second witness. Pending at once when the tag cannot land before the
// deadline, unless the task says it already has (or failed); else asleep
// until just after the expected tick, then polling at a fraction of the
// cadence. When the wait ahead is long, the task is asked first, so that a
// ZVM that writes tags at once is seen at once.
//
// Times here are the ZVM's (see clock.go); sleeps and the deadline are
// converted to this machine's clock.
func (c *Capturer) await(ctx context.Context, pt *Point, w wait) result {
	cadence := pt.Cadence
	slack := clamp(cadence/20, minSlack, maxSlack)
	poll := clamp(cadence/10, minPoll, maxPoll)
	deadline, hasDeadline := ctx.Deadline()
	pt.Tag = w.tag
	expected := w.expected
	if now := c.zNow(); expected.Before(now) {
		// Overdue, as a tag joined late may be: it can land any moment.
		expected = now
	}
	pending := func() result {
		pt.Expected = c.wallTime(expected)
		return result{kind: Pending, point: *pt}
	}
	fits := func(t time.Time) bool {
		return !hasDeadline || !c.wallTime(t).Add(requestTime).After(deadline)
	}

	first := expected.Add(slack)
	if !fits(first) || first.Sub(c.zNow()) > earlyLook {
		// Past the deadline, or a long sleep ahead: the task may already
		// know that the tag is written, or that it never will be.
		if r, done := c.byTask(ctx, pt, w); done {
			return r
		}
		if !fits(first) {
			return pending()
		}
	}
	if !sleepUntil(ctx, c.wallTime(first)) {
		return pending()
	}
	for {
		r, found := c.findTag(ctx, pt, w, true)
		switch {
		case found:
			return r
		case r.err != nil:
			if ctx.Err() != nil {
				return pending()
			}
			return r
		}
		now := c.zNow()
		if now.After(expected.Add(cadence / 2)) {
			// The tick came and went without the tag: the task says
			// whether it is written (then the listing missed it), failed,
			// or still to come at the next tick.
			if r, done := c.byTask(ctx, pt, w); done {
				return r
			}
			expected = nextTick([]zvm.Checkpoint{{Time: expected}}, cadence, now)
		}
		next := now.Add(poll)
		if !fits(next) {
			return pending()
		}
		if !sleepUntil(ctx, c.wallTime(next)) {
			return pending()
		}
	}
}

// byTask asks for the insert's task and concludes what it can: a failed
// task (or one Zerto no longer knows) fails the wait with Zerto's reason; a
// completed one sends the wait to the journal, listed without the time
// filter if need be, since the task says the tag is there. done is false
// when the task is in progress, or when its state cannot be had (some
// ZVMs answer a completed task with 401) and the journal does not show
// the tag yet.
func (c *Capturer) byTask(ctx context.Context, pt *Point, w wait) (r result, done bool) {
	if w.task == "" {
		return result{}, false
	}
	t, err := c.z.TaskState(ctx, w.task)
	switch {
	case zvm.IsNotFound(err):
		return c.failWait(ctx, pt, w, &zvm.Error{Kind: zvm.KindTaskFailed, Op: "task " + w.task, Err: err}), true
	case err != nil:
		// No word from the task (some ZVMs answer 401 for a completed
		// one): the journal is asked instead.
		if r, found := c.findTag(ctx, pt, w, true); found {
			return r, true
		}
		return result{}, false
	case t.State == zvm.TaskFailed || t.State == zvm.TaskStopped:
		return c.failWait(ctx, pt, w, &zvm.Error{Kind: zvm.KindTaskFailed, Op: "task " + w.task, Message: t.CompleteReason,
			Err: fmt.Errorf("task %s is %s", w.task, t.State)}), true
	case t.State != zvm.TaskCompleted:
		return result{}, false
	}
	// Completed: the tag is in the journal. A listing filtered by time can
	// miss it (a clock stepped since the offset was measured, a ZVM that
	// stamps tags oddly), so a miss is listed again without the filter.
	for _, filtered := range []bool{true, false} {
		r, found := c.findTag(ctx, pt, w, filtered)
		if !filtered && !found && r.err != nil {
			// The wider listing is a second look, not the evidence: a
			// failure of it leaves the wait to go on.
			return result{}, false
		}
		if found || r.err != nil {
			if r.err != nil && ctx.Err() != nil {
				return result{}, false
			}
			return r, true
		}
	}
	return result{}, false
}

// findTag lists the VPG's checkpoints (from a little before the insert
// when filtered, all of them otherwise) and reports whether w's tag is
// there, with the result to return: protected, or failed for a tag without
// a CheckpointIdentifier. A listing that fails gives a failed result and
// found false.
func (c *Capturer) findTag(ctx context.Context, pt *Point, w wait, filtered bool) (r result, found bool) {
	since := w.inserted.Add(-skew)
	if !filtered {
		// Wide enough for any clock a ZVM keeps, and still bounded: a
		// month of a 5 s journal would not fit in an answer.
		since = w.inserted.Add(-wideLookback)
	}
	cps, err := c.z.Checkpoints(ctx, pt.VPGIdentifier, since, c.zNow().Add(ahead))
	if err != nil {
		return result{kind: Failed, point: *pt, err: err}, false
	}
	c.sawJournal(cps)
	i := slices.IndexFunc(cps, func(cp zvm.Checkpoint) bool { return cp.Tag == w.tag })
	if i < 0 {
		return result{}, false
	}
	cp := cps[i]
	if cp.Identifier == "" {
		return c.failWait(ctx, pt, w, &zvm.Error{Kind: zvm.KindMalformed, Op: "GET checkpoints of VPG " + pt.VPGIdentifier,
			Err: fmt.Errorf("checkpoint %q is listed without a CheckpointIdentifier, so nothing can rewind to it", cp.Tag)}), true
	}
	pt.Identifier, pt.Time, pt.Expected = cp.Identifier, cp.Time, time.Time{}
	c.update(ctx, pt.VPGIdentifier, func(st *vpgState) {
		st.dropPending(w.tag)
		st.LastTag = &landedTag{Tag: cp.Tag, Identifier: cp.Identifier, Time: cp.Time}
	})
	return result{kind: Protected, point: *pt}, true
}

// failWait ends a wait that cannot succeed: the tag is dropped from the
// VPG's tags in flight, so that no later call waits for it.
func (c *Capturer) failWait(ctx context.Context, pt *Point, w wait, err error) result {
	c.update(ctx, pt.VPGIdentifier, func(st *vpgState) { st.dropPending(w.tag) })
	return result{kind: Failed, point: *pt, err: err}
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
