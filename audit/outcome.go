package audit

import (
	"context"
	"errors"
	"time"
)

// AppendOutcome appends the outcome of a call the hook judged, as the
// host's post-tool hook reported it: host, session and toolUseID name the
// call, as its record does. It only appends (it reads nothing of the log),
// so that a post-tool hook stays as cheap as the calls it follows; Read
// and Find join the outcome to the call's record.
//
// The outcome's line has no ID, so that readers that predate outcomes skip
// it. Its Error is shortened and redacted as a record's is.
func (l *Log) AppendOutcome(ctx context.Context, host, session, toolUseID, tool string, o Outcome) error {
	if toolUseID == "" {
		return errors.New("an outcome needs the call's tool-use id")
	}
	if o.Time.IsZero() {
		o.Time = time.Now().UTC() // as Record.Time is
	}
	o.Reported = true
	o.Error = boundText(o.Error)
	line, err := marshalLine(struct {
		Time      time.Time `json:"time"`
		Host      string    `json:"host,omitempty"`
		Session   string    `json:"session,omitempty"`
		ToolUseID string    `json:"tool_use_id"`
		Tool      string    `json:"tool,omitempty"`
		Outcome   *Outcome  `json:"outcome"`
	}{o.Time, host, session, toolUseID, tool, &o})
	if err != nil {
		return err
	}
	return l.appendLine(ctx, line)
}

// callKey names a call across records: its host, session and tool-use id.
type callKey struct{ host, session, toolUseID string }

func keyOf(r *Record) callKey { return callKey{r.Host, r.Session, r.ToolUseID} }

// joiner collects the records of a scan, oldest first, and joins each
// outcome line to the newest record before it of the same call.
type joiner struct {
	recs []Record
	last map[callKey]int
}

func (j *joiner) add(r *Record) {
	if r.ID == "" {
		if i, ok := j.last[keyOf(r)]; ok {
			j.recs[i].Outcome = r.Outcome
		}
		return
	}
	r.Outcome = nil // never on a record's own line; a hand-edited log may hold one
	j.recs = append(j.recs, *r)
	if r.ToolUseID != "" {
		if j.last == nil {
			j.last = map[callKey]int{}
		}
		j.last[keyOf(r)] = len(j.recs) - 1
	}
}

// records returns the records, with the outcomes inferred.
func (j *joiner) records() []Record {
	inferNotRun(j.recs)
	return j.recs
}

// inferNotRun gives the calls whose outcome never came the outcome the
// log shows: a call that was let through (or put to a person), of which
// the host reported nothing, was not run (the person declined it, or
// another hook refused it) once the session went on past it: a later call
// of the session reported its outcome, and a call after that outcome began.
// Waiting for the next call keeps a call that runs beside a later one (the
// hosts run a turn's calls in parallel, and start the next turn when all
// of them have ended) from being taken for not run while it still runs.
// A session whose host reports no outcomes (no post-tool hook) leaves its
// calls unknown; a call the hook refused needs no outcome to say it did
// not run.
func inferNotRun(recs []Record) {
	type session struct{ host, id string }
	type wait struct {
		i int
		// past is the earliest outcome reported of a call after it;
		// zero while there is none.
		past time.Time
	}
	waiting := map[session][]wait{}
	for i := range recs {
		r := &recs[i]
		if r.Session == "" {
			continue
		}
		s := session{r.Host, r.Session}
		kept := waiting[s][:0]
		for _, w := range waiting[s] {
			switch {
			case !w.past.IsZero() && w.past.Before(r.Time):
				recs[w.i].Outcome = &Outcome{State: OutcomeNotRun}
				continue
			case r.Outcome != nil && r.Outcome.Reported && (w.past.IsZero() || r.Outcome.Time.Before(w.past)):
				w.past = r.Outcome.Time
			}
			kept = append(kept, w)
		}
		waiting[s] = kept
		if r.Outcome == nil && r.ToolUseID != "" && letThrough(r.Decision) {
			waiting[s] = append(waiting[s], wait{i: i})
		}
	}
}

// letThrough reports whether a decision let the call run, or put it to a
// person who may have.
func letThrough(decision string) bool {
	switch decision {
	case DecisionNone, DecisionProtected, DecisionAsk, DecisionAllowOnError, DecisionAskOnError:
		return true
	}
	return false
}

// withOutcome returns r with its outcome, read from the records of its
// session.
func (l *Log) withOutcome(r *Record) (*Record, error) {
	if r.ToolUseID == "" {
		return r, nil
	}
	recs, err := l.Read(Filter{Session: r.Session})
	if err != nil {
		return nil, err
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].ID == r.ID {
			r.Outcome = recs[i].Outcome
			break
		}
	}
	return r, nil
}
