package capture

import (
	"time"

	"github.com/rewind-dev/rewind/zvm"
)

// Zerto's timestamps are on the ZVM's clock, which need not agree with this
// machine's: every comparison with one (the startDate of a listing, the
// expected tick, reuse windows, the let-through record) is made in ZVM
// time, which the client estimates from the offset it measured (see
// zvm.Client.Offset). Sleeps and the deadline stay on this machine's clock,
// and wallTime converts between the two.

// zNow returns the ZVM's time now: Options.Now plus the measured offset.
func (c *Capturer) zNow() time.Time { return c.zvmTime(c.o.Now()) }

// zvmTime converts a reading t of Options.Now to the ZVM's clock.
func (c *Capturer) zvmTime(t time.Time) time.Time {
	off, _ := c.z.Offset()
	c.mu.Lock()
	lead := c.lead
	c.mu.Unlock()
	return t.Add(off + lead)
}

// sawJournal corrects the clock by what the journal shows: the ZVM wrote
// its newest checkpoint at its own time, so its clock has reached that
// TimeStamp at least. A ZVM seen ahead of the offset's estimate (a clock
// stepped since it was measured, a Date header's whole seconds) moves the
// estimate forward; nothing moves it back.
func (c *Capturer) sawJournal(cps []zvm.Checkpoint) {
	var newest time.Time
	for _, cp := range cps {
		if cp.Time.After(newest) {
			newest = cp.Time
		}
	}
	if newest.IsZero() {
		return
	}
	if d := newest.Sub(c.zNow()); d > 0 {
		c.mu.Lock()
		c.lead += d
		c.mu.Unlock()
	}
}

// wallTime converts ZVM time z to this machine's wall clock, for sleeping
// until it, comparing it with a deadline, or telling a person when it is.
func (c *Capturer) wallTime(z time.Time) time.Time {
	return time.Now().Add(z.Sub(c.zNow()))
}
