package audit

import (
	"os"
	"strings"
	"testing"
)

func TestTally(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	for i, r := range []*Record{
		{Session: "s1", Tool: "Bash", Decision: DecisionProtected, Checkpoints: []Checkpoint{{Identifier: "1", Tag: "a"}}},
		{Session: "s2", Tool: "Bash", Decision: DecisionProtected, Checkpoints: []Checkpoint{{Identifier: "2", Tag: "b"}}},
		{Session: "s1", Tool: "Bash", Decision: DecisionPending, Checkpoints: []Checkpoint{{Tag: "c"}}},
		{Session: "s1", Tool: "Bash", Decision: DecisionDeny, Excerpt: `"session":"s2","decision":"protected","identifier":"9"`},
		{Session: "s1", Tool: "Bash", Decision: DecisionCheckpoint, Checkpoints: []Checkpoint{{Identifier: "3", Tag: "d"}}, Excerpt: "last"},
	} {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			// A line longer than the reader's buffer, as a log edited
			// by hand may hold.
			appendRaw(t, l, `{"id":"long","session":"s1","decision":"ask","excerpt":"`+strings.Repeat("x", 100<<10)+`"}`+"\n")
		}
	}
	got, err := l.Tally("s1", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if got.Decisions != 5 || got.RewindPoints != 2 || got.Last == nil || got.Last.Excerpt != "last" {
		t.Errorf("Tally(s1) = %+v, last %+v", got, got.Last)
	}
	if got, _ := l.Tally("s2", 1<<20); got.Decisions != 1 || got.RewindPoints != 1 {
		t.Errorf("Tally(s2) = %+v: an excerpt quoting the members was counted", got)
	}
	// A window that starts mid-line counts only whole lines in it.
	if got, _ := l.Tally("s1", 200); got.Decisions != 1 || got.Last == nil || got.Last.Excerpt != "last" {
		t.Errorf("Tally(s1, 200 bytes) = %+v", got)
	}
	// A line being written, without its newline yet, is not counted.
	appendRaw(t, l, `{"id":"half","session":"s1","decision":"protected","checkpoints":[{"identifier":"7"`)
	if got, _ := l.Tally("s1", 1<<20); got.Decisions != 5 || got.Last.Excerpt != "last" {
		t.Errorf("Tally with a half-written line = %+v", got)
	}
	if got, err := Open(t.TempDir()).Tally("s1", 1<<20); err != nil || got.Decisions != 0 || got.Last != nil {
		t.Errorf("no log: %+v, %v", got, err)
	}
}

func appendRaw(t *testing.T, l *Log, s string) {
	t.Helper()
	f, err := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
