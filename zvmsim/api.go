package zvmsim

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// apiError is a ZVM error answer.
type apiError struct{ Message string }

func fail(status int, format string, args ...any) (int, any) {
	return status, apiError{fmt.Sprintf(format, args...)}
}

// locked runs fn under the server's lock and then writes its answer, so no
// client's slow read holds the lock.
func (c *call) locked(fn func() (int, any)) {
	c.s.mu.Lock()
	status, v := fn()
	c.s.mu.Unlock()
	c.json(status, v)
}

var vmIDRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.[A-Za-z0-9-]+$`)
})

// vpgLocked resolves the {vpgIdentifier} path parameter. A malformed
// identifier is a 400, as on a ZVM; a well-formed one that names no VPG, 404.
func (c *call) vpgLocked() (*vpgState, int, any) {
	id := c.params["vpgIdentifier"]
	if !guidRE().MatchString(id) {
		st, v := fail(http.StatusBadRequest, "The VPG identifier '%s' is not valid: a VPG identifier is a GUID.", id)
		return nil, st, v
	}
	v := c.s.vpgByID(id)
	if v == nil {
		st, body := fail(c.s.unknownStatusLocked(), "VPG with identifier '%s' was not found.", id)
		return nil, st, body
	}
	return v, 0, nil
}

// unknownStatusLocked is the status for a well-formed identifier that names
// nothing: 404, or 400 under Strict.UnknownIdentifier400.
func (s *Server) unknownStatusLocked() int {
	if s.strict.UnknownIdentifier400 {
		return http.StatusBadRequest
	}
	return http.StatusNotFound
}

// vmLocked resolves the {vmIdentifier} path parameter, in VPG vpgID when
// that is not empty. A VM name or host name instead of an identifier is a
// 400, as on a ZVM; a well-formed identifier that names no VM, 404. A VM in
// several VPGs needs vpgID: without it the answer is 400, as on a ZVM.
func (c *call) vmLocked(vpgID string) (*vmState, int, any) {
	id := c.params["vmIdentifier"]
	if !vmIDRE().MatchString(id) {
		st, v := fail(http.StatusBadRequest, "The VM identifier '%s' is not valid: a VM identifier has the form <site identifier>.<VM reference>.", id)
		return nil, st, v
	}
	var rows []*vmState
	for _, vm := range c.s.vms {
		if strings.EqualFold(vm.id, id) {
			rows = append(rows, vm)
		}
	}
	if len(rows) == 0 {
		st, v := fail(c.s.unknownStatusLocked(), "VM with identifier '%s' was not found.", id)
		return nil, st, v
	}
	if vpgID == "" {
		if len(rows) > 1 {
			st, v := fail(http.StatusBadRequest, "VM '%s' is protected in more than one VPG. Specify the vpgIdentifier.", id)
			return nil, st, v
		}
		return rows[0], 0, nil
	}
	for _, vm := range rows {
		if strings.EqualFold(vm.vpg.cfg.ID, vpgID) {
			return vm, 0, nil
		}
	}
	st, v := fail(http.StatusNotFound, "VM with identifier '%s' was not found in VPG '%s'.", id, vpgID)
	return nil, st, v
}

func (c *call) localSite() {
	c.locked(func() (int, any) {
		l := c.s.local
		return http.StatusOK, map[string]any{
			"SiteIdentifier":             l.ID,
			"SiteName":                   l.Name,
			"Location":                   l.Location,
			"Version":                    "10.0.60",
			"DisplayVersion":             "10.0 U6",
			"ZvmApiVersion":              "10.0.60",
			"SiteType":                   l.Type.localSiteType(),
			"SiteTypeVersion":            "",
			"IpAddress":                  hostOnly(c.r.Host),
			"ContactEmail":               "",
			"ContactName":                "",
			"ContactPhone":               "",
			"UtcOffsetInMinutes":         0,
			"IsReplicationToSelfEnabled": true,
			"BandwidthThrottlingInMBs":   -1,
			"IsLoginBannerEnabled":       false,
			"LoginBanner":                nil,
			"Link":                       newLink(c.r, "LocalSiteApi", "/v1/localsite", l.ID),
		}
	})
}

func hostOnly(hostport string) string {
	if i := strings.LastIndex(hostport, ":"); i > 0 && !strings.HasSuffix(hostport, "]") {
		return strings.Trim(hostport[:i], "[]")
	}
	return hostport
}

// intQuery reads an optional integer query parameter; bad is the error
// Message for a value that is not an integer.
func (c *call) intQuery(name string) (n int, set bool, bad string) {
	s := c.query(name)
	if s == "" {
		return 0, false, ""
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false, fmt.Sprintf("The value '%s' is not valid for %s.", s, name)
	}
	return n, true, ""
}

func (c *call) listVMs() {
	name, vpgName, id := c.query("vmName"), c.query("vpgName"), c.query("vmIdentifier")
	psite, rsite := c.query("protectedSiteIdentifier"), c.query("recoverySiteIdentifier")
	status, hasStatus, bad1 := c.intQuery("status")
	sub, hasSub, bad2 := c.intQuery("subStatus")
	c.locked(func() (int, any) {
		for _, bad := range []string{bad1, bad2} {
			if bad != "" {
				return fail(http.StatusBadRequest, "%s", bad)
			}
		}
		out := []vmJSON{}
		for _, vm := range c.s.vms {
			v := vm.vpg
			switch {
			case name != "" && !strings.EqualFold(vm.name, name),
				vpgName != "" && !strings.EqualFold(v.cfg.Name, vpgName),
				id != "" && !strings.EqualFold(vm.id, id),
				psite != "" && !strings.EqualFold(v.protected.ID, psite),
				rsite != "" && !strings.EqualFold(v.recovery.ID, rsite),
				hasStatus && int(v.status) != status,
				hasSub && int(v.sub) != sub:
				continue
			}
			out = append(out, c.s.vmWireLocked(c.r, vm))
		}
		return http.StatusOK, out
	})
}

func (c *call) getVM() {
	vpgID := c.query("vpgIdentifier")
	c.locked(func() (int, any) {
		vm, st, body := c.vmLocked(vpgID)
		if vm == nil {
			return st, body
		}
		return http.StatusOK, c.s.vmWireLocked(c.r, vm)
	})
}

func (c *call) listVPGs() {
	name := c.query("name")
	psite, rsite := c.query("protectedSiteIdentifier"), c.query("recoverySiteIdentifier")
	status, hasStatus, bad1 := c.intQuery("status")
	sub, hasSub, bad2 := c.intQuery("subStatus")
	c.locked(func() (int, any) {
		for _, bad := range []string{bad1, bad2} {
			if bad != "" {
				return fail(http.StatusBadRequest, "%s", bad)
			}
		}
		out := []vpgJSON{}
		for _, v := range c.s.vpgs {
			switch {
			case name != "" && !strings.EqualFold(v.cfg.Name, name),
				psite != "" && !strings.EqualFold(v.protected.ID, psite),
				rsite != "" && !strings.EqualFold(v.recovery.ID, rsite),
				hasStatus && int(v.status) != status,
				hasSub && int(v.sub) != sub:
				continue
			}
			out = append(out, c.s.vpgWireLocked(c.r, v))
		}
		return http.StatusOK, out
	})
}

func (c *call) getVPG() {
	c.locked(func() (int, any) {
		v, st, body := c.vpgLocked()
		if v == nil {
			return st, body
		}
		return http.StatusOK, c.s.vpgWireLocked(c.r, v)
	})
}

func (c *call) listCheckpoints() {
	var from, to time.Time
	var err error
	if s := c.query("startDate"); s != "" {
		if from, err = parseTime(s); err != nil {
			c.message(http.StatusBadRequest, "The value for startDate is not valid: "+err.Error())
			return
		}
	}
	if s := c.query("endDate"); s != "" {
		if to, err = parseTime(s); err != nil {
			c.message(http.StatusBadRequest, "The value for endDate is not valid: "+err.Error())
			return
		}
	}
	// The answer is written after the lock is let go: a deep journal's
	// listing is long, and no client's slow read may hold the lock.
	c.s.mu.Lock()
	v, st, body := c.vpgLocked()
	if v == nil {
		c.s.mu.Unlock()
		c.json(st, body)
		return
	}
	var stored []Checkpoint
	for _, cp := range v.checkpoints {
		if (!from.IsZero() && cp.Time.Before(from)) || (!to.IsZero() && cp.Time.After(to)) {
			continue
		}
		stored = append(stored, cp)
	}
	var deep deepHistory
	var lo, hi int64
	if v.deep != nil {
		deep = *v.deep
		lo, hi = deep.span(from, to, c.s.now(), v.deepRetention())
	}
	c.s.mu.Unlock()
	c.writeCheckpoints(&deep, lo, hi, stored)
}

func (c *call) checkpointStats() {
	c.locked(func() (int, any) {
		v, st, body := c.vpgLocked()
		if v == nil {
			return st, body
		}
		var stats struct{ Earliest, Latest *checkpointJSON }
		now := c.s.now()
		if first, ok := v.earliest(now); ok {
			last, _ := v.latest(now)
			e, l := checkpointWire(first), checkpointWire(last)
			stats.Earliest, stats.Latest = &e, &l
		}
		return http.StatusOK, stats
	})
}

// insertCheckpoint accepts a tagged checkpoint insert. The answer is the
// task's identifier as a JSON string; the task completes when the tag lands
// on the VPG's next checkpoint. Zerto refuses an insert into a VPG that
// cannot write checkpoints with a 400; a failure after acceptance (such as
// InsertFailure) shows in the task.
func (c *call) insertCheckpoint() {
	var body struct{ CheckpointName string }
	if !c.decode(&body) {
		return
	}
	tag := strings.TrimSpace(body.CheckpointName)
	c.locked(func() (int, any) {
		v, st, resp := c.vpgLocked()
		if v == nil {
			return st, resp
		}
		if tag == "" {
			return fail(http.StatusBadRequest, "The checkpoint name must not be empty.")
		}
		if v.insertRejection != "" {
			return fail(http.StatusBadRequest, "%s", v.insertRejection)
		}
		if r := v.refusal(); r != "" {
			return fail(http.StatusBadRequest, "Cannot insert a tagged checkpoint. %s", r)
		}
		t := c.s.newTaskLocked(taskInsertTaggedCP, v, c.user)
		t.tag = tag
		switch {
		case v.insertFailure != "":
			t.fail(c.s.now(), v.insertFailure)
		case c.s.strict.TagsAtOnce && v.insertTickFailure == "":
			c.s.writeTagLocked(v, t)
		default:
			v.pending = append(v.pending, t)
		}
		c.s.insertsMade++
		return http.StatusOK, t.id
	})
}

// completedTaskLocked records an operation the simulator carries out at once.
func (c *call) completedTaskLocked(typ string, v *vpgState) (int, any) {
	t := c.s.newTaskLocked(typ, v, c.user)
	t.complete(c.s.now())
	return http.StatusOK, t.id
}

// checkpointLocked resolves a CheckpointIdentifier in a request body; empty
// means the latest checkpoint.
func checkpointLocked(v *vpgState, id string, now time.Time) (Checkpoint, int, any) {
	if id == "" {
		if cp, ok := v.latest(now); ok {
			return cp, 0, nil
		}
		st, body := fail(http.StatusBadRequest, "VPG %s has no checkpoints.", v.cfg.Name)
		return Checkpoint{}, st, body
	}
	cp, ok := v.checkpoint(id, now)
	if !ok {
		st, body := fail(http.StatusBadRequest, "Checkpoint '%s' was not found in the journal of VPG %s.", id, v.cfg.Name)
		return Checkpoint{}, st, body
	}
	return cp, 0, nil
}

// vmsOfLocked resolves the VmIdentifiers of a request body; none means all
// the VPG's protected VMs.
func (s *Server) vmsOfLocked(v *vpgState, ids []string) ([]*vmState, int, any) {
	var out []*vmState
	for _, vm := range s.vms {
		if vm.vpg == v && vm.testOf == nil && (len(ids) == 0 || containsFold(ids, vm.id)) {
			out = append(out, vm)
		}
	}
	for _, id := range ids {
		if !containsFold(vmIDs(out), id) {
			st, body := fail(http.StatusBadRequest, "VM '%s' is not protected by VPG %s.", id, v.cfg.Name)
			return nil, st, body
		}
	}
	return out, 0, nil
}

func vmIDs(vms []*vmState) []string {
	ids := make([]string, len(vms))
	for i, vm := range vms {
		ids[i] = vm.id
	}
	return ids
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// failoverTest starts a failover test: for each VM, a test VM named
// "<vm> - testing recovery" appears on the recovery site, recovered from the
// checkpoint.
func (c *call) failoverTest() {
	var body struct {
		CheckpointIdentifier string
		VmIdentifiers        []string
	}
	if !c.decode(&body) {
		return
	}
	c.locked(func() (int, any) {
		s := c.s
		v, st, resp := c.vpgLocked()
		if v == nil {
			return st, resp
		}
		if v.test != nil {
			return fail(http.StatusBadRequest, "VPG %s is already in a failover test.", v.cfg.Name)
		}
		if v.failover != nil {
			return fail(http.StatusBadRequest, "VPG %s is failing over.", v.cfg.Name)
		}
		if vm := s.restoringVMLocked(v); vm != nil {
			return fail(http.StatusBadRequest, "VM %s of VPG %s is being restored from the journal; commit or roll back the restore first.", vm.name, v.cfg.Name)
		}
		cp, st, resp := checkpointLocked(v, body.CheckpointIdentifier, c.s.now())
		if st != 0 {
			return st, resp
		}
		vms, st, resp := s.vmsOfLocked(v, body.VmIdentifiers)
		if st != 0 {
			return st, resp
		}
		test := &failoverTest{checkpoint: cp}
		for _, vm := range vms {
			tvm := &vmState{
				id: s.newVMID(v.recovery), name: vm.name + " - testing recovery",
				vpg: v, site: v.recovery, testOf: vm, recovered: &cp, operation: "FailoverTest",
			}
			test.vms = append(test.vms, tvm)
			s.vms = append(s.vms, tvm)
		}
		v.test = test
		return http.StatusOK, c.runningTaskLocked(taskFailOverTest, v, completeTask).id
	})
}

// failoverTestStop ends a failover test: its test VMs disappear.
func (c *call) failoverTestStop() {
	var body struct {
		FailoverTestSuccess *bool
		FailoverTestSummary *string
	}
	if !c.decode(&body) {
		return
	}
	c.locked(func() (int, any) {
		s := c.s
		v, st, resp := c.vpgLocked()
		if v == nil {
			return st, resp
		}
		if v.test == nil {
			return fail(http.StatusBadRequest, "There is no failover test running for VPG %s.", v.cfg.Name)
		}
		s.recordStopLocked(v, body.FailoverTestSuccess, body.FailoverTestSummary)
		kept := s.vms[:0]
		for _, vm := range s.vms {
			if vm.testOf == nil || vm.vpg != v {
				kept = append(kept, vm)
			}
		}
		clear(s.vms[len(kept):])
		s.vms = kept
		v.test = nil
		v.lastTest = s.now()
		return http.StatusOK, c.runningTaskLocked(taskStopFailOverTest, v, completeTask).id
	})
}

// restore starts a journal VM restore: the VM reports the checkpoint it was
// restored to until RestoreRollback undoes it.
func (c *call) restore() {
	var body RestoreRequest
	if !c.decode(&body) {
		return
	}
	c.locked(func() (int, any) {
		vm, st, resp := c.vmLocked(body.VpgIdentifier)
		if vm == nil {
			if st == http.StatusNotFound && body.VpgIdentifier != "" {
				return fail(http.StatusBadRequest, "VM '%s' is not protected by VPG '%s'.", c.params["vmIdentifier"], body.VpgIdentifier)
			}
			return st, resp
		}
		v := vm.vpg
		switch {
		case vm.testOf != nil:
			return fail(http.StatusBadRequest, "VM %s is a test VM and cannot be restored.", vm.name)
		case body.CheckpointIdentifier == "":
			return fail(http.StatusBadRequest, "A checkpoint identifier is required to restore VM %s.", vm.name)
		case vm.restoring:
			return fail(http.StatusBadRequest, "VM %s is already being restored.", vm.name)
		case c.s.restoringElsewhereLocked(vm) != nil:
			return fail(http.StatusBadRequest, "VM %s is already being restored from the journal of VPG %s.", vm.name, c.s.restoringElsewhereLocked(vm).cfg.Name)
		case v.failover != nil:
			return fail(http.StatusBadRequest, "VPG %s is failing over.", v.cfg.Name)
		case v.test != nil:
			return fail(http.StatusBadRequest, "VPG %s is in a failover test; stop the test before restoring VM %s.", v.cfg.Name, vm.name)
		}
		cp, st, resp := checkpointLocked(v, body.CheckpointIdentifier, c.s.now())
		if st != 0 {
			return st, resp
		}
		return http.StatusOK, c.startRestoreLocked(vm, cp, body).id
	})
}

// restoreEnd commits or rolls back a journal VM restore. The body is the
// VPG identifier as a JSON string, optional.
func (c *call) restoreEnd(commit bool) {
	var vpgID string
	if !c.decode(&vpgID) {
		return
	}
	c.locked(func() (int, any) {
		vm, st, resp := c.vmLocked(vpgID)
		if vm == nil {
			if st == http.StatusNotFound && vpgID != "" {
				return fail(http.StatusBadRequest, "VM '%s' is not protected by VPG '%s'.", c.params["vmIdentifier"], vpgID)
			}
			return st, resp
		}
		if !vm.restoring {
			return fail(http.StatusBadRequest, "There is no journal restore awaiting commit or rollback for VM %s.", vm.name)
		}
		if rt := vm.restoreTask; rt != nil {
			if rt.state == TaskInProgress {
				return fail(http.StatusBadRequest, "The journal restore of VM %s is still in progress (%d%%).", vm.name, rt.progress)
			}
			rt.complete(c.s.now())
		}
		vm.restoring, vm.restoreTask = false, nil
		if commit {
			vm.operation = "RestoreCommitted"
			return http.StatusOK, c.runningTaskLocked(taskRestoreCommit, vm.vpg, completeTask).id
		}
		vm.recovered, vm.operation = nil, ""
		return http.StatusOK, c.runningTaskLocked(taskRestoreRollback, vm.vpg, completeTask).id
	})
}

func (c *call) restoreCommit()   { c.restoreEnd(true) }
func (c *call) restoreRollback() { c.restoreEnd(false) }

// failover starts a live failover to a checkpoint. The VPG reports
// FailingOver / FailingOverBeforeCommit until FailoverCommit or
// FailoverRollback; the simulator never commits or rolls back by itself,
// whatever the CommitPolicy.
func (c *call) failover() {
	var body struct {
		CheckpointIdentifier string
		CommitPolicy         *int
		ShutdownPolicy       *int
		IsReverseProtection  *bool
		VmIdentifiers        []string
	}
	if !c.decode(&body) {
		return
	}
	c.locked(func() (int, any) {
		s := c.s
		v, st, resp := c.vpgLocked()
		if v == nil {
			return st, resp
		}
		switch {
		case v.failover != nil:
			return fail(http.StatusBadRequest, "VPG %s is already failing over.", v.cfg.Name)
		case v.test != nil:
			return fail(http.StatusBadRequest, "VPG %s is in a failover test; stop the test first.", v.cfg.Name)
		}
		cp, st, resp := checkpointLocked(v, body.CheckpointIdentifier, c.s.now())
		if st != 0 {
			return st, resp
		}
		vms, st, resp := s.vmsOfLocked(v, body.VmIdentifiers)
		if st != 0 {
			return st, resp
		}
		v.failover = &liveFailover{checkpoint: cp, prevStatus: v.status, prevSub: v.sub}
		v.status, v.sub = StatusFailingOver, SubStatusFailingOverBeforeCommit
		for _, vm := range vms {
			vm.recovered, vm.operation = &cp, "Failover"
		}
		s.failPendingLocked(v)
		return c.completedTaskLocked(taskFailOver, v)
	})
}

// failPendingLocked fails the inserts waiting for a VPG that can no longer
// write checkpoints.
func (s *Server) failPendingLocked(v *vpgState) {
	reason := v.refusal()
	if reason == "" {
		return
	}
	now := s.now()
	for _, t := range v.pending {
		t.fail(now, reason)
	}
	v.pending = nil
}

func (c *call) failoverCommit() {
	var body struct{ IsReverseProtection *bool }
	if !c.decode(&body) {
		return
	}
	c.locked(func() (int, any) {
		v, st, resp := c.vpgLocked()
		if v == nil {
			return st, resp
		}
		if v.failover == nil || v.failover.committed {
			return fail(http.StatusBadRequest, "VPG %s has no failover awaiting commit.", v.cfg.Name)
		}
		for _, vm := range c.s.vms {
			if vm.vpg == v && vm.operation == "Failover" {
				vm.operation = "FailoverCommitted"
			}
		}
		if body.IsReverseProtection != nil && *body.IsReverseProtection {
			// Protection now runs the other way, and the journal starts over.
			v.protected, v.recovery = v.recovery, v.protected
			v.status, v.sub = StatusMeetingSLA, SubStatusNone
			v.failover = nil
		} else {
			v.failover.committed = true
			v.status, v.sub = StatusRecovered, SubStatusNone
		}
		return c.completedTaskLocked(taskFailoverCommit, v)
	})
}

func (c *call) failoverRollback() {
	c.locked(func() (int, any) {
		v, st, resp := c.vpgLocked()
		if v == nil {
			return st, resp
		}
		if v.failover == nil || v.failover.committed {
			return fail(http.StatusBadRequest, "VPG %s has no failover awaiting commit.", v.cfg.Name)
		}
		v.status, v.sub = v.failover.prevStatus, v.failover.prevSub
		v.failover = nil
		for _, vm := range c.s.vms {
			if vm.vpg == v && vm.operation == "Failover" {
				vm.recovered, vm.operation = nil, ""
			}
		}
		return c.completedTaskLocked(taskFailoverRollback, v)
	})
}

func (c *call) listTasks() {
	typ := c.query("type")
	state, hasState, bad := c.intQuery("status")
	var bounds [4]time.Time
	for i, name := range []string{"startedBeforeDate", "startedAfterDate", "completedBeforeDate", "completedAfterDate"} {
		if s := c.query(name); s != "" && bad == "" {
			var err error
			if bounds[i], err = parseTime(s); err != nil {
				bad = fmt.Sprintf("The value for %s is not valid: %v", name, err)
			}
		}
	}
	c.locked(func() (int, any) {
		if bad != "" {
			return fail(http.StatusBadRequest, "%s", bad)
		}
		out := []taskJSON{}
		for _, t := range c.s.tasks {
			switch {
			case typ != "" && !strings.EqualFold(t.typ, typ),
				hasState && int(t.state) != state,
				!bounds[0].IsZero() && !t.started.Before(bounds[0]),
				!bounds[1].IsZero() && !t.started.After(bounds[1]),
				!bounds[2].IsZero() && (t.completed.IsZero() || !t.completed.Before(bounds[2])),
				!bounds[3].IsZero() && (t.completed.IsZero() || !t.completed.After(bounds[3])):
				continue
			}
			c.s.advanceLocked(t)
			out = append(out, c.s.taskWire(c.r, t))
		}
		return http.StatusOK, out
	})
}

func (c *call) getTask() {
	id := c.params["taskIdentifier"]
	c.locked(func() (int, any) {
		t := c.s.taskByID(id)
		if t == nil {
			return fail(c.s.unknownStatusLocked(), "Task with identifier '%s' was not found.", id)
		}
		if t.state == TaskCompleted && c.s.strict.CompletedTask401 {
			return fail(http.StatusUnauthorized, "Authorization has been denied for this request.")
		}
		c.s.advanceLocked(t)
		return http.StatusOK, c.s.taskWire(c.r, t)
	})
}
