package confirm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestAgentAmong: an agent host among the ancestors is found by its
// command name, its program's path or, under node, its script's; a
// person's terminal has none.
func TestAgentAmong(t *testing.T) {
	t.Parallel()
	person := map[int]process{
		10: {ppid: 9, comm: "bash", exe: "/usr/bin/bash", argv: []string{"-bash"}},
		9:  {ppid: 1, comm: "gnome-terminal-", exe: "/usr/libexec/gnome-terminal-server"},
	}
	for _, tt := range []struct {
		name  string
		chain []process // from the parent upwards, ending at init
		want  string
	}{
		{"claude native", []process{{comm: "bash"}, {comm: "script"}, {comm: "bash"}, {comm: "2.1.32", exe: "/home/u/.local/share/claude/versions/2.1.32", argv: []string{"claude"}}}, "Claude Code"},
		{"claude npm", []process{{comm: "zsh"}, {comm: "node", argv: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}}}, "Claude Code"},
		{"codex", []process{{comm: "bash"}, {comm: "codex", exe: "/opt/homebrew/bin/codex"}}, "Codex CLI"},
		{"codex npm", []process{{comm: "node", argv: []string{"node", "--no-warnings", "/usr/lib/node_modules/@openai/codex/bin/codex.js"}}}, "Codex CLI"},
		{"cursor agent", []process{{comm: "node", exe: "/home/u/.local/share/cursor-agent/versions/2026.1/node", argv: []string{"/home/u/.local/share/cursor-agent/versions/2026.1/node", "index.js"}}}, "Cursor CLI"},
		{"copilot", []process{{comm: "MainThread", argv: []string{"node", "/usr/local/lib/node_modules/@github/copilot/index.js"}}}, "GitHub Copilot CLI"},
		{"agy", []process{{comm: "agy.exe", exe: `C:\Users\u\AppData\Local\agy\bin\agy.exe`}}, "Antigravity CLI"},
		{"opencode", []process{{comm: "opencode"}}, "OpenCode"},
		{"kiro", []process{{comm: "kiro-cli-chat"}}, "Kiro CLI"},
		{"windsurf", []process{{comm: "Windsurf Helper", exe: "/Applications/Windsurf.app/Contents/Frameworks/Windsurf Helper.app/Contents/MacOS/Windsurf Helper"}}, "Windsurf"},
		{"gemini", []process{{comm: "node", argv: []string{"node", "/usr/lib/node_modules/@google/gemini-cli/dist/index.js"}}}, "Gemini CLI"},
		{"cline", []process{{comm: "node", argv: []string{"node", "/usr/lib/node_modules/cline/bin/cline"}}}, "Cline"},
		{"person", []process{person[10], person[9]}, ""},
		{"a project folder named codex is not a host", []process{{comm: "bash", exe: "/usr/bin/bash", argv: []string{"bash", "/home/u/src/codex/run.sh"}}}, ""},
		{"agent is too common a name", []process{{comm: "agent"}}, ""},
	} {
		table := map[int]process{}
		pid := 100
		for i, p := range tt.chain {
			p.ppid = pid + 1
			if i == len(tt.chain)-1 {
				p.ppid = 1
			}
			table[pid] = p
			pid++
		}
		h, ok := agentAmong(100, func(pid int) (process, error) {
			p, ok := table[pid]
			if !ok {
				return process{}, errors.New("no such process")
			}
			return p, nil
		})
		if got := h.Name; ok != (tt.want != "") || got != tt.want {
			t.Errorf("%s: got %q (%v), want %q", tt.name, got, ok, tt.want)
		}
	}
	// A loop, an unreadable process and StopAt end the search.
	loop := func(pid int) (process, error) { return process{ppid: pid, comm: "bash"}, nil }
	if _, ok := agentAmong(5, loop); ok {
		t.Error("a loop of bash found a host")
	}
	if _, ok := agentAmong(5, func(int) (process, error) { return process{}, os.ErrPermission }); ok {
		t.Error("an unreadable process found a host")
	}
}

// TestAgentHostReal: under a program named claude (a script, whose
// command name is its file's), this process's ancestors show an agent
// host; the search stops at StopAt, above which a developer's own agent
// may run these tests.
func TestAgentHostReal(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude")
	if err := os.WriteFile(claude, []byte("#!/bin/sh\n\"$@\"\nexit $?\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(argv ...string) string {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), "CONFIRM_HELPER=agent", "CONFIRM_STOP_AT="+strconv.Itoa(os.Getpid()))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	self := []string{os.Args[0], "-test.run=^$"}
	if got := run(append([]string{claude}, self...)...); !strings.HasPrefix(got, "Claude Code ") {
		t.Errorf("under claude: %q", got)
	}
	if got := run(self...); got != "none" {
		t.Errorf("under the test alone: %q", got)
	}
}

// agentHelper prints the agent host AgentHost finds, for TestAgentHostReal.
func agentHelper() int {
	StopAt, _ = strconv.Atoi(os.Getenv("CONFIRM_STOP_AT"))
	if h, ok := AgentHost(); ok {
		fmt.Println(h.Name, h.PID, h.Seen)
	} else {
		fmt.Println("none")
	}
	return 0
}
