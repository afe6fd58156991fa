package zvm

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// serverTimePath answers the ZVM's clock in UTC, as a JSON string.
const serverTimePath = "/v1/serverDateTime/serverDateTimeUtc"

// dateSlack is how far an offset may stray outside what a response's Date
// header allows before it is taken to be stale: the header has whole
// seconds, and the request's round trip widens the window further.
const dateSlack = time.Second

// clock is what a Client knows of the ZVM's clock: its offset from this
// machine's, measured once per login against serverDateTimeUtc and shared
// through the token cache. The Date header of an answer is the web
// server's clock, which need not be the ZVM's (a reverse proxy such as
// nginx writes its own), so it sets the offset only on a ZVM that gives
// none of its own; what it says is kept beside, for doctor to compare.
type clock struct {
	mu       sync.Mutex
	offset   time.Duration
	measured time.Time // local time of the measurement; zero when none
	precise  bool      // from serverDateTimeUtc rather than a Date header
	// date is the offset the last Date header implied (the middle of its
	// window), when dateSeen.
	date     time.Duration
	dateSeen bool
}

func (k *clock) get() (time.Duration, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.offset, !k.measured.IsZero()
}

func (k *clock) set(offset time.Duration, at time.Time, precise bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.offset, k.measured, k.precise = offset, at, precise
}

// observe reads a response's Date header, received between sent and
// received on this machine's clock. The server's time when it answered
// lies in [Date, Date+1s), and that moment lies in [sent, received], so
// its offset lies in [Date-received, Date+1s-sent]. That window's middle
// is kept as what the Date header says. It becomes the offset only while
// no serverDateTimeUtc reading is known, and then whenever the offset
// lies outside the window (widened by dateSlack): observe reports whether
// it did.
func (k *clock) observe(h http.Header, sent, received time.Time) bool {
	d, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return false
	}
	lo, hi := d.Sub(received), d.Add(time.Second).Sub(sent)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.date, k.dateSeen = lo+(hi-lo)/2, true
	if k.precise {
		return false
	}
	if !k.measured.IsZero() && k.offset >= lo-dateSlack && k.offset <= hi+dateSlack {
		return false
	}
	k.offset, k.measured = k.date, received
	return true
}

// DateOffset returns the offset the Date header of the ZVM's last answer
// implied, to the second, and whether an answer had one. It differs from
// Offset when the web server in front of the ZVM (a reverse proxy) keeps
// a clock of its own; rewind goes by Offset.
func (c *Client) DateOffset() (time.Duration, bool) {
	c.clk.mu.Lock()
	defer c.clk.mu.Unlock()
	return c.clk.date, c.clk.dateSeen
}

// OffsetSource says where Offset comes from: "serverDateTimeUtc" (the
// ZVM's own clock), "Date header" (a ZVM without that endpoint), or ""
// before the first request.
func (c *Client) OffsetSource() string {
	c.clk.mu.Lock()
	defer c.clk.mu.Unlock()
	switch {
	case c.clk.measured.IsZero():
		return ""
	case c.clk.precise:
		return "serverDateTimeUtc"
	}
	return "Date header"
}

// Offset returns how far the ZVM's clock is ahead of this machine's
// (negative when behind), and whether it has been measured: it is once the
// Client has logged in or found a cached token, that is after its first
// request. Every comparison with a Zerto timestamp must use ZVM time: see Now.
func (c *Client) Offset() (time.Duration, bool) { return c.clk.get() }

// Now returns the ZVM's current time as this Client estimates it: this
// machine's clock plus Offset (this machine's clock before the first request).
func (c *Client) Now() time.Time {
	off, _ := c.clk.get()
	return time.Now().Add(off)
}

// URL returns the ZVM's base URL, as the Client sends requests to it.
func (c *Client) URL() string { return c.base }

// ServerTime asks the ZVM for its clock (GET
// /v1/serverDateTime/serverDateTimeUtc), updates Offset from the answer
// and returns it.
func (c *Client) ServerTime(ctx context.Context) (time.Time, error) {
	var w wireTime
	sent := time.Now()
	if err := c.do(ctx, request{method: http.MethodGet, path: serverTimePath}, &w); err != nil {
		return time.Time{}, err
	}
	received := time.Now()
	c.clk.set(w.Sub(sent.Add(received.Sub(sent)/2)), received, true)
	return w.Time, nil
}

// measureClock sets the offset after a login, with the fresh token t: one
// request, made while the caller holds the token cache's lock, so the
// offset is stored with the token for the processes that reuse it. A ZVM
// without the endpoint, or one that fails it, leaves the offset to the Date
// header of the answer; a ZVM with neither leaves it as it was.
func (c *Client) measureClock(ctx context.Context, t token) {
	const op = http.MethodGet + " " + serverTimePath
	sent := time.Now()
	// One try: the reading is worth a request, not the caller's deadline.
	resp, err := c.send(ctx, op, false, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+serverTimePath, nil)
		if err == nil {
			req.Header.Set("Accept", "application/json")
			c.auth.authorize(req, t)
		}
		return req, err
	})
	if err != nil {
		return
	}
	received := time.Now()
	var w wireTime
	if resp.status == http.StatusOK && json.Unmarshal(resp.body, &w) == nil && !w.IsZero() {
		c.clk.set(w.Sub(sent.Add(received.Sub(sent)/2)), received, true)
		return
	}
	c.clk.observe(resp.header, sent, received)
}

// clockEntry is the offset as the token cache stores it.
type clockEntry struct {
	OffsetMS int64     `json:"zvm_offset_ms"`
	Measured time.Time `json:"zvm_offset_measured,omitzero"`
	// FromDate says the offset came from a Date header, not from
	// serverDateTimeUtc.
	FromDate bool `json:"zvm_offset_from_date,omitempty"`
}

func (k *clock) entry() clockEntry {
	k.mu.Lock()
	defer k.mu.Unlock()
	return clockEntry{OffsetMS: k.offset.Milliseconds(), Measured: k.measured, FromDate: !k.precise}
}

func (k *clock) load(e clockEntry) {
	if e.Measured.IsZero() {
		return
	}
	k.set(time.Duration(e.OffsetMS)*time.Millisecond, e.Measured, !e.FromDate)
}
