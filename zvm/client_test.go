package zvm

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/race"
)

func TestEndToEndAgainstFake(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "/zvm")
	s := f.start()
	c := newTestClient(t, s.URL+"/zvm/", nil)
	ctx := t.Context()

	vms, err := c.VMs(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	want := VM{Identifier: webVMID, Name: "web-01", VPGIdentifier: webVPGID, VPGName: "web",
		Status: StatusMeetingSLA, ActualRPO: 7 * time.Second, ProtectedSite: "Lab"}
	if len(vms) != 1 || vms[0] != want {
		t.Fatalf("VMs(web-01) = %+v, want [%+v]", vms, want)
	}
	if vms, err := c.VMs(ctx, "nope"); err != nil || len(vms) != 0 {
		t.Fatalf("VMs(nope) = %v, %v; want empty, nil", vms, err)
	}
	_, err = c.VM(ctx, "web-01.lab.local")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNotFound || e.Status != 400 || e.Message != "The provided VM identifier is not valid." {
		t.Fatalf("VM(host name) = %v; want KindNotFound carrying the 400 and its message", err)
	}
	vpg, err := c.VPG(ctx, webVPGID)
	if err != nil {
		t.Fatal(err)
	}
	if vpg.Name != "web" || vpg.RecoverySiteType != EntityAWS || vpg.ConfiguredRPO != 300*time.Second {
		t.Fatalf("VPG = %+v", vpg)
	}
	cps, err := c.Checkpoints(ctx, webVPGID, time.Now().Add(-time.Hour), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || cps[1].Tag != "rewind-1" || !cps[1].Time.Equal(time.UnixMilli(1735787050000)) ||
		!cps[0].Time.Equal(time.Date(2025, 1, 2, 3, 4, 5, 123e6, time.UTC)) {
		t.Fatalf("Checkpoints = %+v", cps)
	}
	st, err := c.CheckpointStats(ctx, webVPGID)
	if err != nil || st.Latest.Identifier != "cp-2" || st.Earliest.Identifier != "cp-1" {
		t.Fatalf("CheckpointStats = %+v, %v", st, err)
	}
	id, err := c.InsertTaggedCheckpoint(ctx, webVPGID, "rewind-2")
	if err != nil || id != "task-vpgs-"+webVPGID+"-checkpoints" {
		t.Fatalf("InsertTaggedCheckpoint = %q, %v", id, err)
	}
	site, err := c.LocalSite(ctx)
	if err != nil || site.Name != "Lab" || site.Identifier != "site-1" {
		t.Fatalf("LocalSite = %+v, %v", site, err)
	}
	if n := f.grantCount("password"); n != 1 {
		t.Errorf("password logins = %d, want 1", n)
	}
}

func TestWaitTask(t *testing.T) { inBubble(t, testWaitTask) }

func testWaitTask(t *testing.T) {
	f := newFakeZVM(t, "")
	c := f.client(nil)
	f.tasks["ok"] = []int{1, 1, 6}
	f.tasks["bad"] = []int{1, 4}
	f.tasks["slow"] = []int{1}

	task, err := c.WaitTask(t.Context(), "ok", time.Millisecond, nil)
	if err != nil || task.State != TaskCompleted || task.Type != "InsertTaggedCP" || task.Identifier != "ok" {
		t.Fatalf("WaitTask(ok) = %+v, %v", task, err)
	}
	if n := f.callCount("GET /v1/tasks/ok"); n != 3 {
		t.Errorf("polls = %d, want 3", n)
	}

	task, err = c.WaitTask(t.Context(), "bad", time.Millisecond, nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindTaskFailed || e.Message != "The VPG is not in a state that allows this operation." || task.State != TaskFailed {
		t.Fatalf("WaitTask(bad) = %+v, %v; want KindTaskFailed with the CompleteReason", task, err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
	defer cancel()
	task, err = c.WaitTask(ctx, "slow", 5*time.Millisecond, nil)
	if !IsTimeout(err) || task.State != TaskInProgress {
		t.Fatalf("WaitTask(slow) = %+v, %v; want the last state and KindTimeout", task, err)
	}

	if _, err := c.WaitTask(t.Context(), "ok", 0, nil); err == nil {
		t.Error("WaitTask with poll 0: no error")
	}
}

// TestFaults runs each fault of the menu and checks the typed error a
// caller acts on arrives, within the caller's deadline.
func TestFaults(t *testing.T) {
	t.Parallel()
	const deadline = 2 * time.Second
	msg := func(status int, m string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { writeJSON(w, status, map[string]string{"Message": m}) }
	}
	tests := []struct {
		name     string
		handler  http.HandlerFunc
		call     func(*Client, context.Context) error
		kind     Kind
		status   int
		message  string
		attempts int // requests the fake saw on the /v1 route, 0: not checked
	}{
		{name: "hang", kind: KindTimeout,
			handler: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
		{name: "server error", handler: msg(500, "An unexpected error occurred."),
			kind: KindServer, status: 500, message: "An unexpected error occurred."},
		{name: "unavailable retried then given up", handler: msg(503, "Service Unavailable"),
			kind: KindServer, status: 503, message: "Service Unavailable", attempts: maxAttempts},
		{name: "not found", handler: msg(404, "VPG with identifier x was not found"),
			kind: KindNotFound, status: 404, message: "VPG with identifier x was not found"},
		{name: "bad request on a list", handler: msg(400, "Invalid filter"),
			kind: KindBadRequest, status: 400, message: "Invalid filter"},
		{name: "forbidden", handler: msg(403, "User lacks permission"),
			kind: KindUnauthorized, status: 403, message: "User lacks permission"},
		{name: "malformed JSON", kind: KindMalformed, status: 200,
			handler: func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`[{"VmName": `)) }},
		{name: "XML answer", kind: KindMalformed, status: 200,
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				w.Write([]byte(`<ArrayOfVmApi/>`))
			}},
		{name: "insert refused", handler: msg(400, "VPG is in a state that does not allow this operation"),
			call: func(c *Client, ctx context.Context) error {
				_, err := c.InsertTaggedCheckpoint(ctx, webVPGID, "t")
				return err
			},
			kind: KindBadRequest, status: 400, message: "VPG is in a state that does not allow this operation", attempts: 1},
		{name: "insert on a failing server is not retried", handler: msg(503, "busy"),
			call: func(c *Client, ctx context.Context) error {
				_, err := c.InsertTaggedCheckpoint(ctx, webVPGID, "t")
				return err
			},
			kind: KindServer, status: 503, message: "busy", attempts: 1},
		{name: "HTML error page", kind: KindServer, status: 502, message: "",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				w.Write([]byte("<html><body>Bad Gateway</body></html>"))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				f := newFakeZVM(t, "")
				f.setOverride(tt.handler)
				c := f.client(nil)
				call := tt.call
				if call == nil {
					call = func(c *Client, ctx context.Context) error { _, err := c.VMs(ctx, "web-01"); return err }
				}
				ctx, cancel := context.WithTimeout(t.Context(), deadline)
				defer cancel()
				start := time.Now()
				err := call(c, ctx)
				elapsed := time.Since(start)
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if e.Kind != tt.kind || e.Status != tt.status || e.Message != tt.message {
					t.Errorf("err = {Kind %v, Status %d, Message %q}, want {%v, %d, %q}", e.Kind, e.Status, e.Message, tt.kind, tt.status, tt.message)
				}
				if tt.message != "" && !strings.Contains(err.Error(), tt.message) {
					t.Errorf("Error() = %q lacks Zerto's message %q", err, tt.message)
				}
				if elapsed > deadline { // on the bubble's clock; a retry loop blind to the deadline takes far longer
					t.Errorf("took %v, past the caller's deadline %v", elapsed, deadline)
				}
				if tt.attempts > 0 {
					key := "GET /v1/vms"
					if tt.call != nil {
						key = "POST /v1/vpgs/" + webVPGID + "/checkpoints"
					}
					if n := f.callCount(key); n != tt.attempts {
						t.Errorf("%s sent %d times, want %d", key, n, tt.attempts)
					}
				}
			})
		})
	}
}

func TestRetryThenSuccess(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	var mu sync.Mutex
	fails := 2
	f.setOverride(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if fails > 0 && r.URL.Path == "/v1/vms" {
			fails--
			writeJSON(w, 502, map[string]string{"Message": "Bad Gateway"})
			return
		}
		f.api(w, r, r.URL.Path)
	})
	s := f.start()
	c := newTestClient(t, s.URL, nil)
	vms, err := c.VMs(t.Context(), "web-01")
	if err != nil || len(vms) != 1 {
		t.Fatalf("VMs = %v, %v; want success after two 502s", vms, err)
	}
	if n := f.callCount("GET /v1/vms"); n != 3 {
		t.Errorf("GET /v1/vms sent %d times, want 3", n)
	}
}

func TestRetryStopsAtDeadline(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFakeZVM(t, "")
		f.setOverride(func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 503, map[string]string{"Message": "busy"}) })
		c := f.client(nil)
		c.retryBase = time.Minute // the first backoff already passes the deadline
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := c.VMs(ctx, "")
		// At once, on the bubble's clock: a client sleeping until the
		// deadline takes 10 s.
		if KindOf(err) != KindServer || time.Since(start) >= 10*time.Second {
			t.Fatalf("err = %v after %v; want KindServer at once, without sleeping past the deadline", err, time.Since(start))
		}
		if n := f.callCount("GET /v1/vms"); n != 1 {
			t.Errorf("sent %d times, want 1", n)
		}
	})
}

func TestTransportErrors(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	c := newTestClient(t, "http://"+addr, func(o *Options) { o.Password = "s3cret-pw" })
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	_, err = c.VMs(ctx, "")
	if KindOf(err) != KindTransport {
		t.Fatalf("connection refused: err = %v, want KindTransport", err)
	}
	if strings.Contains(err.Error(), "s3cret-pw") {
		t.Errorf("error %q shows the password", err)
	}
}

func TestTLS(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := httptest.NewUnstartedServer(f)
	s.Config.ErrorLog = log.New(io.Discard, "", 0) // the untrusted handshake is expected
	s.StartTLS()
	t.Cleanup(s.Close)

	_, err := newTestClient(t, s.URL, nil).VMs(t.Context(), "")
	if KindOf(err) != KindTLS {
		t.Fatalf("untrusted certificate: err = %v, want KindTLS", err)
	}

	caFile := filepath.Join(t.TempDir(), "zvm-ca.pem")
	if err := os.WriteFile(caFile, certPEM(s), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, s.URL, func(o *Options) { o.CAFile = caFile })
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatalf("with ca_file: %v", err)
	}

	var warned bytes.Buffer
	c = newTestClient(t, s.URL, func(o *Options) {
		o.InsecureSkipVerify = true
		o.Logger = slog.New(slog.NewTextHandler(&warned, nil))
	})
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatalf("insecure: %v", err)
	}
	if n := strings.Count(warned.String(), "level=WARN"); n != 1 || !strings.Contains(warned.String(), "insecure_skip_verify") {
		t.Errorf("insecure_skip_verify warned %d times, want 1: %s", n, warned.String())
	}

	if _, err := New(Options{URL: s.URL, Username: "a", Password: "b", CAFile: filepath.Join(t.TempDir(), "none.pem")}); err == nil {
		t.Error("missing ca_file: no error")
	}
}

// TestReadCap: an answer past maxBody (a month's journal listed whole, at
// a 5 s cadence, is half a million checkpoints and 80 MB) is cut there,
// and the rest taken for what it is: no valid answer.
func TestReadCap(t *testing.T) {
	t.Parallel()
	race.SkipHuge(t)
	f := newFakeZVM(t, "")
	items := bytes.Repeat([]byte(`{"CheckpointIdentifier":"1000000","Tag":"","TimeStamp":"2026-03-01T10:00:00.000Z"},`), 1<<14)
	f.setOverride(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte("["))
		for written := 1; written <= maxBody; written += len(items) {
			if _, err := w.Write(items); err != nil {
				return
			}
		}
		w.Write([]byte(`{}]`))
	})
	c := newTestClient(t, f.start().URL, nil)
	if _, err := c.Checkpoints(t.Context(), webVPGID, time.Time{}, time.Time{}); KindOf(err) != KindMalformed {
		t.Errorf("an answer past the read cap: %v, want KindMalformed", err)
	}
}
