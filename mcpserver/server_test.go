package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvmsim"
)

// lab is the shared test lab and a client session with the server.
type lab struct {
	*testlab.Lab
	cs     *mcp.ClientSession
	stderr *testlab.Buffer
}

// newLab starts the test lab and connects a client to a server whose config
// is the hook section with a short budget, followed by extra TOML.
func newLab(t *testing.T, extra string) *lab {
	t.Helper()
	l := &lab{Lab: testlab.New(t, testlab.Options{Budget: "3s", Extra: extra}), stderr: &testlab.Buffer{}}
	l.connect(t)
	return l
}

// connect connects a client to a server of the lab.
func (l *lab) connect(t *testing.T) {
	t.Helper()
	srv := New(Options{Dir: l.Dir, Getenv: l.Getenv, Logger: slog.New(slog.NewTextHandler(l.stderr, nil)), Version: "test", Poll: l.pollForTest()})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	l.cs = cs
}

// pollForTest is how often the tests' servers poll Zerto's tasks.
func (l *lab) pollForTest() time.Duration { return 5 * time.Millisecond }

// call calls a tool, decodes its structured output into out (when not
// nil), and returns the result's text and whether it is an error.
func (l *lab) call(t *testing.T, name string, args any, out any) (text string, isError bool) {
	t.Helper()
	res, err := l.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if out != nil && res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: structured output %s: %v", name, raw, err)
		}
	}
	return b.String(), res.IsError
}

// hook runs the PreToolUse hook on a call, as the host would when the call
// is made.
func (l *lab) hook(t *testing.T, id, tool string, input any) (permission, text string) {
	t.Helper()
	out, _, _ := l.Hook(testlab.Event(id, l.Dir, tool, input))
	h := testlab.ParseAnswer(t, out).HookSpecificOutput
	return h.PermissionDecision, h.PermissionDecisionReason + h.AdditionalContext
}

func TestToolsAndResources(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	ctx := context.Background()
	res, err := l.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		schema, _ := json.Marshal(tool.InputSchema)
		if !strings.Contains(string(schema), `"type":"object"`) {
			t.Errorf("%s: input schema %s", tool.Name, schema)
		}
	}
	want := []string{"zerto_check_tool", "zerto_list_checkpoints", "zerto_list_vms", "zerto_list_vpgs",
		"zerto_rewind_points", "zerto_tag_checkpoint", "zerto_task"}
	want = append(want, recoveryTools...)
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %q, want %q", names, want)
	}

	rr, err := l.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rewind://catalog"})
	if err != nil {
		t.Fatal(err)
	}
	restore := regexp.MustCompile(`(?m)^none +tool +rewind +catalog:tool mcp__\*__zerto_rewind .*\n +if input_equals=\{mode="test"\}\nask +tool +rewind +catalog:tool mcp__\*__zerto_rewind +a journal restore`)
	if len(rr.Contents) != 1 || !restore.MatchString(rr.Contents[0].Text) {
		t.Errorf("catalog resource %+v lacks the rule that asks before a restore", rr.Contents)
	}
	if _, err := l.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rewind://nothing"}); err == nil {
		t.Error("an unknown resource was read")
	}
}

// TestCheckAgreesWithHook checks calls with the tool, then makes them
// through the hook: the answers agree, and the checkpoint the tool names
// is the one that protects the call.
func TestCheckAgreesWithHook(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     map[string]any
		answer   string // pass, ask or deny
		decision string
		want     []string // in the reason
		logged   bool     // a rewind point is logged
	}{
		{name: "read-only", args: map[string]any{"command": "ssh web-01 uptime"}, answer: "pass", decision: "none"},
		{name: "prose", args: map[string]any{"command": `git commit -m "govc vm.destroy web-01"`}, answer: "pass", decision: "none"},
		{
			name: "protected", args: map[string]any{"command": "govc vm.power -off -vm web-01"}, answer: "pass", decision: "protected",
			want: []string{`checkpoint "rewind-`, `on VPG "fast"`, "protects web-01"}, logged: true,
		},
		{
			name: "protected tool", args: map[string]any{"tool": "mcp__vsphere__power_off_vm", "input": map[string]any{"vm_name": "app-01"}},
			answer: "pass", decision: "protected", want: []string{`on VPG "other"`}, logged: true,
		},
		{
			name: "failed checkpoint", args: map[string]any{"command": "govc vm.power -off -vm legacy-01"}, answer: "deny", decision: "deny",
			want: []string{"the VRA on host esx-03.lab.local is not responding"},
		},
		{
			name: "paused VPG", args: map[string]any{"command": "govc vm.power -off -vm paused-01"}, answer: "deny", decision: "deny",
			want: []string{"ReplicationPausedUserInitiated"},
		},
		{
			name: "unknown VM", args: map[string]any{"command": "govc vm.power -off -vm nosuch"}, answer: "ask", decision: "ask",
			want: []string{"nosuch is not a VM Zerto protects"},
		},
		{name: "deny rule", args: map[string]any{"command": "govc vm.destroy web-01"}, answer: "deny", decision: "deny", want: []string{"cannot bring a destroyed VM back"}},
		{
			name: "restore through this server", args: map[string]any{"tool": "mcp__rewind__zerto_rewind", "input": map[string]any{"id": "abc", "mode": "restore", "confirm": true}},
			answer: "ask", decision: "ask", want: []string{"journal restore"},
		},
		{
			name: "test through this server", args: map[string]any{"tool": "mcp__rewind__zerto_rewind", "input": map[string]any{"id": "abc", "mode": "test"}},
			answer: "pass", decision: "none",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, "")
			var out CheckOutput
			text, isErr := l.call(t, "zerto_check_tool", tt.args, &out)
			if isErr {
				t.Fatalf("tool error: %s", text)
			}
			if out.Answer != tt.answer || out.Decision != tt.decision {
				t.Fatalf("answer %s, decision %s; want %s, %s (%s)", out.Answer, out.Decision, tt.answer, tt.decision, text)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.Reason, w) || !strings.Contains(text, w) {
					t.Errorf("reason %q (text %q) lacks %q", out.Reason, text, w)
				}
			}
			recs := l.Records(t)
			if tt.logged != (len(recs) == 1) || len(recs) > 1 {
				t.Fatalf("logged %+v, want a rewind point: %v", recs, tt.logged)
			}
			if tt.logged {
				if recs[0].ID != out.AuditID || recs[0].Host != "mcp" || len(out.Checkpoints) != 1 || out.Checkpoints[0].Identifier == "" {
					t.Errorf("record %+v, output %+v", recs[0], out)
				}
			}

			// The call is made: the hook answers the same, and a protected
			// call is protected by the checkpoint the tool named.
			tool, input := "Bash", any(map[string]any{"command": tt.args["command"]})
			if tt.args["tool"] != nil {
				tool, input = tt.args["tool"].(string), tt.args["input"]
			}
			perm, hookText := l.hook(t, "call-"+strings.ReplaceAll(tt.name, " ", "-"), tool, input)
			if perm == "" {
				perm = "pass"
			}
			if perm != tt.answer {
				t.Errorf("the hook answered %s, the tool %s", perm, tt.answer)
			}
			if tt.logged && !strings.Contains(hookText, out.Checkpoints[0].Identifier) {
				t.Errorf("the hook's checkpoint %q is not the one the tool took, %s", hookText, out.Checkpoints[0].Identifier)
			}
		})
	}
}

func TestCheckInput(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	for _, args := range []map[string]any{
		{},
		{"command": "ls", "tool": "Write"},
		{"command": "ls", "input": map[string]any{"command": "ls"}},
		{"input": map[string]any{"command": "ls"}},
	} {
		text, isErr := l.call(t, "zerto_check_tool", args, nil)
		if !isErr || !strings.Contains(text, `"command"`) {
			t.Errorf("%v: %q, want a tool error naming the inputs", args, text)
		}
	}
	var out CheckOutput
	if text, isErr := l.call(t, "zerto_check_tool", map[string]any{"tool": "Bash", "input": map[string]any{"command": "govc vm.destroy web-01"}}, &out); isErr || out.Answer != "deny" {
		t.Errorf("Bash tool with input: %+v %s", out, text)
	}
}

func TestListVPGsAndVMs(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	var vpgs ListVPGsOutput
	if text, isErr := l.call(t, "zerto_list_vpgs", map[string]any{}, &vpgs); isErr {
		t.Fatal(text)
	}
	byName := map[string]VPG{}
	for _, v := range vpgs.VPGs {
		byName[v.Name] = v
	}
	if v := byName["fast"]; !v.CanCheckpoint || v.VMCount != 2 || v.CadenceSeconds < 0.15 || v.CadenceSeconds > 0.3 {
		t.Errorf("fast: %+v, want a healthy VPG of 2 VMs with a cadence of ~0.2s", v)
	}
	if v := byName["paused"]; v.CanCheckpoint || !strings.Contains(v.WhyNot, "ReplicationPausedUserInitiated") {
		t.Errorf("paused: %+v", v)
	}
	if len(vpgs.VPGs) != 5 {
		t.Errorf("%d VPGs, want 5", len(vpgs.VPGs))
	}

	tests := []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"vpg": "fast"}, []string{"db-01", "web-01"}},
		{map[string]any{"vpg": "FAST"}, []string{"db-01", "web-01"}},
		{map[string]any{"name": "app-01"}, []string{"app-01"}},
		{map[string]any{"name": "nosuch"}, nil},
		{map[string]any{}, []string{"app-01", "db-01", "legacy-01", "paused-01", "web-01", "win2019-1"}},
	}
	for _, tt := range tests {
		var vms ListVMsOutput
		if text, isErr := l.call(t, "zerto_list_vms", tt.args, &vms); isErr {
			t.Fatalf("%v: %s", tt.args, text)
		}
		var names []string
		for _, vm := range vms.VMs {
			names = append(names, vm.Name)
			if vm.Name == "web-01" && (!vm.Protected || vm.VPG != "fast" || vm.CadenceSeconds <= 0) {
				t.Errorf("web-01: %+v", vm)
			}
			if vm.Name == "paused-01" && (vm.Protected || vm.WhyNot == "") {
				t.Errorf("paused-01: %+v", vm)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, tt.want) {
			t.Errorf("%v: VMs %q, want %q", tt.args, names, tt.want)
		}
	}
	if text, isErr := l.call(t, "zerto_list_vms", map[string]any{"vpg": "nosuch"}, nil); !isErr || !strings.Contains(text, `no VPG "nosuch"`) {
		t.Errorf("unknown VPG: %q", text)
	}
}

func TestTagAndListCheckpoints(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	var tag TagOutput
	if text, isErr := l.call(t, "zerto_tag_checkpoint", map[string]any{"vms": []string{"web-01"}}, &tag); isErr {
		t.Fatal(text)
	}
	if tag.Outcome != "protected" || len(tag.Checkpoints) != 1 || tag.Checkpoints[0].Identifier == "" || tag.AuditID == "" {
		t.Fatalf("tag %+v", tag)
	}
	cp := tag.Checkpoints[0]
	if recs := l.Records(t); len(recs) != 1 || recs[0].ID != tag.AuditID || recs[0].Decision != audit.DecisionCheckpoint {
		t.Errorf("log %+v", recs)
	}

	for _, args := range []map[string]any{
		{"vm": "web-01", "rewind_only": true},
		{"vpg": "fast", "within": "1m"},
		{"vpg": "fast", "rewind_only": true, "start": "2000-01-01T00:00:00Z"},
	} {
		var list ListCheckpointsOutput
		if text, isErr := l.call(t, "zerto_list_checkpoints", args, &list); isErr {
			t.Fatalf("%v: %s", args, text)
		}
		found := false
		for i, c := range list.Checkpoints {
			if c.Identifier == cp.Identifier {
				found = c.Tag == cp.Tag && c.Rewind && c.VPG == "fast"
			}
			if args["rewind_only"] == true && !c.Rewind {
				t.Errorf("%v: untagged %+v", args, c)
			}
			if i > 0 && c.Time > list.Checkpoints[i-1].Time {
				t.Errorf("%v: not newest first at %d", args, i)
			}
		}
		if !found {
			t.Errorf("%v: the tag %+v is not listed in %+v", args, cp, list.Checkpoints)
		}
	}
	var few ListCheckpointsOutput
	l.call(t, "zerto_list_checkpoints", map[string]any{"vpg": "fast", "limit": 3}, &few)
	if len(few.Checkpoints) != 3 || !few.Truncated {
		t.Errorf("limit 3: %d checkpoints, truncated %v", len(few.Checkpoints), few.Truncated)
	}
	for _, bad := range []map[string]any{
		{},
		{"vm": "web-01", "vpg": "fast"},
		{"vpg": "fast", "within": "soon"},
		{"vpg": "fast", "start": "yesterday"},
		{"vm": "nosuch"},
	} {
		if text, isErr := l.call(t, "zerto_list_checkpoints", bad, nil); !isErr {
			t.Errorf("%v: no tool error (%s)", bad, text)
		}
	}

	// The checkpoint is a rewind point.
	var points PointsOutput
	l.call(t, "zerto_rewind_points", map[string]any{"vm": "web-01"}, &points)
	if len(points.Points) != 1 || points.Points[0].AuditID != tag.AuditID || points.Points[0].Checkpoints[0].Identifier != cp.Identifier {
		t.Errorf("rewind points %+v", points)
	}
}

func TestTagOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    string
	}{
		{"by VPG", map[string]any{"vpg": "other"}, false, `on VPG "other"`},
		{"pending", map[string]any{"vms": []string{"win2019-1"}}, false, "is pending"},
		{"failed", map[string]any{"vms": []string{"legacy-01"}}, true, "the VRA on host esx-03.lab.local is not responding"},
		{"paused", map[string]any{"vms": []string{"paused-01"}}, true, "ReplicationPausedUserInitiated"},
		{"unknown", map[string]any{"vms": []string{"nosuch"}}, true, "nosuch: not a VM Zerto protects"},
		{"nothing", map[string]any{}, true, `give either "vms" or "vpg"`},
		{"unknown VPG", map[string]any{"vpg": "nosuch"}, true, `no VPG "nosuch"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, "")
			var out TagOutput
			text, isErr := l.call(t, "zerto_tag_checkpoint", tt.args, &out)
			if isErr != tt.isError || !strings.Contains(text, tt.want) {
				t.Errorf("%q (error %v), want %q (error %v)", text, isErr, tt.want, tt.isError)
			}
			if tt.name == "pending" && (out.Outcome != "pending" || out.Expected == "" || len(l.Records(t)) != 1) {
				t.Errorf("pending: %+v, log %+v", out, l.Records(t))
			}
		})
	}
}

func TestTask(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	text, isErr := l.call(t, "zerto_task", map[string]any{"task": "nosuch-task"}, nil)
	if !isErr || !strings.Contains(text, "Task with identifier 'nosuch-task' was not found.") {
		t.Errorf("unknown task: %q, want Zerto's message", text)
	}
	// A task of Zerto's, started outside the server.
	z, err := New(Options{Getenv: l.Getenv}).zerto(mustConfig(t, l))
	if err != nil {
		t.Fatal(err)
	}
	vpgs, err := z.VPGs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	id, err := z.InsertTaggedCheckpoint(context.Background(), vpgs[0].Identifier, "by-hand")
	if err != nil {
		t.Fatal(err)
	}
	var out TaskOutput
	if text, isErr := l.call(t, "zerto_task", map[string]any{"task": id}, &out); isErr {
		t.Fatal(text)
	}
	if out.Identifier != id || out.Type != "InsertTaggedCP" || out.State == "" {
		t.Errorf("task %+v", out)
	}
}

func mustConfig(t *testing.T, l *lab) *policy.Config {
	t.Helper()
	cfg, err := New(Options{Dir: l.Dir, Getenv: l.Getenv}).config()
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestZertoFailures(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	l.Sim.SetFaults(zvmsim.Faults{ServerErrorRate: 1})
	text, isErr := l.call(t, "zerto_list_vpgs", map[string]any{}, nil)
	if !isErr || !strings.Contains(text, "An error has occurred.") {
		t.Errorf("a ZVM answering 500: %q, want a tool error with Zerto's message", text)
	}

	l.Vars["REWIND_ZVM_URL"] = ""
	for _, tool := range []string{"zerto_list_vpgs", "zerto_list_vms"} {
		if text, isErr := l.call(t, tool, map[string]any{}, nil); !isErr || !strings.Contains(text, "no Zerto configured") {
			t.Errorf("%s without Zerto: %q", tool, text)
		}
	}
	// Without Zerto a protected call has nothing to rewind to: asked, as
	// the hook asks.
	var out CheckOutput
	l.call(t, "zerto_check_tool", map[string]any{"command": "govc vm.power -off -vm web-01"}, &out)
	if out.Answer != "ask" || !strings.Contains(out.Reason, "no Zerto configured") {
		t.Errorf("check without Zerto: %+v", out)
	}

	l.Vars["REWIND_CONFIG"] = filepath.Join(l.Dir, "missing.toml")
	if text, isErr := l.call(t, "zerto_list_vpgs", map[string]any{}, nil); !isErr || !strings.Contains(text, "config") {
		t.Errorf("missing config: %q", text)
	}
}

func TestRewindPointsFromTheHook(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	for i, vm := range []string{"web-01", "app-01", "nosuch"} {
		l.hook(t, fmt.Sprintf("call-%d", i), "Bash", map[string]any{"command": "govc vm.power -off -vm " + vm})
	}
	var all PointsOutput
	l.call(t, "zerto_rewind_points", map[string]any{}, &all)
	if len(all.Points) != 2 || all.Points[0].Checkpoints[0].VPG != "other" || all.Points[1].Checkpoints[0].VPG != "fast" {
		t.Fatalf("points %+v, want app-01's then web-01's", all)
	}
	recs := l.Records(t)
	i := slices.IndexFunc(recs, func(r audit.Record) bool { return r.ToolUseID == "call-1" })
	if p := all.Points[0]; i < 0 || p.AuditID != recs[i].ID || p.Tool != "Bash" || !strings.Contains(p.Excerpt, "app-01") || p.Session != "s1" {
		t.Errorf("point %+v, want the record of call-1", p)
	}
	for _, tt := range []struct {
		args map[string]any
		n    int
	}{
		{map[string]any{"vm": "web-01"}, 1},
		{map[string]any{"vpg": "other"}, 1},
		{map[string]any{"session": "nosuch"}, 0},
		{map[string]any{"limit": 1}, 1},
	} {
		var out PointsOutput
		l.call(t, "zerto_rewind_points", tt.args, &out)
		if len(out.Points) != tt.n {
			t.Errorf("%v: %d points, want %d", tt.args, len(out.Points), tt.n)
		}
	}
}
