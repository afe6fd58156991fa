package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

// RewindInput names a rewind point and what to do with it.
type RewindInput struct {
	ID      string `json:"id" jsonschema:"the rewind point: an audit_id from zerto_rewind_points (a unique prefix will do), or a bare CheckpointIdentifier"`
	Mode    string `json:"mode" jsonschema:"test: a failover test from the checkpoint; test copies of the VMs come up on the recovery site beside the live VMs, which are untouched (nothing is lost; end it with zerto_stop_test). restore: the VMs are restored to the checkpoint and the restore committed; everything they wrote since is lost"`
	Confirm bool   `json:"confirm,omitempty" jsonschema:"for restore: true once the person has agreed to lose what the VMs wrote since the checkpoint. Without it a restore is refused with what it would lose, and Zerto is not asked to restore anything"`
}

// StopTestInput names the rewind point whose failover test to stop.
type StopTestInput struct {
	ID string `json:"id" jsonschema:"the rewind point the test was started from (audit_id or CheckpointIdentifier); the failover test running on its VPG is stopped"`
}

// RewindOutput is the outcome of zerto_rewind and zerto_stop_test.
type RewindOutput struct {
	Mode    string         `json:"mode" jsonschema:"test, stop-test or restore"`
	Refused bool           `json:"refused,omitempty" jsonschema:"a restore without confirm: Zerto was not asked to restore anything"`
	Loss    []Loss         `json:"loss,omitempty" jsonschema:"for restore: what it loses, per VPG"`
	Results []RewindResult `json:"results,omitempty" jsonschema:"one per VPG of the rewind point, in order"`
	Failed  *RewindFailure `json:"failed,omitempty" jsonschema:"the VPG whose rewind failed, after the results of those done"`
	Points  []RewoundPoint `json:"points,omitempty" jsonschema:"the rewind point's checkpoints, one per VPG"`
}

// RewoundPoint is one VPG's checkpoint of a rewind point.
type RewoundPoint struct {
	AuditID    string   `json:"audit_id,omitempty"`
	VPG        string   `json:"vpg"`
	VMs        []string `json:"vms"`
	Checkpoint string   `json:"checkpoint" jsonschema:"the CheckpointIdentifier"`
	Tag        string   `json:"tag,omitempty"`
	Time       string   `json:"time,omitempty" jsonschema:"the checkpoint's time, ZVM clock"`
}

// Loss is what a restore to one VPG's checkpoint loses.
type Loss struct {
	VPG   string     `json:"vpg"`
	VMs   []string   `json:"vms"`
	Since string     `json:"since" jsonschema:"the checkpoint's time: every change to the VMs after it is lost"`
	Calls []LostCall `json:"calls" jsonschema:"the logged calls that changed the VMs after it, oldest first"`
	Text  string     `json:"text" jsonschema:"all of it, for the person"`
}

// LostCall is a logged call whose changes a restore undoes.
type LostCall struct {
	AuditID string `json:"audit_id"`
	Time    string `json:"time"`
	Tool    string `json:"tool"`
	Excerpt string `json:"excerpt,omitempty"`
}

// RewindResult is the outcome for one VPG.
type RewindResult struct {
	VPG          string   `json:"vpg"`
	VMs          []string `json:"vms"`
	Checkpoint   string   `json:"checkpoint"`
	Tag          string   `json:"tag,omitempty"`
	Task         string   `json:"task" jsonschema:"Zerto's task; zerto_task shows it"`
	State        string   `json:"state" jsonschema:"the task's state, such as Completed"`
	TestVMs      []string `json:"test_vms,omitempty" jsonschema:"for a test: the test copies"`
	RecoverySite string   `json:"recovery_site,omitempty" jsonschema:"for a test: the site the test copies run on"`
}

// RewindFailure is a VPG whose rewind failed.
type RewindFailure struct {
	VPG   string `json:"vpg"`
	Error string `json:"error" jsonschema:"why, with Zerto's own message when Zerto refused or failed"`
	Task  string `json:"task,omitempty"`
}

// recoveryTools are the tools of this file.
var recoveryTools = []string{"zerto_rewind", "zerto_stop_test"}

func (s *Server) addRecovery() {
	in, err := jsonschema.For[RewindInput](nil)
	if err != nil {
		panic("mcpserver: " + err.Error())
	}
	in.Properties["mode"].Enum = []any{recovery.ModeTest, recovery.ModeRestore}
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "zerto_rewind",
		Title: "Go back to a rewind point",
		Description: `Goes back to a rewind point (from zerto_rewind_points) through Zerto, as rewind undo does, for the VMs the call touched.
mode "test" starts a failover test from the checkpoint: test copies come up on the recovery site beside the live VMs, which are untouched. Check them, then end the test with zerto_stop_test.
mode "restore" restores the VMs to the checkpoint and commits: everything they wrote since is lost. Call it first without confirm: it is refused, Zerto is not asked to restore anything, and the answer says what would be lost. Tell the person; only once they agree, call it again with confirm: true. rewind's hook also asks the person before a restore runs.`,
		InputSchema: in,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.rewind)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "zerto_stop_test",
		Title:       "Stop a failover test",
		Description: "Stops the failover test running on the VPGs of a rewind point, as rewind undo --stop-test does: the test copies go away; the live VMs were never touched.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}, s.stopTest)
}

// findPoints returns the recovery layer over the config's ZVM and the audit
// log, for tool, and the rewind points of the call id names.
func (s *Server) findPoints(ctx context.Context, tool, id string) (*recovery.Service, []recovery.Point, error) {
	cfg, err := s.config()
	if err != nil {
		return nil, nil, err
	}
	z, err := s.zerto(cfg)
	if err != nil {
		return nil, nil, err
	}
	dir, err := s.stateDir()
	if err != nil {
		return nil, nil, err
	}
	// A rewind is followed to its end, as rewind undo follows it, however
	// long Zerto takes, so ctx gets no deadline here: the client's
	// cancellation ends the wait, not Zerto's task.
	svc := &recovery.Service{Z: z, Log: audit.Open(dir), Poll: s.o.Poll, Tool: tool, Warnf: s.warnf}
	points, err := svc.Find(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return svc, points, nil
}

func (s *Server) rewind(ctx context.Context, req *mcp.CallToolRequest, in RewindInput) (*mcp.CallToolResult, RewindOutput, error) {
	// The hook judged the call by the input's "mode" as sent, key and
	// value exactly; a spelling the policy did not read must not run.
	if err := exactMode(req.Params.Arguments, in.Mode); err != nil {
		return nil, RewindOutput{}, err
	}
	svc, points, err := s.findPoints(ctx, "zerto_rewind", in.ID)
	if err != nil {
		return nil, RewindOutput{}, err
	}
	out := RewindOutput{Mode: in.Mode, Points: rewoundPoints(points)}
	if in.Mode == recovery.ModeRestore && !in.Confirm {
		out.Refused = true
		var texts []string
		for _, p := range points {
			l, err := svc.Loss(ctx, p)
			if err != nil {
				return nil, RewindOutput{}, err
			}
			out.Loss = append(out.Loss, lossOutput(l))
			texts = append(texts, l.Text)
		}
		res := textResult(append([]string{"Restore refused: confirm is not true, and Zerto was not asked to restore anything. Tell the person what the restore loses; only if they agree, call zerto_rewind again with confirm: true."}, texts...)...)
		res.IsError = true
		return res, out, nil
	}
	op := svc.Test
	if in.Mode == recovery.ModeRestore {
		op = svc.Restore
		// A restore is not undone: for a call that touched several
		// VPGs, every one of them must be able to restore before the
		// first is sent.
		for _, p := range points {
			if err := svc.Check(ctx, p, recovery.ModeRestore); err != nil {
				out.Failed = &RewindFailure{VPG: p.VPG, Error: err.Error()}
				r := textResult(fmt.Sprintf("restore refused before anything was restored: VPG %s cannot restore: %v", p.VPG, err))
				r.IsError = true
				return r, out, nil
			}
		}
	}
	return s.run(ctx, req, points, op, out)
}

func (s *Server) stopTest(ctx context.Context, req *mcp.CallToolRequest, in StopTestInput) (*mcp.CallToolResult, RewindOutput, error) {
	svc, points, err := s.findPoints(ctx, "zerto_stop_test", in.ID)
	if err != nil {
		return nil, RewindOutput{}, err
	}
	return s.run(ctx, req, points, svc.StopTest, RewindOutput{Mode: recovery.ModeStopTest, Points: rewoundPoints(points)})
}

// run applies op to each point in turn, stopping at the first failure,
// and reports Zerto's task progress to a client that asked for it.
func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, points []recovery.Point,
	op func(context.Context, recovery.Point, func(zvm.Task)) (recovery.Result, error), out RewindOutput) (*mcp.CallToolResult, RewindOutput, error) {
	progress := s.progress(ctx, req, len(points))
	var lines []string
	for i, p := range points {
		res, err := op(ctx, p, func(t zvm.Task) { progress(i, t) })
		if err != nil {
			out.Failed = &RewindFailure{VPG: p.VPG, Error: err.Error(), Task: res.Task}
			r := textResult(append(lines, fmt.Sprintf("%s of VPG %s failed: %v", out.Mode, p.VPG, err))...)
			r.IsError = true
			return r, out, nil
		}
		out.Results = append(out.Results, RewindResult{
			VPG: p.VPG, VMs: p.VMNames(), Checkpoint: p.Checkpoint, Tag: p.Tag,
			Task: res.Task, State: res.State, TestVMs: res.TestVMs, RecoverySite: res.RecoverySite,
		})
		lines = append(lines, resultText(res))
	}
	return textResult(lines...), out, nil
}

// progress returns a function that turns each Zerto task state into an MCP
// progress notification, when the client sent a progress token.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest, n int) func(int, zvm.Task) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func(int, zvm.Task) {}
	}
	return func(i int, t zvm.Task) {
		msg := fmt.Sprintf("%s: %s %d%%", t.Type, t.State, t.Progress)
		if t.Type == "" {
			msg = fmt.Sprintf("task %s: %s %d%%", t.Identifier, t.State, t.Progress)
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Message: msg,
			Progress: float64(i*100 + min(max(t.Progress, 0), 100)), Total: float64(n * 100),
		})
		if err != nil {
			s.warnf("progress: %v", err)
		}
	}
}

// exactMode checks that the arguments hold "mode" under that exact key with
// the value decoded: the catalog lets a test through by that key and
// value, and JSON decoding into a struct would also read "Mode" or "MODE".
func exactMode(args json.RawMessage, mode string) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(args, &raw); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	for k := range raw {
		if k != "mode" && strings.EqualFold(k, "mode") {
			return fmt.Errorf(`%q: write the key as "mode"`, k)
		}
	}
	var m string
	if err := json.Unmarshal(raw["mode"], &m); err != nil || m != mode {
		return errors.New(`"mode" must be "test" or "restore"`)
	}
	return nil
}

func rewoundPoints(points []recovery.Point) []RewoundPoint {
	out := make([]RewoundPoint, len(points))
	for i, p := range points {
		out[i] = RewoundPoint{AuditID: p.AuditID, VPG: p.VPG, VMs: p.VMNames(), Checkpoint: p.Checkpoint, Tag: p.Tag, Time: rfc3339(p.Time)}
	}
	return out
}

func lossOutput(l recovery.Loss) Loss {
	o := Loss{VPG: l.Point.VPG, VMs: l.Point.VMNames(), Since: rfc3339(l.Since), Calls: []LostCall{}, Text: l.Text}
	for _, c := range l.Calls {
		o.Calls = append(o.Calls, LostCall{AuditID: c.ID, Time: rfc3339(c.Time), Tool: c.Tool, Excerpt: c.Excerpt})
	}
	return o
}

// resultText says what a rewind did, and what to do next.
func resultText(res recovery.Result) string {
	p := res.Point
	cp := fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s)", p.Tag, p.Checkpoint)
	if p.Tag == "" {
		cp = "checkpoint " + p.Checkpoint
	}
	vms := strings.Join(p.VMNames(), ", ")
	switch res.Mode {
	case recovery.ModeTest:
		return fmt.Sprintf("Failover test of VPG %s from %s: task %s %s. Test copies on recovery site %s: %s. The live VMs (%s) are untouched; stop the test with zerto_stop_test when they are checked.",
			p.VPG, cp, res.Task, res.State, res.RecoverySite, strings.Join(res.TestVMs, ", "), vms)
	case recovery.ModeStopTest:
		return fmt.Sprintf("Failover test of VPG %s stopped: task %s %s. Its test copies are gone.", p.VPG, res.Task, res.State)
	default:
		return fmt.Sprintf("%s (VPG %s) restored to %s and committed: task %s %s.", vms, p.VPG, cp, res.Task, res.State)
	}
}
