package hookfront

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hook/testlab"
)

func TestMain(m *testing.M) {
	if os.Getenv("REWIND_FRONT_CHILD") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestBudgetEndsTheProcess runs the front as a host does, with a host that
// never closes stdin: at the budget the front answers, by hook.on_error,
// and its process ends, although the call's judging still waits for the
// event.
func TestBudgetEndsTheProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "[hook]\nbudget = \"300ms\"\non_error = \"deny\"\n")
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "--config", cfg)
	cmd.Env = append(os.Environ(), "REWIND_FRONT_CHILD=1", "GORACE=atexit_sleep_ms=0", "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir,
		"XDG_CACHE_HOME="+dir, "REWIND_STATE_DIR="+filepath.Join(dir, "state"), "REWIND_CONFIG=")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("rewind-hook: %v (stderr %s)", err, stderr.String())
	}
	// ParseAnswer also fails on a second answer after the first.
	if a := testlab.ParseAnswer(t, stdout.String()).HookSpecificOutput; a.PermissionDecision != "deny" ||
		!strings.Contains(a.PermissionDecisionReason, "no decision within the hook's budget of 300ms") {
		t.Errorf("answer %+v", a)
	}
}

const protectEvent = `{"hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"toolu_1","cwd":"/","tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reboot"}}`

// writeConfig writes a config of text in dir and returns its path.
func writeConfig(t *testing.T, dir, text string) string {
	t.Helper()
	cfg := filepath.Join(dir, "rw.toml")
	if err := os.WriteFile(cfg, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// fakeHook writes a shell script to stand for rewind: it keeps its
// arguments in dir, then answers.
func fakeHook(t *testing.T, dir string) func() (string, error) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake rewind is a shell script")
	}
	bin := filepath.Join(dir, "rewind")
	script := "#!/bin/sh\necho \"$@\" > " + filepath.Join(dir, "args") + "\ncat >/dev/null\necho '{\"decision\":\"block\",\"reason\":\"r\"}'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return func() (string, error) { return bin, nil }
}

// TestFlagsTravel checks that a protect call goes to rewind hook with the
// front's own --host and --config, and its answer comes back as it is (the
// relay itself is hook.Relay's, tested there).
func TestFlagsTravel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "[hook]\non_error = \"deny\"\n")
	getenv := func(k string) string {
		if k == "REWIND_STATE_DIR" {
			return filepath.Join(dir, "state")
		}
		return ""
	}
	var out, errb bytes.Buffer
	code := run([]string{"--host", "codex", "--config", cfg}, strings.NewReader(protectEvent), &out, &errb, getenv, fakeHook(t, dir))
	if code != 0 || out.String() != `{"decision":"block","reason":"r"}`+"\n" {
		t.Errorf("exit %d, stdout %q, stderr %q; want rewind hook's answer", code, out.String(), errb.String())
	}
	ran, _ := os.ReadFile(filepath.Join(dir, "args"))
	if want := "hook --host codex --config " + cfg; strings.TrimSpace(string(ran)) != want {
		t.Errorf("rewind ran with %q, want %q", ran, want)
	}
}

func TestVersionAndFlags(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, strings.NewReader(""), &out, &errb, os.Getenv, fullHook); code != 0 || !strings.HasPrefix(out.String(), "rewind ") {
		t.Errorf("version: exit %d, %q", code, out.String())
	}
	for _, args := range [][]string{{"--budget", "1s"}, {"extra"}, {"--host", "vim"}} {
		out.Reset()
		errb.Reset()
		if code := run(args, strings.NewReader(protectEvent), &out, &errb, os.Getenv, fullHook); code != 1 || out.Len() != 0 ||
			!strings.HasPrefix(errb.String(), "rewind: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 1 and a one-line error", args, code, out.String(), errb.String())
		}
	}
}

// TestLinksNoZertoClient checks what the front exists for: the program
// links neither a Zerto client nor an HTTP stack, MCP server or cobra.
func TestLinksNoZertoClient(t *testing.T) {
	t.Parallel()
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
		case "net/http", "crypto/tls", "github.com/rewind-dev/rewind/capture", "github.com/rewind-dev/rewind/zvm", "github.com/rewind-dev/rewind/hook/zerto",
			"github.com/rewind-dev/rewind/zvmsim", "github.com/spf13/cobra", "github.com/modelcontextprotocol/go-sdk/mcp",
			// net/url links net/netip, whose start-up every hook process would pay.
			"net/url", "net/netip":
			t.Errorf("rewind-hook links %s", pkg)
		}
	}
}
