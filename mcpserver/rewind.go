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
	ID   string `json:"id" jsonschema:"the rewind point: an audit_id from zerto_rewind_points (a unique prefix of at least 6 characters will do), or a bare CheckpointIdentifier"`
	Mode string `json:"mode" jsonschema:"test: a failover test from the checkpoint; test copies of the VMs come up on the recovery site beside the live VMs, which are untouched (nothing is lost; end it with zerto_stop_test). restore and rollback are never run here: the answer says what a restore would lose and the command the person runs in their own terminal, with their own Zerto credentials"`
	VPG  string `json:"vpg,omitempty" jsonschema:"for a VM the hook protected in several VPGs: the VPG to go back in, as the person chose it; without it such a rewind is refused, naming the VPGs"`
	// Confirm is read so that a model that sends it learns why it changes
	// nothing, instead of meeting a schema error.
	Confirm bool `json:"confirm,omitempty" jsonschema:"not a confirmation: a model cannot confirm a restore for a person, and this argument changes nothing"`
}

// StopTestInput names the rewind point whose failover test to stop.
type StopTestInput struct {
	ID  string `json:"id" jsonschema:"the rewind point the test was started from (audit_id or CheckpointIdentifier); the failover test running on its VPG is stopped"`
	VPG string `json:"vpg,omitempty" jsonschema:"for a VM the hook protected in several VPGs: the VPG whose test to stop"`
}

// RewindOutput is the outcome of zerto_rewind and zerto_stop_test.
type RewindOutput struct {
	Mode    string         `json:"mode" jsonschema:"test, stop-test, restore or rollback"`
	Refused bool           `json:"refused,omitempty" jsonschema:"nothing was sent to Zerto that changes anything: a restore or rollback, or a test or stop Zerto refuses rewind's own client, which the person runs in a terminal; or a stop the person did not confirm"`
	Command string         `json:"command,omitempty" jsonschema:"for a refusal the person can lift: the command the person runs in a terminal of their own"`
	Zerto   string         `json:"zerto,omitempty" jsonschema:"Zerto's own message, when it refuses rewind's own client the test or stop (least privilege: the person's credentials run it)"`
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
	VPG   string `json:"vpg,omitempty"`
	Error string `json:"error" jsonschema:"why, with Zerto's own message when Zerto refused or failed"`
	Task  string `json:"task,omitempty"`
}

// recoveryTools are the tools of this file.
var recoveryTools = []string{"zerto_rewind", "zerto_stop_test"}

// rewindModes are the modes zerto_rewind takes: the test it runs, and the
// modes it answers with the terminal command.
var rewindModes = []string{recovery.ModeTest, recovery.ModeRestore, recovery.ModeRollback}

func (s *Server) addRecovery() {
	in, err := jsonschema.For[RewindInput](nil)
	if err != nil {
		panic("mcpserver: " + err.Error())
	}
	in.Properties["mode"].Enum = []any{recovery.ModeTest, recovery.ModeRestore, recovery.ModeRollback}
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "zerto_rewind",
		Title: "Go back to a rewind point",
		Description: `Goes back to a rewind point (from zerto_rewind_points) through Zerto, for the VMs the call touched.
mode "test" starts a failover test from the checkpoint: test copies come up on the recovery site beside the live VMs, which are untouched. Check them, then end the test with zerto_stop_test. Where Zerto does not let rewind's own client test (a ZVM set up for least privilege), the test is not run here either: the answer gives Zerto's message and the command the person runs in their own terminal, with their own Zerto credentials.
mode "restore" (and "rollback" of a restore that waits for its commit) is not run here: a restore changes the VMs' disks and runs only with the person's own Zerto credentials, which they type in their own terminal. The answer says what the restore would lose and the command to give the person; Zerto is not asked to change anything.
A VM the hook protected in several VPGs goes back in one of them: pass the person's choice as vpg.`,
		InputSchema: in,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, s.rewind)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "zerto_stop_test",
		Title: "Stop a failover test",
		Description: `Stops the failover test running on the VPGs of a rewind point, as rewind undo --stop-test does: the test copies go away; the live VMs were never touched.
A test rewind did not start (a drill someone began in Zerto) is stopped only when the person confirms it in the host's own dialog (MCP elicitation); a client that cannot ask is refused. Where Zerto does not let rewind's own client stop a test (least privilege), the answer gives Zerto's message and the command the person runs in their own terminal. Zerto's test report gets no verdict of pass or fail.`,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(true)},
	}, s.stopTest)
}

// service returns the recovery layer over the config's ZVM and the audit
// log, for tool. A rewind is followed to its end, as rewind undo follows
// it, however long Zerto takes, so the caller's ctx gets no deadline: the
// client's cancellation ends the wait, not Zerto's task.
func (s *Server) service(tool string) (*recovery.Service, error) {
	cfg, err := s.config()
	if err != nil {
		return nil, err
	}
	zo, err := zvm.ConfigOptions(cfg.Zerto, zvm.Setup{Getenv: s.o.Getenv, Logger: s.o.Logger})
	if err != nil {
		return nil, err
	}
	z, err := zvm.New(zo)
	if err != nil {
		return nil, err
	}
	dir, err := s.stateDir()
	if err != nil {
		return nil, err
	}
	svc := recovery.NewService(cfg, z, zo, dir)
	svc.Poll, svc.Tool, svc.Logger = s.o.Poll, tool, s.o.Logger
	return svc, nil
}

func vpgChoice(vpg string) []string {
	if vpg = strings.TrimSpace(vpg); vpg == "" {
		return nil
	}
	return []string{vpg}
}

func (s *Server) rewind(ctx context.Context, req *mcp.CallToolRequest, in RewindInput) (*mcp.CallToolResult, RewindOutput, error) {
	// The hook judged the call by the input's "mode" as sent, key and
	// value exactly; a spelling the policy did not read must not run.
	if err := exactMode(req.Params.Arguments, in.Mode); err != nil {
		return nil, RewindOutput{}, err
	}
	svc, err := s.service("zerto_rewind")
	if err != nil {
		return nil, RewindOutput{}, err
	}
	rq := recovery.Request{ID: in.ID, Mode: in.Mode, VPGs: vpgChoice(in.VPG)}
	out := RewindOutput{Mode: in.Mode}
	plan, err := svc.Plan(ctx, rq)
	if err != nil {
		return refusal(out, err)
	}
	if plan.AsPerson {
		return personOnly(rq, plan)
	}
	return s.run(ctx, req, svc, rq, out)
}

// personOnly answers a rewind that runs only with the person's own Zerto
// credentials: a restore or a rollback always, a test or a stop when Zerto
// refuses them to rewind's own client. rewind asks for those credentials
// at the person's terminal, and no MCP channel carries them safely (form
// elicitation must not ask for secrets, and whoever drives the server's
// pipe answers an elicitation). The answer says what the rewind would do,
// from reads only, Zerto's refusal when there is one, and the command.
func personOnly(rq recovery.Request, plan *recovery.Plan) (*mcp.CallToolResult, RewindOutput, error) {
	out := RewindOutput{Mode: rq.Mode, Refused: true, Points: rewoundPoints(plan.Points)}
	for _, l := range plan.Losses {
		out.Loss = append(out.Loss, lossOutput(l))
	}
	out.Command = recovery.Command(rq.ID, false, rq.Mode, rq.VPGs)
	head := map[string]string{recovery.ModeRestore: "Restore", recovery.ModeRollback: "Rollback"}[rq.Mode] +
		" refused: Zerto was not asked to change anything. rewind runs a " + rq.Mode + " only with the person's own Zerto credentials, which they type in a terminal of their own; no MCP client carries them, and a confirm argument is not the person's word."
	if plan.Refused != nil {
		out.Zerto = plan.Refused.Message
		head = map[string]string{recovery.ModeTest: "Test", recovery.ModeStopTest: "Stop"}[rq.Mode] +
			" refused: Zerto refuses rewind's own client this operation, so rewind runs it only with the person's own Zerto credentials, which they type in a terminal of their own; no MCP client carries them. Zerto was not asked to change anything."
	}
	res := textResult(head, plan.Text(), "Tell the person what it does; if they want it, they run:\n  "+out.Command)
	res.IsError = true
	return res, out, nil
}

func (s *Server) stopTest(ctx context.Context, req *mcp.CallToolRequest, in StopTestInput) (*mcp.CallToolResult, RewindOutput, error) {
	svc, err := s.service("zerto_stop_test")
	if err != nil {
		return nil, RewindOutput{}, err
	}
	rq := recovery.Request{ID: in.ID, Mode: recovery.ModeStopTest, VPGs: vpgChoice(in.VPG)}
	out := RewindOutput{Mode: recovery.ModeStopTest}
	plan, err := svc.Plan(ctx, rq)
	if err != nil {
		return refusal(out, err)
	}
	if plan.AsPerson {
		return personOnly(rq, plan)
	}
	if plan.NeedsConfirm() {
		confirmed, ask := s.stopConfirmed(req, rq, plan)
		switch {
		case ask != nil:
			return ask, RewindOutput{}, nil
		case !confirmed:
			out.Refused, out.Points = true, rewoundPoints(plan.Points)
			res := textResult("Stop refused: the failover test was not started by rewind, and the person did not confirm its stop in the host's dialog; nothing was stopped.",
				plan.Text(), "The person can stop it in a terminal: "+recovery.Command(rq.ID, false, rq.Mode, rq.VPGs))
			res.IsError = true
			return res, out, nil
		}
		rq.Confirm = func(context.Context, *recovery.Plan) (*recovery.Operator, error) { return nil, nil }
	}
	return s.run(ctx, req, svc, rq, out)
}

// run runs the rewind through recovery's one operation, reporting Zerto's
// task progress to a client that asked for it.
func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, svc *recovery.Service, rq recovery.Request, out RewindOutput) (*mcp.CallToolResult, RewindOutput, error) {
	rq.Progress = s.progress(ctx, req)
	results, err := svc.Run(ctx, rq)
	var ce *recovery.ConfirmError
	if errors.As(err, &ce) && ce.Refused != nil {
		// Zerto refused rewind's own client after all, before anything
		// was done (see recovery.Service.Run): the person's credentials
		// run it, in their terminal.
		out.Refused, out.Zerto, out.Command = true, ce.Refused.Message, recovery.Command(rq.ID, false, rq.Mode, rq.VPGs)
		r := textResult(err.Error(), "Tell the person; if they want it, they run:\n  "+out.Command)
		r.IsError = true
		return r, out, nil
	}
	if err != nil && len(results) == 0 {
		return refusal(out, err)
	}
	done := results
	if err != nil {
		done = results[:len(results)-1]
	}
	var lines []string
	for _, res := range results {
		out.Points = append(out.Points, rewoundPoints([]recovery.Point{res.Point})...)
	}
	for _, res := range done {
		p := res.Point
		out.Results = append(out.Results, RewindResult{
			VPG: p.VPG, VMs: p.VMNames(), Checkpoint: p.Checkpoint, Tag: p.Tag,
			Task: res.Task, State: res.State, TestVMs: res.TestVMs, RecoverySite: res.RecoverySite,
		})
		lines = append(lines, resultText(res))
	}
	if err != nil {
		last := results[len(results)-1]
		out.Failed = &RewindFailure{VPG: last.Point.VPG, Error: err.Error(), Task: last.Task}
		r := textResult(append(lines, fmt.Sprintf("%s of VPG %s failed: %v", out.Mode, last.Point.VPG, err))...)
		r.IsError = true
		return r, out, nil
	}
	return textResult(lines...), out, nil
}

// refusal answers a rewind that recovery refused before anything was
// sent, with its reason.
func refusal(out RewindOutput, err error) (*mcp.CallToolResult, RewindOutput, error) {
	var (
		ce  *recovery.ChoiceError
		amb *audit.AmbiguousError
		se  *recovery.StateError
		ae  *recovery.AgedOutError
		pe  *recovery.PrefixError
	)
	switch {
	case errors.As(err, &ce), errors.As(err, &amb), errors.As(err, &se), errors.As(err, &ae), errors.As(err, &pe):
	default:
		// Not a refusal of the checks: the SDK makes it the tool's error.
		return nil, RewindOutput{}, err
	}
	out.Refused = true
	out.Failed = &RewindFailure{Error: err.Error()}
	if ce != nil && len(ce.VPGs) > 0 {
		out.Failed.Error += "; ask the person which VPG, and call again with vpg set to it"
	}
	r := textResult(out.Mode + " refused before anything was sent: " + out.Failed.Error)
	r.IsError = true
	return r, out, nil
}

// progress returns the one progress callback of a rewind: each Zerto task
// state, and each step rewind takes itself, as an MCP progress
// notification, when the client sent a progress token.
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest) func(recovery.Progress) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	return func(p recovery.Progress) {
		t := p.Task
		msg := p.Text
		if msg == "" {
			msg = fmt.Sprintf("%s: %s %d%%", t.Type, t.State, t.Progress)
			if t.Type == "" {
				msg = fmt.Sprintf("task %s: %s %d%%", t.Identifier, t.State, t.Progress)
			}
		}
		err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Message: msg,
			Progress: float64(p.Index*100 + min(max(t.Progress, 0), 100)), Total: float64(max(p.Of, 1) * 100),
		})
		if err != nil {
			s.o.Logger.Warn("progress", "err", err)
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
	if err := json.Unmarshal(raw["mode"], &m); err != nil || m != mode || !contains(rewindModes, m) {
		return errors.New(`"mode" must be "test", "restore" or "rollback"`)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
	if res.Mode == recovery.ModeStopTest {
		return fmt.Sprintf("Failover test of VPG %s stopped: task %s %s. Its test copies are gone.", p.VPG, res.Task, res.State)
	}
	return fmt.Sprintf("Failover test of VPG %s from %s: task %s %s. Test copies on recovery site %s: %s. The live VMs (%s) are untouched; stop the test with zerto_stop_test when they are checked.",
		p.VPG, cp, res.Task, res.State, res.RecoverySite, strings.Join(res.TestVMs, ", "), vms)
}
