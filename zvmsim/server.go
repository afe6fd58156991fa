package zvmsim

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Bounds that keep a long-running simulator's memory flat.
const (
	maxCheckpoints = 2000           // per VPG
	maxHistory     = 24 * time.Hour // per VPG
	maxTasks       = 1000
	maxRequestLog  = 10000
)

// Server is a simulated ZVM. It implements http.Handler; NewTestServer,
// Serve, or any http.Server can put it on the network. All its methods are
// safe for concurrent use while it serves.
type Server struct {
	sc    *Scenario
	local *Site
	start time.Time

	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup

	// clockOffset is Strict.ClockOffset in nanoseconds, read without the
	// lock by now.
	clockOffset atomic.Int64

	mu              sync.Mutex
	strict          Strict
	faults          Faults
	errAcc          float64 // ServerErrorRate accumulator
	authorizedCalls int     // for Unauthorized401AfterN
	tokenTTL        time.Duration
	refreshTTL      time.Duration
	tokens          map[string]token          // access tokens and sessions
	restores        map[string]RestoreRequest // by lower-case VM name: the last journal restore asked (recovery.go)
	stops           map[*vpgState]TestStop    // the last failover test stop of each VPG (recovery.go)
	refreshTokens   map[string]token
	vpgs            []*vpgState
	vms             []*vmState
	tasks           []*task
	nextCheckpoint  int64
	nextTask        int
	nextVM          map[string]int // per site id
	log             []Request
	counts          map[string]int
	// queryCounts counts requests by kind and query parameter: "vms?vmIdentifier".
	queryCounts  map[string]int
	accepted     map[string]int // by kind: the requests answered 2xx
	tokensIssued int
	insertsMade  int
	taskSteps    *int // SetTaskSteps; nil means DefaultTaskSteps
}

// Request is one request in a Server's request log.
type Request struct {
	Time   time.Time
	Method string
	Path   string
	Query  string
	// Kind names the route that served it (e.g. "token", "insert"; see
	// Server.Count), or "" for a path the ZVM does not serve.
	Kind   string
	Status int
}

// NewServer returns a Server for sc (DefaultScenario when nil) and starts a
// journal writer per VPG. Close stops them. NewServer panics if sc is invalid;
// ParseScenario and LoadScenario return only valid scenarios.
func NewServer(sc *Scenario) *Server {
	if sc == nil {
		sc = DefaultScenario()
	} else if err := sc.normalize(); err != nil {
		panic("zvmsim: invalid scenario: " + err.Error())
	}
	s := &Server{
		sc:            sc,
		local:         sc.site(sc.LocalSite),
		start:         time.Now(),
		done:          make(chan struct{}),
		faults:        sc.Faults,
		strict:        sc.Strict,
		tokenTTL:      time.Duration(sc.TokenTTL),
		refreshTTL:    time.Duration(sc.RefreshTTL),
		tokens:        map[string]token{},
		refreshTokens: map[string]token{},
		nextVM:        map[string]int{},
		counts:        map[string]int{},
		// Checkpoint identifiers are numbers that only grow, like Zerto's.
		nextCheckpoint: 1_000_000,
	}
	s.clockOffset.Store(int64(sc.Strict.ClockOffset))
	for i := range sc.VPGs {
		cfg := sc.VPGs[i]
		v := &vpgState{
			cfg:             cfg,
			protected:       sc.site(cfg.ProtectedSite),
			recovery:        sc.site(cfg.RecoverySite),
			status:          cfg.Status,
			sub:             cfg.SubStatus,
			insertFailure:   cfg.InsertFailure,
			insertRejection: cfg.InsertRejection,
		}
		v.insertTickFailure = cfg.InsertTickFailure
		s.vpgs = append(s.vpgs, v)
		for _, name := range cfg.VMs {
			// A VM already in a VPG of the same protected site is the same
			// VM, with the same identifier, in one more VPG.
			id := ""
			for _, o := range s.vms {
				if o.site == v.protected && strings.EqualFold(o.name, name) {
					id = o.id
					break
				}
			}
			if id == "" {
				id = s.newVMID(v.protected)
			}
			s.vms = append(s.vms, &vmState{id: id, name: name, vpg: v, site: v.protected})
		}
	}
	// Backfill every journal before any writer starts: they share the
	// checkpoint counter, which the writers only touch under s.mu.
	for _, v := range s.vpgs {
		s.backfill(v, s.zvmTime(s.start.Add(time.Duration(v.cfg.Phase))))
	}
	for _, v := range s.vpgs {
		s.wg.Add(1)
		go s.runJournal(v, s.start.Add(time.Duration(v.cfg.Phase)))
	}
	return s
}

// Close stops the journal writers and releases hanging requests. The Server
// still answers requests after Close, but its journals write nothing more.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.wg.Wait()
}

// Scenario returns the scenario the Server simulates. It must not be changed.
func (s *Server) Scenario() *Scenario { return s.sc }

// Serve serves s on ln until ctx is done, then shuts down gracefully. With a
// non-nil tlsConfig it serves HTTPS. It returns nil after a shutdown caused
// by ctx.
func (s *Server) Serve(ctx context.Context, ln net.Listener, tlsConfig *tls.Config) error {
	srv := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Requests returns a copy of the request log, oldest first. The log keeps
// the most recent 10000 requests; Count and its relatives count them all.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Count returns how many requests of a kind the Server has answered, whatever
// their status. Kinds are the route names: "token", "session", "vms", "vm",
// "vpgs", "vpg", "checkpoints", "checkpointStats", "insert", "tasks", "task",
// "failoverTest", "failoverTestStop", "restore", "restoreCommit",
// "restoreRollback", "failover", "failoverCommit", "failoverRollback",
// "localsite"; "" counts requests for unknown paths.
func (s *Server) Count(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[kind]
}

// CountAccepted returns how many requests of a kind the Server answered
// with a 2xx status: the operations it took on, without those it refused
// (a 403 for a role that lacks the permission) or found nothing for (the
// probes of an operation on a VPG that does not exist).
func (s *Server) CountAccepted(kind string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted[kind]
}

// CountQuery returns how many requests of a kind the Server has answered
// with the query parameter param set, such as the "vms" requests with
// "vmIdentifier" (one VM's rows) apart from those with "vmName" (a lookup
// by name).
func (s *Server) CountQuery(kind, param string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queryCounts[kind+"?"+param]
}

// CountTokens returns how many access tokens and sessions the Server has
// issued.
func (s *Server) CountTokens() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokensIssued
}

// CountInserts returns how many tagged checkpoint inserts the Server has
// accepted (answered with a task id).
func (s *Server) CountInserts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.insertsMade
}

// now is the ZVM's clock: the host's plus Strict.ClockOffset, in UTC, to
// the millisecond, as ZVMs report it.
func (s *Server) now() time.Time { return s.zvmTime(time.Now()) }

// zvmTime is the ZVM's clock reading at the host's time t.
func (s *Server) zvmTime(t time.Time) time.Time {
	return t.Add(time.Duration(s.clockOffset.Load())).UTC().Truncate(time.Millisecond)
}

// ServeHTTP answers one API request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statusRecorder{ResponseWriter: w}
	// The Date header is the web server's clock: the ZVM's, unless a proxy
	// in front of it keeps one of its own.
	w.Header().Set("Date", s.now().Add(time.Duration(s.sc.Proxy.DateOffset)).Format(http.TimeFormat))
	path, underBase := strings.CutPrefix(r.URL.Path, s.sc.Proxy.BasePath)
	if !underBase || (path != "" && path[0] != '/') {
		// The proxy's own page, as nginx answers a path it serves nothing at.
		s.record(Request{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Status: http.StatusNotFound})
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, "<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n")
		return
	}
	rt, params, allowed := match(r.Method, path)
	if rt != nil && !s.flavorServes(rt) {
		rt, allowed = nil, nil
	}
	kind := ""
	if rt != nil {
		kind = rt.Kind
	}
	defer func() {
		s.record(Request{
			Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path,
			Query: r.URL.RawQuery, Kind: kind, Status: rec.status(),
		})
	}()

	f, serverError := s.injectedFaults()
	if f.Latency > 0 {
		t := time.NewTimer(time.Duration(f.Latency))
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.done:
			t.Stop()
		}
	}
	if f.Hang {
		select {
		case <-r.Context().Done():
		case <-s.done:
		}
		return
	}
	c := &call{s: s, w: rec, r: r, route: rt, params: params, malformed: f.MalformedJSON}
	if serverError {
		c.message(http.StatusInternalServerError, "An error has occurred.")
		return
	}
	switch {
	case rt == nil && len(allowed) > 0:
		rec.Header().Set("Allow", strings.Join(allowed, ", "))
		c.message(http.StatusMethodNotAllowed, fmt.Sprintf("The requested resource does not support http method '%s'.", r.Method))
		return
	case rt == nil:
		c.message(http.StatusNotFound, fmt.Sprintf("No HTTP resource was found that matches the request URI '%s'.", requestURL(r)))
		return
	}
	if rt.Auth {
		t, ok := s.authorize(r)
		if !ok {
			c.message(http.StatusUnauthorized, "Authorization has been denied for this request.")
			return
		}
		// The role is checked before anything of the request is: a token
		// without the permission changes nothing, whatever it names.
		if !allows(t.roles, rt.Perm) {
			c.message(http.StatusForbidden, forbidden(rt.Perm, t.subject))
			return
		}
		c.user = t.subject
	}
	rt.handle(c)
}

// flavorServes reports whether the scenario's kind of ZVM has the route:
// an appliance has no Windows login, a Windows ZVM no Keycloak.
func (s *Server) flavorServes(rt *route) bool {
	switch s.sc.Flavor {
	case FlavorAppliance:
		return rt.Kind != "session"
	case FlavorWindows:
		return rt.Kind != "token"
	}
	return true
}

// injectedFaults returns the faults in force and whether this request is one
// that ServerErrorRate fails.
func (s *Server) injectedFaults() (Faults, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	if f.ServerErrorRate <= 0 {
		return f, false
	}
	s.errAcc += f.ServerErrorRate
	if s.errAcc >= 1-1e-9 {
		s.errAcc = math.Max(0, s.errAcc-1)
		return f, true
	}
	return f, false
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counts[req.Kind]++
	if req.Status/100 == 2 {
		if s.accepted == nil {
			s.accepted = make(map[string]int)
		}
		s.accepted[req.Kind]++
	}
	if q, err := url.ParseQuery(req.Query); err == nil {
		if s.queryCounts == nil {
			s.queryCounts = make(map[string]int)
		}
		for param := range q {
			s.queryCounts[req.Kind+"?"+param]++
		}
	}
	if len(s.log) >= maxRequestLog {
		s.log = slices.Delete(s.log, 0, len(s.log)-maxRequestLog+1)
	}
	s.log = append(s.log, req)
}

func requestURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + r.URL.RequestURI()
}

// baseURL is the scheme and host clients reach this server at, for the
// href of resource links.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// status is the status sent, or 0 when the request ended without an answer
// (a hang the client gave up on).
func (w *statusRecorder) status() int { return w.code }

// call is one request being handled by a route.
type call struct {
	s         *Server
	w         http.ResponseWriter
	r         *http.Request
	route     *route
	params    map[string]string
	malformed bool
	user      string // who the token or session belongs to
}

// query returns a query parameter, matching its name in any casing as
// ASP.NET does. Handlers may read only the parameters their route declares,
// so that the contract test covers every parameter the simulator reads.
func (c *call) query(name string) string {
	if !slices.Contains(c.route.Query, name) {
		panic("zvmsim: route " + c.route.Path + " reads undeclared query parameter " + name)
	}
	for k, vs := range c.r.URL.Query() {
		if strings.EqualFold(k, name) && len(vs) > 0 {
			return vs[0]
		}
	}
	return ""
}

// json writes v as the JSON answer, truncated when MalformedJSON is in force.
func (c *call) json(status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic("zvmsim: encoding answer: " + err.Error())
	}
	if c.malformed && status < 300 {
		b = append(b[:len(b)/2:len(b)/2], `,"`...)
	}
	c.w.Header().Set("Content-Type", "application/json; charset=utf-8")
	c.w.WriteHeader(status)
	c.w.Write(b)
}

// message writes a ZVM error answer: {"Message": msg}.
func (c *call) message(status int, msg string) {
	c.json(status, struct{ Message string }{msg})
}

// decode reads a JSON request body into v. Keys match in any casing, as
// encoding/json and ZVMs do. An empty body leaves v as it is.
//
// Under Strict.RequireJSONContentType a body not sent as application/json
// is refused with 415, as ASP.NET does.
func (c *call) decode(v any) bool {
	body, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, 1<<20))
	if err != nil {
		c.message(http.StatusRequestEntityTooLarge, "The request body is too large.")
		return false
	}
	if len(bytes.TrimSpace(body)) > 0 && c.s.Strict().RequireJSONContentType {
		mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
		if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			c.message(http.StatusUnsupportedMediaType, fmt.Sprintf("The request entity's media type '%s' is not supported for this resource.", c.r.Header.Get("Content-Type")))
			return false
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		c.message(http.StatusBadRequest, "The request is invalid: the body is not valid JSON for this request.")
		return false
	}
	return true
}
