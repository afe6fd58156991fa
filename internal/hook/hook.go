package hook

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
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
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
}

// Run reads one event from stdin and writes the decision to stdout, within
// the config's hook.budget counted from Run's start. It always returns exit
// code 0: every outcome, errors included, is a decision. Every decision but
// a plain "none" is appended to the audit log before it is written, so the
// audit ID a protected call is told about exists when the agent reads it.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) int {
	r := &run{opts: &opts, start: time.Now(), budget: policy.DefaultBudget, configured: make(chan settings, 3)}
	decided := make(chan hostio.Decision, 1)
	go r.namedSettings()
	go func() { decided <- r.decideEvent(ctx, stdin) }()
	d, late := r.await(decided)
	answered := r
	if late != nil {
		// r is still at work and owns its fields: the answer comes from a
		// run of its own, under the settings r had made known.
		answered = &run{opts: &opts, start: r.start, budget: late.budget, onError: late.onError}
		if late.capture != nil {
			// A protect call out of time is pending or denied, never let
			// through unchecked: see overrun.go.
			answered.ev, answered.id = late.capture.ev, late.capture.id
			d = answered.overrun(late.capture)
		} else {
			d = answered.internalError(fmt.Errorf("no decision within the hook's budget of %s", late.budget))
		}
	}
	if answered.rec != nil {
		answered.appendAudit()
	}
	if err := hostio.Encode(stdout, opts.Host, d); err != nil {
		answered.warnf("writing the decision: %v", err)
	}
	return 0
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

// namedSettings makes the settings of the config that --config or
// $REWIND_CONFIG names known to the watch at once: the event, which says
// where the project is, comes only when the host closes stdin, and a host
// that never does is answered at that config's budget, not the default.
func (r *run) namedSettings() {
	defer func() { _ = recover() }()
	path := r.opts.ConfigPath
	if path == "" {
		path = r.getenv("REWIND_CONFIG")
	}
	if path == "" {
		return
	}
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
		return r.internalError(err)
	}
	r.ev = ev
	return r.judge(ctx)
}

// judge decides on the decoded event r.ev: the config, the policy's
// verdict and, for a protect verdict, the checkpoint.
func (r *run) judge(ctx context.Context) hostio.Decision {
	cfg, cfgErr := policy.Find(r.opts.ConfigPath, r.ev.Cwd, r.getenv)
	if cfgErr != nil {
		return r.brokenConfig(cfgErr)
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
		return r.brokenConfig(err)
	}
	v := pol.Classify(r.ev.Call())
	r.verdict = v
	switch v.Effect {
	case policy.Deny:
		d := hostio.Decision{Permission: hostio.Deny, Reason: "rewind: " + describe(v)}
		r.record(audit.DecisionDeny, d, v)
		return d
	case policy.Ask:
		d := hostio.Decision{Permission: hostio.Ask, Reason: "rewind: " + describe(v)}
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
// policy.Fallback): a call any of them could match is put to the user with
// the file's error, while honest work the file has no rule for goes on,
// with a warning. Nothing that could be protected runs unasked.
func (r *run) brokenConfig(cfgErr error) hostio.Decision {
	msg := fmt.Sprintf("rewind: config error: %v", cfgErr)
	d, v := hostio.Decision{Permission: hostio.Ask, Reason: msg}, policy.Verdict{}
	if pol, err := policy.New(policy.Fallback(cfgErr)); err == nil {
		v = pol.Classify(r.ev.Call())
		if v.Effect == policy.None {
			d = hostio.Decision{SystemMessage: msg + "; no rule of the broken file could apply to this call, which the rest of the policy let through"}
		} else {
			d.Reason = fmt.Sprintf("%s; without a working config rewind cannot guard this call (%s)", msg, describe(v))
			d.SystemMessage = msg
		}
	}
	decision := audit.DecisionAsk
	if d.Permission == hostio.NoOpinion {
		decision = audit.DecisionNone
	}
	r.record(decision, d, v)
	r.rec.Error = cfgErr.Error()
	return d
}

// protect runs capture for a protect verdict and applies the decision
// table's protect rows to its outcome.
func (r *run) protect(ctx context.Context, v policy.Verdict, cfg *policy.Config) hostio.Decision {
	zo, err := zvm.ConfigOptions(cfg.Zerto, r.getenv)
	if err != nil {
		return r.noCheckpoint(v, err)
	}
	zo.Warnf, zo.CacheDir = r.warnf, r.opts.CacheDir
	if zo.URL == "" {
		d := hostio.Decision{
			Permission: hostio.Ask,
			Reason: withHint(fmt.Sprintf("rewind: no Zerto configured: nothing to rewind to (%s would change %s)",
				ruleName(v), strings.Join(v.Targets, ", ")), noZertoHint),
		}
		r.record(audit.DecisionAsk, d, v)
		return d
	}
	z, err := zvm.New(zo)
	if err != nil {
		return r.noCheckpoint(v, err)
	}
	stateDir, err := audit.StateDir(r.getenv)
	if err != nil {
		// Capture works without its state, each call with a tag of its own.
		r.warnf("%v: checkpoints are not reused", err)
		stateDir = ""
	}
	id := r.callID()
	prog := &capture.Progress{}
	r.announce(&capturing{progress: prog, v: v, cfg: cfg, id: id, ev: r.ev})
	c := capture.New(z, capture.Options{
		StateDir:      stateDir,
		TagPrefix:     cfg.Hook.TagPrefix,
		ReuseWithin:   cfg.Capture.ReuseWithin,
		Targets:       cfg.Targets,
		PendingMayRun: cfg.Hook.Pending == "ask",
		Progress:      prog,
	})
	out := c.Capture(ctx, capture.Request{Targets: v.Targets, CallID: id, Advice: r.opts.Advice})
	afterCapture(ctx)

	var d hostio.Decision
	decision := ""
	switch out.Kind {
	case capture.Protected:
		d = hostio.Decision{Context: protectedContext(out.Points, id)}
		decision = audit.DecisionProtected
	case capture.Pending:
		d = pendingDecision(out.Points, cfg)
		decision = audit.DecisionPending
	case capture.UnknownTarget:
		d = hostio.Decision{Permission: hostio.Ask, Reason: unknownReason(out.Unknown, v)}
		decision = audit.DecisionAsk
	default:
		reason := failedReason(out.Failures)
		if len(out.Unknown) > 0 {
			// Said as well, so that a retry after the failure is mended
			// is not met by a second surprise.
			reason += "; " + strings.TrimPrefix(unknownReason(out.Unknown, v), "rewind: ")
		}
		reason = withHint(reason, failureHints(out.Failures))
		d = hostio.Decision{Permission: hostio.Deny, Reason: reason}
		decision = audit.DecisionDeny
	}
	d = withNotes(d, out.Notes)
	r.record(decision, d, v)
	r.rec.Checkpoints = auditCheckpoints(out.Points)
	setOffset(r.rec, out)
	var zerr []string
	for _, f := range out.Failures {
		var ze *zvm.Error
		if errors.As(f.Err, &ze) && ze.Message != "" {
			zerr = append(zerr, ze.Message)
		}
	}
	r.rec.ZertoError = strings.Join(zerr, "; ")
	return d
}

// noCheckpoint denies a protect verdict that cannot reach Zerto because its
// settings are unusable: the call would run without a rewind point.
func (r *run) noCheckpoint(v policy.Verdict, err error) hostio.Decision {
	d := hostio.Decision{
		Permission: hostio.Deny,
		Reason:     fmt.Sprintf("rewind: no checkpoint for %s: %v", strings.Join(v.Targets, ", "), err),
	}
	r.record(audit.DecisionDeny, d, v)
	r.rec.Error = err.Error()
	return d
}

// protectedContext tells the model which checkpoints undo the call and how.
func protectedContext(points []capture.Point, id string) string {
	var b strings.Builder
	b.WriteString("rewind: ")
	for i, p := range points {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "checkpoint %q (CheckpointIdentifier %s) on VPG %q at %s protects %s",
			p.Tag, p.Identifier, p.VPG, p.Time.UTC().Format(time.RFC3339), vmNames(p.VMs))
	}
	fmt.Fprintf(&b, ". To undo this call: rewind undo %s (audit id).", id)
	return b.String()
}

// pendingDecision says which tags are on their way, when they are expected,
// and when to retry: hook.pending decides between deny and ask.
func pendingDecision(points []capture.Point, cfg *policy.Config) hostio.Decision {
	var (
		b      strings.Builder
		latest time.Time
	)
	b.WriteString("rewind: ")
	now := time.Now()
	n := 0
	var cadence time.Duration
	for _, p := range points {
		if p.Identifier != "" {
			continue
		}
		if n > 0 {
			b.WriteString("; ")
		}
		n++
		fmt.Fprintf(&b, "Zerto accepted checkpoint tag %q for VPG %q (journal cadence ~%s); it is expected at %s (in ~%s)",
			p.Tag, p.VPG, approx(p.Cadence), p.Expected.UTC().Format(time.RFC3339), approx(p.Expected.Sub(now)))
		latest = later(latest, p.Expected)
		cadence = max(cadence, p.Cadence)
	}
	fmt.Fprintf(&b, ", past this hook's budget of %s. Retry this call after %s: the retry will use that checkpoint.",
		approx(cfg.Hook.Budget), latest.UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, " Retry within %s of it, or a fresh checkpoint is taken.",
		approx(capture.PendingReuseWindow(cfg.Capture.ReuseWithin, cadence)))
	if cfg.Hook.Pending == "ask" {
		b.WriteString(" Allowed now, the call runs before its checkpoint exists.")
		return hostio.Decision{Permission: hostio.Ask, Reason: b.String()}
	}
	return hostio.Decision{Permission: hostio.Deny, Reason: b.String()}
}

// unknownReason asks about targets Zerto does not know: a lookup miss is
// nothing to rewind to, never a failure.
func unknownReason(unknown []string, v policy.Verdict) string {
	if len(unknown) == 0 {
		return "rewind: " + describe(v) + ": the rule found no target in the call, so there is nothing to rewind to"
	}
	is := "is not a VM"
	if len(unknown) > 1 {
		is = "are not VMs"
	}
	return fmt.Sprintf("rewind: %s %s Zerto protects: nothing to rewind to (%s). If it is a protected VM under another name, map it in [targets] aliases.",
		strings.Join(unknown, ", "), is, ruleName(v))
}

// failedReason carries Zerto's own message, or the transport error, for
// every VPG that got no checkpoint.
func failedReason(failures []capture.Failure) string {
	parts := make([]string, len(failures))
	for i, f := range failures {
		parts[i] = "no checkpoint for " + f.Error()
	}
	return "rewind: " + strings.Join(parts, "; ")
}

func vmNames(vms []capture.VM) string {
	names := make([]string, len(vms))
	for i, vm := range vms {
		names[i] = vm.Name
	}
	return strings.Join(names, ", ")
}

// approx writes a duration for a person: whole seconds from ten seconds up.
func approx(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d >= 10*time.Second:
		return fmt.Sprintf("%ds", int64((d+time.Second/2)/time.Second))
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func auditCheckpoints(points []capture.Point) []audit.Checkpoint {
	var cps []audit.Checkpoint
	for _, p := range points {
		for _, vm := range p.VMs {
			cps = append(cps, audit.Checkpoint{
				VM: vm.Name, VMIdentifier: vm.Identifier,
				VPG: p.VPG, VPGIdentifier: p.VPGIdentifier,
				Identifier: p.Identifier, Tag: p.Tag, Time: p.Time,
			})
		}
	}
	return cps
}

// describe is the reason of a verdict followed by the rule that gave it.
func describe(v policy.Verdict) string {
	r := v.Reason
	if r == "" {
		r = "matched " + ruleName(v)
	} else if v.Rule != "" {
		r += " (rule: " + v.Rule + ")"
	}
	return r
}

func ruleName(v policy.Verdict) string {
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
	dir, err := audit.StateDir(r.getenv)
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
