package zvmsim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Checkpoint is a point in a VPG's journal that its VMs can be rewound to.
type Checkpoint struct {
	// ID is the CheckpointIdentifier: a decimal number that grows with time.
	ID   string
	Time time.Time
	// Tag is the name given by a tagged insert; empty for the automatic
	// checkpoints written at every cadence tick.
	Tag string
}

type vpgState struct {
	cfg                 VPG
	protected, recovery *Site
	status              VPGStatus
	sub                 VPGSubStatus
	insertFailure       string
	insertRejection     string
	insertTickFailure   string
	checkpoints         []Checkpoint
	// pending are the insert tasks whose tags land at the next tick.
	pending []*task
	// test is the running failover test, if any.
	test     *failoverTest
	lastTest time.Time
	// failover is the live failover awaiting commit or rollback, if any.
	failover *liveFailover
	// history is the journal's retention set by SetJournalHistory; zero
	// means maxHistory.
	history time.Duration
	// deep is the journal's past before the simulator started, when it is
	// longer than the simulator stores; nil otherwise.
	deep *deepHistory
}

type failoverTest struct {
	checkpoint Checkpoint
	vms        []*vmState // the test VMs, on the recovery site
}

type liveFailover struct {
	checkpoint Checkpoint
	prevStatus VPGStatus
	prevSub    VPGSubStatus
	committed  bool
}

// refusal is the reason the VPG cannot write checkpoints now, or "".
func (v *vpgState) refusal() string {
	switch {
	case v.sub.paused():
		return fmt.Sprintf("VPG %s replication is paused (%s).", v.cfg.Name, v.sub)
	case v.failover != nil && !v.failover.committed:
		return fmt.Sprintf("VPG %s is failing over.", v.cfg.Name)
	}
	switch v.status {
	case StatusInitializing, StatusFailingOver, StatusMoving, StatusDeleting, StatusRecovered:
		return fmt.Sprintf("VPG %s is in status %s.", v.cfg.Name, v.status)
	}
	return ""
}

func (v *vpgState) checkpoint(id string, now time.Time) (Checkpoint, bool) {
	for i := len(v.checkpoints) - 1; i >= 0; i-- {
		if v.checkpoints[i].ID == id {
			return v.checkpoints[i], true
		}
	}
	if v.deep != nil {
		return v.deep.find(id, now, v.deepRetention())
	}
	return Checkpoint{}, false
}

func (v *vpgState) latest(now time.Time) (Checkpoint, bool) {
	if len(v.checkpoints) > 0 {
		return v.checkpoints[len(v.checkpoints)-1], true
	}
	if v.deep != nil {
		if lo, hi := v.deep.span(time.Time{}, time.Time{}, now, v.deepRetention()); lo < hi {
			return v.deep.at(hi - 1), true
		}
	}
	return Checkpoint{}, false
}

// earliest is the journal's oldest checkpoint.
func (v *vpgState) earliest(now time.Time) (Checkpoint, bool) {
	if v.deep != nil {
		if lo, hi := v.deep.span(time.Time{}, time.Time{}, now, v.deepRetention()); lo < hi {
			return v.deep.at(lo), true
		}
	}
	if len(v.checkpoints) > 0 {
		return v.checkpoints[0], true
	}
	return Checkpoint{}, false
}

// backfill writes the history a VPG has when the server starts: checkpoints
// at its cadence up to the first live tick, reaching back History, at least
// 12 of them so a client can estimate the cadence even of a slow journal.
// A History longer than the simulator stores is a deep history, computed
// when asked for (see deepHistory).
func (s *Server) backfill(v *vpgState, first time.Time) {
	cadence := time.Duration(v.cfg.Cadence)
	if n, deep := deepFor(v.cfg); deep {
		v.deep = &deepHistory{first: first, cadence: cadence, n: n, base: s.nextCheckpoint + 1}
		s.nextCheckpoint += n
		return
	}
	n := int(time.Duration(v.cfg.History) / cadence)
	n = max(n, 12)
	n = min(n, maxCheckpoints, int(maxHistory/cadence))
	for k := n; k >= 1; k-- {
		t := first.Add(-time.Duration(k) * cadence).UTC().Truncate(time.Millisecond)
		v.checkpoints = append(v.checkpoints, Checkpoint{ID: s.newCheckpointID(), Time: t})
	}
}

// runJournal writes v's checkpoints at its cadence until the server closes.
func (s *Server) runJournal(v *vpgState, first time.Time) {
	defer s.wg.Done()
	cadence := time.Duration(v.cfg.Cadence)
	next := first
	t := time.NewTimer(time.Until(next))
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		s.tickLocked(v)
		s.mu.Unlock()
		// Skip ticks missed while the process was stopped or starved, as a
		// journal does not write checkpoints in the past.
		now := time.Now()
		for !next.After(now) {
			next = next.Add(cadence)
		}
		t.Reset(time.Until(next))
	}
}

// tickLocked writes the checkpoints of one cadence tick: one per pending tag,
// each completing its insert task, or a single automatic checkpoint when no
// tag is pending. A VPG that cannot write checkpoints writes none.
func (s *Server) tickLocked(v *vpgState) []Checkpoint {
	if v.refusal() != "" {
		return nil
	}
	now := s.now()
	var written []Checkpoint
	for _, t := range v.pending {
		if v.insertTickFailure != "" {
			t.fail(now, v.insertTickFailure)
			continue
		}
		cp := Checkpoint{ID: s.newCheckpointID(), Time: now, Tag: t.tag}
		written = append(written, cp)
		t.complete(now)
	}
	if len(written) == 0 {
		written = append(written, Checkpoint{ID: s.newCheckpointID(), Time: now})
	}
	v.pending = nil
	v.checkpoints = append(v.checkpoints, written...)
	// Keep memory bounded: the newest maxCheckpoints, none older than
	// the journal's retention.
	v.trimLocked(now)
	return written
}

// writeTagLocked writes t's tagged checkpoint now, out of the cadence,
// completing t: a ZVM that does not wait for the journal's next tick.
func (s *Server) writeTagLocked(v *vpgState, t *task) {
	now := s.now()
	v.checkpoints = append(v.checkpoints, Checkpoint{ID: s.newCheckpointID(), Time: now, Tag: t.tag})
	t.complete(now)
}

// WriteCheckpoint makes a VPG's journal tick now, out of its cadence: it
// writes the pending tagged checkpoints (completing their tasks) or one
// automatic checkpoint, and returns what it wrote. Tests use it to land a
// tag without waiting. A VPG that cannot write checkpoints returns an error.
func (s *Server) WriteCheckpoint(vpgName string) ([]Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vpgByName(vpgName)
	if v == nil {
		return nil, errUnknownVPG(vpgName)
	}
	if r := v.refusal(); r != "" {
		return nil, errors.New("zvmsim: " + r)
	}
	return s.tickLocked(v), nil
}

// Checkpoints returns a VPG's journal, oldest first, its deep history
// (see Scenario's VPG.History) included.
func (s *Server) Checkpoints(vpgName string) ([]Checkpoint, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vpgByName(vpgName)
	if v == nil {
		return nil, errUnknownVPG(vpgName)
	}
	var cps []Checkpoint
	if v.deep != nil {
		lo, hi := v.deep.span(time.Time{}, time.Time{}, s.now(), v.deepRetention())
		for k := lo; k < hi; k++ {
			cps = append(cps, v.deep.at(k))
		}
	}
	return append(cps, v.checkpoints...), nil
}

// VPGIdentifier returns the identifier of the VPG named name, or "".
func (s *Server) VPGIdentifier(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.vpgByName(name); v != nil {
		return v.cfg.ID
	}
	return ""
}

// VMIdentifier returns the identifier of the protected VM named name, or "".
func (s *Server) VMIdentifier(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, vm := range s.vms {
		if vm.testOf == nil && strings.EqualFold(vm.name, name) {
			return vm.id
		}
	}
	return ""
}

func (s *Server) newCheckpointID() string {
	s.nextCheckpoint++
	return strconv.FormatInt(s.nextCheckpoint, 10)
}

func (s *Server) vpgByName(name string) *vpgState {
	for _, v := range s.vpgs {
		if strings.EqualFold(v.cfg.Name, name) {
			return v
		}
	}
	return nil
}

func (s *Server) vpgByID(id string) *vpgState {
	for _, v := range s.vpgs {
		if strings.EqualFold(v.cfg.ID, id) {
			return v
		}
	}
	return nil
}

type vmState struct {
	id, name string
	vpg      *vpgState
	site     *Site // where the VM runs
	// testOf is the protected VM a failover-test VM was recovered from.
	testOf *vmState
	// recovered is the checkpoint this VM was last recovered to by a
	// failover test, journal restore or failover, with the operation.
	recovered *Checkpoint
	operation string
	restoring bool // a journal restore awaits commit or rollback
	// restoreTask is the task of the VM's journal restore while it runs or
	// awaits commit or rollback.
	restoreTask *task
}

// newVMID returns the next VM identifier on a site: "<site id>.vm-38" on
// vSphere, with the platform's own VM reference elsewhere.
func (s *Server) newVMID(site *Site) string {
	s.nextVM[site.ID]++
	return site.ID + "." + site.Type.vmRef(37+s.nextVM[site.ID])
}

// Task types as ZVMs name them in TaskApi.Type.
const (
	taskInsertTaggedCP   = "InsertTaggedCP"
	taskFailOverTest     = "FailOverTest"
	taskStopFailOverTest = "StopFailOverTest"
	taskFailOver         = "FailoverBeforeCommit"
	taskFailoverCommit   = "FailoverCommit"
	taskFailoverRollback = "FailoverRollback"
	taskRestore          = "JournalVmRestore"
	taskRestoreCommit    = "JournalVmRestoreCommit"
	taskRestoreRollback  = "JournalVmRestoreRollback"
)

type task struct {
	id          string
	typ         string
	state       TaskState
	progress    int
	started     time.Time
	completed   time.Time
	reason      string
	initiatedBy string
	vpg         *vpgState
	tag         string
	// run, for a task that takes a while, is how it proceeds.
	run *taskRun
}

func (t *task) complete(now time.Time) {
	t.state, t.progress, t.completed = TaskCompleted, 100, now
}

func (t *task) fail(now time.Time, reason string) {
	t.state, t.completed, t.reason = TaskFailed, now, reason
}

// newTaskLocked records a task in progress. Task identifiers are the local
// site's identifier and a task GUID, as on a ZVM.
func (s *Server) newTaskLocked(typ string, v *vpgState, by string) *task {
	s.nextTask++
	t := &task{
		id:          s.local.ID + "." + derivedGUID("task", fmt.Sprintf("%s/%d/%d", s.sc.Name, s.start.UnixNano(), s.nextTask)),
		typ:         typ,
		state:       TaskInProgress,
		started:     s.now(),
		initiatedBy: by,
		vpg:         v,
	}
	if len(s.tasks) >= maxTasks {
		// Drop the oldest finished task; unfinished ones are still polled.
		i := slices.IndexFunc(s.tasks, func(t *task) bool { return t.state != TaskInProgress })
		if i < 0 {
			i = 0
		}
		s.tasks = slices.Delete(s.tasks, i, i+1)
	}
	s.tasks = append(s.tasks, t)
	return t
}

func (s *Server) taskByID(id string) *task {
	for _, t := range s.tasks {
		if strings.EqualFold(t.id, id) {
			return t
		}
	}
	return nil
}
