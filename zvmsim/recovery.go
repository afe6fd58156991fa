package zvmsim

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// DefaultTaskSteps is how many reads of a failover test's or journal
// restore's task see it in progress before it ends (see SetTaskSteps).
const DefaultTaskSteps = 3

// taskRun is how a task that takes a while proceeds: a ZVM's failover test
// or journal restore runs for minutes, and a client follows it by polling.
// The simulator moves such a task one step on each read of it, so a poller
// sees it in progress and then ended whatever its poll interval, and tests
// need no clock.
type taskRun struct {
	left, steps int
	// finish ends the task: it sets its final state and makes the
	// operation's last effects.
	finish func(t *task, now time.Time)
}

// SetTaskSteps sets how many reads of a failover test's, test stop's or
// journal restore's task (GET /v1/tasks/{id} or a listing that includes
// it) see it in progress before it ends; 0 ends such tasks at once. It
// applies to tasks started from then on.
func (s *Server) SetTaskSteps(n int) {
	if n < 0 {
		panic("zvmsim: negative task steps")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.taskSteps = &n
}

func (s *Server) taskStepsLocked() int {
	if s.taskSteps == nil {
		return DefaultTaskSteps
	}
	return *s.taskSteps
}

// runningTaskLocked starts a task that ends through finish after the
// configured number of reads.
func (c *call) runningTaskLocked(typ string, v *vpgState, finish func(t *task, now time.Time)) *task {
	s := c.s
	t := s.newTaskLocked(typ, v, c.user)
	n := s.taskStepsLocked()
	if n == 0 {
		finish(t, s.now())
		return t
	}
	t.run = &taskRun{left: n, steps: n, finish: finish}
	return t
}

// advanceLocked moves a running task one step: a read of it shows the
// progress so far, and the read after the last step shows how it ended.
func (s *Server) advanceLocked(t *task) {
	r := t.run
	if r == nil || t.state != TaskInProgress {
		return
	}
	if r.left == 0 {
		t.run = nil
		r.finish(t, s.now())
		return
	}
	t.progress = 100 * (r.steps - r.left + 1) / (r.steps + 1)
	r.left--
}

func completeTask(t *task, now time.Time) { t.complete(now) }

// awaitCommit ends a journal restore's task the way Zerto does when it
// waits for RestoreCommit or RestoreRollback.
func awaitCommit(t *task, now time.Time) {
	t.state, t.progress = TaskWaitingForUserInput, 100
}

// SetJournalHistory sets how long a VPG's journal keeps its checkpoints,
// as its Journal History setting does on a ZVM (24 hours at most here):
// checkpoints older than d are dropped now and at every tick, so a rewind
// to them finds them aged out. Zero restores the simulator's bound.
func (s *Server) SetJournalHistory(vpgName string, d time.Duration) error {
	if d < 0 {
		return errors.New("zvmsim: negative journal history")
	}
	return s.changeVPG(vpgName, func(v *vpgState) {
		v.history = d
		v.trimLocked(s.now())
	})
}

// retention is how long v's journal keeps a checkpoint.
func (v *vpgState) retention() time.Duration {
	if v.history > 0 && v.history < maxHistory {
		return v.history
	}
	return maxHistory
}

// trimLocked drops the checkpoints past the journal's bounds: the newest
// maxCheckpoints, none older than its retention.
func (v *vpgState) trimLocked(now time.Time) {
	drop := max(0, len(v.checkpoints)-maxCheckpoints)
	for drop < len(v.checkpoints) && now.Sub(v.checkpoints[drop].Time) > v.retention() {
		drop++
	}
	v.checkpoints = slices.Delete(v.checkpoints, 0, drop)
}

// RunningTest reports a VPG's failover test: the checkpoint it recovered
// from and the names of its test VMs, and whether one is running.
func (s *Server) RunningTest(vpgName string) (cp Checkpoint, testVMs []string, running bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vpgByName(vpgName)
	if v == nil || v.test == nil {
		return Checkpoint{}, nil, false
	}
	for _, vm := range v.test.vms {
		testVMs = append(testVMs, vm.name)
	}
	return v.test.checkpoint, testVMs, true
}

// VMRecovery reports the checkpoint the protected VM named vmName was last
// restored or failed over to, and how: "Restore" (awaiting commit or
// rollback), "RestoreCommitted", "Failover", "FailoverCommitted". ok is
// false for a VM that was never recovered, or whose restore was rolled back.
func (s *Server) VMRecovery(vmName string) (cp Checkpoint, operation string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, vm := range s.vms {
		if vm.testOf == nil && strings.EqualFold(vm.name, vmName) && vm.recovered != nil {
			return *vm.recovered, vm.operation, true
		}
	}
	return Checkpoint{}, "", false
}

// restoringVMLocked returns a VM of v whose journal restore awaits its end,
// or nil.
func (s *Server) restoringVMLocked(v *vpgState) *vmState {
	for _, vm := range s.vms {
		if vm.vpg == v && vm.restoring {
			return vm
		}
	}
	return nil
}
