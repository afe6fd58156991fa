package hook

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime/debug"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// Options configure one hook run.
type Options struct {
	// Host is the agent host whose protocol is spoken.
	Host hostio.Host
	// ConfigPath is the --config flag; empty means discovery.
	ConfigPath string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Stderr receives the part of the answer that the hosts which read a
	// refusal from the exit code read on standard error: its reason.
	// Nothing else is written there; see Logger.
	Stderr io.Writer
	// Logger receives rewind's diagnostics, which are no part of the
	// answer (an audit log that cannot be written, a project config that
	// is not trusted); nil discards them.
	Logger *slog.Logger
	// Advice marks a call that is checked, not made (see Decide): its
	// checkpoint is taken, but no call is recorded as let through, so the
	// call made next is protected by that same checkpoint.
	Advice bool
	// Protect takes the checkpoint a protect verdict needs (see
	// Protector). Nil means none can be had: a protect verdict is denied.
	Protect Protector
}

// Run reads one event from stdin and writes the decision to stdout, within
// the config's hook.budget counted from Run's start, and returns the exit
// code of the answer: 0, but for the hosts that read a refusal from exit
// code 2 (and its reason from stderr). Every outcome, errors included, is
// a decision. Every decision but a plain "none" is appended to the audit
// log before it is written, so the audit ID a protected call is told about
// exists when the agent reads it.
//
// A post-tool event, which says how a call ended, is appended to the log as
// the call's outcome (see audit.Log.AppendOutcome), and gets no answer.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) int {
	r := newRun(opts)
	r.watch = newWatch(r.start)
	if path := r.namedConfig(); path != "" {
		go r.namedSettings(path)
	}
	decided := make(chan answer, 1)
	go func() {
		growStack(0)
		decided <- r.decideEvent(ctx, stdin)
	}()
	a := r.watch.await(decided, r.opts.Host)
	if a.rec != nil {
		r.appendAudit(a.rec, a.budget)
	}
	resp := a.Answer
	if resp == nil {
		// Not decided, logged and encoded by the process the protect step
		// handed the call to.
		rr, err := hostio.Respond(r.opts.Host, a.ev, a.Decision)
		if err != nil {
			r.opts.Logger.Warn("writing the decision", "err", err)
		}
		resp = &rr
	}
	if len(resp.Stdout) > 0 {
		if _, err := stdout.Write(resp.Stdout); err != nil {
			r.opts.Logger.Warn("writing the decision", "err", err)
		}
	}
	if len(resp.Stderr) > 0 && opts.Stderr != nil {
		opts.Stderr.Write(resp.Stderr)
	}
	return resp.Code
}

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
	r := newRun(opts)
	r.st.ev = ev
	var a answer
	defer func() {
		v := r.st.f.Verdict
		if p := recover(); p != nil {
			a = r.failed(fmt.Errorf("internal error: %v", p))
		}
		res = Result{Decision: a.Decision, Verdict: v, Record: a.rec}
		if res.Record != nil {
			res.Record.ElapsedMS = time.Since(r.start).Milliseconds()
		}
	}()
	a = r.judge(ctx)
	return res
}

// newRun starts a run with opts, its defaults filled in.
func newRun(opts Options) *run {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &run{opts: opts, start: time.Now()}
	r.st.f.Budget = policy.DefaultBudget
	return r
}

// reserve is the part of the budget kept back from capture for logging and
// answering, so that the answer is out before the budget ends even on a
// loaded machine: a twentieth of the budget, at least 250 ms, at most 2 s.
func reserve(budget time.Duration) time.Duration {
	return min(max(budget/20, 250*time.Millisecond), 2*time.Second)
}

// growStack grows the calling goroutine's stack to 32 KiB at once, which
// is what deciding a shell call takes. A goroutine starts with 2 KiB, and
// each time it outgrows its stack the runtime copies it and walks every
// frame on it to move their pointers, reading the stack maps of functions
// that run for the first time in the process: deciding a read-only call
// grew the stack four times, 5% of the process's time (perf record over
// 400 runs, docs/performance.md). Grown here, the stack holds two frames.
// Its frame is a zeroed array the result is read from, so the compiler
// keeps it.
//
//go:noinline
func growStack(i int) byte {
	var frame [24 << 10]byte
	return frame[i]
}

// MemoryLimit is the soft limit on the memory of a process that runs the
// hook (runtime/debug.SetMemoryLimit), which LimitMemory sets. Without it
// the garbage collector lets the heap double between collections, so that
// the peak of the largest events (8 MiB of a PowerShell pipeline in pwsh
// -c) lay anywhere from 234 to 249 MiB as the moments of collection fell;
// with it the same event peaks at 200 MiB in the same time (go run
// ./bench/hooklimits, docs/limits.md). A process whose live heap needs more
// still gets it, with the collector running more often.
const MemoryLimit = 192 << 20

// LimitMemory sets MemoryLimit for the process, unless the environment
// sets a limit of its own (GOMEMLIMIT). Only a process's main calls it
// (rewind-hook's, and rewind's for rewind hook: cli.Main): the limit is
// the whole process's.
func LimitMemory(getenv func(string) string) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
