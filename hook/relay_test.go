package hook

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-dev/rewind/hostio"
)

const protectEvent = `{"hook_event_name":"PreToolUse","session_id":"s","tool_use_id":"toolu_1","cwd":"/","tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reboot"}}`

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

// relayRun runs the hook on ev with relay as its protect step, under a
// config with on_error = deny, and returns stdout, stderr and the exit
// code.
func relayRun(t *testing.T, dir string, relay *Relay, ev string) (string, string, int) {
	t.Helper()
	cfg := config(t, dir, "[hook]\non_error = \"deny\"\n")
	var out, errb bytes.Buffer
	relay.Stderr = &errb
	code := Run(context.Background(), strings.NewReader(ev), &out, Options{Host: relay.Host, ConfigPath: cfg,
		Getenv: env(filepath.Join(dir, "state")), Stderr: &errb, Protect: relay})
	return out.String(), errb.String(), code
}

func TestRelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		body     string // the fake rewind's script; "" for none at all
		wantOut  string // a part of stdout
		wantDeny bool   // denied and logged by the front itself
	}{
		{"Relayed", `echo '{"hookSpecificOutput":{"additionalContext":"from rewind hook"}}'`,
			`{"hookSpecificOutput":{"additionalContext":"from rewind hook"}}` + "\n", false},
		// rewind hook always answers a call to protect; no answer, or an
		// empty one, is a disagreement, and the call has no checkpoint.
		{"NoAnswer", `true`, "wrote no decision for a call to protect", true},
		{"EmptyObject", `echo '{}'`, "wrote no decision for a call to protect", true},
		{"Null", `echo null`, "wrote no decision for a call to protect", true},
		{"Failed", `exit 3`, "exited with exit status 3", true},
		{"NotJSON", `echo 'panic: boom'`, "wrote no decision for a call to protect", true},
		{"Missing", "", "Fix: install rewind beside rewind-hook", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			bin := func() (string, error) { return filepath.Join(dir, "bin", "rewind"), nil }
			if tt.body != "" {
				bin = fakeHook(t, dir, tt.body)
			}
			out, errs, code := relayRun(t, dir, &Relay{Bin: bin, Host: hostio.Claude, ConfigPath: filepath.Join(dir, "rw.toml"), Front: "rewind-hook"}, protectEvent)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			switch {
			case tt.wantDeny && (!strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, tt.wantOut)):
				t.Errorf("stdout %q, want a deny naming %q", out, tt.wantOut)
			case !tt.wantDeny && out != tt.wantOut:
				t.Errorf("stdout %q, want rewind hook's answer %q as it is", out, tt.wantOut)
			}
			recs := logged(t, filepath.Join(dir, "state"))
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
			if want := "hook --host claude --config " + filepath.Join(dir, "rw.toml"); strings.TrimSpace(string(ran)) != want {
				t.Errorf("rewind ran with %q, want %q", ran, want)
			}
		})
	}
}

// TestRelayExitCode checks the relay to a host that reads a refusal from
// the exit code: rewind hook's exit code 2 and its reason on stderr are
// the answer, passed on as they are; an exit code 2 without a reason is no
// answer.
func TestRelayExitCode(t *testing.T) {
	t.Parallel()
	const windsurfEvent = `{"agent_action_name":"pre_run_command","trajectory_id":"t","execution_id":"e","tool_info":{"command_line":"ssh web-01 sudo reboot","cwd":"/"}}`
	for _, tt := range []struct {
		name, body, wantErr string
		wantCode            int
	}{
		{"Refused", `echo 'rewind: VPG web is not meeting SLA' >&2; exit 2`, "rewind: VPG web is not meeting SLA\n", 2},
		{"NoReason", `exit 2`, "wrote no decision for a call to protect", 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, errs, code := relayRun(t, dir, &Relay{Bin: fakeHook(t, dir, tt.body), Host: hostio.Windsurf, Front: "rewind-hook"}, windsurfEvent)
			if code != tt.wantCode || out != "" || !strings.Contains(errs, tt.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errs, tt.wantCode, tt.wantErr)
			}
		})
	}
}

// TestRelayOutOfTime checks, on a fake clock, that a rewind hook that does
// not answer within the budget is stopped and leaves the call denied,
// never let through; one that answers late, but before the watch, is
// passed on.
func TestRelayOutOfTime(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		answer bool // rewind hook answers, between its deadline and the watch's
		want   string
	}{
		{"no answer", false, "did not answer within the budget of 1s"},
		{"late", true, `{"relayed":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := config(t, dir, "[hook]\nbudget = \"1s\"\non_error = \"allow\"\n")
			synctest.Test(t, func(t *testing.T) {
				var stopped atomic.Bool
				relay := &Relay{Bin: func() (string, error) { return "rewind", nil }, Host: hostio.Claude, Front: "rewind-hook",
					run: func(ctx context.Context, bin string, args []string, stdin []byte, stderr io.Writer, exitCodes bool) relayed {
						if tt.answer {
							// Past the protect step's deadline (750 ms),
							// before the watch's (875 ms).
							time.Sleep(800 * time.Millisecond)
							return relayed{out: []byte(`{"relayed":true}`)}
						}
						<-ctx.Done()
						stopped.Store(true)
						return relayed{err: ctx.Err()}
					}}
				var out bytes.Buffer
				Run(context.Background(), strings.NewReader(protectEvent), &out, Options{Host: hostio.Claude, ConfigPath: cfg, Getenv: env(dir), Protect: relay})
				synctest.Wait()
				if !strings.Contains(out.String(), tt.want) {
					t.Errorf("stdout %q, want %q", out.String(), tt.want)
				}
				if !tt.answer && (!stopped.Load() || !strings.Contains(out.String(), `"permissionDecision":"deny"`)) {
					t.Errorf("stopped %v, stdout %q: want rewind hook stopped and the call denied", stopped.Load(), out.String())
				}
			})
		})
	}
}

// TestRelayStartsABusyBinaryAgain: a rewind binary still open for writing
// (go install replacing it) cannot start for a moment, "text file busy";
// the relay starts it again instead of denying the call.
func TestRelayStartsABusyBinaryAgain(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("text file busy is Linux's")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := fakeHook(t, dir, `echo '{"hookSpecificOutput":{"additionalContext":"from rewind hook"}}'`)
	path, _ := bin()
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Closed once the first start has failed: the retries wait 10 ms and
	// more each.
	time.AfterFunc(5*time.Millisecond, func() { w.Close() })
	out, errs, code := relayRun(t, dir, &Relay{Bin: bin, Host: hostio.Claude, ConfigPath: filepath.Join(dir, "rw.toml"), Front: "rewind-hook"}, protectEvent)
	if code != 0 || out != `{"hookSpecificOutput":{"additionalContext":"from rewind hook"}}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q: want rewind hook's answer", code, out, errs)
	}
}
