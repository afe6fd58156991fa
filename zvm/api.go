package zvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// VMs lists the protected VMs named name (all of them when name is ""). An
// unknown name gives an empty list, not an error. A VM protected by several
// VPGs appears once per VPG.
func (c *Client) VMs(ctx context.Context, name string) ([]VM, error) {
	q := url.Values{}
	if name != "" {
		q.Set("vmName", name)
	}
	var ws []wireVM
	if err := c.do(ctx, request{method: http.MethodGet, path: "/v1/vms", query: q}, &ws); err != nil {
		return nil, err
	}
	vms := make([]VM, len(ws))
	for i, w := range ws {
		vms[i] = w.vm()
	}
	return vms, nil
}

// VM returns the protected VM with identifier id. An id the ZVM does not
// know, including a host name where an identifier belongs, gives an *Error
// of KindNotFound.
func (c *Client) VM(ctx context.Context, id string) (VM, error) {
	var w wireVM
	r := request{method: http.MethodGet, path: "/v1/vms/" + url.PathEscape(id), unknownOn400: true}
	if err := c.do(ctx, r, &w); err != nil {
		return VM{}, err
	}
	return w.vm(), nil
}

// VPGs lists the VPGs.
func (c *Client) VPGs(ctx context.Context) ([]VPG, error) {
	var ws []wireVPG
	if err := c.do(ctx, request{method: http.MethodGet, path: "/v1/vpgs"}, &ws); err != nil {
		return nil, err
	}
	vpgs := make([]VPG, len(ws))
	for i, w := range ws {
		vpgs[i] = w.vpg()
	}
	return vpgs, nil
}

// VPG returns the VPG with identifier id; an unknown id gives KindNotFound.
func (c *Client) VPG(ctx context.Context, id string) (VPG, error) {
	var w wireVPG
	r := request{method: http.MethodGet, path: "/v1/vpgs/" + url.PathEscape(id), unknownOn400: true}
	if err := c.do(ctx, r, &w); err != nil {
		return VPG{}, err
	}
	return w.vpg(), nil
}

// Checkpoints lists the VPG's checkpoints written between start and end; a
// zero start or end leaves that side open. A journal holds a checkpoint
// every few seconds for days, so a caller names both ends: the whole of a
// month's journal does not fit in an answer (see FindCheckpoint).
func (c *Client) Checkpoints(ctx context.Context, vpgID string, start, end time.Time) ([]Checkpoint, error) {
	cps, _, err := c.checkpoints(ctx, vpgID, start, end)
	return cps, err
}

// checkpoints is Checkpoints, with the size of the answer in bytes.
func (c *Client) checkpoints(ctx context.Context, vpgID string, start, end time.Time) ([]Checkpoint, int, error) {
	q := url.Values{}
	if !start.IsZero() {
		q.Set("startDate", start.UTC().Format(time.RFC3339Nano))
	}
	if !end.IsZero() {
		q.Set("endDate", end.UTC().Format(time.RFC3339Nano))
	}
	var ws []wireCheckpoint
	size := 0
	r := request{method: http.MethodGet, path: "/v1/vpgs/" + url.PathEscape(vpgID) + "/checkpoints", query: q, unknownOn400: true, size: &size}
	if err := c.do(ctx, r, &ws); err != nil {
		return nil, size, err
	}
	cps := make([]Checkpoint, len(ws))
	for i, w := range ws {
		cps[i] = w.checkpoint()
	}
	return cps, size, nil
}

// CheckpointStats returns the VPG's earliest and latest checkpoints.
func (c *Client) CheckpointStats(ctx context.Context, vpgID string) (CheckpointStats, error) {
	var w struct{ Earliest, Latest *wireCheckpoint }
	r := request{method: http.MethodGet, path: "/v1/vpgs/" + url.PathEscape(vpgID) + "/checkpoints/stats", unknownOn400: true}
	if err := c.do(ctx, r, &w); err != nil {
		return CheckpointStats{}, err
	}
	var s CheckpointStats
	if w.Earliest != nil {
		s.Earliest = w.Earliest.checkpoint()
	}
	if w.Latest != nil {
		s.Latest = w.Latest.checkpoint()
	}
	return s, nil
}

// InsertTaggedCheckpoint asks Zerto to write a checkpoint tagged tag into the
// VPG's journal at its next cadence tick, and returns the task that does it.
// The checkpoint exists once Checkpoints lists it, not when the call returns.
func (c *Client) InsertTaggedCheckpoint(ctx context.Context, vpgID, tag string) (taskID string, err error) {
	body := map[string]any{"checkpointName": tag}
	return c.post(ctx, "/v1/vpgs/"+url.PathEscape(vpgID)+"/checkpoints", body)
}

// Task returns the task with identifier id.
func (c *Client) Task(ctx context.Context, id string) (Task, error) {
	return c.task(ctx, id, false)
}

// task reads the task with identifier id; noReauth as in request.
func (c *Client) task(ctx context.Context, id string, noReauth bool) (Task, error) {
	var w wireTask
	r := request{method: http.MethodGet, path: "/v1/tasks/" + url.PathEscape(id), unknownOn400: true, noReauth: noReauth}
	if err := c.do(ctx, r, &w); err != nil {
		return Task{}, err
	}
	t := w.task()
	// A reason may quote what the task was sent, as any message may.
	t.CompleteReason = c.message(t.CompleteReason)
	if t.Identifier == "" {
		t.Identifier = id
	}
	return t, nil
}

// WaitTask polls the task until it is done (see TaskState.Done) or waits
// for the user (a failover or restore before commit), and returns its last
// state; progress, when not nil, sees every state read. Short operations
// end within a second, so the first polls come quickly (from 100 ms,
// doubling) and then every poll. A task that failed or was stopped gives an
// *Error of KindTaskFailed carrying its CompleteReason; on any other error,
// ctx ending (KindTimeout) included, the Task is the last state seen.
func (c *Client) WaitTask(ctx context.Context, id string, poll time.Duration, progress func(Task)) (Task, error) {
	if poll <= 0 {
		return Task{}, errors.New("zvm: WaitTask: poll interval must be positive")
	}
	op := "task " + id
	var (
		t    *time.Timer
		last Task
		wait time.Duration
	)
	for {
		task, err := c.Task(ctx, id)
		if err != nil {
			// The last state seen tells a caller how far the task got.
			return last, err
		}
		last = task
		if progress != nil {
			progress(task)
		}
		switch task.State {
		case TaskCompleted, TaskWaitingForUserInput:
			return task, nil
		case TaskFailed, TaskStopped:
			return task, &Error{Kind: KindTaskFailed, Op: op, Message: task.CompleteReason,
				Err: fmt.Errorf("task %s is %s", id, task.State)}
		}
		wait = min(max(2*wait, firstTaskPoll), poll)
		if t == nil {
			t = time.NewTimer(wait)
			defer t.Stop()
		} else {
			t.Reset(wait)
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return task, &Error{Kind: KindTimeout, Op: op, Err: ctx.Err()}
		}
	}
}

// firstTaskPoll is WaitTask's first wait between polls.
const firstTaskPoll = 100 * time.Millisecond

// FailoverTest starts a failover test of the VPG to checkpointID (the
// latest when ""), for vmIDs (all the VPG's VMs when empty).
func (c *Client) FailoverTest(ctx context.Context, vpgID, checkpointID string, vmIDs []string) (taskID string, err error) {
	body := map[string]any{}
	if checkpointID != "" {
		body["checkpointIdentifier"] = checkpointID
	}
	if len(vmIDs) > 0 {
		body["vmIdentifiers"] = vmIDs
	}
	return c.post(ctx, "/v1/vpgs/"+url.PathEscape(vpgID)+"/FailoverTest", body)
}

// FailoverTestStop ends the VPG's failover test, recording in Zerto's test
// report the summary and, when success is not nil, whether the test
// succeeded: nil leaves the outcome unsaid, as the field is optional.
func (c *Client) FailoverTestStop(ctx context.Context, vpgID string, success *bool, summary string) (taskID string, err error) {
	body := map[string]any{}
	if success != nil {
		body["failoverTestSuccess"] = *success
	}
	if summary != "" {
		body["failoverTestSummary"] = summary
	}
	return c.post(ctx, "/v1/vpgs/"+url.PathEscape(vpgID)+"/FailoverTestStop", body)
}

// CommitPolicy says what a failover or restore does after its wait time.
type CommitPolicy int

// The commit policies, numbered as in the API. The zero value is Zerto's
// own default, Rollback.
const (
	CommitRollback CommitPolicy = iota
	CommitCommit
	CommitNone // wait for FailoverCommit/FailoverRollback (RestoreCommit/RestoreRollback)
)

// ShutdownPolicy says how a failover or a journal VM restore treats the
// running VMs.
type ShutdownPolicy int

// The shutdown policies, numbered as in the API.
const (
	ShutdownNone ShutdownPolicy = iota
	ShutdownGraceful
	ShutdownForce
)

// FailoverOptions are the choices of a live failover.
type FailoverOptions struct {
	CommitPolicy CommitPolicy
	// CommitWait is how long the failover waits before its commit policy
	// applies; 0 leaves Zerto's default.
	CommitWait     time.Duration
	ShutdownPolicy ShutdownPolicy
	// ReverseProtection, when set, says whether to protect back the other way.
	ReverseProtection *bool
	// VMIdentifiers limits the failover to these VMs; empty means all.
	VMIdentifiers []string
}

// Failover starts a live failover of the VPG to checkpointID (the latest
// when "").
func (c *Client) Failover(ctx context.Context, vpgID, checkpointID string, o FailoverOptions) (taskID string, err error) {
	body := map[string]any{
		"commitPolicy":   int(o.CommitPolicy),
		"shutdownPolicy": int(o.ShutdownPolicy),
	}
	if checkpointID != "" {
		body["checkpointIdentifier"] = checkpointID
	}
	if o.CommitWait > 0 {
		body["timeToWaitBeforeShutdownInSec"] = int(o.CommitWait / time.Second)
	}
	if o.ReverseProtection != nil {
		body["isReverseProtection"] = *o.ReverseProtection
	}
	if len(o.VMIdentifiers) > 0 {
		body["vmIdentifiers"] = o.VMIdentifiers
	}
	return c.post(ctx, "/v1/vpgs/"+url.PathEscape(vpgID)+"/Failover", body)
}

// FailoverCommit commits the VPG's failover, protecting back the other way
// when reverseProtection is set.
func (c *Client) FailoverCommit(ctx context.Context, vpgID string, reverseProtection *bool) (taskID string, err error) {
	body := map[string]any{}
	if reverseProtection != nil {
		body["isReverseProtection"] = *reverseProtection
	}
	return c.post(ctx, "/v1/vpgs/"+url.PathEscape(vpgID)+"/FailoverCommit", body)
}

// FailoverRollback rolls the VPG's failover back.
func (c *Client) FailoverRollback(ctx context.Context, vpgID string) (taskID string, err error) {
	return c.post(ctx, "/v1/vpgs/"+url.PathEscape(vpgID)+"/FailoverRollback", nil)
}

// RestoreOptions are the choices of a journal VM restore: every field the
// spec's JournalVMRestoreDataApi names (and Zerto's Python SDK always
// sends), so that nothing is left to the ZVM's defaults.
type RestoreOptions struct {
	VPGIdentifier        string
	CheckpointIdentifier string
	// RestoredVMName is the name the restored VM has (restoredVmName).
	RestoredVMName string
	// CommitPolicy says what Zerto does once the VM is restored: CommitNone
	// waits for RestoreCommit or RestoreRollback.
	CommitPolicy CommitPolicy
	// ShutdownPolicy says what happens to the running VM.
	ShutdownPolicy ShutdownPolicy
	// Wait is timeToWaitBeforeContinueInSeconds, whole seconds.
	Wait time.Duration
	// Settings is journalVMRestoreSettings; the zero value keeps the VM's
	// datastore, NICs and volumes as they are (every field null).
	Settings RestoreSettings
}

// RestoreSettings place a restored VM. Empty fields are sent as null,
// which keeps that part of the VM as it is.
type RestoreSettings struct {
	DatastoreIdentifier string
}

// Restore starts a journal restore of the single VM vmID to a checkpoint
// and returns its task. With CommitNone the VM then waits, restored, for
// RestoreCommit or RestoreRollback.
func (c *Client) Restore(ctx context.Context, vmID string, o RestoreOptions) (taskID string, err error) {
	var datastore any
	if o.Settings.DatastoreIdentifier != "" {
		datastore = o.Settings.DatastoreIdentifier
	}
	body := map[string]any{
		"vpgIdentifier":                     o.VPGIdentifier,
		"checkpointIdentifier":              o.CheckpointIdentifier,
		"restoredVmName":                    o.RestoredVMName,
		"commitPolicy":                      int(o.CommitPolicy),
		"shutdownPolicy":                    int(o.ShutdownPolicy),
		"timeToWaitBeforeContinueInSeconds": int(o.Wait / time.Second),
		"journalVMRestoreSettings": map[string]any{
			"datastoreIdentifier": datastore,
			"nics":                nil,
			"volumes":             nil,
		},
	}
	return c.post(ctx, "/v1/vms/"+url.PathEscape(vmID)+"/Restore", body)
}

// RestoreCommit keeps the restored VM vmID of VPG vpgID.
func (c *Client) RestoreCommit(ctx context.Context, vmID, vpgID string) (taskID string, err error) {
	// The spec's body here is a bare JSON string: the VPG identifier.
	return c.post(ctx, "/v1/vms/"+url.PathEscape(vmID)+"/RestoreCommit", vpgID)
}

// RestoreRollback undoes the journal restore of VM vmID of VPG vpgID.
func (c *Client) RestoreRollback(ctx context.Context, vmID, vpgID string) (taskID string, err error) {
	return c.post(ctx, "/v1/vms/"+url.PathEscape(vmID)+"/RestoreRollback", vpgID)
}

// LocalSite returns the ZVM's own site.
func (c *Client) LocalSite(ctx context.Context) (Site, error) {
	var w wireSite
	if err := c.do(ctx, request{method: http.MethodGet, path: "/v1/localsite"}, &w); err != nil {
		return Site{}, err
	}
	return w.site(), nil
}

// post sends an operation that answers with a task identifier: a JSON
// string in the spec, an object with TaskIdentifier on some versions.
func (c *Client) post(ctx context.Context, path string, body any) (string, error) {
	var raw json.RawMessage
	if err := c.do(ctx, request{method: http.MethodPost, path: path, body: body, unknownOn400: false}, &raw); err != nil {
		return "", err
	}
	op := http.MethodPost + " " + path
	var id string
	if json.Unmarshal(raw, &id) == nil && id != "" {
		return id, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		if v, ok := lookupFold(m, "TaskIdentifier"); ok && json.Unmarshal(v, &id) == nil && id != "" {
			return id, nil
		}
	}
	return "", &Error{Kind: KindMalformed, Op: op, Status: http.StatusOK, Err: errors.New("no task identifier in the answer")}
}

// VMsByIdentifier lists the rows of the protected VM with identifier id
// (GET /v1/vms?vmIdentifier=): one per VPG that protects it. An unknown id
// gives an empty list. Unlike VM, it needs no VPG for a VM in several VPGs,
// where GET /v1/vms/{id} answers 400 without vpgIdentifier.
func (c *Client) VMsByIdentifier(ctx context.Context, id string) ([]VM, error) {
	q := url.Values{"vmIdentifier": {id}}
	var ws []wireVM
	if err := c.do(ctx, request{method: http.MethodGet, path: "/v1/vms", query: q, unknownOn400: true}, &ws); err != nil {
		if IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	vms := make([]VM, 0, len(ws))
	for _, w := range ws {
		// A ZVM that ignores the filter lists every VM: keep the asked one.
		if vm := w.vm(); strings.EqualFold(vm.Identifier, id) {
			vms = append(vms, vm)
		}
	}
	return vms, nil
}

// TaskState returns the task with identifier id, like Task, except that a
// 401 is returned (KindUnauthorized) without a new login. Some ZVMs answer
// 401 for a task that completed, which a login does not change; a caller
// that polls a task beside other evidence (see capture) loses nothing by
// it, while a login per poll would load Keycloak. A token that did expire
// is renewed by the caller's next request of another kind.
func (c *Client) TaskState(ctx context.Context, id string) (Task, error) {
	return c.task(ctx, id, true)
}

// VMOfVPG returns the protected VM vmID as VPG vpgID protects it (GET
// /v1/vms/{id}?vpgIdentifier=): its status, as Zerto reports it now. A VM
// in several VPGs needs the VPG named.
func (c *Client) VMOfVPG(ctx context.Context, vmID, vpgID string) (VM, error) {
	var w wireVM
	r := request{method: http.MethodGet, path: "/v1/vms/" + url.PathEscape(vmID),
		query: url.Values{"vpgIdentifier": {vpgID}}, unknownOn400: true}
	if err := c.do(ctx, r, &w); err != nil {
		return VM{}, err
	}
	return w.vm(), nil
}

// TaskFilter narrows Tasks. Zero fields do not filter.
type TaskFilter struct {
	// Type is the task type, such as "FailOverTest".
	Type string
	// StartedAfter keeps the tasks started after it (ZVM time); set it, so
	// that the answer stays bounded.
	StartedAfter time.Time
}

// Tasks lists the ZVM's tasks that f keeps. A ZVM that ignores a filter
// answers more: the type is checked here again.
func (c *Client) Tasks(ctx context.Context, f TaskFilter) ([]Task, error) {
	q := url.Values{}
	if f.Type != "" {
		q.Set("type", f.Type)
	}
	if !f.StartedAfter.IsZero() {
		q.Set("startedAfterDate", f.StartedAfter.UTC().Format(time.RFC3339Nano))
	}
	var ws []wireTask
	if err := c.do(ctx, request{method: http.MethodGet, path: "/v1/tasks", query: q}, &ws); err != nil {
		return nil, err
	}
	tasks := make([]Task, 0, len(ws))
	for _, w := range ws {
		t := w.task()
		if f.Type != "" && !strings.EqualFold(t.Type, f.Type) {
			continue
		}
		tasks = append(tasks, t)
	}
	return tasks, nil
}

// Offers reports whether the ZVM has a route for path with method, without
// calling it: it sends a GET, which a route that takes only other methods
// answers 405 Method Not Allowed, and an unknown route 404. Only for paths
// whose GET changes nothing, which is every path that takes POST on a ZVM.
func (c *Client) Offers(ctx context.Context, method, path string) (bool, error) {
	err := c.do(ctx, request{method: http.MethodGet, path: path}, nil)
	var ze *Error
	switch {
	case err == nil:
		return method == http.MethodGet, nil
	case errors.As(err, &ze) && ze.Status == http.StatusMethodNotAllowed:
		return true, nil
	case errors.As(err, &ze) && ze.Status == http.StatusNotFound:
		return false, nil
	}
	return false, err
}
