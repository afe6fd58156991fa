package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// run is one hook run. Its state belongs to the goroutine that decides;
// the budget's watch is handed copies (see watch).
type run struct {
	opts  Options // with Getenv and Logger set
	start time.Time
	// watch answers at the budget, should the run not; nil for Decide.
	watch *watch
	st    state
}

// state is what a run knows of its call at one moment: enough to decide
// on it without the run.
type state struct {
	f  facts
	ev *hostio.Event // nil until the event is read
	// targets maps targets to Zerto VM names for the audit record.
	targets policy.TargetsConfig
	// early marks settings known before the event is read (see
	// watch.offer).
	early bool
	// overrun answers for a protect step that is still at work (see
	// Call.OnOverrun).
	overrun func(context.Context) Outcome
	// unknown is what the policy makes of the call's tool whatever its
	// input (policy.Policy.ClassifyUnread), known once the policy is:
	// the watch's answer for a call whose analysis outlasts the budget.
	unknown *policy.Verdict
}

// answer is a run's answer: the ruling, its record, and what writing
// them needs.
type answer struct {
	ruling
	rec    *audit.Record
	budget time.Duration
	ev     *hostio.Event
}

// conclude is the answer for what st knows: the decision table's ruling
// on its facts, and the record of that ruling.
func conclude(host hostio.Host, st state) answer {
	st.f.Now = time.Now()
	rl := decide(st.f)
	if rl.Logged != "" && st.ev != nil && st.f.ID == "" {
		st.f.ID = audit.NewID()
	}
	return answer{ruling: rl, rec: record(host, &st, rl), budget: st.f.Budget, ev: st.ev}
}

func (r *run) conclude() answer { return conclude(r.opts.Host, r.st) }

// publish tells the watch what the run knows now.
func (r *run) publish() {
	if r.watch != nil {
		r.watch.set(r.st)
	}
}

// onOverrun is Call.OnOverrun: what the watch answers for the protect
// step from now on.
func (r *run) onOverrun(overrun func(context.Context) Outcome) {
	r.st.overrun = overrun
	r.publish()
}

// namedConfig is the config that --config or $REWIND_CONFIG names, if any.
func (r *run) namedConfig() string {
	if r.opts.ConfigPath != "" {
		return r.opts.ConfigPath
	}
	return r.opts.Getenv("REWIND_CONFIG")
}

// namedSettings makes the settings of the named config at path known to
// the watch at once: the event, which says where the project is, comes
// only when the host closes stdin, and a host that never does is answered
// at that config's budget, not the default.
func (r *run) namedSettings(path string) {
	defer func() { _ = recover() }()
	if cfg, err := policy.Load(path); err == nil {
		r.watch.offer(state{f: facts{Budget: cfg.Hook.Budget, OnError: cfg.Hook.OnError}, early: true})
	}
}

// configured takes a config's hook settings.
func (r *run) configured(cfg *policy.Config) {
	r.st.f.OnError, r.st.f.Budget, r.st.f.Pending = cfg.Hook.OnError, cfg.Hook.Budget, cfg.Hook.Pending
	r.st.targets = cfg.Targets
	r.publish()
}

// decideEvent reads the event and decides on it, turning panics and errors
// into the on_error outcome.
func (r *run) decideEvent(ctx context.Context, stdin io.Reader) (a answer) {
	defer func() {
		if p := recover(); p != nil {
			a = r.failed(fmt.Errorf("internal error: %v", p))
		}
	}()
	ev, err := hostio.Decode(stdin, r.opts.Host)
	if err != nil {
		switch {
		case errors.Is(err, hostio.ErrNotPreToolUse):
			// rewind is registered for PreToolUse only; another event
			// reaching it is a setup mistake, not a call to judge.
			return answer{}
		case errors.Is(err, hostio.ErrTooLarge):
			r.st.f.Verdict = policy.Verdict{Effect: policy.Ask, Reason: "the tool call is over 8 MiB, too large to analyse; confirm it by hand"}
			return r.conclude()
		}
		var me *hostio.MalformedError
		if errors.As(err, &me) && me.Partial != nil {
			return r.unread(me)
		}
		return r.failed(err)
	}
	if ev.Outcome != nil {
		r.recordOutcome(ctx, ev)
		return answer{ev: ev} // which the host's protocol answers with nothing
	}
	r.st.ev = ev
	return r.judge(ctx)
}

// failed is the answer to rewind's own failure, under hook.on_error.
func (r *run) failed(err error) answer {
	r.st.f = facts{Err: err, OnError: r.errorPolicy(), Budget: r.st.f.Budget, ID: r.st.f.ID}
	return r.conclude()
}

// errorPolicy is hook.on_error: the loaded config's, or, when an error
// came before the config was loaded (an event that cannot be read, a
// panic), the one of the config found without the event's cwd: --config,
// $REWIND_CONFIG, else discovery from the hook's own working directory,
// which hosts set to the project. Without a readable config it is allow.
func (r *run) errorPolicy() (onError string) {
	if r.st.f.OnError != "" {
		return r.st.f.OnError
	}
	onError = "allow"
	defer func() {
		if recover() != nil {
			onError = "allow"
		}
	}()
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	cfg, err := policy.Find(r.opts.ConfigPath, cwd, r.opts.Getenv)
	if err != nil {
		// What did load of a broken config still says.
		cfg = policy.Fallback(err)
	}
	return cfg.Hook.OnError
}

// unread judges an event the decoder refused but whose tool name could
// still be read, by what the policy makes of that tool whatever its input
// (see policy.Policy.ClassifyUnread).
func (r *run) unread(me *hostio.MalformedError) answer {
	p := me.Partial
	cwd := p.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	r.st.ev = &hostio.Event{HookEventName: "PreToolUse", ToolName: strings.Join(p.Tools, " "), Cwd: p.Cwd}
	cfg, err := policy.Find(r.opts.ConfigPath, cwd, r.opts.Getenv)
	if err != nil {
		cfg = policy.Fallback(err)
	}
	r.configured(cfg)
	pol, err := policy.New(cfg)
	if err != nil {
		return r.failed(me)
	}
	r.st.f.Unread, r.st.f.Verdict = me, pol.ClassifyUnread(p.Tools)
	return r.conclude()
}

// judge decides on the decoded event: the config, the policy's verdict
// and, for a protect verdict, the checkpoint.
func (r *run) judge(ctx context.Context) answer {
	ev := r.st.ev
	cfg, err := policy.Find(r.opts.ConfigPath, ev.Cwd, r.opts.Getenv)
	if err != nil {
		return r.brokenConfig(ctx, err)
	}
	if path, ignored := cfg.Untrusted(); path != "" {
		r.opts.Logger.Warn(fmt.Sprintf("%s is not trusted, so it can only tighten the policy; ignored: %s (to trust it: rewind trust %s)",
			path, strings.Join(ignored, "; "), path))
	}
	// Before the watch is told of the event, which it then reads.
	ev.ResolveServers(cfg)
	r.configured(cfg)
	pol, err := policy.New(cfg)
	if err != nil {
		return r.brokenConfig(ctx, err)
	}
	r.knowTool(pol)
	r.st.f.Verdict = pol.Classify(ev.Call())
	return r.decideWith(ctx, cfg)
}

// knowTool tells the watch what the policy makes of the call's tool
// whatever its input, before the input is analysed: an analysis the agent
// made outlast the budget must not get the call through on hook.on_error
// when the tool could change a VM.
func (r *run) knowTool(pol *policy.Policy) {
	v := pol.ClassifyUnread([]string{r.st.ev.ToolName})
	r.st.unknown = &v
	r.publish()
}

// brokenConfig judges the call when a config file cannot be used: by what
// did load (the catalog, the other config file), with every rule of the
// broken file read leniently as a rule that asks (see policy.Fallback).
func (r *run) brokenConfig(ctx context.Context, cfgErr error) answer {
	fb := policy.Fallback(cfgErr)
	if r.st.f.OnError == "" {
		// The watch keeps to what did load, as for a working config
		// (unless a working config already told it).
		r.configured(fb)
	}
	r.st.f.ConfigErr = cfgErr
	pol, err := policy.New(fb)
	if err != nil {
		r.st.f.Unjudged = true
		return r.conclude()
	}
	r.knowTool(pol)
	r.st.f.Verdict = pol.Classify(r.st.ev.Call())
	return r.decideWith(ctx, fb)
}

// decideWith decides on the verdict under cfg, with the checkpoint first
// when the decision waits for one.
func (r *run) decideWith(ctx context.Context, cfg *policy.Config) answer {
	if wantsCheckpoint(r.st.f) {
		budget := cfg.Hook.Budget
		ctx, cancel := context.WithDeadline(ctx, r.start.Add(budget-reserve(budget)))
		defer cancel()
		r.st.f.Outcome = r.protect(ctx, cfg)
	}
	return r.conclude()
}

// protect hands the call to the protect step; nil without one.
func (r *run) protect(ctx context.Context, cfg *policy.Config) *Outcome {
	if r.opts.Protect == nil {
		return nil
	}
	if r.st.f.ID == "" {
		r.st.f.ID = audit.NewID()
	}
	v := r.st.f.Verdict
	v.Effect = policy.Protect
	call := &Call{Event: r.st.ev, Verdict: v, Config: cfg, ID: r.st.f.ID, Advice: r.opts.Advice,
		Getenv: r.opts.Getenv, Logger: r.opts.Logger, OnOverrun: r.onOverrun}
	o := r.opts.Protect.Protect(ctx, call)
	return &o
}
