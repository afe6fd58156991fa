package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

// lab is the shared test lab, its log filled by the real hook, and the
// page served over them on a loopback port.
type lab struct {
	*testlab.Lab
	svc  *recovery.Service
	srv  *Server
	ts   *httptest.Server
	base string // http://127.0.0.1:PORT
}

type labOption func(*Options)

// noZerto serves the page without Zerto configured.
func noZerto(o *Options) {
	o.Recovery = nil
	o.ZertoProblem = "no Zerto configured: nothing to go back with"
}

func newLab(t *testing.T, opts ...labOption) *lab {
	t.Helper()
	return newLabOf(t, "", opts...)
}

// newLabOf is newLab on a scenario file of testdata ("" for lab.toml).
func newLabOf(t *testing.T, scenario string, opts ...labOption) *lab {
	t.Helper()
	tl := testlab.New(t, testlab.Options{Scenario: scenario})
	z := tl.Zerto(t)
	svc := &recovery.Service{Z: z, Log: tl.Log, Poll: 5 * time.Millisecond, Tool: "rewind ui",
		ZertoOptions: zvm.Options{URL: tl.Sim.URL, ClientID: testlab.ClientID, ClientSecret: testlab.ClientSecret, CacheDir: "-"},
		Capture:      capture.New(z, capture.Options{StateDir: tl.Vars["REWIND_STATE_DIR"]})}
	l := &lab{Lab: tl, svc: svc}
	o := Options{Log: l.Log, Recovery: l.svc, Poll: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(t.Output(), nil))}
	for _, opt := range opts {
		opt(&o)
	}
	var err error
	l.ts = httptest.NewUnstartedServer(nil)
	l.srv, err = New(l.ts.Listener.Addr(), o)
	if err != nil {
		t.Fatal(err)
	}
	l.ts.Config.Handler = l.srv
	l.ts.Start()
	t.Cleanup(func() {
		l.srv.Close()
		l.ts.Close()
	})
	l.base = l.ts.URL
	return l
}

// browser returns a client that went through the token exchange.
func (l *lab) browser(t *testing.T) *client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &client{t: t, lab: l, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	resp := c.get(l.srv.URL())
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("token exchange: %s", resp.Status)
	}
	page := readBody(t, resp)
	const marker = `name="csrf-token" content="`
	i := strings.Index(page, marker)
	if i < 0 {
		t.Fatalf("no CSRF token in the page:\n%s", page)
	}
	c.csrf = page[i+len(marker):]
	c.csrf = c.csrf[:strings.IndexByte(c.csrf, '"')]
	return c
}

type client struct {
	t    *testing.T
	lab  *lab
	hc   *http.Client
	csrf string
}

func (c *client) get(u string) *http.Response {
	c.t.Helper()
	if strings.HasPrefix(u, "/") {
		u = c.lab.base + u
	}
	resp, err := c.hc.Get(u)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func (c *client) page(u string) string {
	c.t.Helper()
	resp := c.get(u)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("GET %s: %s", u, resp.Status)
	}
	return readBody(c.t, resp)
}

// post sends an action form with the session's CSRF token.
func (c *client) post(path string, form url.Values) (*http.Response, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.lab.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-CSRF-Token", c.csrf)
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp, out
}

// waitJob polls a job until it ends, as the page does.
func (c *client) waitJob(id string) map[string]any {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), 30*time.Second)
	defer cancel()
	for {
		var st map[string]any
		resp := c.get("/api/jobs/" + id)
		if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
			c.t.Fatal(err)
		}
		if st["running"] == false {
			return st
		}
		select {
		case <-ctx.Done():
			c.t.Fatalf("job %s still running: %v", id, st)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sse reads a live feed's events.
type sse struct {
	t  *testing.T
	br *bufio.Reader
}

type event struct{ name, data string }

func (s *sse) next() event {
	s.t.Helper()
	var ev event
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			s.t.Fatalf("reading the feed: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.name != "" || ev.data != "" {
				return ev
			}
		case strings.HasPrefix(line, "event: "):
			ev.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if ev.data != "" {
				ev.data += "\n"
			}
			ev.data += strings.TrimPrefix(line, "data: ")
		}
	}
}
