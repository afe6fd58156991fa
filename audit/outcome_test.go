package audit

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestOutcomeJoin checks that an outcome appended after a call is joined
// to the call's record by host, session and tool-use id, and only to it.
func TestOutcomeJoin(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	call := func(id, session, tuid, decision string, at time.Duration) {
		t.Helper()
		if err := l.Append(&Record{ID: id, Time: t0.Add(at), Host: "claude", Session: session, ToolUseID: tuid, Tool: "Bash", Decision: decision}); err != nil {
			t.Fatal(err)
		}
	}
	exit := func(n int) *int { return &n }
	call("aaaaaaaaaaaa", "s1", "t1", DecisionProtected, 0)
	// The same tool-use id in another session or from another host is
	// another call.
	call("bbbbbbbbbbbb", "s2", "t1", DecisionProtected, time.Second)
	ms := int64(4187)
	if err := l.AppendOutcome(ctx, "claude", "s1", "t1", "Bash", Outcome{State: OutcomeFailed, ExitCode: exit(3), Error: "Exit code 3", DurationMS: &ms}); err != nil {
		t.Fatal(err)
	}
	if err := l.AppendOutcome(ctx, "codex", "s2", "t1", "Bash", Outcome{State: OutcomeRan}); err != nil {
		t.Fatal(err)
	}
	// An outcome of a call the log does not hold is dropped.
	if err := l.AppendOutcome(ctx, "claude", "s1", "nope", "Bash", Outcome{State: OutcomeRan}); err != nil {
		t.Fatal(err)
	}
	recs, err := l.Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 {
		t.Fatalf("Read returned %d records, want the 2 calls: %+v", len(recs), recs)
	}
	o := recs[0].Outcome
	if o == nil || o.State != OutcomeFailed || *o.ExitCode != 3 || *o.DurationMS != 4187 || !o.Reported || o.Time.IsZero() {
		t.Errorf("outcome of the first call = %+v", o)
	}
	if recs[1].Outcome != nil {
		t.Errorf("the other session's call got %+v", recs[1].Outcome)
	}
	r, err := l.Find("aaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome == nil || r.Outcome.State != OutcomeFailed {
		t.Errorf("Find: outcome %+v", r.Outcome)
	}
}

// TestOutcomeNotRun checks the outcome inferred for a call the host went
// past: not run, once a later call of the session reported an outcome and
// a call began after it; unknown before that, and for a call that runs
// beside a later one that finished first.
func TestOutcomeNotRun(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	ctx := context.Background()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	for _, r := range []Record{
		{ID: "askedxxxxxxx", Time: at(0), Session: "s", ToolUseID: "t1", Decision: DecisionAsk},       // declined by the person
		{ID: "deniedxxxxxx", Time: at(1), Session: "s", ToolUseID: "t2", Decision: DecisionDeny},      // refused: no outcome needed
		{ID: "ranxxxxxxxxx", Time: at(2), Session: "s", ToolUseID: "t3", Decision: DecisionProtected}, // reported at 3
		{ID: "afterxxxxxxx", Time: at(4), Session: "s", ToolUseID: "t4", Decision: DecisionNone},      // begins after that report
		{ID: "longxxxxxxxx", Time: at(5), Session: "s", ToolUseID: "t5", Decision: DecisionProtected}, // still running beside t6
		{ID: "quickxxxxxxx", Time: at(6), Session: "s", ToolUseID: "t6", Decision: DecisionProtected}, // reported at 7
		{ID: "othersession", Time: at(8), Session: "o", ToolUseID: "t7", Decision: DecisionAsk},       // a session without reports
	} {
		r.Host, r.Tool = "claude", "Bash"
		if err := l.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range []struct {
		id string
		at int
	}{{"t3", 3}, {"t4", 5}, {"t6", 7}} {
		if err := l.AppendOutcome(ctx, "claude", "s", o.id, "Bash", Outcome{State: OutcomeRan, Time: at(o.at)}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := l.Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"askedxxxxxxx": OutcomeNotRun, "deniedxxxxxx": "", "ranxxxxxxxxx": OutcomeRan, "afterxxxxxxx": OutcomeRan,
		"longxxxxxxxx": "", "quickxxxxxxx": OutcomeRan, "othersession": ""}
	for _, r := range recs {
		got := ""
		if r.Outcome != nil {
			got = r.Outcome.State
			if r.Outcome.Reported != (got == OutcomeRan) {
				t.Errorf("%s: Reported = %v", r.ID, r.Outcome.Reported)
			}
		}
		if got != want[r.ID] {
			t.Errorf("%s: outcome %q, want %q", r.ID, got, want[r.ID])
		}
		if r.NotRun() != (want[r.ID] == OutcomeNotRun) {
			t.Errorf("%s: NotRun() = %v", r.ID, r.NotRun())
		}
	}
	// Limit keeps the newest records, joined over the whole log.
	recs, err = l.Read(Filter{Session: "s", Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "longxxxxxxxx" || recs[1].Outcome == nil {
		t.Errorf("Read with Limit: %+v", recs)
	}
}

// TestOutcomeLine checks what an outcome's line holds: no ID, so that
// readers older than outcomes skip it, and the error redacted and bounded;
// and that a record's own line never carries an outcome.
func TestOutcomeLine(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	ctx := context.Background()
	if err := l.AppendOutcome(ctx, "claude", "s", "", "Bash", Outcome{State: OutcomeRan}); err == nil {
		t.Error("an outcome without a tool-use id was appended")
	}
	secret := "Exit code 1\nAuthorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl " + strings.Repeat("x", 3*maxTextRunes)
	if err := l.AppendOutcome(ctx, "claude", "s", "t", "Bash", Outcome{State: OutcomeFailed, Error: secret}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(&Record{ID: "withoutcome1", Session: "s", ToolUseID: "u", Decision: DecisionNone, Outcome: &Outcome{State: OutcomeRan}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("log holds %d lines: %s", len(lines), data)
	}
	if strings.Contains(lines[0], `"id"`) || !strings.Contains(lines[0], `"tool_use_id":"t"`) {
		t.Errorf("outcome line: %s", lines[0])
	}
	if strings.Contains(lines[0], "eyJhbGci") || len(lines[0]) > 3*maxTextRunes {
		t.Errorf("outcome line holds the token or is unbounded (%d bytes)", len(lines[0]))
	}
	if strings.Contains(lines[1], `"outcome"`) {
		t.Errorf("a record's line carries an outcome: %s", lines[1])
	}
}
