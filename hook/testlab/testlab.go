package testlab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/hook/zerto"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/logline"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// The lab's Zerto client credentials, which every scenario file lists.
const (
	ClientID     = "rewind"
	ClientSecret = "rewind-secret"
)

// Options describe a lab.
type Options struct {
	// Scenario is the simulator's scenario file; "testdata/lab.toml" when
	// empty.
	Scenario string
	// Budget is the hook's budget in the config; "5s" when empty.
	Budget string
	// Extra is TOML written after the config's [hook] section.
	Extra string
}

// Lab is a simulator, a config and the folders and environment a hook run
// needs.
type Lab struct {
	Sim *zvmsim.TestServer
	// Dir is the lab's temporary folder, also HOME.
	Dir string
	// Vars is the environment the hook reads through Getenv; tests may
	// change it.
	Vars map[string]string
	// Log is the audit log in the state folder.
	Log *audit.Log
}

// New starts the simulator on o.Scenario and writes the config.
func New(t testing.TB, o Options) *Lab {
	t.Helper()
	if o.Scenario == "" {
		o.Scenario = "testdata/lab.toml"
	}
	if o.Budget == "" {
		o.Budget = "5s"
	}
	sc, err := zvmsim.LoadScenario(o.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	sim := zvmsim.NewTestServer(t, sc)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, "[hook]\nbudget = %q\n%s", o.Budget, o.Extra), 0o600); err != nil {
		t.Fatal(err)
	}
	// The token cache lives in the user cache folder, which zvm finds in
	// the environment the hook is given (Getenv), as the hook does in use:
	// a lab changes nothing in the process's own, so labs run in parallel.
	cache := filepath.Join(dir, "cache")
	state := filepath.Join(dir, "state")
	return &Lab{Sim: sim, Dir: dir, Log: audit.Open(state), Vars: map[string]string{
		"REWIND_CONFIG":            cfg,
		"REWIND_STATE_DIR":         state,
		"REWIND_ZVM_URL":           sim.URL,
		"REWIND_ZVM_CLIENT_ID":     ClientID,
		"REWIND_ZVM_CLIENT_SECRET": ClientSecret,
		"HOME":                     dir,
		"XDG_CACHE_HOME":           cache,
	}}
}

// Getenv reads the lab's environment.
func (l *Lab) Getenv(k string) string { return l.Vars[k] }

// Zerto returns a client of the simulator that keeps its token in memory.
func (l *Lab) Zerto(t testing.TB) *zvm.Client {
	t.Helper()
	z, err := zvm.New(zvm.Options{URL: l.Sim.URL, ClientID: ClientID, ClientSecret: ClientSecret, CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return z
}

// Records returns the records of the audit log in REWIND_STATE_DIR as Vars
// has it now, newest first.
func (l *Lab) Records(t testing.TB) []audit.Record {
	t.Helper()
	recs, err := audit.Open(l.Vars["REWIND_STATE_DIR"]).Read(audit.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// Event is a Claude Code PreToolUse event for a call of tool with input,
// made in cwd.
func Event(id, cwd, tool string, input any) []byte {
	b, err := json.Marshal(map[string]any{
		"hook_event_name": "PreToolUse", "session_id": "s1", "tool_use_id": id, "cwd": cwd,
		"tool_name": tool, "tool_input": input,
	})
	if err != nil {
		panic(err) // the tests' inputs always encode
	}
	return b
}

// BashEvent is the event of a Bash call of command, made in "/".
func BashEvent(id, command string) []byte {
	return Event(id, "/", "Bash", map[string]string{"command": command})
}

// Hook runs rewind's hook, with Zerto behind it, on ev, as Claude Code
// does, and returns its stdout, its stderr (with the hook's diagnostics)
// and its exit code.
func (l *Lab) Hook(ev []byte) (stdout, stderr string, code int) {
	var out, errb bytes.Buffer
	code = hook.Run(context.Background(), bytes.NewReader(ev), &out, hook.Options{
		Host: hostio.Claude, Getenv: l.Getenv, Stderr: &errb, Logger: logline.New(&errb, "rewind"), Protect: zerto.Step{},
	})
	return out.String(), errb.String(), code
}

// Call makes a Bash call of command through the hook and returns the audit
// record of its decision.
func (l *Lab) Call(t testing.TB, id, command string) audit.Record {
	t.Helper()
	out, errs, _ := l.Hook(BashEvent(id, command))
	recs, err := l.Log.Read(audit.Filter{Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("no record of %q: %v (stdout %s, stderr %s)", command, err, out, errs)
	}
	return recs[0]
}

// Protected makes a protected Bash call on vm and returns its record.
func (l *Lab) Protected(t testing.TB, id, vm string) audit.Record {
	t.Helper()
	r := l.Call(t, id, "govc vm.power -off -vm "+vm)
	if r.Decision != audit.DecisionProtected || len(r.Checkpoints) != 1 || r.Checkpoints[0].Identifier == "" {
		t.Fatalf("call on %s: %+v, want protected", vm, r)
	}
	return r
}

// Answer is the hook's answer to Claude Code.
type Answer struct {
	HookSpecificOutput struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage"`
}

// ParseAnswer decodes the hook's stdout; empty stdout is the zero Answer.
func ParseAnswer(t testing.TB, stdout string) Answer {
	t.Helper()
	var a Answer
	if stdout != "" {
		if err := json.Unmarshal([]byte(stdout), &a); err != nil {
			t.Fatalf("stdout %q: %v", stdout, err)
		}
	}
	return a
}

// Buffer is a bytes.Buffer that goroutines may write while a test reads
// it, such as a server's stderr.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
