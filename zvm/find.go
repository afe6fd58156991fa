package zvm

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Bounds of FindCheckpoint, when a Search gives none: at 5 s a checkpoint
// and about 150 bytes each, a month's journal is half a million
// checkpoints and 80 MB, which no single answer should carry.
const (
	DefaultFindRequests = 64
	DefaultFindBytes    = 96 << 20
	// findTarget is how many checkpoints one listing aims at: each window
	// is sized from the density of the one before.
	findTarget = 10000
	// findFirst is the first window, around the point searched from.
	findFirst = time.Hour
	// findGrowth bounds how much a window may grow over the one before.
	findGrowth = 8
	// findSkew is how far past a journal's latest checkpoint a window
	// reaches, for a checkpoint written since its statistics were read.
	findSkew = time.Minute
)

// Search is what FindCheckpoint looks for, and where.
type Search struct {
	// VPGs are the identifiers of the VPGs whose journals are searched.
	VPGs []string
	// Identifier is the CheckpointIdentifier looked for; else Tag.
	Identifier string
	Tag        string
	// Near is when the checkpoint is thought to have been written, in ZVM
	// time; the search widens from there both ways. Zero searches from
	// each journal's latest checkpoint back.
	Near time.Time
	// MaxRequests and MaxBytes bound the search: DefaultFindRequests and
	// DefaultFindBytes when zero.
	MaxRequests, MaxBytes int
}

// Found is the checkpoint FindCheckpoint found, and its VPG.
type Found struct {
	VPGIdentifier string
	Checkpoint    Checkpoint
}

// SearchLimitError says that FindCheckpoint reached its bounds before it
// had searched every journal whole: the checkpoint is not in the part it
// read, and may be in the rest.
type SearchLimitError struct {
	What            string // "checkpoint 12345", "tag rewind-..."
	Requests, Bytes int
	// Searched is, per VPG identifier, the span of its journal read.
	Searched map[string][2]time.Time
}

func (e *SearchLimitError) Error() string {
	var spans []string
	for id, s := range e.Searched {
		spans = append(spans, fmt.Sprintf("VPG %s from %s to %s", id, s[0].UTC().Format(time.RFC3339), s[1].UTC().Format(time.RFC3339)))
	}
	return fmt.Sprintf("zvm: %s: not in the part of the journals read (%s) before the search stopped at %d requests and %d MiB; the rest was not read",
		e.What, strings.Join(spans, "; "), e.Requests, e.Bytes>>20)
}

// journalSearch is the search of one VPG's journal: the span read so far,
// and the window size the next listing uses.
type journalSearch struct {
	vpg              string
	earliest, latest time.Time // the journal's bounds
	lo, hi           time.Time // read: [lo, hi]
	step             time.Duration
	started, done    bool
}

// FindCheckpoint looks for a checkpoint by its identifier or tag in the
// journals of s.VPGs without listing any journal whole: it reads each
// journal's bounds, then windows of it, widened step by step from s.Near
// (or the latest checkpoint), each window sized from the density of the
// one before so that one listing holds about ten thousand checkpoints. The
// journals are searched side by side, so that a recent checkpoint of any
// of them is found first. It stops at the first match, at the end of every
// journal (found false, no error), or at s's bounds in requests and bytes
// (a *SearchLimitError).
func (c *Client) FindCheckpoint(ctx context.Context, s Search) (Found, bool, error) {
	maxReq, maxBytes := s.MaxRequests, s.MaxBytes
	if maxReq <= 0 {
		maxReq = DefaultFindRequests
	}
	if maxBytes <= 0 {
		maxBytes = DefaultFindBytes
	}
	what := "checkpoint " + s.Identifier
	match := func(cp Checkpoint) bool { return cp.Identifier == s.Identifier }
	if s.Identifier == "" {
		what = "tag " + s.Tag
		match = func(cp Checkpoint) bool { return cp.Tag == s.Tag }
	}
	requests, bytes := 0, 0
	limit := func(js []*journalSearch) error {
		e := &SearchLimitError{What: what, Requests: requests, Bytes: bytes, Searched: map[string][2]time.Time{}}
		for _, j := range js {
			if j.started {
				e.Searched[j.vpg] = [2]time.Time{j.lo, j.hi}
			}
		}
		return e
	}
	var js []*journalSearch
	for _, id := range s.VPGs {
		if requests >= maxReq {
			return Found{}, false, limit(js)
		}
		st, err := c.CheckpointStats(ctx, id)
		requests++
		if err != nil {
			return Found{}, false, fmt.Errorf("reading the journal of VPG %s: %w", id, err)
		}
		j := &journalSearch{vpg: id, earliest: st.Earliest.Time, latest: st.Latest.Time, step: findFirst}
		j.done = j.latest.IsZero()
		js = append(js, j)
	}
	for {
		progressed := false
		for _, j := range js {
			if j.done {
				continue
			}
			if requests >= maxReq || bytes >= maxBytes {
				return Found{}, false, limit(js)
			}
			from, to := j.next(s.Near)
			cps, size, err := c.checkpoints(ctx, j.vpg, from, to)
			requests++
			bytes += size
			if err != nil {
				return Found{}, false, fmt.Errorf("reading the journal of VPG %s: %w", j.vpg, err)
			}
			for _, cp := range cps {
				if match(cp) {
					return Found{VPGIdentifier: j.vpg, Checkpoint: cp}, true, nil
				}
			}
			j.read(from, to, len(cps))
			progressed = true
		}
		if !progressed {
			return Found{}, false, nil
		}
	}
}

// next returns the window to list: first one around near (or the latest
// checkpoint), then one step older, or newer when the older side is read
// to the journal's start.
func (j *journalSearch) next(near time.Time) (from, to time.Time) {
	top := j.latest.Add(findSkew)
	if !j.started {
		anchor := near
		if anchor.IsZero() || anchor.After(top) {
			anchor = j.latest
		}
		if anchor.Before(j.earliest) {
			anchor = j.earliest
		}
		from, to = anchor.Add(-j.step/2), anchor.Add(j.step/2)
		if near.IsZero() {
			from, to = anchor.Add(-j.step), top
		}
		return latest(from, j.earliest), earliest(to, top)
	}
	if j.lo.After(j.earliest) {
		return latest(j.lo.Add(-j.step), j.earliest), j.lo
	}
	return j.hi, earliest(j.hi.Add(j.step), top)
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// read records that [from, to] was listed with n checkpoints in it, and
// sizes the next window: findTarget checkpoints at the density seen, at
// most findGrowth times this one.
func (j *journalSearch) read(from, to time.Time, n int) {
	if !j.started {
		j.lo, j.hi, j.started = from, to, true
	} else {
		j.lo, j.hi = earliest(j.lo, from), latest(j.hi, to)
	}
	span := to.Sub(from)
	grow := time.Duration(findGrowth) * max(span, j.step)
	if n > 0 {
		fit := time.Duration(float64(span) / float64(n) * findTarget)
		j.step = min(max(fit, time.Minute), grow)
	} else {
		j.step = grow
	}
	// A year is more than any journal keeps.
	j.step = min(j.step, 366*24*time.Hour)
	j.done = !j.lo.After(j.earliest) && !j.hi.Before(j.latest.Add(findSkew))
}
