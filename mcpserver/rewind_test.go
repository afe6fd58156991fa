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
	if !strings.Contains(text, "zerto_stop_test") || l.Sim.Count("failoverTest") != 1 {
		t.Errorf("test: %q, %d failover tests", text, l.Sim.Count("failoverTest"))
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
	// The restore during the test was refused by the checks made before
	// anything is sent, like an unconfirmed one, and is not logged.
	want := []string{audit.DecisionUndoTest, audit.DecisionUndoFailed, audit.DecisionUndoStopTest, audit.DecisionUndoFailed}
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

// TestRestoreNeedsConfirm checks that a restore without confirm sends
// nothing to Zerto and says what it would lose, and that with it the VM is
// restored and committed.
func TestRestoreNeedsConfirm(t *testing.T) {
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")
	protectedCall(t, l, "db-01") // not restored: another VM of the VPG
	later := protectedCall(t, l, "web-01")

	for _, args := range []map[string]any{
		{"id": id, "mode": "restore"},
		{"id": id, "mode": "restore", "confirm": false},
	} {
		before := len(l.Sim.Requests())
		var out RewindOutput
		text, isErr := l.call(t, "zerto_rewind", args, &out)
		if n := len(l.Sim.Requests()) - before; n != 0 {
			t.Errorf("%v: %d requests reached Zerto: %+v", args, n, l.Sim.Requests()[before:])
		}
		if !isErr || !out.Refused || !strings.Contains(text, "Zerto was not asked to restore anything") {
			t.Errorf("%v: %q %+v, want a refusal", args, text, out)
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
	if n := l.Sim.Count("restore"); n != 0 {
		t.Fatalf("%d restores before the confirmed one", n)
	}

	var out RewindOutput
	text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": id, "mode": "restore", "confirm": true}, &out)
	if isErr || len(out.Results) != 1 || out.Results[0].State != "Completed" || !strings.Contains(text, "restored to checkpoint") {
		t.Fatalf("restore: %q %+v", text, out)
	}
	if l.Sim.Count("restore") != 1 || l.Sim.Count("restoreCommit") != 1 {
		t.Errorf("%d restores, %d commits; want one each", l.Sim.Count("restore"), l.Sim.Count("restoreCommit"))
	}
}

// TestRewindMode checks that only the exact modes run, so that what the
// catalog let through by the input's "mode" is what runs.
func TestRewindMode(t *testing.T) {
	l := newLab(t, "")
	id := protectedCall(t, l, "web-01")
	for _, args := range []map[string]any{
		{"id": id, "mode": "Test"},
		{"id": id, "mode": "restore "},
		{"id": id},
		{"id": id, "mode": "test", "MODE": "restore", "confirm": true},
		{"id": id, "Mode": "restore", "confirm": true},
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
	} {
		if text, isErr := l.call(t, "zerto_rewind", map[string]any{"id": tt.id, "mode": "test"}, nil); !isErr || !strings.Contains(text, tt.want) {
			t.Errorf("id %q: %q, want %q", tt.id, text, tt.want)
		}
	}
}

// TestRewindProgress checks that Zerto's task progress reaches a client
// that asked for it.
func TestRewindProgress(t *testing.T) {
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
