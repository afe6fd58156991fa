package statusline

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// lab is a home with a project in it, and the environment that finds
// them.
type lab struct {
	home, project, bin string
	env                map[string]string
}

func newLab(t *testing.T) *lab {
	t.Helper()
	home := t.TempDir()
	l := &lab{home: home, project: filepath.Join(home, "project"), bin: filepath.Join(home, "bin", "rewind-hook"),
		env: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "REWIND_STATE_DIR": filepath.Join(home, "state")}}
	if err := os.MkdirAll(filepath.Join(l.project, ".claude"), 0o700); err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lab) getenv(k string) string { return l.env[k] }

// install writes the project's Claude Code settings with rewind-hook as
// the PreToolUse hook, as rewind install does; executable says whether
// the program is there.
func (l *lab) install(t *testing.T, executable bool) {
	t.Helper()
	settings := `{"hooks":{"PreToolUse":[{"matcher":"","hooks":[{"type":"command","command":"` + l.bin + `","timeout":180}]}]}}`
	if err := os.WriteFile(filepath.Join(l.project, ".claude", "settings.json"), []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if executable {
		os.MkdirAll(filepath.Dir(l.bin), 0o755)
		if err := os.WriteFile(l.bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func (l *lab) line(t *testing.T, session string, color bool) string {
	t.Helper()
	in := &Input{SessionID: session}
	in.Workspace.ProjectDir = l.project
	return Line(in, Options{Getenv: l.getenv, Color: color})
}

func TestLine(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	if got, want := l.line(t, "s1", false), "rewind ✗ not guarding here · rewind install"; got != want {
		t.Errorf("nothing installed: %q, want %q", got, want)
	}
	l.install(t, false)
	if got := l.line(t, "s1", false); !strings.HasPrefix(got, "rewind ✗ hook runs "+l.bin+", which is missing") {
		t.Errorf("hook without its program: %q", got)
	}
	l.install(t, true)
	if got, want := l.line(t, "s1", false), "rewind ✓ guarding (project hook) · no Zerto: VM changes are asked · no rewind point yet"; got != want {
		t.Errorf("installed: %q, want %q", got, want)
	}

	log := audit.Open(l.env["REWIND_STATE_DIR"])
	t0 := time.Date(2026, 12, 1, 5, 10, 0, 0, time.Local)
	for i, r := range []*audit.Record{
		{Session: "s1", Tool: "Bash", Excerpt: "ssh web-01 sudo reboot", Decision: audit.DecisionProtected,
			Checkpoints: []audit.Checkpoint{{VM: "web-01", Identifier: "1001", Tag: "rewind-a"}}},
		{Session: "s2", Tool: "Bash", Excerpt: "ssh db-01 sudo reboot", Decision: audit.DecisionProtected,
			Checkpoints: []audit.Checkpoint{{VM: "db-01", Identifier: "1002", Tag: "rewind-b"}}},
		// Pending: its tag is not written yet, so no rewind point.
		{Session: "s1", Tool: "Bash", Excerpt: "govc vm.power -off -vm win-01", Decision: audit.DecisionPending,
			Checkpoints: []audit.Checkpoint{{VM: "win-01", Tag: "rewind-c"}}},
		{Session: "s1", Tool: "mcp__zerto__tag", Decision: audit.DecisionCheckpoint,
			Checkpoints: []audit.Checkpoint{{VM: "web-02", Identifier: "1003", Tag: "rewind-d"}}},
		// Prose that quotes the log's own members is not counted.
		{Session: "s1", Tool: "Bash", Excerpt: `echo '"decision":"protected","identifier":"x"' && govc vm.destroy db-01`, Decision: audit.DecisionDeny},
	} {
		r.Time = t0.Add(time.Duration(i) * time.Minute)
		if err := log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	l.env["REWIND_ZVM_URL"] = "https://zvm.lab.local"
	want := `rewind ✓ guarding (project hook) · 2 rewind points · last 05:14 deny echo '"decision":"protected","identifie…`
	if got := l.line(t, "s1", false); got != want {
		t.Errorf("with decisions:\n got %q\nwant %q", got, want)
	}
	if got := l.line(t, "s2", false); !strings.HasSuffix(got, " · 1 rewind point · last 05:11 protected ssh db-01 sudo reboot") {
		t.Errorf("another session: %q", got)
	}
	colored := l.line(t, "s1", true)
	if !strings.Contains(colored, "\x1b[1;32mrewind ✓\x1b[0m") || !strings.Contains(colored, "\x1b[1;31mdeny\x1b[0m") {
		t.Errorf("no colours: %q", colored)
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	l.install(t, true)
	for _, tt := range []struct{ in, want string }{
		{`{"session_id":"s9","workspace":{"current_dir":"` + l.project + `","project_dir":"` + l.project + `"},"model":{"id":"claude-opus-4-7"}}`,
			"rewind ✓ guarding (project hook) · no Zerto: VM changes are asked · no rewind point yet\n"},
		{`{"session_id":`, "rewind: the status line's input is not JSON\n"},
	} {
		var out bytes.Buffer
		if code := Run(strings.NewReader(tt.in), &out, Options{Getenv: l.getenv}); code != 0 || out.String() != tt.want {
			t.Errorf("Run(%.30q) = %d, %q; want 0, %q", tt.in, code, out.String(), tt.want)
		}
	}
}
