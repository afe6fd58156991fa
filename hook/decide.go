package hook

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// facts are everything a call's decision depends on: what the run learnt
// of the call before it decided. decide reads nothing else.
type facts struct {
	// Err is rewind's own failure before the call could be judged (an
	// event without a readable tool name, a panic, the budget's end
	// before a verdict): the decision is hook.on_error's.
	Err error
	// Unread is the decoder's error for an event that is judged by the
	// tool names that could still be read: Verdict is then the policy's
	// reading of those names (policy.Policy.ClassifyUnread).
	Unread error
	// ConfigErr says why a config file could not be used: Verdict is then
	// that of the policy of what did load (policy.Fallback), and
	// Unjudged says that not even that could be had.
	ConfigErr error
	Unjudged  bool
	// Verdict is the policy's.
	Verdict policy.Verdict
	// Outcome is the protect step's, for a call that waits for a
	// checkpoint (see wantsCheckpoint); nil when there is no step.
	Outcome *Outcome
	// Overrun says that the budget ended before the protect step
	// returned: Outcome is what it had achieved by then.
	Overrun bool
	// OnError, Pending and Budget are hook.on_error, hook.pending and
	// hook.budget.
	OnError, Pending string
	Budget           time.Duration
	// ID is the call's audit ID, which a protected call is told.
	ID string
	// Now is when the decision is made, for the time until a pending
	// checkpoint is expected.
	Now time.Time
}

// ruling is the decision table's answer to a call's facts.
type ruling struct {
	// Decision is what the host is told.
	Decision hostio.Decision
	// Logged is the decision as the audit log names it; "" logs nothing.
	Logged string
	// Error is the record's error, what went wrong.
	Error string
	// Answer, when set, is another hook process's answer, which it
	// logged: it is written as it is.
	Answer *hostio.Response
}

// decide is the decision table (docs/decision-table.md): the decision a
// call gets from its verdict, the protect step's outcome, the budget and
// hook.on_error. It is a function of f alone; decide_test.go holds the
// table, row by row, and checks that the doc says the same.
func decide(f facts) ruling {
	switch {
	case f.Err != nil:
		return onError(f.OnError, f.Err)
	case f.Unread != nil:
		return unread(f)
	case f.ConfigErr != nil:
		return brokenConfig(f)
	}
	v := f.Verdict
	switch v.Effect {
	case policy.Deny:
		return ruling{Decision: hostio.Decision{Permission: hostio.Deny, Reason: "rewind: " + describe(v)}, Logged: audit.DecisionDeny}
	case policy.Ask:
		return ruling{Decision: hostio.Decision{Permission: hostio.Ask, Reason: "rewind: " + describe(v)}, Logged: audit.DecisionAsk}
	case policy.Protect:
		return protected(f)
	}
	return ruling{}
}

// wantsCheckpoint reports whether f's decision waits for the protect
// step: a protect verdict, and, under a broken config, a call a piece of
// which is to be protected (it gets its checkpoint before it is put to
// the person), unless the rest of the policy denies it.
func wantsCheckpoint(f facts) bool {
	switch {
	case f.Err != nil || f.Unread != nil || f.Unjudged:
		return false
	case f.ConfigErr != nil:
		return f.Verdict.Effect == policy.Protect || f.Verdict.Effect == policy.Ask && protects(f.Verdict)
	}
	return f.Verdict.Effect == policy.Protect
}

// onError is the decision for rewind's own failure, under hook.on_error.
func onError(policy string, err error) ruling {
	msg := "rewind: " + err.Error()
	r := ruling{Error: err.Error()}
	switch policy {
	case "deny":
		r.Decision = hostio.Decision{Permission: hostio.Deny, Reason: msg + " (hook.on_error = deny)", SystemMessage: msg}
		r.Logged = audit.DecisionDenyOnError
	case "ask":
		r.Decision = hostio.Decision{Permission: hostio.Ask, Reason: msg + " (hook.on_error = ask)", SystemMessage: msg}
		r.Logged = audit.DecisionAskOnError
	default:
		r.Decision = hostio.Decision{SystemMessage: msg + "; the call was not checked (hook.on_error = allow)"}
		r.Logged = audit.DecisionAllowOnError
	}
	return r
}

// unread decides on an event the decoder refused by what the policy makes
// of its tool names whatever the input: a tool that could change a VM is
// asked (denied where every reading denies, or under hook.on_error =
// deny); only one whose name says it cannot follows hook.on_error.
func unread(f facts) ruling {
	v := f.Verdict
	if v.Effect == policy.None {
		return onError(f.OnError, f.Unread)
	}
	r := ruling{
		Decision: hostio.Decision{Permission: hostio.Ask, Reason: fmt.Sprintf("rewind: %v, and %s", f.Unread, describe(v)),
			SystemMessage: "rewind: " + f.Unread.Error()},
		Logged: audit.DecisionAsk,
		Error:  f.Unread.Error(),
	}
	if v.Effect == policy.Deny || f.OnError == "deny" {
		r.Decision.Permission, r.Logged = hostio.Deny, audit.DecisionDeny
	}
	return r
}

// brokenConfig decides under a config file that cannot be used. What did
// load still judges the call, and every rule of the broken file asks
// (policy.Fallback): a broken file can only add questions. What the rest
// of the policy denies stays denied, a change it protects gets its
// checkpoint before it is put to the person, and honest work no rule
// applies to goes on, with a warning.
func brokenConfig(f facts) ruling {
	msg := "rewind: config error: " + f.ConfigErr.Error()
	v := f.Verdict
	var r ruling
	switch {
	case f.Unjudged:
		r = ruling{Decision: hostio.Decision{Permission: hostio.Ask, Reason: msg, SystemMessage: msg}, Logged: audit.DecisionAsk}
	case v.Effect == policy.None:
		r = ruling{Decision: hostio.Decision{SystemMessage: msg + "; no rule of the broken file could apply to this call, which the rest of the policy let through"},
			Logged: audit.DecisionNone}
	case v.Effect == policy.Deny:
		r = ruling{Decision: hostio.Decision{Permission: hostio.Deny, Reason: "rewind: " + describe(v), SystemMessage: msg}, Logged: audit.DecisionDeny}
	case wantsCheckpoint(f):
		pf := f
		pf.Verdict.Effect = policy.Protect
		r = protected(pf)
		if r.Answer != nil {
			return r
		}
		if v.Effect == policy.Ask && r.Decision.Permission == hostio.NoOpinion {
			// The checkpoint is taken; whether a rule of the broken file
			// would have stopped the call, only the person can say.
			r.Decision.Permission, r.Logged = hostio.Ask, audit.DecisionAsk
			r.Decision.Reason = fmt.Sprintf("%s; without a working config rewind cannot tell whether to let this call run (%s)", msg, describe(v))
		}
		if r.Decision.SystemMessage == "" {
			r.Decision.SystemMessage = msg
		}
	default:
		r = ruling{Decision: hostio.Decision{Permission: hostio.Ask, SystemMessage: msg,
			Reason: fmt.Sprintf("%s; without a working config rewind cannot guard this call (%s)", msg, describe(v))},
			Logged: audit.DecisionAsk}
	}
	r.Error = f.ConfigErr.Error()
	return r
}

// protected decides on a protect verdict by the protect step's outcome. A
// call is let through only with every checkpoint landed; whatever else
// happened, the budget's end included, it is pending, asked or denied.
func protected(f facts) ruling {
	v, o := f.Verdict, f.Outcome
	if o == nil {
		o = &Outcome{Kind: Failed, Failures: []string{strings.Join(v.Targets, ", ") + ": this program takes no checkpoints"},
			Error: "no protect step"}
	}
	var r ruling
	switch o.Kind {
	case Relayed:
		return ruling{Answer: o.Answer}
	case Protected:
		r = ruling{Decision: hostio.Decision{Context: protectedContext(o.Points, f.ID)}, Logged: audit.DecisionProtected}
	case Pending:
		r = ruling{Decision: pendingDecision(f, o), Logged: audit.DecisionPending}
	case UnknownTarget:
		r = ruling{Decision: hostio.Decision{Permission: hostio.Ask, Reason: unknownReason(o.Unknown, v)}, Logged: audit.DecisionAsk}
	case NotConfigured:
		reason := fmt.Sprintf("rewind: no Zerto configured: nothing to rewind to (%s would change %s)", ruleName(v), strings.Join(v.Targets, ", "))
		r = ruling{Decision: hostio.Decision{Permission: hostio.Ask, Reason: withHint(reason, o.Hint)}, Logged: audit.DecisionAsk}
	default:
		failures := o.Failures
		if len(failures) == 0 {
			failures = []string{strings.Join(v.Targets, ", ") + ": the protect step gave no reason"}
		}
		reason := failedReason(failures)
		if len(o.Unknown) > 0 {
			// Said as well, so that a retry after the failure is mended
			// is not met by a second surprise.
			reason += "; " + strings.TrimPrefix(unknownReason(o.Unknown, v), "rewind: ")
		}
		r = ruling{Decision: hostio.Decision{Permission: hostio.Deny, Reason: withHint(reason, o.Hint)}, Logged: audit.DecisionDeny}
	}
	r.Decision = withNotes(r.Decision, o.Notes)
	r.Error = o.Error
	if f.Overrun && r.Error == "" {
		r.Error = fmt.Sprintf("capture did not return within the budget of %s", f.Budget)
	}
	return r
}

// protects reports whether any piece of the call is to be protected, even
// when another piece's rule decided a stricter effect.
func protects(v policy.Verdict) bool {
	return slices.ContainsFunc(v.Matches, func(m policy.Match) bool { return m.Effect == policy.Protect })
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

// ruleName names the rule of a verdict for a reason: "rule NAME".
func ruleName(v policy.Verdict) string {
	if v.Rule == "" {
		return "a rule"
	}
	return "rule " + v.Rule
}

// protectedContext tells the model which checkpoints undo the call and how.
func protectedContext(points []Point, id string) string {
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
func pendingDecision(f facts, o *Outcome) hostio.Decision {
	var b strings.Builder
	b.WriteString("rewind: ")
	n := 0
	for _, p := range o.Points {
		if p.Identifier != "" {
			continue
		}
		if n > 0 {
			b.WriteString("; ")
		}
		n++
		fmt.Fprintf(&b, "Zerto accepted checkpoint tag %q for VPG %q (journal cadence ~%s); it is expected at %s (in ~%s)",
			p.Tag, p.VPG, approx(p.Cadence), p.Expected.UTC().Format(time.RFC3339), approx(p.Expected.Sub(f.Now)))
	}
	fmt.Fprintf(&b, ", past this hook's budget of %s. Retry this call after %s: the retry will use that checkpoint.",
		approx(f.Budget), latestExpected(o.Points).UTC().Format(time.RFC3339))
	fmt.Fprintf(&b, " Retry within %s of it, or a fresh checkpoint is taken.", approx(o.RetryWithin))
	if f.Pending == "ask" {
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
func failedReason(failures []string) string {
	parts := make([]string, len(failures))
	for i, f := range failures {
		parts[i] = "no checkpoint for " + f
	}
	return "rewind: " + strings.Join(parts, "; ")
}

// withHint appends a hint to a reason, as its own sentence.
func withHint(reason, hint string) string {
	if hint == "" {
		return reason
	}
	return reason + ". Fix: " + hint + "."
}

// withNotes adds the outcome's notes (an ambiguous name, say) to what the
// host is told.
func withNotes(d hostio.Decision, notes []string) hostio.Decision {
	if len(notes) == 0 {
		return d
	}
	n := " Note: " + strings.Join(notes, "; ") + "."
	switch {
	case d.Reason != "":
		d.Reason += n
	case d.Context != "":
		d.Context += n
	}
	return d
}

func vmNames(vms []VM) string {
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

// latestExpected is when the last of the pending tags among points is
// expected, on this machine's clock: when the agent is told to retry.
func latestExpected(points []Point) time.Time {
	var latest time.Time
	for _, p := range points {
		if p.Identifier == "" && p.Expected.After(latest) {
			latest = p.Expected
		}
	}
	return latest
}
