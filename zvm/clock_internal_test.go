package zvm

import (
	"net/http"
	"testing"
	"time"
)

func TestObserveDate(t *testing.T) {
	t.Parallel()
	sent := time.Date(2026, 12, 1, 5, 0, 0, 0, time.UTC)
	received := sent.Add(100 * time.Millisecond)
	tests := []struct {
		name     string
		date     string
		known    time.Duration // the offset before; -1 for none
		precise  bool          // the offset before is serverDateTimeUtc's
		want     time.Duration // the offset after, ±600 ms
		replaced bool
	}{
		{"none yet", "Tue, 01 Dec 2026 04:58:00 GMT", -1, false, -2 * time.Minute, true},
		{"consistent", "Tue, 01 Dec 2026 05:00:00 GMT", 300 * time.Millisecond, false, 300 * time.Millisecond, false},
		{"within a second of slack", "Tue, 01 Dec 2026 05:00:00 GMT", 1800 * time.Millisecond, false, 1800 * time.Millisecond, false},
		{"stepped", "Tue, 01 Dec 2026 06:00:00 GMT", 0, false, time.Hour, true},
		// A proxy's Date never overrides the ZVM's own clock.
		{"a proxy's clock", "Tue, 01 Dec 2026 05:02:00 GMT", 0, true, 0, false},
		{"no header", "", 5 * time.Second, false, 5 * time.Second, false},
		{"garbage", "soon", 5 * time.Second, false, 5 * time.Second, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var k clock
			if tt.known >= 0 {
				k.set(tt.known, sent, tt.precise)
			}
			h := http.Header{}
			if tt.date != "" {
				h.Set("Date", tt.date)
			}
			if got := k.observe(h, sent, received); got != tt.replaced {
				t.Errorf("replaced = %v, want %v", got, tt.replaced)
			}
			if off, _ := k.get(); (off - tt.want).Abs() > 600*time.Millisecond {
				t.Errorf("offset %v, want ~%v", off, tt.want)
			}
		})
	}
}

// FuzzObserveDate: whatever Date header a server sends, observe neither
// panics nor leaves an offset outside what that header allows.
func FuzzObserveDate(f *testing.F) {
	for _, s := range []string{"Tue, 01 Dec 2026 04:58:00 GMT", "", "soon", "Mon, 02 Jan 0001 00:00:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT"} {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, date string, before int64) {
		var k clock
		k.set(time.Duration(before), time.Now(), false)
		sent := time.Now()
		received := sent.Add(50 * time.Millisecond)
		h := http.Header{"Date": {date}}
		if !k.observe(h, sent, received) {
			return
		}
		d, err := http.ParseTime(date)
		if err != nil {
			t.Fatalf("replaced the offset from an unparsable Date %q", date)
		}
		off, _ := k.get()
		if lo, hi := d.Sub(received), d.Add(time.Second).Sub(sent); off < lo || off > hi {
			t.Errorf("offset %v outside [%v, %v]", off, lo, hi)
		}
	})
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	date := "Tue, 01 Dec 2026 05:00:00 GMT"
	tests := []struct {
		name  string
		h     http.Header
		want  time.Duration
		delta time.Duration // how far the answer may be from want
	}{
		{"absent", http.Header{}, 0, 0},
		{"seconds", http.Header{"Retry-After": {"7"}}, 7 * time.Second, 0},
		{"negative seconds", http.Header{"Retry-After": {"-3"}}, 0, 0},
		{"http-date after the server's Date", http.Header{"Retry-After": {"Tue, 01 Dec 2026 05:00:30 GMT"}, "Date": {date}}, 30 * time.Second, 0},
		{"http-date in the past", http.Header{"Retry-After": {"Tue, 01 Dec 2026 04:59:00 GMT"}, "Date": {date}}, 0, 0},
		{"http-date without Date", http.Header{"Retry-After": {time.Now().Add(20 * time.Second).UTC().Format(http.TimeFormat)}}, 20 * time.Second, 2 * time.Second},
		{"garbage", http.Header{"Retry-After": {"soon"}}, 0, 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.h); (got - tt.want).Abs() > tt.delta {
			t.Errorf("%s: retryAfter = %v, want %v", tt.name, got, tt.want)
		}
	}
}
