package hook

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// watch answers for a run at its budget, should the run not have answered
// by then: every step of the flow keeps to the budget, and this is the net
// under them, for a step that does not (a host that never closes stdin, a
// config on a hung file system, a bug). It is a timer and the last state
// the run made known: the run goes on owning its own, and the watch
// answers from its copy alone.
type watch struct {
	start time.Time
	timer *time.Timer
	known atomic.Pointer[state]
}

// newWatch is a watch for a run that started at start, which knows the
// default settings until it is told the config's.
func newWatch(start time.Time) *watch {
	w := &watch{start: start}
	st := &state{f: facts{Budget: policy.DefaultBudget, OnError: "allow"}, early: true}
	w.known.Store(st)
	w.timer = time.NewTimer(time.Until(w.deadline(st)))
	return w
}

// deadline is when the watch answers for st: half the reserve before the
// budget ends, after every step's own deadline, with time left to write.
func (w *watch) deadline(st *state) time.Time {
	b := st.f.Budget
	return w.start.Add(b - reserve(b)/2)
}

// set makes st what the watch knows, and its budget the deadline. The
// timer is set again only when the budget changes: the runtime wakes the
// thread that sleeps until the timer is due whenever it is set, even for
// the deadline it had, and the run tells the watch what it knows some
// times a call, each wake some tens of microseconds of a hook process.
func (w *watch) set(st state) {
	if old := w.known.Swap(&st); old.f.Budget != st.f.Budget {
		w.timer.Reset(time.Until(w.deadline(&st)))
	}
}

// offer makes st, settings known before the event is read (those of the
// config --config or $REWIND_CONFIG names), what the watch knows, unless
// the run has told it the settings of the config found for the event's
// project, which come first.
func (w *watch) offer(st state) {
	for {
		old := w.known.Load()
		if !old.early {
			return
		}
		if w.known.CompareAndSwap(old, &st) {
			w.timer.Reset(time.Until(w.deadline(&st)))
			return
		}
	}
}

// await returns the run's answer, or, when the budget of what the watch
// knows ends first, the watch's own.
func (w *watch) await(decided <-chan answer, host hostio.Host) answer {
	defer w.timer.Stop()
	for {
		select {
		case a := <-decided:
			return a
		case <-w.timer.C:
			if st := w.due(); st != nil {
				return expire(host, *st)
			}
		}
	}
}

// due returns what the watch knows if its deadline has passed; else it
// sets the timer for that deadline (the timer fired for one that has moved
// since) and returns nil.
func (w *watch) due() *state {
	for {
		st := w.known.Load()
		left := time.Until(w.deadline(st))
		if left <= 0 {
			return st
		}
		w.timer.Reset(left)
		if w.known.Load() == st {
			return nil
		}
		// Told something new while the timer was set: set it again, for
		// what is known now.
	}
}

// expire is the answer for a run that st describes and that has not
// answered within its budget. A call whose checkpoint is being taken is
// answered from what the protect step has achieved (see Call.OnOverrun):
// never let through unchecked. A call still being analysed is answered as
// an event whose input could not be read: by what its tool could do
// whatever the input, so that a shell command the agent made too costly to
// analyse is asked, never let through on hook.on_error. Before the policy
// is known, nothing is known about the call, and the answer is
// hook.on_error's.
func expire(host hostio.Host, st state) answer {
	if st.overrun == nil {
		err := fmt.Errorf("no decision within the hook's budget of %s", st.f.Budget)
		f := facts{Err: err, OnError: st.f.OnError, Budget: st.f.Budget, ID: st.f.ID}
		if st.unknown != nil {
			f.Err, f.Unread, f.Verdict = nil, err, *st.unknown
		}
		st.f = f
		return conclude(host, st)
	}
	// Recording a let-through (for a protected or asked outcome) may take
	// a moment, leaving the log append after it most of what remains.
	ctx, cancel := context.WithTimeout(context.Background(), reserve(st.f.Budget)/8)
	defer cancel()
	o := st.overrun(ctx)
	st.f.Outcome, st.f.Overrun = &o, true
	return conclude(host, st)
}
