package hookfront

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
)

const protectEvent = `{"hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"toolu_1","cwd":"/","tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reboot"}}`

// sandbox keeps a run's state and config discovery in a folder of its own.
func sandbox(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{"HOME": dir, "XDG_CONFIG_HOME": dir, "XDG_STATE_HOME": dir,
		"REWIND_STATE_DIR": filepath.Join(dir, "state"), "REWIND_CONFIG": "", "REWIND_ZVM_URL": ""} {
		t.Setenv(k, v)
	}
	return dir
}

// fakeHook writes a shell script to stand for rewind: it keeps its
// arguments and stdin in dir, then runs body.
func fakeHook(t *testing.T, dir, body string) func() (string, error) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake rewind is a shell script")
	}
	bin := filepath.Join(dir, "bin", "rewind")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"$@\" > " + filepath.Join(dir, "args") + "\ncat > " + filepath.Join(dir, "stdin") + "\n" + body + "\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() (string, error) { return bin, nil }
}

func TestRelay(t *testing.T) {
	tests := []struct {
		name     string
		body     string // the fake rewind's script; "" for none at all
		args     []string
		wantOut  string // a part of stdout
		wantDeny bool   // denied and logged by the front itself
	}{
		{"Relayed", `echo '{"hookSpecificOutput":{"additionalContext":"from rewind hook"}}'`, nil,
			`{"hookSpecificOutput":{"additionalContext":"from rewind hook"}}` + "\n", false},
		{"FlagsTravel", `echo '{"decision":"block","reason":"r"}'`, []string{"--host", "codex", "--config", "DIR/rw.toml"}, `{"decision":"block","reason":"r"}` + "\n", false},
		// rewind hook always answers a call to protect; no answer, or an
		// empty one, is a disagreement, and the call has no checkpoint.
		{"NoAnswer", `true`, nil, "wrote no decision for a call to protect", true},
		{"EmptyObject", `echo '{}'`, nil, "wrote no decision for a call to protect", true},
		{"Null", `echo null`, nil, "wrote no decision for a call to protect", true},
		{"Failed", `exit 3`, nil, "exited with exit status 3", true},
		{"NotJSON", `echo 'panic: boom'`, nil, "wrote no decision for a call to protect", true},
		{"Missing", "", nil, "install rewind beside rewind-hook", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sandbox(t)
			full := func() (string, error) { return filepath.Join(dir, "bin", "rewind"), nil }
			if tt.body != "" {
				full = fakeHook(t, dir, tt.body)
			}
			args := tt.args
			for i, a := range args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			if err := os.WriteFile(filepath.Join(dir, "rw.toml"), []byte("[hook]\non_error = \"deny\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := run(args, strings.NewReader(protectEvent), &out, &errb, full)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			switch {
			case tt.wantDeny && (!strings.Contains(out.String(), `"permissionDecision":"deny"`) || !strings.Contains(out.String(), tt.wantOut)):
				t.Errorf("stdout %q, want a deny naming %q", out.String(), tt.wantOut)
			case !tt.wantDeny && out.String() != tt.wantOut:
				t.Errorf("stdout %q, want rewind hook's answer %q as it is", out.String(), tt.wantOut)
			}
			recs, err := audit.Open(filepath.Join(dir, "state")).Read(audit.Filter{})
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if tt.wantDeny != (len(recs) == 1) || len(recs) > 1 {
				t.Errorf("logged %+v; the front logs only what it denies itself", recs)
			}
			if tt.body == "" {
				return
			}
			stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
			if string(stdin) != protectEvent {
				t.Errorf("rewind hook read %q, want the event as the host wrote it", stdin)
			}
			ran, _ := os.ReadFile(filepath.Join(dir, "args"))
			want := "hook --host claude"
			if args != nil {
				want = "hook " + strings.Join(args, " ")
			}
			if strings.TrimSpace(string(ran)) != want {
				t.Errorf("rewind ran with %q, want %q", ran, want)
			}
		})
	}
}

func TestVersionAndFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, strings.NewReader(""), &out, &errb, fullHook); code != 0 || !strings.HasPrefix(out.String(), "rewind ") {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
	for _, args := range [][]string{{"--budget", "1s"}, {"extra"}, {"--host", "vim"}} {
		out.Reset()
		errb.Reset()
		if code := run(args, strings.NewReader(protectEvent), &out, &errb, fullHook); code != 1 || out.Len() != 0 ||
			!strings.HasPrefix(errb.String(), "rewind: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and a one-line error", args, code, out.String(), errb.String())
		}
	}
}

// TestLinksNoZertoClient checks what the front exists for: the program
// links neither a Zerto client nor an HTTP stack, MCP server or cobra.
func TestLinksNoZertoClient(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goBin, "list", "-deps", "github.com/rewind-dev/rewind/cmd/rewind-hook").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "net/http", "crypto/tls", "github.com/rewind-dev/rewind/capture", "github.com/rewind-dev/rewind/zvm",
			"github.com/rewind-dev/rewind/zvmsim", "github.com/spf13/cobra", "github.com/modelcontextprotocol/go-sdk/mcp":
			t.Errorf("rewind-hook links %s", pkg)
		}
	}
}

// TestRelayOutOfTime checks that a rewind hook that does not answer within
// the budget leaves the call denied, never let through.
func TestRelayOutOfTime(t *testing.T) {
	dir := sandbox(t)
	full := fakeHook(t, dir, "sleep 5")
	cfg := filepath.Join(dir, "rw.toml")
	if err := os.WriteFile(cfg, []byte("[hook]\nbudget = \"1s\"\non_error = \"allow\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	run([]string{"--config", cfg}, strings.NewReader(protectEvent), &out, &errb, full)
	if !strings.Contains(out.String(), `"permissionDecision":"deny"`) || !strings.Contains(out.String(), "did not answer within the budget of 1s") {
		t.Errorf("stdout %q, want a deny naming the budget", out.String())
	}
}

// TestRelayExitCode checks the relay to a host that reads a refusal from
// the exit code: rewind hook's exit code 2 and its reason on stderr are
// the answer, passed on as they are; an exit code 2 without a reason is no
// answer.
func TestRelayExitCode(t *testing.T) {
	const windsurfEvent = `{"agent_action_name":"pre_run_command","trajectory_id":"t","execution_id":"e","tool_info":{"command_line":"ssh web-01 sudo reboot","cwd":"/"}}`
	for _, tt := range []struct {
		name, body, wantErr string
		wantCode            int
	}{
		{"Refused", `echo 'rewind: VPG web is not meeting SLA' >&2; exit 2`, "rewind: VPG web is not meeting SLA\n", 2},
		{"NoReason", `exit 2`, "wrote no decision for a call to protect", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := sandbox(t)
			full := fakeHook(t, dir, tt.body)
			var out, errb bytes.Buffer
			code := run([]string{"--host", "windsurf"}, strings.NewReader(windsurfEvent), &out, &errb, full)
			if code != tt.wantCode || out.Len() > 0 || !strings.Contains(errb.String(), tt.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out.String(), errb.String(), tt.wantCode, tt.wantErr)
			}
		})
	}
}
