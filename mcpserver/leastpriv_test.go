package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/hook/testlab"
)

// newLeastPrivLab is the lab of testdata/leastpriv.toml: the hook's client
// may tag checkpoints and read, nothing more.
func newLeastPrivLab(t *testing.T) *lab {
	t.Helper()
	l := &lab{Lab: testlab.New(t, testlab.Options{Scenario: "testdata/leastpriv.toml", Budget: "3s"}), stderr: &testlab.Buffer{}}
	l.connect(t)
	return l
}

// TestRewindTestLeastPrivilege: where Zerto refuses rewind's own client a
// failover test or its stop, zerto_rewind and zerto_stop_test run neither:
// they answer with Zerto's message and the command the person runs in
// their own terminal, whatever the model sends and whether or not the
// client can elicit (a dialog must not carry the person's password).
func TestRewindTestLeastPrivilege(t *testing.T) {
	l := newLeastPrivLab(t)
	id := protectedCall(t, l, "web-01")
	const zerto = "User service-account-rewind is not authorized to perform this operation (test): the role assigned to it does not include the required permission."

	for _, args := range []map[string]any{{"id": id, "mode": "test"}, {"id": id, "mode": "test", "confirm": true}} {
		var out RewindOutput
		text, isErr := l.call(t, "zerto_rewind", args, &out)
		cmd := "rewind undo " + id + " --test"
		if !isErr || !out.Refused || out.Zerto != zerto || out.Command != cmd || len(out.Points) != 1 ||
			!strings.Contains(text, "Test refused: Zerto refuses rewind's own client this operation") ||
			!strings.Contains(text, zerto) || !strings.Contains(text, "they run:\n  "+cmd) {
			t.Errorf("%v: %q %+v", args, text, out)
		}
	}
	if n := l.Sim.CountAccepted("failoverTest"); n != 0 {
		t.Fatalf("%d failover tests started through MCP", n)
	}

	// A test the person started at their terminal: its stop is theirs too,
	// even for a client that would ask its person in a dialog.
	if _, err := l.Sim.StartTest("fast", "", "operator"); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the person was asked in a dialog")
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"stop": true}}, nil
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
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "zerto_stop_test", Arguments: map[string]any{"id": id}})
	if err != nil || !res.IsError {
		t.Fatalf("stop: %v %+v", err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "Stop refused: Zerto refuses rewind's own client") || !strings.Contains(text, "rewind undo "+id+" --stop-test") {
		t.Errorf("stop: %q", text)
	}
	if _, _, running := l.Sim.RunningTest("fast"); !running || l.Sim.CountAccepted("failoverTestStop") != 0 {
		t.Error("the test was stopped through MCP")
	}
}
