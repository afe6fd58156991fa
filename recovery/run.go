package recovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/zvm"
)

// Request is one rewind as a person asked for it, through any front end.
type Request struct {
	// ID names the call: an audit id, a prefix of one, or a bare
	// CheckpointIdentifier (see Find).
	ID string
	// Checkpoint says ID is a CheckpointIdentifier, never an audit id.
	Checkpoint bool
	// Mode is one of the modes.
	Mode string
	// VPGs are the person's choice, by name or identifier, of the VPG to go
	// back in for a VM the hook protected in several (one checkpoint in
	// each): the call's other VMs go back too, all of them or none.
	VPGs []string
	// Passed is, for a stop, what Zerto's test report records of the test;
	// nil leaves it unsaid.
	Passed *bool
	// Confirm asks the person, when the plan needs it (see
	// Plan.NeedsConfirm), after every check passed. It returns the person's
	// Operator for a plan that runs as a person (Plan.AsPerson), or nil,
	// and an error when the person did not confirm. A nil Confirm confirms
	// nothing: such a rewind is refused.
	Confirm func(ctx context.Context, plan *Plan) (*Operator, error)
	// Progress, when set, hears of every step: one callback for every
	// VPG's tasks and for what rewind does itself.
	Progress func(Progress)
}

// Progress is a step of a rewind, for a front end to show.
type Progress struct {
	// Index is the point (VPG) the step belongs to, of Of points.
	Index, Of int
	VPG       string
	// Task is Zerto's task, when Text is empty.
	Task zvm.Task
	// Text is a step rewind takes itself, such as the checkpoint of now.
	Text string
}

// Plan is what a rewind will do, after the checks: what a front end shows
// a person before they confirm.
type Plan struct {
	Mode string
	// Points are the rewind points, one per VPG, after the person's choice;
	// every one of them passed the mode's checks.
	Points []Point
	// Losses are, for a restore, what each point loses, in Points' order.
	Losses []Loss
	// Tests are, for a stop, who started each VPG's test, in Points' order.
	Tests []TestOwner
	// Before are, for a restore run by Run, the checkpoints of the VMs as
	// they are just before it, in Points' order, and BeforeID the audit id
	// they are logged under: `rewind undo BeforeID --restore` undoes the
	// restore. Run takes them once the person confirmed (a refused or
	// mistyped confirmation leaves no checkpoint behind), and names them
	// in a Progress step before the restore starts, and in its Results.
	Before   []Point
	BeforeID string
	// AsPerson says the plan runs with a person's own Zerto credentials,
	// through an Operator that Confirm returns: a restore, a commit and a
	// rollback always (NeedsOperator); a test and its stop when Zerto
	// refuses them to the hook's own client, as on a ZVM set up for least
	// privilege, and then Refused is Zerto's refusal.
	AsPerson bool
	Refused  *zvm.Error
}

// NeedsConfirm reports whether a person must confirm the plan: one that
// runs as a person always, a stop with the hook's client only of a test
// rewind did not start.
func (p *Plan) NeedsConfirm() bool {
	if p.AsPerson {
		return true
	}
	return p.Foreign()
}

// Foreign reports whether the plan stops a failover test rewind did not
// start, which a person must say they mean to end.
func (p *Plan) Foreign() bool {
	return p.Mode == ModeStopTest && slices.ContainsFunc(p.Tests, func(t TestOwner) bool { return !t.Rewind })
}

// Text says the plan for a person, in a few lines: what each VPG goes
// back to, what a restore loses and the checkpoint that undoes it, whose
// test a stop ends.
func (p *Plan) Text() string {
	var b strings.Builder
	for i, pt := range p.Points {
		if i > 0 {
			b.WriteByte('\n')
		}
		vms := oneLine(strings.Join(pt.VMNames(), ", "))
		switch p.Mode {
		case ModeRestore:
			b.WriteString(p.Losses[i].Text)
			if i < len(p.Before) {
				bp := p.Before[i]
				fmt.Fprintf(&b, "\nThe checkpoint of %s as it is now is %q (CheckpointIdentifier %s): rewind undo %s --restore undoes this restore.",
					vms, bp.Tag, bp.Checkpoint, p.BeforeID)
			} else {
				fmt.Fprintf(&b, "\nBefore restoring, rewind takes a checkpoint of %s as it is now, so that the restore can be undone.", vms)
			}
		case ModeRollback:
			fmt.Fprintf(&b, "Rolling back the journal restore of %s (VPG %s): the VM goes back to how it was before the restore, and what it wrote since the restore is lost.", vms, oneLine(pt.VPG))
		case ModeCommit:
			fmt.Fprintf(&b, "Committing the journal restore of %s (VPG %s): Zerto keeps the restored VM, and the restore can no longer be rolled back.", vms, oneLine(pt.VPG))
		case ModeStopTest:
			b.WriteString(p.Tests[i].text(pt.VPG))
		default:
			fmt.Fprintf(&b, "A failover test of VPG %s from checkpoint %q (CheckpointIdentifier %s) of %s, for %s: test copies come up on the recovery site; the live VMs are untouched.",
				oneLine(pt.VPG), oneLine(pt.Tag), oneLine(pt.Checkpoint), zTime(pt.Time), vms)
		}
	}
	if p.Refused != nil {
		b.WriteString("\n" + refusalText(p.Mode, p.Refused))
	}
	return b.String()
}

// Plan finds the points of req.ID, applies the person's choice of VPG and
// runs every check of req.Mode on every point, reading from Zerto only: a
// front end shows the plan, or its refusal, before anything changes. A
// point that fails a check refuses the whole rewind, so that a call that
// touched several VPGs goes back in all of them or in none. For a test or
// a stop it asks Zerto whether the hook's own client may run it, without
// running anything (see hookRefusal): when Zerto says no, the plan runs
// as a person.
func (s *Service) Plan(ctx context.Context, req Request) (*Plan, error) {
	if !slices.Contains(Modes, req.Mode) {
		return nil, fmt.Errorf("unknown rewind mode %q: %s", req.Mode, strings.Join(Modes, ", "))
	}
	points, err := s.Points(ctx, req)
	if err != nil {
		return nil, err
	}
	plan := &Plan{Mode: req.Mode, Points: points}
	for _, p := range points {
		if _, err := s.preflight(ctx, p, req.Mode); err != nil {
			return nil, err
		}
	}
	switch req.Mode {
	case ModeRestore:
		if plan.Losses, err = s.Losses(ctx, points); err != nil {
			return nil, err
		}
	case ModeStopTest:
		for _, p := range points {
			plan.Tests = append(plan.Tests, s.testOwner(ctx, p))
		}
	}
	if NeedsOperator(req.Mode) {
		plan.AsPerson = true
	} else if ze := s.hookRefusal(ctx, req.Mode); ze != nil {
		plan.AsPerson, plan.Refused = true, ze
	}
	return plan, nil
}

// Points finds the rewind points of req.ID and applies the person's choice
// of VPG, with no check of Zerto's state: a front end that must hear what
// a person typed before anything reaches Zerto reads the VM names here.
// For an audit id whose checkpoint was logged it reads the audit log only.
func (s *Service) Points(ctx context.Context, req Request) ([]Point, error) {
	find := s.Find
	if req.Checkpoint {
		find = s.FindCheckpoint
	}
	points, err := find(ctx, req.ID)
	if err != nil {
		return nil, err
	}
	return choose(points, req.VPGs)
}

// Run is the whole rewind, the one operation every front end calls: Plan,
// then the person's confirmation when the plan needs one (an operator's
// credentials checked with Zerto), then for a restore the checkpoint of
// the VMs as they are now, then the mode on each point in turn, stopping
// at the first failure. It returns the results of the points done, with
// that failure.
//
// A test or a stop the plan gave the hook's own client that Zerto refuses
// it after all (403, before anything was done: a ZVM that looks the VPG
// up before the role answers Plan's question "not found") runs as a
// person from then on: Confirm is asked as Plan would have had it asked,
// and the operation is sent again with the person's credentials.
func (s *Service) Run(ctx context.Context, req Request) ([]Result, error) {
	plan, err := s.Plan(ctx, req)
	if err != nil {
		return nil, err
	}
	n := len(plan.Points)
	say := func(i int, text string) {
		if req.Progress != nil {
			req.Progress(Progress{Index: i, Of: n, VPG: plan.Points[i].VPG, Text: text})
		}
	}
	var op *Operator
	if plan.NeedsConfirm() {
		if op, err = s.confirm(ctx, req, plan); err != nil {
			return nil, err
		}
	}
	if plan.Mode == ModeRestore {
		say(0, "taking a checkpoint of "+strings.Join(allVMs(plan.Points), ", ")+" as it is now, so that the restore can be undone")
		if err := s.checkpointNow(ctx, plan); err != nil {
			return nil, err
		}
		for i, b := range plan.Before {
			say(i, fmt.Sprintf("the checkpoint of %s as it is now is %q (CheckpointIdentifier %s): rewind undo %s --restore undoes this restore",
				strings.Join(b.VMNames(), ", "), b.Tag, b.Checkpoint, plan.BeforeID))
		}
	}
	var results []Result
	for i := range plan.Points {
		res, err := s.runPoint(ctx, req, plan, i, op)
		if ze := refusedHook(err); ze != nil && op == nil && !plan.AsPerson && i == 0 {
			s.rememberHook(plan.Mode, ze)
			plan.AsPerson, plan.Refused = true, ze
			if op, err = s.confirm(ctx, req, plan); err != nil {
				return nil, err
			}
			res, err = s.runPoint(ctx, req, plan, i, op)
		}
		results = append(results, res)
		if err != nil {
			return results, err
		}
	}
	return results, nil
}

// runPoint runs the plan's mode on its point i, through op when there is
// one.
func (s *Service) runPoint(ctx context.Context, req Request, plan *Plan, i int, op *Operator) (Result, error) {
	p := plan.Points[i]
	progress := func(t zvm.Task) {
		if req.Progress != nil {
			req.Progress(Progress{Index: i, Of: len(plan.Points), VPG: p.VPG, Task: t})
		}
	}
	switch plan.Mode {
	case ModeTest:
		return s.test(ctx, p, op, progress)
	case ModeStopTest:
		return s.stopTest(ctx, p, op, plan.Tests[i], req.Passed, progress)
	case ModeRestore:
		return s.restore(ctx, p, op, plan.Before[i], progress)
	}
	return s.endRestore(ctx, p, op, plan.Mode, progress)
}

// confirm asks req.Confirm for the person's confirmation of plan and, for
// a plan that runs as a person, their Operator, logged in to Zerto before
// anything else is sent.
func (s *Service) confirm(ctx context.Context, req Request, plan *Plan) (*Operator, error) {
	if req.Confirm == nil {
		what := modeWords(plan.Mode)
		if plan.Foreign() {
			what = "stopping a failover test rewind did not start"
		}
		reason := fmt.Sprintf("%s needs a person's confirmation, and none can be asked here: nothing was changed", what)
		if plan.Refused != nil {
			reason = refusedWords(plan, "none can be asked here")
		}
		return nil, &ConfirmError{Mode: plan.Mode, Reason: reason, Refused: plan.Refused}
	}
	op, err := req.Confirm(ctx, plan)
	if err != nil {
		return nil, err
	}
	if !plan.AsPerson {
		return nil, nil
	}
	if op == nil && plan.Refused != nil {
		// Confirmed where no credentials can be typed (an MCP client's
		// form): say why they are needed, with Zerto's refusal.
		return nil, &ConfirmError{Mode: plan.Mode, Reason: refusedWords(plan, "none were given"), Refused: plan.Refused}
	}
	if op == nil {
		return nil, errNoOperator
	}
	if err := op.Login(ctx); err != nil {
		return nil, err
	}
	return op, nil
}

// refusedWords says that plan runs with a person's own Zerto credentials
// because Zerto refused rewind's client, and why none are at hand.
func refusedWords(plan *Plan, none string) string {
	return fmt.Sprintf("%s runs with a person's own Zerto credentials here, since Zerto refuses rewind's own client (%s), and %s: nothing was changed",
		modeWords(plan.Mode), zertoWords(plan.Refused), none)
}

func modeWords(mode string) string {
	switch mode {
	case ModeRestore:
		return "a restore"
	case ModeRollback:
		return "the rollback of a restore"
	case ModeCommit:
		return "the commit of a restore"
	case ModeStopTest:
		return "stopping a failover test"
	}
	return "a failover test"
}

func allVMs(points []Point) []string {
	var names []string
	for _, p := range points {
		for _, n := range p.VMNames() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}

// choose keeps, for each VM with a rewind point in several VPGs, only the
// point of the VPG the person chose (by name or identifier); a point left
// without VMs goes. A VM in several VPGs with no choice among them is a
// *ChoiceError, and so is a choice that names no VPG of the points.
func choose(points []Point, vpgs []string) ([]Point, error) {
	var names []string
	for _, p := range points {
		names = append(names, p.VPG)
	}
	chosen := func(p Point) bool {
		return slices.ContainsFunc(vpgs, func(c string) bool {
			return strings.EqualFold(c, p.VPG) || strings.EqualFold(c, p.VPGIdentifier)
		})
	}
	for _, c := range vpgs {
		if !slices.ContainsFunc(points, func(p Point) bool {
			return strings.EqualFold(c, p.VPG) || strings.EqualFold(c, p.VPGIdentifier)
		}) {
			return nil, &ChoiceError{Unknown: oneLine(c), VPGs: names}
		}
	}
	// in[vm] are the indexes of the points that hold the VM.
	in := map[string][]int{}
	var order []string
	for i, p := range points {
		for _, vm := range p.VMs {
			id := strings.ToLower(vm.Identifier)
			if len(in[id]) == 0 {
				order = append(order, id)
			}
			in[id] = append(in[id], i)
		}
	}
	drop := map[[2]int]bool{} // {point, vm index} pairs to leave out
	for _, id := range order {
		idx := in[id]
		if len(idx) < 2 {
			continue
		}
		var keep []int
		var vpgNames []string
		for _, i := range idx {
			vpgNames = append(vpgNames, points[i].VPG)
			if chosen(points[i]) {
				keep = append(keep, i)
			}
		}
		name := vmName(points[idx[0]], id)
		switch len(keep) {
		case 0:
			return nil, &ChoiceError{VM: name, VPGs: vpgNames}
		case 1:
		default:
			var both []string
			for _, i := range keep {
				both = append(both, points[i].VPG)
			}
			return nil, &ChoiceError{VPGs: both}
		}
		for _, i := range idx {
			if i != keep[0] {
				for j, vm := range points[i].VMs {
					if strings.EqualFold(vm.Identifier, id) {
						drop[[2]int{i, j}] = true
					}
				}
			}
		}
	}
	var out []Point
	for i, p := range points {
		var vms []VM
		for j, vm := range p.VMs {
			if !drop[[2]int{i, j}] {
				vms = append(vms, vm)
			}
		}
		if len(vms) > 0 {
			p.VMs = vms
			out = append(out, p)
		}
	}
	return out, nil
}

func vmName(p Point, id string) string {
	for _, vm := range p.VMs {
		if strings.EqualFold(vm.Identifier, id) {
			return vm.Name
		}
	}
	return id
}

// BeforeWait bounds the wait for the checkpoint of now: a VPG with a slow
// journal cadence (630 s has been seen) writes the tag at its next tick.
const BeforeWait = 15 * time.Minute

// checkpointNow takes a tagged checkpoint of the plan's VMs as they are
// now, with the hook's own capture, and logs it as a rewind point of its
// own: the restore's way back. A restore without it is refused.
func (s *Service) checkpointNow(ctx context.Context, plan *Plan) error {
	if s.Capture == nil {
		return errors.New("rewind cannot take the checkpoint that makes a restore undoable here: nothing was restored")
	}
	id := audit.NewID()
	names := allVMs(plan.Points)
	cctx, cancel := context.WithTimeout(ctx, BeforeWait)
	defer cancel()
	out := s.Capture.Capture(cctx, capture.Request{Targets: names, CallID: id})
	switch out.Kind {
	case capture.Protected:
	case capture.Pending:
		when := ""
		if len(out.Points) > 0 && !out.Points[0].Expected.IsZero() {
			when = " (expected at " + zTime(out.Points[0].Expected) + ")"
		}
		return fmt.Errorf("the checkpoint of %s as it is now is not written yet%s: nothing was restored; run the restore again once it is", strings.Join(names, ", "), when)
	default:
		var why []string
		for _, f := range out.Failures {
			why = append(why, f.Error())
		}
		if len(out.Unknown) > 0 {
			why = append(why, "Zerto does not know "+strings.Join(out.Unknown, ", "))
		}
		return fmt.Errorf("no checkpoint of %s as it is now could be had, so the restore could not be undone: nothing was restored: %s",
			strings.Join(names, ", "), strings.Join(why, "; "))
	}
	plan.BeforeID = id
	rec := &audit.Record{
		ID: id, Tool: s.tool(), Decision: audit.DecisionCheckpoint, Targets: names,
		Excerpt: fmt.Sprintf("checkpoint before %s --restore", s.tool()),
		Reason:  fmt.Sprintf("the VMs as they were just before a restore: rewind undo %s --restore goes back to it", id),
	}
	for _, p := range plan.Points {
		i := slices.IndexFunc(out.Points, func(cp capture.Point) bool { return strings.EqualFold(cp.VPGIdentifier, p.VPGIdentifier) })
		if i < 0 {
			return fmt.Errorf("the checkpoint of %s as it is now was not taken in VPG %s: nothing was restored", strings.Join(p.VMNames(), ", "), p.VPG)
		}
		cp := out.Points[i]
		plan.Before = append(plan.Before, Point{AuditID: id, VPG: cp.VPG, VPGIdentifier: cp.VPGIdentifier, VMs: p.VMs,
			Checkpoint: cp.Identifier, Tag: cp.Tag, Time: cp.Time})
	}
	for _, cp := range out.Points {
		for _, vm := range cp.VMs {
			rec.Checkpoints = append(rec.Checkpoints, audit.Checkpoint{VM: vm.Name, VMIdentifier: vm.Identifier, VPG: cp.VPG,
				VPGIdentifier: cp.VPGIdentifier, Identifier: cp.Identifier, Tag: cp.Tag, Time: cp.Time})
		}
	}
	if s.Log != nil {
		s.append(rec)
	}
	return nil
}
