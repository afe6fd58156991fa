package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/dirs"
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
	// Stderr receives diagnostics that are not part of the protocol.
	Stderr io.Writer
	// Advice marks a call that is checked, not made (see Decide): its
	// checkpoint is taken, but no call is recorded as let through, so the
	// call made next is protected by that same checkpoint.
	Advice bool
	// CacheDir is the folder of the Zerto token cache; empty means the
	// user's cache folder (see zvm.Options.CacheDir).
	CacheDir string
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
	r := &run{opts: &opts, start: time.Now(), budget: policy.DefaultBudget, configured: make(chan settings, 3)}
	decided := make(chan hostio.Decision, 1)
	if path := r.namedConfig(); path != "" {
		go r.namedSettings(path)
	}
	go func() { decided <- r.decideEvent(ctx, stdin) }()
	d, late := r.await(decided)
	answered := r
	if late != nil {
		// r is still at work and owns its fields: the answer comes from a
		// run of its own, under the settings r had made known.
		answered = &run{opts: &opts, start: r.start, budget: late.budget, onError: late.onError}
		if late.capture != nil {
			// A protect call out of time is pending or denied, never let
			// through unchecked: see Protection.OnOverrun.
			answered.ev, answered.id = late.capture.ev, late.capture.id
			d = answered.overrun(late.capture)
		} else {
			d = answered.internalError(fmt.Errorf("no decision within the hook's budget of %s", late.budget))
		}
	}
	if answered.rec != nil {
		answered.appendAudit()
	}
	resp := answered.answer
	if resp == nil {
		// Not decided, logged and encoded by the process the protect step
		// handed the call to.
		r, err := hostio.Respond(opts.Host, answered.ev, d)
		if err != nil {
			answered.warnf("writing the decision: %v", err)
		}
		resp = &r
	}
	if len(resp.Stdout) > 0 {
		if _, err := stdout.Write(resp.Stdout); err != nil {
			answered.warnf("writing the decision: %v", err)
		}
	}
	if len(resp.Stderr) > 0 && opts.Stderr != nil {
		opts.Stderr.Write(resp.Stderr)
	}
	return resp.Code
}

// await waits for the decision, but not past the budget: every step of the
// flow keeps to it, and this is the net under them, for a step that does
// not (a host that never closes stdin, a config on a hung file system, a
// bug). It returns the settings in force when the budget ran out, or nil.
func (r *run) await(decided <-chan hostio.Decision) (hostio.Decision, *settings) {
	known := settings{budget: watchBudget, onError: "allow", early: true}
	for {
		t := time.NewTimer(time.Until(r.start.Add(known.budget - reserve(known.budget)/2)))
		select {
		case d := <-decided:
			t.Stop()
			return d, nil
		case s := <-r.configured:
			t.Stop()
			// Early settings (the named config's) never replace those
			// of the config found for the event's project.
			if !s.early || known.early {
				known = s
			}
		case <-t.C:
			return hostio.Decision{}, &known
		}
	}
}

// watchBudget is the budget await keeps to until the config is read: the
// default hook.budget (a test sets it shorter).
var watchBudget = policy.DefaultBudget

// settings are the config's hook settings that the watch in await needs.
type settings struct {
	budget  time.Duration
	onError string
	capture *capturing // set once a protect call's capture is under way
	// early marks settings known before the event is read: the
	// defaults, then those of the config --config or $REWIND_CONFIG names.
	early bool
}

// namedConfig is the config that --config or $REWIND_CONFIG names, if any.
func (r *run) namedConfig() string {
	if r.opts.ConfigPath != "" {
		return r.opts.ConfigPath
	}
	return r.getenv("REWIND_CONFIG")
}

// namedSettings makes the settings of the named config at path known to
// the watch at once: the event, which says where the project is, comes
// only when the host closes stdin, and a host that never does is answered
// at that config's budget, not the default.
func (r *run) namedSettings(path string) {
	defer func() { _ = recover() }()
	if cfg, err := policy.Load(path); err == nil {
		r.configured <- settings{budget: cfg.Hook.Budget, onError: cfg.Hook.OnError, early: true}
	}
}

// run is one hook run: its event, and the audit record its decision makes.
type run struct {
	opts  *Options
	start time.Time
	// budget is hook.budget, the default until the config is read.
	budget  time.Duration
	onError string // hook.on_error; empty until the config is known
	// configured receives the settings once the config is read.
	configured chan settings
	ev         *hostio.Event
	verdict    policy.Verdict
	// targets maps targets to Zerto VM names for the audit record.
	targets policy.TargetsConfig
	// rec is the audit record of the decision, nil for a plain none.
	rec *audit.Record
	// id is the audit ID of the call, drawn once (see callID).
	id string
	// answer is the host's answer as a protect step relayed it, written
	// as is; nil for an answer Run encodes.
	answer *hostio.Response
}

// callID is the audit ID of this run's call: the same in the answer that
// names it and in the record that follows.
func (r *run) callID() string {
	if r.id == "" {
		r.id = audit.NewID()
	}
	return r.id
}

func (r *run) getenv(key string) string {
	if r.opts.Getenv != nil {
		return r.opts.Getenv(key)
	}
	return os.Getenv(key)
}

func (r *run) warnf(format string, args ...any) {
	if r.opts.Stderr != nil {
		fmt.Fprintf(r.opts.Stderr, "rewind: "+format+"\n", args...)
	}
}

// decideEvent turns an event into a decision, turning panics and errors into
// the on_error outcome.
func (r *run) decideEvent(ctx context.Context, stdin io.Reader) (d hostio.Decision) {
	defer func() {
		if p := recover(); p != nil {
			d = r.internalError(fmt.Errorf("internal error: %v", p))
		}
	}()

	ev, err := hostio.Decode(stdin, r.opts.Host)
	if err != nil {
		switch {
		case errors.Is(err, hostio.ErrNotPreToolUse):
			// rewind is registered for PreToolUse only; another event
			// reaching it is a setup mistake, not a call to judge.
			return hostio.Decision{}
		case errors.Is(err, hostio.ErrTooLarge):
			d := hostio.Decision{
				Permission: hostio.Ask,
				Reason:     "rewind: the tool call is over 8 MiB, too large to analyse; confirm it by hand",
			}
			r.record(audit.DecisionAsk, d, policy.Verdict{})
			return d
		}
		var me *hostio.MalformedError
		if errors.As(err, &me) && me.Partial != nil {
			return r.unread(me)
		}
		return r.internalError(err)
	}
	r.ev = ev
	if ev.Outcome != nil {
		r.recordOutcome(ctx)
		return hostio.Decision{}
	}
	return r.judge(ctx)
}

// unread answers an event the decoder refused but whose tool name could
// still be read: by what the policy could make of that tool whatever its
// input (see policy.Policy.ClassifyUnread). A tool that could change a
// VM is asked (denied where every reading is a deny, or under
// hook.on_error = deny); only one whose name says it cannot follows
// hook.on_error.
func (r *run) unread(me *hostio.MalformedError) hostio.Decision {
	p := me.Partial
	cwd := p.Cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	r.ev = &hostio.Event{HookEventName: "PreToolUse", ToolName: strings.Join(p.Tools, " "), Cwd: p.Cwd}
	cfg, err := policy.Find(r.opts.ConfigPath, cwd, r.getenv)
	if err != nil {
		cfg = policy.Fallback(err)
	}
	r.onError, r.budget, r.targets = cfg.Hook.OnError, cfg.Hook.Budget, cfg.Targets
	r.configured <- settings{budget: r.budget, onError: r.onError}
	pol, err := policy.New(cfg)
	if err != nil {
		return r.internalError(me)
	}
	v := pol.ClassifyUnread(p.Tools)
	r.verdict = v
	if v.Effect == policy.None {
		return r.internalError(me)
	}
	reason := fmt.Sprintf("rewind: %v, and %s", me, Describe(v))
	d := hostio.Decision{Permission: hostio.Ask, Reason: reason, SystemMessage: "rewind: " + me.Error()}
	decision := audit.DecisionAsk
	if v.Effect == policy.Deny || r.onError == "deny" {
		d.Permission, decision = hostio.Deny, audit.DecisionDeny
	}
	r.record(decision, d, v)
	r.rec.Error = me.Error()
	return d
}

// judge decides on the decoded event r.ev: the config, the policy's
// verdict and, for a protect verdict, the checkpoint.
func (r *run) judge(ctx context.Context) hostio.Decision {
	cfg, cfgErr := policy.Find(r.opts.ConfigPath, r.ev.Cwd, r.getenv)
	if cfgErr != nil {
		return r.brokenConfig(ctx, cfgErr)
	}
	if path, ignored := cfg.Untrusted(); path != "" {
		r.warnf("%s is not trusted, so it can only tighten the policy; ignored: %s (to trust it: rewind trust %s)",
			path, strings.Join(ignored, "; "), path)
	}
	r.onError, r.budget, r.targets = cfg.Hook.OnError, cfg.Hook.Budget, cfg.Targets
	r.ev.ResolveServers(cfg)
	r.configured <- settings{budget: r.budget, onError: r.onError}

	pol, err := policy.New(cfg)
	if err != nil {
		return r.brokenConfig(ctx, err)
	}
	v := pol.Classify(r.ev.Call())
	r.verdict = v
	switch v.Effect {
	case policy.Deny:
		d := hostio.Decision{Permission: hostio.Deny, Reason: "rewind: " + Describe(v)}
		r.record(audit.DecisionDeny, d, v)
		return d
	case policy.Ask:
		d := hostio.Decision{Permission: hostio.Ask, Reason: "rewind: " + Describe(v)}
		r.record(audit.DecisionAsk, d, v)
		return d
	case policy.Protect:
		ctx, cancel := context.WithDeadline(ctx, r.start.Add(cfg.Hook.Budget-reserve(cfg.Hook.Budget)))
		defer cancel()
		return r.protect(ctx, v, cfg)
	}
	return hostio.Decision{}
}

// errorPolicy is hook.on_error: the loaded config's, or, when an error
// came before the config was loaded (an event that cannot be read, a
// panic), the one of the config found without the event's cwd: --config,
// $REWIND_CONFIG, else discovery from the hook's own working directory,
// which hosts set to the project. Without a readable config it is allow.
func (r *run) errorPolicy() (onError string) {
	if r.onError != "" {
		return r.onError
	}
	onError = "allow"
	defer func() {
		if recover() != nil {
			onError = "allow"
		}
		r.onError = onError
	}()
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	cfg, err := policy.Find(r.opts.ConfigPath, cwd, r.getenv)
	if err != nil {
		// What did load of a broken config still says.
		cfg = policy.Fallback(err)
	}
	onError = cfg.Hook.OnError
	return onError
}

// reserve is the part of the budget kept back from capture for logging and
// answering, so that the answer is out before the budget ends even on a
// loaded machine: a twentieth of the budget, at least 250 ms, at most 2 s.
func reserve(budget time.Duration) time.Duration {
	return min(max(budget/20, 250*time.Millisecond), 2*time.Second)
}

// brokenConfig answers when a config file cannot be used. What did load
// (the catalog, the other config file) still judges the call, and every
// rule of the broken file is read leniently as a rule that asks (see
// policy.Fallback). A broken file can only add questions: what the rest of
// the policy denies stays denied, and a change it protects gets its
// checkpoint before it is put to the user; honest work no rule applies to
// goes on, with a warning.
func (r *run) brokenConfig(ctx context.Context, cfgErr error) hostio.Decision {
	msg := fmt.Sprintf("rewind: config error: %v", cfgErr)
	fb := policy.Fallback(cfgErr)
	pol, err := policy.New(fb)
	if err != nil {
		d := hostio.Decision{Permission: hostio.Ask, Reason: msg, SystemMessage: msg}
		r.record(audit.DecisionAsk, d, policy.Verdict{})
		r.rec.Error = cfgErr.Error()
		return d
	}
	if r.onError == "" {
		// The watch keeps to what did load, as for a working config
		// (unless a working config already told it).
		r.onError, r.budget = fb.Hook.OnError, fb.Hook.Budget
		select {
		case r.configured <- settings{budget: r.budget, onError: r.onError}:
		default:
		}
	}
	v := pol.Classify(r.ev.Call())
	r.verdict = v
	var d hostio.Decision
	switch {
	case v.Effect == policy.None:
		d = hostio.Decision{SystemMessage: msg + "; no rule of the broken file could apply to this call, which the rest of the policy let through"}
		r.record(audit.DecisionNone, d, v)
	case v.Effect == policy.Deny:
		d = hostio.Decision{Permission: hostio.Deny, Reason: "rewind: " + Describe(v), SystemMessage: msg}
		r.record(audit.DecisionDeny, d, v)
	case v.Effect == policy.Protect || protects(v):
		// The checkpoint first; then, when a rule of the broken file
		// could apply, the person is asked as well.
		pv := v
		pv.Effect = policy.Protect
		ctx, cancel := context.WithDeadline(ctx, r.start.Add(fb.Hook.Budget-reserve(fb.Hook.Budget)))
		defer cancel()
		d = r.protect(ctx, pv, fb)
		if v.Effect == policy.Ask && d.Permission == hostio.NoOpinion {
			d.Permission = hostio.Ask
			d.Reason = fmt.Sprintf("%s; without a working config rewind cannot tell whether to let this call run (%s)", msg, Describe(v))
			if r.rec != nil {
				r.rec.Decision, r.rec.Reason = audit.DecisionAsk, d.Reason
			}
		}
		if d.SystemMessage == "" {
			d.SystemMessage = msg
		}
	default:
		d = hostio.Decision{Permission: hostio.Ask, SystemMessage: msg,
			Reason: fmt.Sprintf("%s; without a working config rewind cannot guard this call (%s)", msg, Describe(v))}
		r.record(audit.DecisionAsk, d, v)
	}
	if r.rec != nil {
		r.rec.Error = cfgErr.Error()
	}
	return d
}

// protects reports whether any piece of the call is to be protected, even
// when another piece's rule decided a stricter effect.
func protects(v policy.Verdict) bool {
	return slices.ContainsFunc(v.Matches, func(m policy.Match) bool { return m.Effect == policy.Protect })
}

// Describe is the reason of a verdict followed by the rule that gave it.
func Describe(v policy.Verdict) string {
	r := v.Reason
	if r == "" {
		r = "matched " + RuleName(v)
	} else if v.Rule != "" {
		r += " (rule: " + v.Rule + ")"
	}
	return r
}

// RuleName names the rule of a verdict for a reason: "rule NAME".
func RuleName(v policy.Verdict) string {
	if v.Rule == "" {
		return "a rule"
	}
	return "rule " + v.Rule
}

// internalError is the outcome of rewind's own failure under hook.on_error.
func (r *run) internalError(err error) hostio.Decision {
	msg := fmt.Sprintf("rewind: %v", err)
	var (
		d        hostio.Decision
		decision string
	)
	switch r.errorPolicy() {
	case "deny":
		d = hostio.Decision{Permission: hostio.Deny, Reason: msg + " (hook.on_error = deny)", SystemMessage: msg}
		decision = audit.DecisionDenyOnError
	case "ask":
		d = hostio.Decision{Permission: hostio.Ask, Reason: msg + " (hook.on_error = ask)", SystemMessage: msg}
		decision = audit.DecisionAskOnError
	default:
		d = hostio.Decision{SystemMessage: msg + "; the call was not checked (hook.on_error = allow)"}
		decision = audit.DecisionAllowOnError
	}
	r.record(decision, d, policy.Verdict{})
	r.rec.Error = err.Error()
	return d
}

// record sets the audit record of the decision d.
func (r *run) record(decision string, d hostio.Decision, v policy.Verdict) {
	rec := &audit.Record{
		Host:     string(r.opts.Host),
		Decision: decision,
		Rule:     v.Rule,
		Reason:   d.Reason,
		Targets:  v.Targets,
	}
	if vms := r.targets.VMNames(v.Targets); !slices.Equal(vms, v.Targets) {
		rec.VMs = vms
	}
	if rec.Reason == "" {
		rec.Reason = d.Context
	}
	if ev := r.ev; ev != nil {
		rec.ID = r.callID()
		rec.Session, rec.ToolUseID, rec.Tool, rec.Cwd = ev.SessionID, ev.ToolUseID, ev.ToolName, ev.Cwd
		rec.Excerpt = excerpt(ev)
	}
	r.rec = rec
}

// excerpt is what the log shows of a call: a shell tool's command, else its
// input object. audit.Append shortens and redacts it.
//
// "command" is read in its exact spelling, as the host reads it (a map: a
// struct field would match "Command" too).
func excerpt(ev *hostio.Event) string {
	var in map[string]json.RawMessage
	var command string
	if json.Unmarshal(ev.ToolInput, &in) == nil && json.Unmarshal(in["command"], &command) == nil && command != "" {
		return command
	}
	return string(ev.ToolInput)
}

func (r *run) appendAudit() {
	r.rec.ElapsedMS = time.Since(r.start).Milliseconds()
	dir, err := dirs.State(r.getenv)
	if err != nil {
		r.warnf("audit log: %v", err)
		return
	}
	// The answer must be out within the budget, logged or not: the wait
	// for the log ends a moment before the budget does, after the watch.
	ctx, cancel := context.WithDeadline(context.Background(), r.start.Add(r.budget-reserve(r.budget)/4))
	defer cancel()
	if err := audit.Open(dir).AppendContext(ctx, r.rec); err != nil {
		r.warnf("audit log: %v", err)
	}
}
