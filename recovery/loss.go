package recovery

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// maxLossLines bounds the calls Loss.Text lists; Loss.Calls has them all.
const maxLossLines = 20

// Loss says what a restore to p loses: every change to p.VMs after p.Time,
// with the logged calls that made them. It reads only the audit log, so a
// front end can show it, and be refused, before anything reaches Zerto.
//
// Which logged calls came after the checkpoint is judged by Zerto's times,
// never this host's clock: a call with a checkpoint on the VPG counts when
// its checkpoint is not older than p's, and a call without one (an asked
// call, a rewind) counts when the log has it after the last call whose
// checkpoint is older than p's. Calls that did not run (denied, held back
// pending, or let through but never run by the host, as its post-tool hook
// or the log shows: see audit.Record.NotRun) and tests, which change
// nothing, do not count. A call whose outcome is unknown (its host reports
// none) counts, as it may have run; Text says how many of those there are.
func (s *Service) Loss(ctx context.Context, p Point) (Loss, error) {
	l := Loss{Point: p, Since: p.Time}
	if s.Log != nil {
		recs, err := s.Log.Read(audit.Filter{})
		if err != nil {
			return Loss{}, err
		}
		l.Calls = callsSince(recs, p)
	}
	l.Text = lossText(l)
	return l, nil
}

// changed reports whether a record's call ran, or may have, so could have
// changed its targets: its decision let it run (or put it to a person, or,
// for a rewind, it restored, rolled back or committed a restore) and the
// host did not say it never ran it; or the host reported that it ran
// whatever the decision said, as a pending call a person allowed under
// hook.pending = "ask" does.
func changed(r *audit.Record) bool {
	if r.NotRun() {
		return false
	}
	if o := r.Outcome; o != nil && o.Reported {
		return true
	}
	switch r.Decision {
	case audit.DecisionProtected, audit.DecisionAsk, audit.DecisionNone,
		audit.DecisionAllowOnError, audit.DecisionAskOnError,
		audit.DecisionUndoRestore, audit.DecisionUndoRollback, audit.DecisionUndoCommit:
		return true
	}
	return false
}

// outcomeUnknown reports whether nothing says whether a counted call ran:
// a call the hook let through whose host reported no outcome. A rewind's
// record is written once Zerto did it.
func outcomeUnknown(r *audit.Record) bool {
	return r.Outcome == nil && !strings.HasPrefix(r.Decision, "undo-")
}

func callsSince(recs []audit.Record, p Point) []audit.Record {
	// zertoTime is the time of the record's checkpoint on p's VPG, or zero.
	// A rewind's checkpoints are where it went back to, not when it ran.
	zertoTime := func(r *audit.Record) time.Time {
		if strings.HasPrefix(r.Decision, "undo-") {
			return time.Time{}
		}
		for _, cp := range r.Checkpoints {
			if strings.EqualFold(cp.VPGIdentifier, p.VPGIdentifier) && !cp.Time.IsZero() {
				return cp.Time
			}
		}
		return time.Time{}
	}
	lastBefore := -1
	for i := range recs {
		r := &recs[i]
		if r.ID == p.AuditID && p.AuditID != "" {
			break
		}
		if t := zertoTime(r); !t.IsZero() {
			if !t.Before(p.Time) {
				break
			}
			lastBefore = i
		}
	}
	var out []audit.Record
	for i := range recs {
		r := &recs[i]
		if !changed(r) || !touches(r, p) {
			continue
		}
		if t := zertoTime(r); !t.IsZero() {
			if t.Before(p.Time) {
				continue
			}
		} else if i <= lastBefore {
			continue
		}
		out = append(out, *r)
	}
	return out
}

// touches reports whether a record's call aimed at one of p's VMs.
func touches(r *audit.Record, p Point) bool {
	for _, vm := range p.VMs {
		for _, cp := range r.Checkpoints {
			if cp.VMIdentifier != "" && strings.EqualFold(cp.VMIdentifier, vm.Identifier) {
				return true
			}
		}
		for _, t := range r.Targets {
			if strings.EqualFold(t, vm.Name) {
				return true
			}
		}
	}
	return false
}

func lossText(l Loss) string {
	p := l.Point
	var b strings.Builder
	// The names come from the log too, which a person may edit.
	vms := oneLine(strings.Join(p.VMNames(), ", "))
	cp := "checkpoint " + oneLine(p.Checkpoint)
	if p.Tag != "" {
		cp = fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s)", p.Tag, oneLine(p.Checkpoint))
	}
	fmt.Fprintf(&b, "Restoring %s (VPG %s) to %s of %s loses every change made to %s after that time, by anyone: Zerto discards what its journal recorded since.",
		vms, oneLine(p.VPG), cp, zTime(p.Time), vms)
	switch len(l.Calls) {
	case 0:
		b.WriteString("\nrewind logged no call that changed it since.")
		return b.String()
	case 1:
		b.WriteString("\nThe call rewind logged since")
	default:
		fmt.Fprintf(&b, "\nThe %d calls rewind logged since", len(l.Calls))
	}
	b.WriteString(UnknownNote(l.Calls) + ":")
	for i := range l.Calls {
		r := &l.Calls[i]
		if i == maxLossLines {
			fmt.Fprintf(&b, "\n  and %d more (rewind log)", len(l.Calls)-maxLossLines)
			break
		}
		fmt.Fprintf(&b, "\n  %s  %s  %s  %s  %s", oneLine(r.ID), zTime(r.Time),
			oneLine(decisionText(r)), oneLine(r.Tool), oneLine(r.Excerpt))
	}
	return b.String()
}

// UnknownNote says, after a count of the calls of a Loss, how many of
// them have no outcome: counted, as they may have run, though no host said
// they did. It is "" when every outcome is known, else a parenthesis with
// a space before it: " (1 of them with no outcome reported: it may not
// have run)".
func UnknownNote(calls []audit.Record) string {
	n := 0
	for i := range calls {
		if outcomeUnknown(&calls[i]) {
			n++
		}
	}
	switch {
	case n == 0:
		return ""
	case n == 1 && len(calls) == 1:
		return " (no host reported its outcome: it may not have run)"
	case n == len(calls):
		return " (no host reported their outcome: some may not have run)"
	case n == 1:
		return " (1 of them with no outcome reported: it may not have run)"
	}
	return fmt.Sprintf(" (%d of them with no outcome reported: they may not have run)", n)
}

// decisionText is a lost call's decision and, when known, its outcome:
// "protected, exit 2".
func decisionText(r *audit.Record) string {
	if r.Outcome == nil {
		return r.Decision
	}
	return r.Decision + ", " + audit.OutcomeText(r)
}

// oneLine keeps a logged text from breaking the lines of Text: the log is a
// file a person may edit.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || (r >= 0x7f && r < 0xa0) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
}

// NamesTyped reports whether typed, what a person typed to confirm a
// restore, holds exactly the VM names, in any order: every front end asks
// for the names, so that a restore is never confirmed by reflex. Names are
// separated by commas (or new lines), or, when no name holds a space, by
// spaces; runs of spaces within a name count as one, and case counts.
func NamesTyped(typed string, names []string) bool {
	if len(names) == 0 {
		return false
	}
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	typed = strings.TrimSpace(typed)
	sep := func(r rune) bool { return r == ',' || r == '\n' }
	if !strings.ContainsAny(typed, ",\n") && !slices.ContainsFunc(names, func(n string) bool { return strings.ContainsAny(n, " \t") }) {
		sep = func(r rune) bool { return r == ' ' || r == '\t' }
	}
	var got []string
	for _, f := range strings.FieldsFunc(typed, sep) {
		if f = norm(f); f != "" {
			got = append(got, f)
		}
	}
	want := make([]string, len(names))
	for i, n := range names {
		want[i] = norm(n)
	}
	slices.Sort(got)
	slices.Sort(want)
	return slices.Equal(got, want)
}
