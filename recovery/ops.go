package recovery

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/zvm"
)

// Test starts a failover test of p.VPGIdentifier from p.Checkpoint for
// p.VMs and follows its task; progress (may be nil) sees each task state.
// The test copies come up on the VPG's recovery site, beside the running
// VMs, which it does not touch; StopTest ends it.
func (s *Service) Test(ctx context.Context, p Point, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: ModeTest, Point: p}
	defer func() { s.record(&res, err) }()
	v, err := s.preflight(ctx, p, ModeTest)
	if err != nil {
		return res, err
	}
	ids := make([]string, len(p.VMs))
	for i, vm := range p.VMs {
		ids[i] = vm.Identifier
	}
	task, err := s.Z.FailoverTest(ctx, p.VPGIdentifier, p.Checkpoint, ids)
	if err != nil {
		return res, fmt.Errorf("starting a failover test of VPG %s: %w", p.VPG, err)
	}
	res.Task = task
	t, err := s.follow(ctx, task, progress)
	res.State = t.State.String()
	if err != nil {
		return res, fmt.Errorf("failover test of VPG %s: %w", p.VPG, err)
	}
	res.RecoverySite = v.RecoverySite
	for _, vm := range p.VMs {
		res.TestVMs = append(res.TestVMs, vm.Name+TestVMSuffix)
	}
	return res, nil
}

// StopTest stops the failover test running on p's VPG, whichever
// checkpoint it started from, and follows the stop's task. The test is
// reported to Zerto as checked, with a summary naming the rewind point.
func (s *Service) StopTest(ctx context.Context, p Point, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: ModeStopTest, Point: p}
	defer func() { s.record(&res, err) }()
	if _, err := s.preflight(ctx, p, ModeStopTest); err != nil {
		return res, err
	}
	summary := "stopped by rewind"
	if p.Tag != "" {
		summary += ": test of rewind point " + p.Tag
	}
	task, err := s.Z.FailoverTestStop(ctx, p.VPGIdentifier, true, summary)
	if err != nil {
		return res, fmt.Errorf("stopping the failover test of VPG %s: %w", p.VPG, err)
	}
	res.Task = task
	t, err := s.follow(ctx, task, progress)
	res.State = t.State.String()
	if err != nil {
		return res, fmt.Errorf("stopping the failover test of VPG %s: %w", p.VPG, err)
	}
	return res, nil
}

// Restore journal-restores each VM of p to p.Checkpoint, follows the task
// to the end and commits it. It does not confirm: front ends show Loss and
// confirm first.
//
// VMs are restored one after the other. A VM whose restore fails stops the
// rest; a VM restored but not committed is named in the error, since it
// waits in Zerto for a commit or rollback.
func (s *Service) Restore(ctx context.Context, p Point, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: ModeRestore, Point: p}
	defer func() { s.record(&res, err) }()
	if _, err := s.preflight(ctx, p, ModeRestore); err != nil {
		return res, err
	}
	for _, vm := range p.VMs {
		task, err := s.Z.Restore(ctx, vm.Identifier, p.VPGIdentifier, p.Checkpoint)
		if err != nil {
			return res, fmt.Errorf("restoring VM %s: %w", vm.Name, err)
		}
		res.Task = task
		t, err := s.follow(ctx, task, progress)
		res.State = t.State.String()
		if err != nil {
			if zvm.KindOf(err) != zvm.KindTaskFailed {
				// Zerto has the restore and goes on without us: once
				// restored, the VM waits for a commit or a rollback.
				return res, fmt.Errorf("restoring VM %s: %w; the restore was started (task %s) and, once done, waits in Zerto for RestoreCommit or RestoreRollback of that VM", vm.Name, err, task)
			}
			return res, fmt.Errorf("restoring VM %s: %w", vm.Name, err)
		}
		if t.State == zvm.TaskCompleted {
			// Zerto kept the VM by itself: nothing waits for a commit.
			continue
		}
		task, err = s.Z.RestoreCommit(ctx, vm.Identifier, p.VPGIdentifier)
		if err != nil {
			return res, fmt.Errorf("VM %s is restored but not committed: commit or roll it back in Zerto: %w", vm.Name, err)
		}
		res.Task = task
		t, err = s.follow(ctx, task, progress)
		res.State = t.State.String()
		if err != nil {
			return res, fmt.Errorf("committing the restore of VM %s: %w", vm.Name, err)
		}
	}
	return res, nil
}

// Check says whether Zerto can run mode ("test", "stop-test" or "restore")
// for p now, with the error the operation would give, and sends nothing
// that changes anything: it reads the VPG and its journal. A front end
// calls it before asking a person to confirm a restore, so that a rewind
// bound to fail is not confirmed first. The operations check again.
func (s *Service) Check(ctx context.Context, p Point, mode string) error {
	_, err := s.preflight(ctx, p, mode)
	return err
}

// preflight runs the checks of mode before anything is sent: the
// checkpoint is still in the journal, and the VPG's state allows it.
func (s *Service) preflight(ctx context.Context, p Point, mode string) (zvm.VPG, error) {
	switch mode {
	case ModeTest, ModeRestore:
	case ModeStopTest:
		v, err := s.vpg(ctx, p)
		if err != nil {
			return v, err
		}
		if !v.TestRunning {
			return v, &StateError{VPG: v.Name, State: v.Status.String(),
				Reason: fmt.Sprintf("no failover test is running on VPG %s", v.Name)}
		}
		return v, nil
	default:
		return zvm.VPG{}, fmt.Errorf("unknown rewind mode %q", mode)
	}
	if mode == ModeRestore && len(p.VMs) == 0 {
		return zvm.VPG{}, fmt.Errorf("rewind point of VPG %s names no VM to restore", p.VPG)
	}
	if err := s.inJournal(ctx, p); err != nil {
		return zvm.VPG{}, err
	}
	v, err := s.vpg(ctx, p)
	if err != nil {
		return v, err
	}
	if err := canRecover(v); err != nil {
		return v, err
	}
	if v.TestRunning {
		reason := fmt.Sprintf("VPG %s is already in a failover test: stop it before starting another", v.Name)
		if mode == ModeRestore {
			reason = fmt.Sprintf("VPG %s is in a failover test: stop the test before restoring", v.Name)
		}
		return v, &StateError{VPG: v.Name, State: "in a failover test", TestRunning: true, Reason: reason}
	}
	return v, nil
}

func (s *Service) vpg(ctx context.Context, p Point) (zvm.VPG, error) {
	v, err := s.Z.VPG(ctx, p.VPGIdentifier)
	if err != nil {
		return zvm.VPG{}, fmt.Errorf("reading VPG %s: %w", p.VPG, err)
	}
	return v, nil
}

// canRecover refuses a VPG that is failing over, moving, being deleted or
// already recovered: Zerto cannot test or restore it then.
func canRecover(v zvm.VPG) error {
	bad := false
	switch v.Status {
	case zvm.StatusInitializing, zvm.StatusFailingOver, zvm.StatusMoving, zvm.StatusDeleting, zvm.StatusRecovered:
		bad = true
	}
	switch v.SubStatus {
	case zvm.SubStatusFailingOverCommitting, zvm.SubStatusFailingOverBeforeCommit, zvm.SubStatusFailingOverRollingBack,
		zvm.SubStatusMovingCommitting, zvm.SubStatusMovingBeforeCommit, zvm.SubStatusMovingRollingBack,
		zvm.SubStatusDeleting, zvm.SubStatusPendingRemove, zvm.SubStatusRollingBack:
		bad = true
	}
	if !bad {
		return nil
	}
	state := v.Status.String()
	if v.SubStatus != zvm.SubStatusNone {
		state += "/" + v.SubStatus.String()
	}
	return &StateError{VPG: v.Name, State: state,
		Reason: fmt.Sprintf("VPG %s is %s: Zerto cannot test or restore it until that ends", v.Name, state)}
}

// inJournal checks that p's checkpoint is still in its VPG's journal, so
// that an aged-out checkpoint is reported as such before anything is sent.
func (s *Service) inJournal(ctx context.Context, p Point) error {
	var from, to time.Time
	if !p.Time.IsZero() {
		// A window around the checkpoint's time keeps the list short.
		from, to = p.Time.Add(-time.Minute), p.Time.Add(time.Minute)
	}
	cps, err := s.Z.Checkpoints(ctx, p.VPGIdentifier, from, to)
	if err != nil {
		return fmt.Errorf("reading the journal of VPG %s: %w", p.VPG, err)
	}
	for _, cp := range cps {
		if cp.Identifier == p.Checkpoint {
			return nil
		}
	}
	stats, err := s.Z.CheckpointStats(ctx, p.VPGIdentifier)
	if err != nil {
		return fmt.Errorf("reading the journal of VPG %s: %w", p.VPG, err)
	}
	return &AgedOutError{Point: p, Earliest: stats.Earliest.Time}
}

// follow polls a task until it ends or waits for the user, showing each
// state to progress (see zvm.Client.WaitTask).
func (s *Service) follow(ctx context.Context, id string, progress func(zvm.Task)) (zvm.Task, error) {
	return s.Z.WaitTask(ctx, id, s.poll(), progress)
}

// record appends the outcome of a rewind to the audit log.
func (s *Service) record(res *Result, err error) {
	if s.Log == nil {
		return
	}
	p := res.Point
	tool := s.Tool
	if tool == "" {
		tool = DefaultTool
	}
	name := p.AuditID
	if name == "" {
		name = p.Checkpoint
	}
	rec := &audit.Record{
		Tool:     tool,
		Excerpt:  fmt.Sprintf("%s %s --%s", tool, name, res.Mode),
		Targets:  p.VMNames(),
		Rewinds:  p.AuditID,
		Decision: map[string]string{ModeTest: audit.DecisionUndoTest, ModeStopTest: audit.DecisionUndoStopTest, ModeRestore: audit.DecisionUndoRestore}[res.Mode],
		Reason:   summary(res),
	}
	for _, vm := range p.VMs {
		rec.Checkpoints = append(rec.Checkpoints, audit.Checkpoint{
			VM: vm.Name, VMIdentifier: vm.Identifier, VPG: p.VPG, VPGIdentifier: p.VPGIdentifier,
			Identifier: p.Checkpoint, Tag: p.Tag, Time: p.Time,
		})
	}
	if err != nil {
		rec.Decision = audit.DecisionUndoFailed
		rec.Error = err.Error()
		var ze *zvm.Error
		if errors.As(err, &ze) {
			rec.ZertoError = ze.Message
		}
	}
	// The log must not hold a rewind up for long: a stuck lock costs the
	// record, not the result.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if aerr := s.Log.AppendContext(ctx, rec); aerr != nil && s.Warnf != nil {
		s.Warnf("audit log: %v", aerr)
	}
}

// summary says what a rewind did, in a sentence for the log.
func summary(res *Result) string {
	p := res.Point
	cp := p.Checkpoint
	if p.Tag != "" {
		cp = fmt.Sprintf("%q (%s)", p.Tag, p.Checkpoint)
	}
	vms := strings.Join(p.VMNames(), ", ")
	switch res.Mode {
	case ModeTest:
		return fmt.Sprintf("failover test of VPG %s from checkpoint %s for %s", p.VPG, cp, vms)
	case ModeStopTest:
		return fmt.Sprintf("stop of the failover test of VPG %s", p.VPG)
	default:
		return fmt.Sprintf("journal restore of %s (VPG %s) to checkpoint %s", vms, p.VPG, cp)
	}
}
