package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

func TestLogCmd(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REWIND_STATE_DIR", dir)
	path := filepath.Join(dir, audit.FileName)

	// An empty log says so on stderr and succeeds.
	code, stdout, stderr := runLogCLI(t, "log")
	if code != 0 || stdout != "" || stderr != "no decisions logged yet (log: "+path+")\n" {
		t.Fatalf("empty log: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	l := audit.Open(dir)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	recs := []*audit.Record{
		{Time: t0, Session: "s1", ToolUseID: "toolu_1", Tool: "Bash", Decision: audit.DecisionProtected,
			Excerpt: "govc vm.power -off web-01", Targets: []string{"web-01"},
			Checkpoints: []audit.Checkpoint{{VPG: "web", Tag: "rewind-1", Identifier: "42"}}},
		{Time: t0.Add(time.Minute), Session: "s2", ToolUseID: "toolu_2", Tool: "Read", Decision: audit.DecisionNone},
		{Time: t0.Add(2 * time.Minute), Session: "s1", ToolUseID: "toolu_3", Tool: "Bash", Decision: audit.DecisionDeny, Excerpt: "git push -f && rm x"},
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}

	tests := []struct {
		name    string
		args    []string
		wantIDs []string
		json    bool
	}{
		{"All", []string{"log"}, []string{recs[0].ID, recs[1].ID, recs[2].ID}, false},
		{"Session", []string{"log", "--session", "s1"}, []string{recs[0].ID, recs[2].ID}, false},
		{"Limit", []string{"log", "-n", "1"}, []string{recs[2].ID}, false},
		{"LimitLong", []string{"log", "--limit=2"}, []string{recs[1].ID, recs[2].ID}, false},
		{"JSON", []string{"log", "--json", "--session=s1"}, []string{recs[0].ID, recs[2].ID}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runLogCLI(t, tt.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if !tt.json {
				if !strings.HasPrefix(lines[0], "ID ") {
					t.Fatalf("no table header: %q", stdout)
				}
				lines = lines[1:]
			}
			if len(lines) != len(tt.wantIDs) {
				t.Fatalf("%d lines, want %d:\n%s", len(lines), len(tt.wantIDs), stdout)
			}
			for i, line := range lines {
				id := strings.Fields(line)[0]
				if tt.json {
					var r audit.Record
					if err := json.Unmarshal([]byte(line), &r); err != nil {
						t.Fatalf("line %q: %v", line, err)
					}
					id = r.ID
				}
				if id != tt.wantIDs[i] {
					t.Errorf("line %d has ID %s, want %s", i, id, tt.wantIDs[i])
				}
			}
		})
	}

	// --json prints the lines as the log file stores them.
	_, stdout, _ = runLogCLI(t, "log", "--json")
	if stored := readLogFile(t, path); stdout != stored {
		t.Errorf("log --json differs from the file:\n%s\nfile:\n%s", stdout, stored)
	}
	if !strings.Contains(stdout, "git push -f && rm x") {
		t.Errorf("log --json escaped HTML characters: %s", stdout)
	}

	code, _, stderr = runLogCLI(t, "log", "--session", "nope")
	if code != 0 || stderr != `no decisions logged for session "nope" (log: `+path+")\n" {
		t.Errorf("unknown session: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runLogCLI(t, "log", "-n", "-1"); code == 0 {
		t.Error("a negative limit succeeded")
	}
	if code, _, _ := runLogCLI(t, "log", "extra"); code == 0 {
		t.Error("an argument was accepted")
	}
	t.Setenv("REWIND_STATE_DIR", "relative/dir")
	if code, _, stderr := runLogCLI(t, "log"); code == 0 || !strings.Contains(stderr, "REWIND_STATE_DIR") {
		t.Errorf("relative REWIND_STATE_DIR: exit %d, stderr %q", code, stderr)
	}
}

func runLogCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func readLogFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
