package zvmsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
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

// RestoreRequest is the body of a journal VM restore as the simulator
// received it: every field of the spec's JournalVMRestoreDataApi. Null
// fields are nil.
type RestoreRequest struct {
	VpgIdentifier                     string
	CheckpointIdentifier              string
	RestoredVmName                    *string
	CommitPolicy                      *int
	ShutdownPolicy                    *int
	TimeToWaitBeforeContinueInSeconds *int
	JournalVMRestoreSettings          *RestoreSettings
}

// RestoreSettings is the spec's JournalVMRestoreSettingsDataApi: where the
// restored VM is placed. Null fields keep that part as it is.
type RestoreSettings struct {
	DatastoreIdentifier *string
	Nics                []map[string]any
	Volumes             []map[string]any
}

// The journal VM restore commit policies, numbered as in the spec's
// JournalVMRestoreCommitPolicyApi (those of a failover).
const (
	restoreRollback = 0
	restoreCommit   = 1
	restoreNone     = 2
)

// LastRestore returns the body of the latest journal restore request the
// protected VM named vmName received, whatever its outcome.
func (s *Server) LastRestore(vmName string) (RestoreRequest, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.restores[strings.ToLower(vmName)]
	return r, ok
}

// startRestoreLocked starts vm's journal restore to cp as body asks and
// returns its task. How the task ends follows the commit policy: with
// Commit the VM is kept at the end, otherwise it waits for RestoreCommit
// or RestoreRollback. The task of such a wait is WaitingForUserInput, or,
// with Strict.RestoreCompletesBeforeCommit, Completed: the restored VM is
// up, and Zerto still waits for the commit.
func (c *call) startRestoreLocked(vm *vmState, cp Checkpoint, body RestoreRequest) *task {
	s := c.s
	if s.restores == nil {
		s.restores = map[string]RestoreRequest{}
	}
	s.restores[strings.ToLower(vm.name)] = body
	vm.recovered, vm.operation, vm.restoring = &cp, "Restore", true
	finish := awaitCommit
	switch {
	case body.CommitPolicy != nil && *body.CommitPolicy == restoreCommit:
		// Commit: the restore keeps the VM as soon as it is done.
		finish = func(t *task, now time.Time) {
			vm.restoring, vm.operation, vm.restoreTask = false, "RestoreCommitted", nil
			t.complete(now)
		}
	case s.strict.RestoreCompletesBeforeCommit:
		finish = completeTask
	}
	vm.restoreTask = c.runningTaskLocked(taskRestore, vm.vpg, finish)
	return vm.restoreTask
}

// restoringElsewhereLocked returns a VPG other than vm's in which the same
// VM (one VmIdentifier) is being restored: one VM is restored once.
func (s *Server) restoringElsewhereLocked(vm *vmState) *vpgState {
	for _, o := range s.vms {
		if o != vm && o.testOf == nil && strings.EqualFold(o.id, vm.id) && o.restoring {
			return o.vpg
		}
	}
	return nil
}

// StartTest starts a failover test of the VPG from checkpoint cpID (the
// latest when "") as user by, the way a person in Zerto's console starts a
// drill: the request goes through the API like any other, and its task
// names them in InitiatedBy. It returns the test's task, or Zerto's
// refusal.
func (s *Server) StartTest(vpgName, cpID, by string) (taskID string, err error) {
	s.mu.Lock()
	v := s.vpgByName(vpgName)
	if v == nil {
		s.mu.Unlock()
		return "", errUnknownVPG(vpgName)
	}
	id, tok := v.cfg.ID, newSecret()
	s.tokens[tok] = token{expires: time.Now().Add(time.Minute), subject: by, clientID: DefaultPublicClient, scope: "openid"}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.tokens, tok)
		s.mu.Unlock()
	}()
	body, _ := json.Marshal(map[string]string{"CheckpointIdentifier": cpID})
	req, err := http.NewRequest(http.MethodPost, "/v1/vpgs/"+id+"/FailoverTest", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	w := &bufferWriter{header: http.Header{}}
	s.ServeHTTP(w, req)
	if w.status != http.StatusOK {
		return "", fmt.Errorf("zvmsim: %s", bytes.TrimSpace(w.body.Bytes()))
	}
	if err := json.Unmarshal(w.body.Bytes(), &taskID); err != nil {
		return "", fmt.Errorf("zvmsim: FailoverTest answered %s", w.body.Bytes())
	}
	return taskID, nil
}

// bufferWriter keeps an answer of the Server's own handler.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// TestStop is the body of a failover test's stop as the simulator
// received it; nil fields were not sent.
type TestStop struct {
	FailoverTestSuccess *bool
	FailoverTestSummary *string
}

func (s *Server) recordStopLocked(v *vpgState, success *bool, summary *string) {
	if s.stops == nil {
		s.stops = map[*vpgState]TestStop{}
	}
	s.stops[v] = TestStop{FailoverTestSuccess: success, FailoverTestSummary: summary}
}

// LastTestStop returns the body of the latest stop of the VPG's failover
// test: what Zerto's test report says of it.
func (s *Server) LastTestStop(vpgName string) (TestStop, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.stops[s.vpgByName(vpgName)]
	return st, ok
}

// Resync empties a VPG's journal the way a re-sync does: every checkpoint
// it holds is gone, and the journal fills again from the next tick.
func (s *Server) Resync(vpgName string) error {
	return s.changeVPG(vpgName, func(v *vpgState) {
		v.checkpoints = v.checkpoints[:0]
	})
}
