package capture

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/zvm"
)

// cadenceFresh is how long a cadence capture estimated stays the answer
// of Cadence without a new look at the journal: a journal's cadence is
// its VRA's, which changes when the VPG is edited, not from call to call.
const cadenceFresh = DefaultResolveTTL

// MaxConcurrentReads bounds the requests Cadences has in flight: enough
// to list hundreds of VPGs within a tool's deadline, few enough not to
// load the ZVM.
const MaxConcurrentReads = 8

// errTooSparse says the journal shows too few checkpoints to estimate a
// cadence from.
var errTooSparse = errors.New("too few checkpoints in the last day to estimate the journal's cadence")

// Cadence returns a VPG's journal cadence: the one capture estimated last
// (kept in the state folder by the hook) while it is fresh, else an
// estimate from the journal's recent checkpoints, read the way capture
// reads them before it waits for a tag, and kept for the next caller. It
// is the one estimate of a cadence in rewind, so that what the MCP server
// and the page advise is what the hook waits by.
func (c *Capturer) Cadence(ctx context.Context, vpgID string) (time.Duration, error) {
	st := &vpgState{}
	if c.o.StateDir != "" {
		st = c.loadState(vpgID)
	}
	now := c.zNow()
	if cad := st.cadence(); cad > 0 && !st.CadenceAt.IsZero() && now.Sub(st.CadenceAt).Abs() < cadenceFresh {
		return cad, nil
	}
	_, cad, estimated, err := c.recent(ctx, vpgID, st, now)
	switch {
	case err != nil:
		return 0, err
	case !estimated:
		return 0, errTooSparse
	}
	if c.o.StateDir != "" {
		at := c.zNow()
		c.update(ctx, vpgID, func(st *vpgState) { st.CadenceMS, st.CadenceAt = cad.Milliseconds(), at })
	}
	return cad, nil
}

// CadenceResult is one VPG's answer of Cadences.
type CadenceResult struct {
	Cadence time.Duration
	Err     error
}

// Cadences is Cadence for several VPGs, answered in their order, with at
// most MaxConcurrentReads of them asking Zerto at once. A VPG whose
// cadence is fresh in the state folder costs no request.
func (c *Capturer) Cadences(ctx context.Context, vpgIDs []string) []CadenceResult {
	out := make([]CadenceResult, len(vpgIDs))
	sem := make(chan struct{}, MaxConcurrentReads)
	var wg sync.WaitGroup
	for i, id := range vpgIDs {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				out[i].Err = &zvm.Error{Kind: zvm.KindTimeout, Op: "cadence of VPG " + id, Err: ctx.Err()}
				return
			}
			defer func() { <-sem }()
			out[i].Cadence, out[i].Err = c.Cadence(ctx, id)
		})
	}
	wg.Wait()
	return out
}
