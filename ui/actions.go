package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

// jobTimeout bounds one action: a journal restore of a large VM may take a
// while, but not forever.
const jobTimeout = time.Hour

// maxJobs bounds the finished jobs kept for their status.
const maxJobs = 100

// job is one action running, or run, in the server.
type job struct {
	ID      string
	Mode    string
	AuditID string
	VPG     string
	vpgID   string
	VMs     []string

	mu       sync.Mutex
	task     zvm.Task
	done     bool
	result   recovery.Result
	err      error
	started  time.Time
	finished time.Time
}

// jobStatus is a job as GET /api/jobs/ID reports it.
type jobStatus struct {
	ID       string   `json:"id"`
	Mode     string   `json:"mode"`
	AuditID  string   `json:"audit_id"`
	VPG      string   `json:"vpg"`
	VMs      []string `json:"vms"`
	Running  bool     `json:"running"`
	OK       bool     `json:"ok"`
	Task     string   `json:"task,omitempty"`
	TaskType string   `json:"task_type,omitempty"`
	State    string   `json:"state,omitempty"`
	Progress int      `json:"progress"`
	Message  string   `json:"message"`
	Error    string   `json:"error,omitempty"`
}

func (j *job) status() jobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	st := jobStatus{ID: j.ID, Mode: j.Mode, AuditID: j.AuditID, VPG: j.VPG, VMs: j.VMs, Running: !j.done,
		Task: j.task.Identifier, TaskType: j.task.Type, Progress: j.task.Progress}
	if j.task.Identifier != "" {
		st.State = j.task.State.String()
	}
	switch {
	case !j.done:
		st.Message = fmt.Sprintf("%s of VPG %s: %s", modeName(j.Mode), j.VPG, "waiting for Zerto")
		if st.State != "" {
			st.Message = fmt.Sprintf("%s of VPG %s: %s %d%%", modeName(j.Mode), j.VPG, st.State, st.Progress)
		}
	case j.err != nil:
		st.Error = j.err.Error()
		st.Message = fmt.Sprintf("%s of VPG %s failed: %v", modeName(j.Mode), j.VPG, j.err)
	default:
		st.OK = true
		st.Progress = 100
		st.State = j.result.State
		st.Message = outcome(j.result)
	}
	return st
}

func modeName(mode string) string {
	switch mode {
	case recovery.ModeTest:
		return "Failover test"
	case recovery.ModeStopTest:
		return "Stop of the failover test"
	default:
		return "Restore"
	}
}

// outcome says what a finished action did, as `rewind undo` says it.
func outcome(res recovery.Result) string {
	p := res.Point
	switch res.Mode {
	case recovery.ModeTest:
		return fmt.Sprintf("Failover test of VPG %s from checkpoint %q: task %s. Test copies on recovery site %s: %s. The live VMs are untouched; stop the test when you have checked them.",
			p.VPG, p.Tag, res.State, res.RecoverySite, strings.Join(res.TestVMs, ", "))
	case recovery.ModeStopTest:
		return fmt.Sprintf("Failover test of VPG %s stopped: task %s. Its test copies are gone.", p.VPG, res.State)
	default:
		return fmt.Sprintf("%s (VPG %s) restored to checkpoint %q and committed: task %s.",
			strings.Join(p.VMNames(), ", "), p.VPG, p.Tag, res.State)
	}
}

// jobs are the server's actions: at most one running per VPG, since Zerto
// runs one operation on a VPG at a time and a second click must not start
// another.
type jobs struct {
	s       *Server
	mu      sync.Mutex
	byID    map[string]*job
	order   []string
	running map[string]*job   // by VPG identifier
	tests   map[string]string // VPG identifier -> audit ID of the last test started here
}

func newJobs(s *Server) *jobs {
	return &jobs{s: s, byID: map[string]*job{}, running: map[string]*job{}, tests: map[string]string{}}
}

func (js *jobs) get(id string) *job {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.byID[id]
}

func (js *jobs) lastTest(vpgID string) string {
	js.mu.Lock()
	defer js.mu.Unlock()
	return js.tests[vpgID]
}

// BusyError says an action is already running on the VPG.
type BusyError struct {
	VPG  string
	Mode string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("a %s is already running on VPG %s: wait for it to end", strings.ToLower(modeName(e.Mode)), e.VPG)
}

// start runs mode for p in the background, unless the VPG is busy.
func (js *jobs) start(mode string, p recovery.Point) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	if j, ok := js.running[p.VPGIdentifier]; ok {
		return nil, &BusyError{VPG: p.VPG, Mode: j.Mode}
	}
	j := &job{ID: newToken(), Mode: mode, AuditID: p.AuditID, VPG: p.VPG, vpgID: p.VPGIdentifier, VMs: p.VMNames(), started: time.Now()}
	js.running[p.VPGIdentifier] = j
	js.byID[j.ID] = j
	js.order = append(js.order, j.ID)
	if len(js.order) > maxJobs {
		if old := js.byID[js.order[0]]; old != nil && old.isDone() {
			delete(js.byID, js.order[0])
			js.order = js.order[1:]
		}
	}
	if mode == recovery.ModeTest {
		js.tests[p.VPGIdentifier] = p.AuditID
	}
	svc := js.s.o.Recovery
	js.s.wg.Go(func() {
		ctx, cancel := context.WithTimeout(js.s.ctx, jobTimeout)
		defer cancel()
		progress := func(t zvm.Task) {
			j.mu.Lock()
			j.task = t
			j.mu.Unlock()
		}
		var (
			res recovery.Result
			err error
		)
		switch mode {
		case recovery.ModeTest:
			res, err = svc.Test(ctx, p, progress)
		case recovery.ModeStopTest:
			res, err = svc.StopTest(ctx, p, progress)
		default:
			res, err = svc.Restore(ctx, p, progress)
		}
		j.mu.Lock()
		j.done, j.result, j.err, j.finished = true, res, err, time.Now()
		j.mu.Unlock()
		js.mu.Lock()
		delete(js.running, p.VPGIdentifier)
		js.mu.Unlock()
	})
	return j, nil
}

func (j *job) isDone() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done
}

// prepared is what the page shows before an action: what it does, what a
// restore loses, the names to type, and why Zerto cannot run it now.
type prepared struct {
	Mode    string   `json:"mode"`
	Title   string   `json:"title"`
	Text    string   `json:"text"`
	VMs     []string `json:"vms"`
	Type    bool     `json:"type_names"` // the VM names must be typed
	Problem string   `json:"problem,omitempty"`
}

// point finds the rewind point an action names: the audit ID's point on
// the VPG. It asks Zerto nothing for a call whose checkpoint was logged.
func (s *Server) point(ctx context.Context, id, vpgID string) (recovery.Point, error) {
	points, err := s.o.Recovery.Find(ctx, id)
	if err != nil {
		return recovery.Point{}, err
	}
	for _, p := range points {
		if vpgID == "" || strings.EqualFold(p.VPGIdentifier, vpgID) {
			return p, nil
		}
	}
	return recovery.Point{}, fmt.Errorf("call %s: %w", id, errNoPoint)
}

// errNoPoint says a call has no rewind point on the VPG an action names.
var errNoPoint = errors.New("no rewind point on that VPG")

func parseMode(m string) (string, error) {
	switch m {
	case recovery.ModeTest, recovery.ModeStopTest, recovery.ModeRestore:
		return m, nil
	}
	return "", fmt.Errorf("unknown action %q: test, stop-test or restore", m)
}

// target reads an action's mode, id and vpg from v and finds its point.
// When it cannot, it answers the request and returns ok false.
func (s *Server) target(ctx context.Context, w http.ResponseWriter, v url.Values) (mode string, p recovery.Point, ok bool) {
	mode, err := parseMode(v.Get("mode"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return "", p, false
	}
	if s.o.Recovery == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New(s.noZerto()))
		return "", p, false
	}
	p, err = s.point(ctx, v.Get("id"), v.Get("vpg"))
	if err != nil {
		writeError(w, statusOf(err), err)
		return "", p, false
	}
	return mode, p, true
}

func (s *Server) prepare(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := s.zertoContext(r.Context())
	defer cancel()
	mode, p, ok := s.target(ctx, w, r.URL.Query())
	if !ok {
		return
	}
	out := prepared{Mode: mode, VMs: p.VMNames()}
	vms := strings.Join(out.VMs, ", ")
	switch mode {
	case recovery.ModeTest:
		out.Title = "Test from here"
		out.Text = fmt.Sprintf("Start a Zerto failover test of VPG %s from checkpoint %q (CheckpointIdentifier %s) of %s, for %s.\nTest copies come up on the recovery site beside the live VMs, which are untouched. Stop the test when you have checked them.",
			p.VPG, p.Tag, p.Checkpoint, p.Time.UTC().Format(time.RFC3339), vms)
	case recovery.ModeStopTest:
		out.Title = "Stop test"
		out.Text = fmt.Sprintf("Stop the failover test running on VPG %s: its test copies go away. The live VMs are untouched.", p.VPG)
	default:
		loss, err := s.o.Recovery.Loss(ctx, p)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err)
			return
		}
		out.Title = "Restore to here"
		out.Text = loss.Text
		out.Type = true
	}
	// An action bound to fail (aged out, a test running or none) is said
	// before anyone confirms it.
	if err := s.o.Recovery.Check(ctx, p, mode); err != nil {
		out.Problem = problem(err)
	}
	writeJSON(w, http.StatusOK, out)
}

// action starts an action. A restore needs the point's VM names typed,
// checked here: nothing reaches Zerto without them.
func (s *Server) action(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("reading the form: %w", err))
		return
	}
	ctx, cancel := s.zertoContext(r.Context())
	defer cancel()
	mode, p, ok := s.target(ctx, w, r.PostForm)
	if !ok {
		return
	}
	if mode == recovery.ModeRestore && !recovery.NamesTyped(r.PostForm.Get("confirm"), p.VMNames()) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("restore not confirmed: type %s to restore; nothing was sent to Zerto",
			strings.Join(p.VMNames(), " ")))
		return
	}
	j, err := s.jobs.start(mode, p)
	if err != nil {
		writeError(w, http.StatusConflict, err)
		return
	}
	writeJSON(w, http.StatusAccepted, j.status())
}

func (s *Server) job(w http.ResponseWriter, r *http.Request, id string) {
	j := s.jobs.get(id)
	if j == nil {
		writeError(w, http.StatusNotFound, fmt.Errorf("no action %q here", id))
		return
	}
	writeJSON(w, http.StatusOK, j.status())
}

func (s *Server) noZerto() string {
	if s.o.ZertoProblem != "" {
		return s.o.ZertoProblem
	}
	return "Zerto is not configured"
}

// statusOf maps a recovery error to an HTTP status.
func statusOf(err error) int {
	var (
		nf  *recovery.NotFoundError
		amb *audit.AmbiguousError
		np  *recovery.NotProtectedError
	)
	switch {
	case errors.As(err, &nf), errors.Is(err, errNoPoint):
		return http.StatusNotFound
	case errors.As(err, &amb), errors.As(err, &np):
		return http.StatusBadRequest
	case errors.Is(err, context.DeadlineExceeded), zvm.IsTimeout(err):
		return http.StatusGatewayTimeout
	}
	return http.StatusBadGateway
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, struct {
		Error string `json:"error"`
	}{err.Error()})
}
