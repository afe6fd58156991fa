package zvmsim

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// maxDeepHistory bounds a scenario's history: a year is more than any
// journal keeps.
const maxDeepHistory = 366 * 24 * time.Hour

// deepHistory is a journal's past before the simulator started, when it
// is longer than the simulator keeps in memory (History past maxHistory or
// past maxCheckpoints ticks): a month at a 5 s cadence is half a million
// checkpoints. Its checkpoints are computed, not stored: tick k (0 the
// oldest) was written at first - (n-k)*cadence, with CheckpointIdentifier
// base+k from a block of identifiers kept for it at start, below every
// identifier written live, so that identifiers still grow with time.
type deepHistory struct {
	first   time.Time // the first live tick, ZVM time
	cadence time.Duration
	n       int64
	base    int64
}

// deepFor returns the deep history of a VPG whose configured History is
// past what the simulator stores, or nil.
func deepFor(cfg VPG) (n int64, deep bool) {
	cadence, history := time.Duration(cfg.Cadence), time.Duration(cfg.History)
	n = int64(history / cadence)
	return n, history > maxHistory || n > maxCheckpoints
}

func (d *deepHistory) at(k int64) Checkpoint {
	t := d.first.Add(-time.Duration(d.n-k) * d.cadence).UTC().Truncate(time.Millisecond)
	return Checkpoint{ID: strconv.FormatInt(d.base+k, 10), Time: t}
}

// span returns the ticks [lo, hi) written within [from, to] (a zero bound
// is open) and not older than retention before now.
func (d *deepHistory) span(from, to, now time.Time, retention time.Duration) (lo, hi int64) {
	lo, hi = 0, d.n
	// index of the first tick at or after t
	index := func(t time.Time) int64 {
		back := d.first.Sub(t) // tick k is (n-k) cadences back
		if back <= 0 {
			return d.n
		}
		k := d.n - int64(back/d.cadence)
		return min(max(k, 0), d.n)
	}
	if retention > 0 {
		lo = max(lo, index(now.Add(-retention)))
	}
	if !from.IsZero() {
		lo = max(lo, index(from))
	}
	if !to.IsZero() {
		k := index(to)
		if k < d.n && !d.at(k).Time.After(to) {
			k++
		}
		hi = min(hi, k)
	}
	return lo, max(lo, hi)
}

// find returns the tick with identifier id, within retention.
func (d *deepHistory) find(id string, now time.Time, retention time.Duration) (Checkpoint, bool) {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil || n < d.base || n >= d.base+d.n {
		return Checkpoint{}, false
	}
	lo, _ := d.span(time.Time{}, time.Time{}, now, retention)
	if n-d.base < lo {
		return Checkpoint{}, false
	}
	return d.at(n - d.base), true
}

// deepRetention is how far back a journal with a deep history keeps its
// checkpoints: its scenario's History, or less when SetJournalHistory
// shortened it.
func (v *vpgState) deepRetention() time.Duration {
	r := time.Duration(v.cfg.History)
	if v.history > 0 && v.history < r {
		r = v.history
	}
	return r
}

// writeCheckpoints streams a listing of a deep journal's ticks [lo, hi)
// and then the stored checkpoints, one at a time: half a million
// checkpoints are never built as one value.
func (c *call) writeCheckpoints(d *deepHistory, lo, hi int64, stored []Checkpoint) {
	if c.malformed {
		out := []checkpointJSON{}
		for k := lo; k < hi; k++ {
			out = append(out, checkpointWire(d.at(k)))
		}
		for _, cp := range stored {
			out = append(out, checkpointWire(cp))
		}
		c.json(http.StatusOK, out)
		return
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(http.StatusOK)
	w := bufio.NewWriterSize(c.w, 64<<10)
	enc := json.NewEncoder(w)
	w.WriteByte('[')
	first := true
	put := func(cp Checkpoint) bool {
		if !first {
			w.WriteByte(',')
		}
		first = false
		// Encode ends each value with a newline, which JSON allows.
		return enc.Encode(checkpointWire(cp)) == nil
	}
	for k := lo; k < hi; k++ {
		if !put(d.at(k)) || c.r.Context().Err() != nil {
			return
		}
	}
	for _, cp := range stored {
		if !put(cp) {
			return
		}
	}
	w.WriteByte(']')
	w.Flush()
}
