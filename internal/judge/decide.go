package judge

import (
	"context"
	"fmt"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// Result is what Decide makes of one event.
type Result struct {
	// Decision is the answer the host gets.
	Decision hostio.Decision
	// Verdict is the policy's judgement of the call, the zero Verdict when
	// no config or policy could be had.
	Verdict policy.Verdict
	// Record is the decision's audit record, nil for a plain none.
	Record *audit.Record
}

// Decide judges one decoded event the way Run does: the config found from
// the event's cwd, the policy's verdict, a checkpoint for a protect verdict
// within the config's hook.budget counted from now, and the decision table,
// with rewind's own failures under hook.on_error. The caller appends the
// record to the audit log (Run does so before it answers).
//
// Run and rewind's MCP server both decide through it, so that the advice
// the server gives and what the hook enforces cannot disagree. With
// opts.Advice the checkpoint taken is left to protect the call when it is
// made.
func Decide(ctx context.Context, ev *hostio.Event, opts Options) (res Result) {
	r := &run{opts: &opts, start: time.Now(), budget: policy.DefaultBudget, configured: make(chan settings, 1), ev: ev}
	defer func() {
		if p := recover(); p != nil {
			res.Decision = r.internalError(fmt.Errorf("internal error: %v", p))
		}
		res.Verdict, res.Record = r.verdict, r.rec
		if res.Record != nil {
			res.Record.ElapsedMS = time.Since(r.start).Milliseconds()
		}
	}()
	res.Decision = r.judge(ctx)
	return res
}
