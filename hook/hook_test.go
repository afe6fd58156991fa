package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
)

// bashEvent is a Bash PreToolUse event of command, made in cwd.
func bashEvent(command, cwd string) []byte {
	b, _ := json.Marshal(map[string]any{
		"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_use_id": "toolu_1", "cwd": cwd, "tool_input": map[string]string{"command": command},
	})
	return b
}

// event is a Bash PreToolUse event of command, made in a folder with no
// config.
func event(command string) io.Reader { return bytes.NewReader(bashEvent(command, os.TempDir())) }

// env is a run's environment with its state in dir and no config.
func env(dir string) func(string) string {
	return func(k string) string {
		if k == "REWIND_STATE_DIR" {
			return dir
		}
		return ""
	}
}

// config writes a config file of toml in dir.
func config(t *testing.T, dir, toml string) string {
	t.Helper()
	path := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func logged(t *testing.T, dir string) []audit.Record {
	t.Helper()
	recs, err := audit.Open(dir).Read(audit.Filter{})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return recs
}

// stepFunc is a Protector made of a function.
type stepFunc func(ctx context.Context, call *Call) Outcome

func (f stepFunc) Protect(ctx context.Context, call *Call) Outcome { return f(ctx, call) }

// TestProtectStep checks what Run makes of what the protect step says: a
// decision it records, an answer relayed as it is, and no step at all.
func TestProtectStep(t *testing.T) {
	t.Parallel()
	relayed := []byte(`{"relayed":true}` + "\n")
	tests := []struct {
		name       string
		step       Protector
		wantOut    string // a part of stdout
		wantLogged string // the decision logged, "" for none
	}{
		{"Recorded", stepFunc(func(ctx context.Context, call *Call) Outcome {
			if call.Verdict.Targets[0] != "web-01" || call.ID == "" || call.Event.ToolUseID != "toolu_1" || call.Getenv == nil || call.Logger == nil {
				t.Errorf("call %+v", call)
			}
			return *landed
		}), `"additionalContext":"rewind: checkpoint \"rewind-20260501T100000Z-01jabcde\"`, audit.DecisionProtected},
		{"Relayed", stepFunc(func(context.Context, *Call) Outcome {
			return Outcome{Kind: Relayed, Answer: &hostio.Response{Stdout: relayed}}
		}), string(relayed), ""},
		{"NoStep", nil, `"permissionDecision":"deny"`, audit.DecisionDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var out bytes.Buffer
			Run(context.Background(), event("ssh web-01 sudo reboot"), &out, Options{Host: hostio.Claude, Getenv: env(dir), Protect: tt.step})
			if !strings.Contains(out.String(), tt.wantOut) {
				t.Errorf("stdout %q, want %q in it", out.String(), tt.wantOut)
			}
			recs := logged(t, dir)
			switch {
			case tt.wantLogged == "" && len(recs) != 0:
				t.Errorf("logged %+v, want nothing: the relayed answer was logged by its maker", recs)
			case tt.wantLogged != "" && (len(recs) != 1 || recs[0].Decision != tt.wantLogged || recs[0].Targets[0] != "web-01"):
				t.Errorf("logged %+v, want one %s record for web-01", recs, tt.wantLogged)
			}
			if tt.wantLogged == audit.DecisionProtected {
				r := recs[0]
				if len(r.Checkpoints) != 1 || r.Checkpoints[0].Identifier != "cp-1" || r.ZVMOffsetMS == nil || !strings.Contains(out.String(), "rewind undo "+r.ID) {
					t.Errorf("record %+v does not match the answer %s", r, out.String())
				}
			}
		})
	}
}

// TestOverrun checks the watch at the budget, on a fake clock: a protect
// step still at work is answered by what it announced with OnOverrun,
// never under on_error; a step that returns in time is answered by its
// own outcome, also past the default budget when the config's is longer.
func TestOverrun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		budget  string
		takes   time.Duration // how long the step takes
		overrun *Outcome      // what it announces; nil for nothing
		want    string        // a part of stdout
		logged  string
		err     string // a part of the record's error
	}{
		{"pending", "1s", time.Hour, accepted, `"permissionDecision":"deny","permissionDecisionReason":"rewind: Zerto accepted checkpoint tag`,
			audit.DecisionPending, "capture did not return within the budget of 1s"},
		{"landed", "1s", time.Hour, landed, `"additionalContext":"rewind: checkpoint`, audit.DecisionProtected, "within the budget of 1s"},
		// A step (or an analysis) that announced nothing is answered by
		// what the tool could do whatever its input: a shell command is
		// asked, never let through on on_error.
		{"nothing announced", "1s", time.Hour, nil, `"permissionDecision":"ask","permissionDecisionReason":"rewind: no decision within the hook's budget of 1s, and the tool Bash could change a VM`,
			audit.DecisionAsk, "no decision within the hook's budget of 1s"},
		{"in time", "1s", 500 * time.Millisecond, accepted, `"additionalContext":"rewind: checkpoint`, audit.DecisionProtected, ""},
		{"past the default budget", "170s", 160 * time.Second, accepted, `"additionalContext":"rewind: checkpoint`, audit.DecisionProtected, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := config(t, dir, "[hook]\nbudget = \""+tt.budget+"\"\non_error = \"allow\"\n")
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				step := stepFunc(func(ctx context.Context, call *Call) Outcome {
					if tt.overrun != nil {
						call.OnOverrun(func(ctx context.Context) Outcome { return *tt.overrun })
					}
					select {
					case <-time.After(tt.takes):
					case <-release:
					}
					return *landed
				})
				start := time.Now()
				var out bytes.Buffer
				Run(context.Background(), event("ssh web-01 sudo reboot"), &out, Options{Host: hostio.Claude, ConfigPath: cfg, Getenv: env(dir), Protect: step})
				took := time.Since(start)
				close(release)
				if !strings.Contains(out.String(), tt.want) {
					t.Errorf("stdout %s, want %q in it", out.String(), tt.want)
				}
				if budget, _ := time.ParseDuration(tt.budget); took > budget {
					t.Errorf("answered after %v of the fake clock, past the budget of %s", took, tt.budget)
				}
				recs := logged(t, dir)
				if len(recs) != 1 || recs[0].Decision != tt.logged || !strings.Contains(recs[0].Error, tt.err) {
					t.Errorf("logged %+v, want one %s record with error %q", recs, tt.logged, tt.err)
				}
			})
		})
	}
}

// endlessStdin is a host that writes an event and never closes stdin.
type endlessStdin struct{ done chan struct{} }

func (e endlessStdin) Read(p []byte) (int, error) {
	<-e.done
	return 0, io.EOF
}

// TestStdinNeverEnds: a host that never closes stdin is answered at the
// budget, under on_error: of the config --config or $REWIND_CONFIG names
// although the event (and so the project) is never read, else the
// default's.
func TestStdinNeverEnds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config(t, dir, "[hook]\nbudget = \"1s\"\non_error = \"deny\"\n")
	for _, tt := range []struct {
		name, flag, env string
		want            string
		at              time.Duration
	}{
		{"default", "", "", `"systemMessage":"rewind: no decision within the hook's budget of 2m30s; the call was not checked`, 149 * time.Second},
		{"--config", cfg, "", `"permissionDecision":"deny","permissionDecisionReason":"rewind: no decision within the hook's budget of 1s`, time.Second - 125*time.Millisecond},
		{"REWIND_CONFIG", "", cfg, `"permissionDecision":"deny","permissionDecisionReason":"rewind: no decision within the hook's budget of 1s`, time.Second - 125*time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A state folder of its own: runs that share an audit log
			// wait for each other's lock, which moves the answer.
			state := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				stdin := endlessStdin{done: make(chan struct{})}
				defer close(stdin.done)
				start := time.Now()
				var out bytes.Buffer
				code := Run(context.Background(), stdin, &out, Options{
					Host:       hostio.Claude,
					ConfigPath: tt.flag,
					Getenv: func(k string) string {
						switch k {
						case "REWIND_STATE_DIR":
							return state
						case "REWIND_CONFIG":
							return tt.env
						}
						return ""
					},
				})
				if took := time.Since(start); code != 0 || took != tt.at {
					t.Errorf("exit %d after %v of the fake clock, want 0 after %v", code, took, tt.at)
				}
				if !strings.Contains(out.String(), tt.want) {
					t.Errorf("stdout %s, want %q in it", out.String(), tt.want)
				}
			})
		})
	}
}

// panicReader panics when the hook reads the event, standing for a bug
// anywhere in the flow.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("boom") }

func TestPanicFollowsOnError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ onError, permission string }{{"allow", ""}, {"ask", "ask"}, {"deny", "deny"}} {
		t.Run(tt.onError, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := config(t, dir, "[hook]\non_error = \""+tt.onError+"\"\n")
			var out bytes.Buffer
			if code := Run(context.Background(), panicReader{}, &out, Options{Host: hostio.Claude, ConfigPath: cfg, Getenv: env(dir)}); code != 0 {
				t.Fatalf("exit %d", code)
			}
			var a struct {
				HookSpecificOutput struct {
					PermissionDecision string `json:"permissionDecision"`
				} `json:"hookSpecificOutput"`
				SystemMessage string `json:"systemMessage"`
			}
			if err := json.Unmarshal(out.Bytes(), &a); err != nil {
				t.Fatalf("stdout is not one JSON object: %v: %q", err, out.String())
			}
			if a.HookSpecificOutput.PermissionDecision != tt.permission || !strings.Contains(a.SystemMessage, "internal error: boom") {
				t.Errorf("answer %s, want permission %q and a systemMessage naming the panic", out.String(), tt.permission)
			}
			if strings.Contains(out.String(), "goroutine") {
				t.Errorf("stack trace on stdout: %s", out.String())
			}
		})
	}
}

// TestBrokenProjectConfigOnlyAddsQuestions: a .rewind.toml that does not
// parse (which the agent can write) cannot loosen what the rest of the
// policy decides: a denied call stays denied, a call to protect still gets
// its checkpoint first (then is put to the person, since the broken file's
// rules might apply), and nothing is let through unchecked.
func TestBrokenProjectConfigOnlyAddsQuestions(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, ".rewind.toml"), []byte("[[command]]\nmatch = \"ssh\"\neffect = none of your business\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		command   string
		want      []string // parts of stdout
		protected bool
	}{
		{"govc vm.destroy -vm web-01", []string{`"permissionDecision":"deny"`, "a checkpoint cannot bring a destroyed VM back"}, false},
		{"ssh web-01 sudo reboot", []string{`"permissionDecision":"ask"`, `"additionalContext":"rewind: checkpoint`, "config error"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			t.Parallel()
			protected := false
			step := stepFunc(func(ctx context.Context, call *Call) Outcome {
				protected = true
				return *landed
			})
			var out bytes.Buffer
			Run(context.Background(), bytes.NewReader(bashEvent(tt.command, project)), &out, Options{Host: hostio.Claude, Getenv: env(t.TempDir()), Protect: step})
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout %s, want %q in it", out.String(), w)
				}
			}
			if protected != tt.protected {
				t.Errorf("the protect step ran: %v, want %v", protected, tt.protected)
			}
		})
	}
}

// TestDecideLogsNothing checks that Decide answers as Run does and leaves
// the logging to its caller.
func TestDecideLogsNothing(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"ssh web-01 uptime", "ssh web-01 sudo reboot", "govc vm.destroy web-01"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			opts := Options{Host: hostio.Claude, Getenv: env(dir), Protect: stepFunc(func(context.Context, *Call) Outcome { return *landed })}
			ev, err := hostio.Decode(event(command), hostio.Claude)
			if err != nil {
				t.Fatal(err)
			}
			res := Decide(context.Background(), ev, opts)
			if recs := logged(t, dir); len(recs) != 0 {
				t.Errorf("Decide logged %+v; its caller logs", recs)
			}
			var out bytes.Buffer
			Run(context.Background(), event(command), &out, opts)
			want, _ := hostio.Respond(hostio.Claude, ev, res.Decision)
			// The audit IDs differ: one per call.
			if res.Record != nil {
				want.Stdout = bytes.ReplaceAll(want.Stdout, []byte(res.Record.ID), []byte(logged(t, dir)[0].ID))
			}
			if out.String() != string(want.Stdout) {
				t.Errorf("Run answered %s, Decide %s", out.String(), want.Stdout)
			}
		})
	}
}

// postEvent is Claude Code's PostToolUseFailure event for a Bash call.
func postEvent(command, toolUseID string) *bytes.Reader {
	b, _ := json.Marshal(map[string]any{
		"session_id": "s", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": toolUseID,
		"cwd": os.TempDir(), "tool_input": map[string]string{"command": command}, "error": "Exit code 1\nfailed", "duration_ms": 42,
	})
	return bytes.NewReader(b)
}

// TestOutcomeRecorded checks the post-tool event's way: silent, no
// protect step, and an outcome joined to the call's record; none for a
// call the hook let pass without a record.
func TestOutcomeRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opts := Options{Host: hostio.Claude, Getenv: env(dir), Protect: stepFunc(func(context.Context, *Call) Outcome { return *landed })}
	Run(context.Background(), event("ssh web-01 sudo reboot"), &bytes.Buffer{}, opts)

	opts.Protect = stepFunc(func(context.Context, *Call) Outcome {
		t.Error("a post-tool event reached the protect step")
		return Outcome{}
	})
	for _, ev := range []*bytes.Reader{postEvent("ssh web-01 sudo reboot", "toolu_1"), postEvent("uptime", "toolu_2")} {
		var out, errOut bytes.Buffer
		opts.Stderr = &errOut
		if code := Run(context.Background(), ev, &out, opts); code != 0 || out.Len() > 0 || errOut.Len() > 0 {
			t.Errorf("post-tool event: code %d, stdout %q, stderr %q", code, out.String(), errOut.String())
		}
	}
	recs := logged(t, dir)
	if len(recs) != 1 {
		t.Fatalf("log holds %d records: %+v", len(recs), recs)
	}
	o := recs[0].Outcome
	if o == nil || o.State != audit.OutcomeFailed || o.ExitCode == nil || *o.ExitCode != 1 || *o.DurationMS != 42 || !o.Reported {
		t.Errorf("outcome %+v", o)
	}
	data, _ := os.ReadFile(audit.Open(dir).Path())
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Errorf("the log holds %d lines, want the call and its outcome: the read-only call's outcome is not logged\n%s", n, data)
	}
}

// TestExitCodeAnswer checks that Run answers a host that reads exit codes
// with the exit code and the reason on stderr.
func TestExitCodeAnswer(t *testing.T) {
	t.Parallel()
	in := `{"agent_action_name":"pre_run_command","trajectory_id":"t","execution_id":"e","tool_info":{"command_line":"govc vm.destroy web-01","cwd":"/"}}`
	var out, errOut bytes.Buffer
	code := Run(context.Background(), strings.NewReader(in), &out, Options{Host: hostio.Windsurf, Getenv: env(t.TempDir()), Stderr: &errOut})
	if code != hostio.Blocking || out.Len() > 0 || !strings.HasPrefix(errOut.String(), "rewind: ") {
		t.Errorf("code %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}

// TestUnreadEvents: an event the decoder refuses is judged by the tool
// name that can still be read, end to end: the ruling of each kind is the
// decision table's (TestDecisionTable), and here it reaches the host and
// the log.
func TestUnreadEvents(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	event := func(tool, input string) string {
		return `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_use_id":"t1","tool_input":` + input + `}`
	}
	tests := []struct {
		name, in, onError string
		want              string // the permission, "" for none
		logged            string
	}{
		{"an MCP power-off nested past the depth limit", event("mcp__vsphere__power_off_vm", `{"vm_name":"web-01","x":`+deep+`}`), "allow", "ask", audit.DecisionAsk},
		{"an MCP delete nested past the depth limit", event("mcp__vsphere__delete_vm", `{"vm_name":"web-01","x":`+deep+`}`), "allow", "deny", audit.DecisionDeny},
		{"an ssh server's command nested past the depth limit", event("mcp__ssh__exec", `{"command":"sudo reboot","x":`+deep+`}`), "allow", "ask", audit.DecisionAsk},
		{"a shell command nested past the depth limit", event("Bash", `{"command":"ssh web-01 sudo reboot","x":`+deep+`}`), "allow", "ask", audit.DecisionAsk},
		{"a truncated shell command", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reb`, "allow", "ask", audit.DecisionAsk},
		{"a tool name twice", `{"tool_name":"Read","tool_name":"Bash","tool_input":{"command":"sudo reboot","file_path":"x"}}`, "allow", "ask", audit.DecisionAsk},
		{"a field of the wrong type", `{"session_id":{},"tool_name":"Bash","tool_input":{"command":"ls"}}`, "allow", "ask", audit.DecisionAsk},
		{"tool_input of the wrong type", event("mcp__proxmox__proxmox_stop_vm", `"vmid=100"`), "allow", "ask", audit.DecisionAsk},
		{"a huge number where a string belongs", `{"cwd":1e999999,"tool_name":"mcp__libvirt__libvirt_undefine_domain","tool_input":{}}`, "allow", "deny", audit.DecisionDeny},
		{"on_error deny makes an ask a deny", event("Bash", `{"command":"ls","x":`+deep+`}`), "deny", "deny", audit.DecisionDeny},
		{"a read nested past the depth limit", event("Read", `{"file_path":"a","x":`+deep+`}`), "allow", "", audit.DecisionAllowOnError},
		{"an MCP read nested past the depth limit", event("mcp__vsphere__list_vms", `{"x":`+deep+`}`), "ask", "ask", audit.DecisionAskOnError},
		{"no tool name at all", `{"tool_input":{"command":"sudo reboot"`, "allow", "", audit.DecisionAllowOnError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			cfg := config(t, dir, "[hook]\non_error = \""+tt.onError+"\"\n")
			var out bytes.Buffer
			if code := Run(context.Background(), strings.NewReader(tt.in), &out, Options{Host: hostio.Claude, ConfigPath: cfg, Getenv: env(dir)}); code != 0 {
				t.Fatalf("exit %d", code)
			}
			got := out.String()
			switch {
			case tt.want == "" && strings.Contains(got, "permissionDecision\""):
				t.Errorf("stdout %s, want no decision", got)
			case tt.want != "" && !strings.Contains(got, `"permissionDecision":"`+tt.want+`"`):
				t.Errorf("stdout %s, want %s", got, tt.want)
			}
			if !strings.Contains(got, "malformed hook event") {
				t.Errorf("stdout %s, want the decoder's reason", got)
			}
			recs := logged(t, dir)
			if len(recs) != 1 || recs[0].Decision != tt.logged || !strings.Contains(recs[0].Error, "malformed hook event") {
				t.Errorf("logged %+v, want one %s record with the error", recs, tt.logged)
			}
		})
	}
}

// TestUnreadEventLarge: an event of 8 MiB nested all the way is read
// without a recursion, and decided.
func TestUnreadEventLarge(t *testing.T) {
	t.Parallel()
	head := `{"hook_event_name":"PreToolUse","tool_name":"mcp__vsphere__power_off_vm","tool_input":{"x":`
	n := (hostio.MaxEventSize - len(head) - 2) / 2
	in := head + strings.Repeat("[", n) + strings.Repeat("]", n) + "}}"
	var out bytes.Buffer
	Run(context.Background(), strings.NewReader(in), &out, Options{Host: hostio.Claude, Getenv: env(t.TempDir())})
	if !strings.Contains(out.String(), `"permissionDecision":"ask"`) {
		t.Errorf("stdout %.300s, want ask", out.String())
	}
}

func TestApprox(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d    time.Duration
		want string
	}{
		{630 * time.Second, "630s"},
		{150 * time.Second, "150s"},
		{1460 * time.Millisecond, "1.46s"},
		{200 * time.Millisecond, "200ms"},
		{-time.Second, "0s"},
	}
	for _, tt := range tests {
		if got := approx(tt.d); got != tt.want {
			t.Errorf("approx(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
