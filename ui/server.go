package ui

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
)

//go:embed assets
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Log is the decision log the page shows.
	Log *audit.Log
	// Recovery reaches Zerto for the VMs view and runs the actions; nil
	// when Zerto is not configured, and then ZertoProblem says why.
	Recovery     *recovery.Service
	ZertoProblem string
	// Poll is how often the audit log is looked at, and how often the page
	// looks at an action it started; DefaultPoll when zero.
	Poll time.Duration
	// ZertoWait bounds each wait for Zerto; DefaultZertoWait when zero.
	ZertoWait time.Duration
	// Logger hears of what the page cannot show a person, such as an
	// audit log that cannot be read; nil discards it.
	Logger *slog.Logger
}

// Server is the page's HTTP server. It serves one address: the one it was
// made for, which the Host header of every request must name.
type Server struct {
	o      Options
	guard  hostGuard
	token  string
	sess   sessions
	tmpl   *template.Template
	static http.Handler
	watch  *watcher
	jobs   *jobs

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a Server for a listener bound to addr; it starts watching
// the audit log at once. Close stops it.
func New(addr net.Addr, o Options) (*Server, error) {
	if o.Log == nil {
		return nil, errors.New("ui: no audit log")
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.ZertoWait <= 0 {
		o.ZertoWait = DefaultZertoWait
	}
	tmpl, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(assets, "assets/static")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		o: o, guard: newHostGuard(addr), token: newToken(), tmpl: tmpl,
		static: http.StripPrefix("/static/", http.FileServerFS(static)),
		watch:  newWatcher(o.Log.Path(), o.Poll),
		ctx:    ctx, cancel: cancel,
	}
	s.jobs = newJobs(s)
	s.wg.Go(func() { s.watch.run(ctx) })
	return s, nil
}

// URL returns the address to open, with the token that buys a session.
func (s *Server) URL() string {
	return "http://" + s.guard.urlHost() + "/?token=" + s.token
}

// Close stops the watcher and the page's live feeds, cancels the actions
// still running (Zerto's tasks go on; the audit log records each as
// failed with the cancellation) and waits for them.
func (s *Server) Close() {
	s.cancel()
	s.wg.Wait()
}

// Serve serves HTTP on ln until ctx ends, then shuts down.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// The live feeds end with the server's context; Shutdown waits for
	// the rest.
	s.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ServeHTTP checks the request's host and session, then routes it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")

	if !s.guard.allows(r.Host) {
		// A name other than the bound address is a DNS rebinding
		// attempt, or a proxy this page was not meant to sit behind.
		http.Error(w, "rewind ui: this page answers only to "+s.guard.urlHost()+", not to Host "+fmt.Sprintf("%q", r.Host), http.StatusMisdirectedRequest)
		return
	}
	if tok := r.URL.Query().Get("token"); tok != "" {
		s.exchange(w, r, tok)
		return
	}
	c, err := r.Cookie(s.guard.cookieName())
	var csrf string
	ok := err == nil
	if ok {
		csrf, ok = s.sess.lookup(c.Value)
	}
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintln(w, "rewind ui: open the URL that `rewind ui` printed, with its token, to start a session here.")
		return
	}
	if r.Method == http.MethodPost && (!s.guard.sameOrigin(r) || !equalSecret(r.Header.Get("X-CSRF-Token"), csrf)) {
		http.Error(w, "rewind ui: missing or wrong CSRF token: reload the page", http.StatusForbidden)
		return
	}
	s.route(w, r, csrf)
}

// exchange trades the URL token for a session cookie, then sends the
// browser to the same page without the token, so that it stays out of the
// history and of what is shown on screen.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, tok string) {
	if r.Method != http.MethodGet || !equalSecret(tok, s.token) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintln(w, "rewind ui: wrong token: open the URL that `rewind ui` printed.")
		return
	}
	id, _ := s.sess.add()
	http.SetCookie(w, &http.Cookie{
		Name: s.guard.cookieName(), Value: id, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	q := r.URL.Query()
	q.Del("token")
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

func (s *Server) route(w http.ResponseWriter, r *http.Request, csrf string) {
	get := r.Method == http.MethodGet || r.Method == http.MethodHead
	switch {
	case r.URL.Path == "/" && get:
		s.index(w, r, csrf)
	case r.URL.Path == "/events" && get:
		s.events(w, r)
	case r.URL.Path == "/fragment/vms" && get:
		s.vmsFragment(w, r)
	case strings.HasPrefix(r.URL.Path, "/static/") && !strings.HasSuffix(r.URL.Path, "/") && get:
		s.static.ServeHTTP(w, r)
	case r.URL.Path == "/api/prepare" && get:
		s.prepare(w, r)
	case r.URL.Path == "/api/action" && r.Method == http.MethodPost:
		s.action(w, r)
	case strings.HasPrefix(r.URL.Path, "/api/jobs/") && get:
		s.job(w, r, strings.TrimPrefix(r.URL.Path, "/api/jobs/"))
	case r.URL.Path == "/" || r.URL.Path == "/events" || r.URL.Path == "/api/action" || r.URL.Path == "/api/prepare":
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) warn(msg string, err error) {
	if s.o.Logger != nil {
		s.o.Logger.Warn(msg, "err", err)
	}
}
