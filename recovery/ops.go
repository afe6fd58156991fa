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

// The choices rewind makes in every journal VM restore request. Zerto's
// Python SDK (ZertoPublic/zvml-python-sdk, VMs.restore_vm) always sends
// these fields, and the spec's JournalVMRestoreDataApi names them; rewind
// leaves none of them to the ZVM's defaults. docs/undo.md says what is and
// is not known about each.
const (
	// RestoreCommitPolicy waits for rewind's RestoreCommit (2, None), so
	// that Zerto keeps nothing rewind has not looked at.
	RestoreCommitPolicy = zvm.CommitNone
	// RestoreShutdownPolicy shuts the running VM down gracefully (1) before
	// its disks go back.
	RestoreShutdownPolicy = zvm.ShutdownGraceful
	// RestoreWait is timeToWaitBeforeContinueInSeconds: how long Zerto
	// waits before it goes on (for a graceful shutdown, under the policy).
	RestoreWait = 5 * time.Minute
)

// test starts a failover test of p's VPG from p.Checkpoint for p.VMs and
// follows its task. The test copies come up on the VPG's recovery site,
// beside the running VMs, which it does not touch. It is sent through op
// when there is one (a person's session), else with the hook's client.
func (s *Service) test(ctx context.Context, p Point, op *Operator, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: ModeTest, Point: p, As: op.user()}
	defer func() { s.record(&res, err) }()
	v, err := s.preflight(ctx, p, ModeTest)
	if err != nil {
		return res, err
	}
	ids := make([]string, len(p.VMs))
	for i, vm := range p.VMs {
		ids[i] = vm.Identifier
	}
	task, err := s.client(op).FailoverTest(ctx, p.VPGIdentifier, p.Checkpoint, ids)
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

// stopTest stops the failover test running on p's VPG, through op when
// there is one, and follows the stop's task. passed, when not nil, is what
// Zerto's test report records of the test; nil leaves it unsaid, since
// rewind does not know.
func (s *Service) stopTest(ctx context.Context, p Point, op *Operator, owner TestOwner, passed *bool, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: ModeStopTest, Point: p, As: op.user()}
	defer func() { s.record(&res, err) }()
	if _, err := s.preflight(ctx, p, ModeStopTest); err != nil {
		return res, err
	}
	summary := "stopped by rewind"
	switch {
	case !owner.Rewind && owner.By != "":
		summary += " as a person confirmed: a test started by " + owner.By
	case !owner.Rewind:
		summary += " as a person confirmed"
	case p.Tag != "":
		summary += ": test of rewind point " + p.Tag
	}
	task, err := s.client(op).FailoverTestStop(ctx, p.VPGIdentifier, passed, summary)
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

// restore journal-restores each VM of p to p.Checkpoint through op, and
// commits each restore that waits for one, whatever its task said: a ZVM
// may complete the restore's task when the restored VM is up and still
// wait for the commit, or leave the task WaitingForUserInput; rewind sends
// RestoreCommit either way, and calls a VM committed once the commit's
// task completed. A restore rewind stops following is a *WaitsError,
// which says what waits in Zerto and how to finish or undo it.
//
// VMs are restored one after the other; a VM whose restore fails stops
// the rest.
func (s *Service) restore(ctx context.Context, p Point, op *Operator, before Point, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: ModeRestore, Point: p, Before: before, As: op.user()}
	defer func() { s.record(&res, err) }()
	if op == nil {
		return res, errNoOperator
	}
	if _, err := s.preflight(ctx, p, ModeRestore); err != nil {
		return res, err
	}
	for _, vm := range p.VMs {
		// The restored VM keeps the name Zerto knows it by now.
		name := vm.Name
		if cur, err := s.Z.VMOfVPG(ctx, vm.Identifier, p.VPGIdentifier); err == nil && cur.Name != "" {
			name = cur.Name
		}
		task, err := op.z.Restore(ctx, vm.Identifier, zvm.RestoreOptions{
			VPGIdentifier: p.VPGIdentifier, CheckpointIdentifier: p.Checkpoint, RestoredVMName: name,
			CommitPolicy: RestoreCommitPolicy, ShutdownPolicy: RestoreShutdownPolicy, Wait: RestoreWait,
		})
		if err != nil {
			return res, fmt.Errorf("restoring VM %s: %w", vm.Name, err)
		}
		res.Task = task
		t, err := s.follow(ctx, task, progress)
		res.State = t.State.String()
		if zvm.KindOf(err) == zvm.KindTaskFailed {
			return res, fmt.Errorf("restoring VM %s: %w", vm.Name, err)
		}
		if err != nil {
			// Zerto has the restore and goes on without us: once
			// restored, the VM waits for a commit or a rollback.
			return res, s.waits(p, vm, task, t, err)
		}
		commit, err := op.z.RestoreCommit(ctx, vm.Identifier, p.VPGIdentifier)
		if err != nil {
			return res, s.waits(p, vm, task, t, fmt.Errorf("the commit was refused: %w", err))
		}
		res.Task = commit
		ct, err := s.follow(ctx, commit, progress)
		res.State = ct.State.String()
		if err != nil || ct.State != zvm.TaskCompleted {
			if err == nil {
				err = fmt.Errorf("the commit's task is %s", ct.State)
			}
			return res, s.waits(p, vm, commit, ct, fmt.Errorf("committing: %w", err))
		}
		res.Committed = append(res.Committed, vm.Name)
	}
	return res, nil
}

// endRestore commits (commit) or rolls back each VM of p whose journal
// restore waits for it, through op. Zerto refuses one for a VM that waits
// for nothing, with its own message.
func (s *Service) endRestore(ctx context.Context, p Point, op *Operator, mode string, progress func(zvm.Task)) (res Result, err error) {
	res = Result{Mode: mode, Point: p, As: op.user()}
	defer func() { s.record(&res, err) }()
	if op == nil {
		return res, errNoOperator
	}
	if _, err := s.preflight(ctx, p, mode); err != nil {
		return res, err
	}
	end, doing := op.z.RestoreCommit, "committing"
	if mode == ModeRollback {
		end, doing = op.z.RestoreRollback, "rolling back"
	}
	for _, vm := range p.VMs {
		task, err := end(ctx, vm.Identifier, p.VPGIdentifier)
		if err != nil {
			return res, fmt.Errorf("%s the restore of VM %s: %w", doing, vm.Name, err)
		}
		res.Task = task
		t, err := s.follow(ctx, task, progress)
		res.State = t.State.String()
		if err != nil {
			return res, fmt.Errorf("%s the restore of VM %s: %w", doing, vm.Name, err)
		}
		res.Committed = append(res.Committed, vm.Name)
	}
	return res, nil
}

var errNoOperator = errors.New("this runs with a person's own Zerto credentials, and none were given: nothing was changed")

// waits builds the *WaitsError of vm's restore, with what Zerto shows of
// the VM and its VPG now.
func (s *Service) waits(p Point, vm VM, task string, t zvm.Task, cause error) *WaitsError {
	e := &WaitsError{VM: vm.Name, VPG: p.VPG, Task: task, State: t.State.String(), Err: cause,
		Commit: commandFor(p, ModeCommit), Rollback: commandFor(p, ModeRollback)}
	if t.Identifier == "" {
		e.State = "state unknown"
	}
	// The reads are Zerto's word on the VM now; they get a moment of their
	// own, since the caller's context may be what ended.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var shown []string
	if v, err := s.Z.VPG(ctx, p.VPGIdentifier); err == nil {
		shown = append(shown, fmt.Sprintf("VPG %s %s", v.Name, stateOf(v.Status, v.SubStatus)))
	}
	if m, err := s.Z.VMOfVPG(ctx, vm.Identifier, p.VPGIdentifier); err == nil {
		shown = append(shown, fmt.Sprintf("VM %s %s", m.Name, stateOf(m.Status, m.SubStatus)))
	}
	e.Zerto = strings.Join(shown, ", ")
	return e
}

func stateOf(st zvm.VPGStatus, sub zvm.VPGSubStatus) string {
	if sub == zvm.SubStatusNone {
		return st.String()
	}
	return st.String() + "/" + sub.String()
}

// commandFor is the `rewind undo` command of mode for p.
func commandFor(p Point, mode string) string {
	if p.AuditID == "" {
		return Command(p.Checkpoint, true, mode, []string{p.VPG})
	}
	return Command(p.AuditID, false, mode, []string{p.VPG})
}

// Command is the `rewind undo` command line that runs mode for id (a
// CheckpointIdentifier when checkpoint is set) in vpgs, quoted for a shell
// where a name needs it: the command a front end tells a person to run in
// their terminal.
func Command(id string, checkpoint bool, mode string, vpgs []string) string {
	var b strings.Builder
	b.WriteString("rewind undo ")
	if checkpoint {
		b.WriteString("--checkpoint ")
	}
	b.WriteString(shellWord(id) + " --" + mode)
	for _, v := range vpgs {
		b.WriteString(" --vpg " + shellWord(v))
	}
	return b.String()
}

// shellWord quotes s for a POSIX shell when it holds anything but letters,
// digits and -._:/@.
func shellWord(s string) string {
	s = oneLine(s)
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._:/@", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
	case ModeRollback, ModeCommit:
		// Nothing to check in the journal: Zerto says whether a restore
		// waits, and refuses the end of one that does not.
		if len(p.VMs) == 0 {
			return zvm.VPG{}, fmt.Errorf("rewind point of VPG %s names no VM", p.VPG)
		}
		return s.vpg(ctx, p)
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
	state := stateOf(v.Status, v.SubStatus)
	return &StateError{VPG: v.Name, State: state,
		Reason: fmt.Sprintf("VPG %s is %s: Zerto cannot test or restore it until that ends", v.Name, state)}
}

// ageSlack is how much younger than the journal's history a missing
// checkpoint must be to count as emptied, not aged out: Zerto states the
// history in whole minutes, and trims the journal as it goes.
const ageSlack = 2 * time.Minute

// inJournal checks that p's checkpoint is still in its VPG's journal, so
// that one no longer there is reported before anything is sent: aged out,
// or emptied by a re-sync when it was younger than the journal's history.
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
	e := &AgedOutError{Point: p, Earliest: stats.Earliest.Time}
	if v, err := s.Z.VPG(ctx, p.VPGIdentifier); err == nil {
		e.History, e.SubStatus = v.JournalHistory, v.SubStatus.String()
		if !p.Time.IsZero() && e.History > 0 {
			e.Emptied = s.Z.Now().Sub(p.Time) < e.History-ageSlack
		}
	}
	return e
}

// follow polls a task until it ends or waits for the user, showing each
// state to progress (see zvm.Client.WaitTask).
func (s *Service) follow(ctx context.Context, id string, progress func(zvm.Task)) (zvm.Task, error) {
	return s.Z.WaitTask(ctx, id, s.poll(), progress)
}

func (s *Service) tool() string {
	if s.Tool == "" {
		return DefaultTool
	}
	return s.Tool
}

// record appends the outcome of a rewind to the audit log.
func (s *Service) record(res *Result, err error) {
	if s.Log == nil {
		return
	}
	p := res.Point
	tool := s.tool()
	name := p.AuditID
	if name == "" {
		name = p.Checkpoint
	}
	rec := &audit.Record{
		Tool:    tool,
		Excerpt: fmt.Sprintf("%s %s --%s", tool, name, res.Mode),
		Targets: p.VMNames(),
		Rewinds: p.AuditID,
		Task:    res.Task,
		Decision: map[string]string{ModeTest: audit.DecisionUndoTest, ModeStopTest: audit.DecisionUndoStopTest,
			ModeRestore: audit.DecisionUndoRestore, ModeRollback: audit.DecisionUndoRollback, ModeCommit: audit.DecisionUndoCommit}[res.Mode],
		Reason: summary(res),
	}
	if res.As != "" {
		rec.Reason += "; run as Zerto user " + oneLine(res.As)
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
	s.append(rec)
}

// append writes rec to the audit log. The log must not hold a rewind up
// for long: a stuck lock costs the record, not the result.
func (s *Service) append(rec *audit.Record) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if aerr := s.Log.AppendContext(ctx, rec); aerr != nil && s.Logger != nil {
		s.Logger.Warn("audit log", "err", aerr)
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
	case ModeRollback:
		return fmt.Sprintf("rollback of the journal restore of %s (VPG %s)", vms, p.VPG)
	case ModeCommit:
		return fmt.Sprintf("commit of the journal restore of %s (VPG %s)", vms, p.VPG)
	}
	s := fmt.Sprintf("journal restore of %s (VPG %s) to checkpoint %s", vms, p.VPG, cp)
	if res.Before.AuditID != "" {
		s += fmt.Sprintf("; the checkpoint of the VMs just before it is %q (rewind undo %s --restore)", res.Before.Tag, res.Before.AuditID)
	}
	return s
}
