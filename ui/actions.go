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

// job is one action running, or run, in the server: recovery's whole
// operation for a call, over every VPG of its rewind point.
type job struct {
	ID      string
	Mode    string
	AuditID string
	VPGs    []string // names
	vpgIDs  []string
	VMs     []string

	mu       sync.Mutex
	progress recovery.Progress
	done     bool
	results  []recovery.Result
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
	// Undo is, for a restore, the command that undoes it: going back to the
	// checkpoint of the VMs taken just before it.
	Undo string `json:"undo,omitempty"`
}

func (j *job) status() jobStatus {
	j.mu.Lock()
	defer j.mu.Unlock()
	vpg := strings.Join(j.VPGs, ", ")
	t := j.progress.Task
	st := jobStatus{ID: j.ID, Mode: j.Mode, AuditID: j.AuditID, VPG: vpg, VMs: j.VMs, Running: !j.done,
		Task: t.Identifier, TaskType: t.Type, Progress: t.Progress}
	if t.Identifier != "" {
		st.State = t.State.String()
	}
	switch {
	case !j.done:
		st.Message = fmt.Sprintf("%s of VPG %s: waiting for Zerto", modeName(j.Mode), vpg)
		switch {
		case j.progress.Text != "":
			st.Message = fmt.Sprintf("%s of VPG %s: %s", modeName(j.Mode), vpg, j.progress.Text)
		case st.State != "":
			st.Message = fmt.Sprintf("%s of VPG %s: %s %d%%", modeName(j.Mode), j.progress.VPG, st.State, st.Progress)
		}
	case j.err != nil:
		st.Error = j.err.Error()
		st.Message = fmt.Sprintf("%s of VPG %s failed: %v", modeName(j.Mode), vpg, j.err)
	default:
		st.OK = true
		st.Progress = 100
		var msgs []string
		for _, res := range j.results {
			st.State = res.State
			msgs = append(msgs, outcome(res))
			if b := res.Before; b.AuditID != "" {
				st.Undo = "rewind undo " + b.AuditID + " --restore"
			}
		}
		st.Message = strings.Join(msgs, " ")
	}
	return st
}

func modeName(mode string) string {
	switch mode {
	case recovery.ModeTest:
		return "Failover test"
	case recovery.ModeStopTest:
		return "Stop of the failover test"
	case recovery.ModeRollback:
		return "Rollback of the restore"
	case recovery.ModeCommit:
		return "Commit of the restore"
	default:
		return "Restore"
	}
}

// outcome says what a finished action did in a VPG, as `rewind undo` says
// it.
func outcome(res recovery.Result) string {
	p := res.Point
	vms := strings.Join(p.VMNames(), ", ")
	as := ""
	if res.As != "" {
		as = ", as Zerto user " + res.As
	}
	switch res.Mode {
	case recovery.ModeTest:
		return fmt.Sprintf("Failover test of VPG %s from checkpoint %q%s: task %s. Test copies on recovery site %s: %s. The live VMs are untouched; stop the test when you have checked them.",
			p.VPG, p.Tag, as, res.State, res.RecoverySite, strings.Join(res.TestVMs, ", "))
	case recovery.ModeStopTest:
		return fmt.Sprintf("Failover test of VPG %s stopped%s: task %s. Its test copies are gone.", p.VPG, as, res.State)
	case recovery.ModeRollback:
		return fmt.Sprintf("The journal restore of %s (VPG %s) is rolled back: task %s.", vms, p.VPG, res.State)
	case recovery.ModeCommit:
		return fmt.Sprintf("The journal restore of %s (VPG %s) is committed: task %s.", vms, p.VPG, res.State)
	}
	s := fmt.Sprintf("%s (VPG %s) restored to checkpoint %q and committed: Zerto's commit task %s.",
		strings.Join(res.Committed, ", "), p.VPG, p.Tag, res.State)
	if b := res.Before; b.AuditID != "" {
		s += fmt.Sprintf(" The checkpoint of %s just before the restore is %q: rewind undo %s --restore undoes it.", vms, b.Tag, b.AuditID)
	}
	return s
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

// start runs req, planned as plan, in the background through recovery's
// one operation, unless one of its VPGs is busy.
func (js *jobs) start(plan *recovery.Plan, req recovery.Request) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	j := &job{ID: newToken(), Mode: plan.Mode, started: time.Now()}
	for _, p := range plan.Points {
		if r, ok := js.running[p.VPGIdentifier]; ok {
			return nil, &BusyError{VPG: p.VPG, Mode: r.Mode}
		}
		j.AuditID = p.AuditID
		j.VPGs, j.vpgIDs = append(j.VPGs, p.VPG), append(j.vpgIDs, p.VPGIdentifier)
		j.VMs = append(j.VMs, p.VMNames()...)
	}
	for _, id := range j.vpgIDs {
		js.running[id] = j
		if plan.Mode == recovery.ModeTest {
			js.tests[id] = j.AuditID
		}
	}
	js.byID[j.ID] = j
	js.order = append(js.order, j.ID)
	if len(js.order) > maxJobs {
		if old := js.byID[js.order[0]]; old != nil && old.isDone() {
			delete(js.byID, js.order[0])
			js.order = js.order[1:]
		}
	}
	svc := js.s.o.Recovery
	req.Progress = func(p recovery.Progress) {
		j.mu.Lock()
		j.progress = p
		j.mu.Unlock()
	}
	js.s.wg.Go(func() {
		ctx, cancel := context.WithTimeout(js.s.ctx, jobTimeout)
		defer cancel()
		res, err := svc.Run(ctx, req)
		j.mu.Lock()
		j.done, j.results, j.err, j.finished = true, res, err, time.Now()
		j.mu.Unlock()
		js.mu.Lock()
		for _, id := range j.vpgIDs {
			delete(js.running, id)
		}
		js.mu.Unlock()
	})
	return j, nil
}

func (j *job) isDone() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.done
}

// restoresWaiting returns the audit ids of the calls whose latest restore
// was sent to Zerto (it has a task) and did not end committed: such a
// restore may wait in Zerto for its commit or rollback, which the page
// offers. A later restore, commit or rollback of the call ends it.
func restoresWaiting(recs []audit.Record) map[string]bool {
	waiting := map[string]bool{}
	for _, r := range recs {
		if r.Rewinds == "" {
			continue
		}
		switch {
		case r.Decision == audit.DecisionUndoFailed && r.Task != "" && strings.HasSuffix(r.Excerpt, " --"+recovery.ModeRestore):
			waiting[r.Rewinds] = true
		case r.Decision == audit.DecisionUndoRestore, r.Decision == audit.DecisionUndoRollback, r.Decision == audit.DecisionUndoCommit:
			delete(waiting, r.Rewinds)
		}
	}
	return waiting
}

// prepared is what the page shows before an action: what it does, what a
// restore loses, the names to type, whether the person's own Zerto
// credentials are asked, and why Zerto cannot run it now.
type prepared struct {
	Mode  string   `json:"mode"`
	Title string   `json:"title"`
	Text  string   `json:"text"`
	VMs   []string `json:"vms"`
	VPGs  []string `json:"vpgs"`
	Type  bool     `json:"type_names"` // the VM names must be typed
	// Credentials says the action runs with the person's own Zerto user
	// and password, typed for it: a restore, a commit, a rollback.
	Credentials bool `json:"credentials"`
	// Foreign says a stop ends a test rewind did not start, which the
	// person must say they mean.
	Foreign bool   `json:"foreign,omitempty"`
	Problem string `json:"problem,omitempty"`
}

func parseMode(m string) (string, error) {
	for _, mode := range recovery.Modes {
		if m == mode {
			return m, nil
		}
	}
	return "", fmt.Errorf("unknown action %q: %s", m, strings.Join(recovery.Modes, ", "))
}

// request reads an action's mode, id and vpg from v. When it cannot, it
// answers the request and returns ok false.
func (s *Server) request(w http.ResponseWriter, v url.Values) (req recovery.Request, ok bool) {
	mode, err := parseMode(v.Get("mode"))
	if err != nil {
		writeError(w, http.StatusBadRequest, err)
		return req, false
	}
	if s.o.Recovery == nil {
		writeError(w, http.StatusServiceUnavailable, errors.New(s.noZerto()))
		return req, false
	}
	req = recovery.Request{ID: v.Get("id"), Mode: mode}
	// The page's choice of VPG is the rewind point the person clicked:
	// for a VM in several VPGs, the one to go back in.
	if vpg := strings.TrimSpace(v.Get("vpg")); vpg != "" {
		req.VPGs = []string{vpg}
	}
	return req, true
}

var titles = map[string]string{
	recovery.ModeTest: "Test from here", recovery.ModeStopTest: "Stop test", recovery.ModeRestore: "Restore to here",
	recovery.ModeRollback: "Roll back the restore", recovery.ModeCommit: "Commit the restore",
}

func (s *Server) prepare(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := s.zertoContext(r.Context())
	defer cancel()
	req, ok := s.request(w, r.URL.Query())
	if !ok {
		return
	}
	points, err := s.o.Recovery.Points(ctx, req)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	out := prepared{Mode: req.Mode, Title: titles[req.Mode], Type: recovery.NeedsOperator(req.Mode), Credentials: recovery.NeedsOperator(req.Mode)}
	for _, p := range points {
		out.VMs = append(out.VMs, p.VMNames()...)
		out.VPGs = append(out.VPGs, p.VPG)
	}
	// An action bound to fail (aged out, a test running or none) is said
	// before anyone confirms it.
	plan, err := s.o.Recovery.Plan(ctx, req)
	if err != nil {
		out.Problem = problem(err)
		out.Text = fmt.Sprintf("%s of %s (VPG %s).", modeName(req.Mode), strings.Join(out.VMs, ", "), strings.Join(out.VPGs, ", "))
		writeJSON(w, http.StatusOK, out)
		return
	}
	out.Text = plan.Text()
	out.Foreign = plan.Foreign()
	// A test or a stop asks for them too where Zerto refuses them to
	// rewind's own client; the plan's text says so, with Zerto's words.
	out.Credentials = plan.AsPerson
	if recovery.NeedsOperator(req.Mode) {
		out.Text += "\nThis runs with your own Zerto user and password, typed here for this action only: rewind never keeps them, and its own credentials never restore."
	}
	writeJSON(w, http.StatusOK, out)
}

// action starts an action. A restore, a commit or a rollback needs the
// point's VM names typed and the person's own Zerto credentials, which
// rewind ui never printed: nothing reaches Zerto without them. A test or a
// stop needs the credentials too where Zerto refuses them to rewind's own
// client. A stop of a test rewind did not start needs the person to say
// they mean it.
func (s *Server) action(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		writeError(w, http.StatusBadRequest, fmt.Errorf("reading the form: %w", err))
		return
	}
	ctx, cancel := s.zertoContext(r.Context())
	defer cancel()
	form := r.PostForm
	req, ok := s.request(w, form)
	if !ok {
		return
	}
	svc := s.o.Recovery
	var op *recovery.Operator
	if recovery.NeedsOperator(req.Mode) {
		if op, ok = s.operator(ctx, w, req, form); !ok {
			return
		}
	}
	plan, err := svc.Plan(ctx, req)
	if err != nil {
		writeError(w, statusOf(err), err)
		return
	}
	if plan.Foreign() && form.Get("foreign") != "1" {
		writeError(w, http.StatusConflict, errors.New("this failover test was not started by rewind: say you mean to stop it; nothing was sent to Zerto"))
		return
	}
	if plan.AsPerson && op == nil {
		if op, ok = s.credentials(ctx, w, form); !ok {
			return
		}
	}
	req.Confirm = func(_ context.Context, p *recovery.Plan) (*recovery.Operator, error) {
		if p.AsPerson && op == nil {
			// Zerto refused rewind's own client after all, before anything
			// was done (recovery.Service.Run); the service remembers it,
			// so the dialog asks for the credentials next time.
			return nil, &recovery.ConfirmError{Mode: p.Mode, Refused: p.Refused,
				Reason: fmt.Sprintf("Zerto refuses rewind's own client this (%s): it runs with your own Zerto user and password; start it again and type them in the dialog: nothing was changed", p.Refused.Message)}
		}
		return op, nil
	}
	j, err := s.jobs.start(plan, req)
	if err != nil {
		writeError(w, http.StatusConflict, err)
		return
	}
	writeJSON(w, http.StatusAccepted, j.status())
}

// operator reads the confirmation of an action that changes a VM's disks:
// the VM names typed, then the person's own Zerto credentials.
func (s *Server) operator(ctx context.Context, w http.ResponseWriter, req recovery.Request, form url.Values) (*recovery.Operator, bool) {
	points, err := s.o.Recovery.Points(ctx, req)
	if err != nil {
		writeError(w, statusOf(err), err)
		return nil, false
	}
	var names []string
	for _, p := range points {
		names = append(names, p.VMNames()...)
	}
	if !recovery.NamesTyped(form.Get("confirm"), names) {
		writeError(w, http.StatusBadRequest, fmt.Errorf("%s not confirmed: type %s; nothing was sent to Zerto",
			req.Mode, strings.Join(names, ", ")))
		return nil, false
	}
	return s.credentials(ctx, w, form)
}

// credentials reads the person's own Zerto user and password from the
// form, which are checked with Zerto before anything else is sent and
// kept only for this action. The hook's credentials are refused: the
// agent that started `rewind ui` may hold them, and everything else the
// page asks.
func (s *Server) credentials(ctx context.Context, w http.ResponseWriter, form url.Values) (*recovery.Operator, bool) {
	user, password := form.Get("zvm_user"), form.Get("zvm_password")
	if strings.TrimSpace(user) == "" || password == "" {
		writeError(w, http.StatusUnauthorized, errors.New("this runs with your own Zerto user and password: type them; nothing was sent to Zerto"))
		return nil, false
	}
	op, err := s.o.Recovery.NewOperator(user, password)
	if err != nil {
		writeError(w, http.StatusForbidden, fmt.Errorf("%w; nothing was sent to Zerto", err))
		return nil, false
	}
	if err := op.Login(ctx); err != nil {
		writeError(w, http.StatusForbidden, err)
		return nil, false
	}
	return op, true
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
		pe  *recovery.PrefixError
		ce  *recovery.ChoiceError
		np  *recovery.NotProtectedError
		se  *recovery.StateError
		ae  *recovery.AgedOutError
	)
	switch {
	case errors.As(err, &nf), errors.As(err, &ce) && ce.Unknown != "":
		return http.StatusNotFound
	case errors.As(err, &amb), errors.As(err, &np), errors.As(err, &pe), errors.As(err, &ce):
		return http.StatusBadRequest
	case errors.As(err, &se), errors.As(err, &ae):
		return http.StatusConflict
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
