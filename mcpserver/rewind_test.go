package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
)

// protectedCall makes a protected call through the hook and returns its
// audit id: a rewind point.
func protectedCall(t *testing.T, l *lab, vm string) string {
	t.Helper()
	useID := fmt.Sprintf("call-%s-%d", vm, len(l.Records(t)))
	l.hook(t, useID, "Bash", map[string]any{"command": "govc vm.power -off -vm " + vm})
	recs := l.Records(t)
	i := slices.IndexFunc(recs, func(r audit.Record) bool { return r.ToolUseID == useID })
	if i < 0 || recs[i].Decision != audit.DecisionProtected {
		t.Fatalf("log %+v: no protected call on %s", recs, vm)
	}
	return recs[i].ID
}

// TestRewindTestAndStop starts a failover test from a rewind point and
// stops it, as rewind undo does, and refuses what Zerto's state does not
// allow with Zerto's or recovery's reason.
func TestRewindTestAndStop(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")

	var out RewindOutput
	text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": id, "mode": "test"}, &out)
	if isErr {
		t.Fatal(text)
	}
	if len(out.Results) != 1 || out.Results[0].State != "Completed" || !slices.Equal(out.Results[0].TestVMs, []string{"web-01 - testing recovery"}) ||
		out.Results[0].RecoverySite != "DR" || out.Results[0].Task == "" {
		t.Errorf("test: %+v", out)
	}
	if !strings.Contains(text, "zerto_stop_test") || l.Sim.CountAccepted("failoverTest") != 1 {
		t.Errorf("test: %q, %d failover tests", text, l.Sim.CountAccepted("failoverTest"))
	}
	// The task is Zerto's, and zerto_task shows it.
	var task TaskOutput
	if text, isErr := l.call(t, "zerto_task", map[string]any{"task": out.Results[0].Task}, &task); isErr || !task.Done || task.Type == "" {
		t.Errorf("task %+v %s", task, text)
	}

	text, isErr = l.call(t, "zerto_rewind", map[string]any{"id": id, "mode": "test"}, nil)
	if !isErr || !strings.Contains(text, "already in a failover test") {
		t.Errorf("a second test: %q", text)
	}
	if text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": id, "mode": "restore", "confirm": true}, nil); !isErr || !strings.Contains(text, "stop the test before restoring") {
		t.Errorf("a restore during the test: %q", text)
	}

	var stop RewindOutput
	if text, isErr := l.call(t, "zerto_stop_test", map[string]any{"id": id}, &stop); isErr || len(stop.Results) != 1 || stop.Results[0].State != "Completed" {
		t.Fatalf("stop: %+v %s", stop, text)
	}
	if text, isErr := l.call(t, "zerto_stop_test", map[string]any{"id": id}, nil); !isErr || !strings.Contains(text, "no failover test is running") {
		t.Errorf("a second stop: %q", text)
	}

	var decisions []string
	for _, r := range l.Records(t) {
		if r.Tool == "zerto_rewind" || r.Tool == "zerto_stop_test" {
			decisions = append(decisions, r.Decision)
			if r.Rewinds != id {
				t.Errorf("record %+v does not name the call %s", r, id)
			}
		}
	}
	// What the checks refused before anything was sent (a second test, a
	// restore during the test, a second stop) is not logged.
	want := []string{audit.DecisionUndoTest, audit.DecisionUndoStopTest}
	if !slices.Equal(decisions, want) {
		t.Errorf("logged %q, want %q", decisions, want)
	}
	// Rewinds are not rewind points.
	var points PointsOutput
	l.call(t, "zerto_rewind_points", map[string]any{}, &points)
	if len(points.Points) != 1 || points.Points[0].AuditID != id {
		t.Errorf("rewind points %+v", points)
	}
}

// TestRestoreOnlyInATerminal: a restore or a rollback never runs over MCP,
// whatever the model sends (confirm: true included): the answer says what
// the restore loses and the command the person runs in their own
// terminal, and nothing reaches Zerto but reads.
func TestRestoreOnlyInATerminal(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")
	protectedCall(t, l, "db-01") // not restored: another VM of the VPG
	later := protectedCall(t, l, "web-01")

	for _, args := range []map[string]any{
		{"id": id, "mode": "restore"},
		{"id": id, "mode": "restore", "confirm": true},
		{"id": id, "mode": "rollback", "confirm": true},
	} {
		before := len(l.Sim.Requests())
		var out RewindOutput
		text, isErr := l.call(t, "zerto_rewind", args, &out)
		for _, r := range l.Sim.Requests()[before:] {
			if r.Method != "GET" && r.Kind != "token" {
				t.Errorf("%v: %s %s reached Zerto", args, r.Method, r.Path)
			}
		}
		cmd := "rewind undo " + id + " --" + args["mode"].(string)
		if !isErr || !out.Refused || out.Command != cmd || !strings.Contains(text, "Zerto was not asked to change anything") ||
			!strings.Contains(text, "they run:\n  "+cmd) {
			t.Errorf("%v: %q %+v, want a refusal with the command", args, text, out)
		}
		if args["mode"] == "rollback" {
			continue
		}
		if len(out.Loss) != 1 || !strings.Contains(out.Loss[0].Text, "web-01") || !strings.Contains(text, out.Loss[0].Text) {
			t.Errorf("%v: loss %+v", args, out.Loss)
		}
		var lost []string
		for _, c := range out.Loss[0].Calls {
			lost = append(lost, c.AuditID)
		}
		if len(lost) != 2 || !slices.Contains(lost, id) || !slices.Contains(lost, later) {
			t.Errorf("%v: lost calls %q, want %s and %s", args, lost, id, later)
		}
	}
	if n := l.Sim.Count("restore") + l.Sim.Count("restoreRollback") + l.Sim.Count("insert"); n != 3 {
		t.Errorf("%d restores, rollbacks and inserts, want only the hook's three inserts", n)
	}
}

// TestStopSomeoneElsesTest: a failover test rewind did not start is
// stopped only when the person confirms it in the host's dialog (MCP
// elicitation); a client that cannot ask is refused, and so is a call
// that brings an answer nobody was asked for.
func TestStopSomeoneElsesTest(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")
	if _, err := l.Sim.StartTest("fast", "", "drill-lead"); err != nil {
		t.Fatal(err)
	}
	running := func() bool { _, _, r := l.Sim.RunningTest("fast"); return r }

	// The lab's client cannot elicit.
	var out RewindOutput
	text, isErr := l.call(t, "zerto_stop_test", map[string]any{"id": id}, &out)
	if !isErr || !out.Refused || !strings.Contains(text, "drill-lead started it") || !strings.Contains(text, "rewind undo "+id+" --stop-test") || !running() {
		t.Fatalf("stop without elicitation: %q %+v", text, out)
	}
	// An answer brought along, with a request state the server never issued.
	res, err := l.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "zerto_stop_test", Arguments: map[string]any{"id": id},
		RequestState: "made-up", InputResponses: mcp.InputResponseMap{"confirm_stop": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"stop": true}}}})
	if err != nil || !res.IsError || !running() {
		t.Fatalf("a forged answer: %v %+v", err, res)
	}

	// A client that asks its person: declined, then accepted.
	answers := []*mcp.ElicitResult{{Action: "decline"}, {Action: "accept", Content: map[string]any{"stop": true}}}
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			a := answers[0]
			answers = answers[1:]
			return a, nil
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	srv := New(Options{Dir: l.Dir, Getenv: l.Getenv, Poll: l.pollForTest()})
	ss, err := srv.MCP().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "zerto_stop_test", Arguments: map[string]any{"id": id}})
	if err != nil || !res.IsError || !running() || len(asked) != 1 || !strings.Contains(asked[0], "was not started by rewind: drill-lead started it") {
		t.Fatalf("declined: %v %+v, asked %q", err, res, asked)
	}
	res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "zerto_stop_test", Arguments: map[string]any{"id": id}})
	if err != nil || res.IsError || running() {
		t.Fatalf("accepted: %v %+v", err, res)
	}
	if st, _ := l.Sim.LastTestStop("fast"); st.FailoverTestSuccess != nil {
		t.Errorf("the stop filed a verdict: %+v", st)
	}
}

// TestRewindChoosesVPG: a VM protected in two VPGs is tested from the one
// the person chose; without a choice the answer names both.
func TestRewindChoosesVPG(t *testing.T) {
	t.Parallel()
	l := &lab{Lab: testlab.New(t, testlab.Options{Budget: "3s", Scenario: "testdata/shared.toml"}), stderr: &testlab.Buffer{}}
	l.connect(t)
	id := protectedCall2(t, l, "web-01")
	text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": id, "mode": "test"}, nil)
	if !isErr || !strings.Contains(text, "web-01 has a rewind point in VPGs fast and other") || !strings.Contains(text, "call again with vpg") {
		t.Errorf("no choice: %q", text)
	}
	var out RewindOutput
	if text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": id, "mode": "test", "vpg": "other"}, &out); isErr || len(out.Results) != 1 || out.Results[0].VPG != "other" {
		t.Fatalf("test in other: %q %+v", text, out)
	}
	if _, _, running := l.Sim.RunningTest("fast"); running || l.Sim.CountAccepted("failoverTest") != 1 {
		t.Errorf("%d tests started; fast running %v", l.Sim.CountAccepted("failoverTest"), running)
	}
}

// protectedCall2 is protectedCall for a VM in several VPGs.
func protectedCall2(t *testing.T, l *lab, vm string) string {
	t.Helper()
	l.hook(t, "call-shared", "Bash", map[string]any{"command": "govc vm.power -off -vm " + vm})
	recs := l.Records(t)
	r := recs[len(recs)-1]
	if r.Decision != audit.DecisionProtected || len(r.Checkpoints) != 2 {
		t.Fatalf("record %+v, want protected in two VPGs", r)
	}
	return r.ID
}

// TestRewindMode checks that only the exact modes run, so that what the
// catalog let through by the input's "mode" is what runs.
func TestRewindMode(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")
	for _, args := range []map[string]any{
		{"id": id, "mode": "Test"},
		{"id": id, "mode": "restore "},
		{"id": id},
		{"id": id, "mode": "test", "MODE": "restore", "confirm": true},
		{"id": id, "Mode": "restore", "confirm": true},
		{"id": id, "mode": "stop-test"},
		{"id": id, "mode": "commit"},
	} {
		text, isErr := l.call(t, "zerto_rewind", args, nil)
		if !isErr {
			t.Errorf("%v: ran: %s", args, text)
		}
	}
	if n := l.Sim.Count("restore") + l.Sim.Count("failoverTest"); n != 0 {
		t.Errorf("%d rewinds reached Zerto", n)
	}
	for _, tt := range []struct{ id, want string }{
		{"zzzzzzzzzzzz", "neither an audit id"},
		{"", "no audit id"},
		{id[:3], "too short"},
	} {
		if text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": tt.id, "mode": "test"}, nil); !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("id %q: %q, want %q", tt.id, text, tt.want)
		}
	}
}

// TestRewindProgress checks that Zerto's task progress reaches a client
// that asked for it.
func TestRewindProgress(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")
	var (
		mu   sync.Mutex
		msgs []string
	)
	done := make(chan struct{})
	client := mcp.NewClient(&mcp.Implementation{Name: "progress", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			msgs = append(msgs, req.Params.Message)
			if strings.Contains(req.Params.Message, "Completed") && len(msgs) > 0 {
				select {
				case <-done:
				default:
					close(done)
				}
			}
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	srv := New(Options{Dir: l.Dir, Getenv: l.Getenv, Poll: l.pollForTest()})
	ss, err := srv.MCP().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()
	params := &mcp.CallToolParams{Name: "zerto_rewind", Arguments: map[string]any{"id": id, "mode": "test"}}
	params.SetProgressToken("t1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	// Notifications are handled apart from the result: the last may come
	// after it.
	select {
	case <-done:
	case <-time.After(time.Minute):
	}
	mu.Lock()
	defer mu.Unlock()
	if len(msgs) < 2 || !strings.Contains(msgs[0], "InProgress") || !strings.Contains(msgs[len(msgs)-1], "Completed 100%") {
		t.Errorf("progress %q", msgs)
	}
}
