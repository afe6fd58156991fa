package hook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/zvmsim"
)

// runFull is run, also returning stderr and the time taken.
func (e *env) runFull(t *testing.T, id, command string) (answer, string, string, time.Duration) {
	t.Helper()
	start := time.Now()
	out, errs, _ := e.Hook(testlab.BashEvent(id, command))
	el := time.Since(start)
	a, _ := decodeAnswer(t, out)
	return a, out, errs, el
}

func decodeAnswer(t *testing.T, s string) (answer, error) {
	t.Helper()
	var a answer
	if s == "" {
		return a, nil
	}
	err := jsonUnmarshal([]byte(s), &a)
	if err != nil {
		t.Fatalf("stdout %q: %v", s, err)
	}
	return a, err
}

// proxy puts a handler in front of the simulator: hold decides, per
// request, whether to hang it until the client gives up.
func (e *env) proxy(t *testing.T, hold func(r *http.Request) bool) {
	t.Helper()
	target, _ := url.Parse(e.Sim.URL)
	done := make(chan struct{})
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold(r) {
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Scheme, r2.URL.Host, r2.RequestURI = target.Scheme, target.Host, ""
		resp, err := http.DefaultTransport.RoundTrip(r2)
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		var buf bytes.Buffer
		buf.ReadFrom(resp.Body)
		w.Write(buf.Bytes())
	}))
	t.Cleanup(func() { close(done); ps.Close() })
	e.Vars["REWIND_ZVM_URL"] = ps.URL
}

func TestAnswersWithinBudget(t *testing.T) {
	isToken := func(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/auth/") }
	tests := []struct {
		name     string
		setup    func(t *testing.T, e *env)
		decision string
		want     string
	}{
		{"token endpoint hangs", func(t *testing.T, e *env) { e.proxy(t, isToken) }, "deny", "timeout"},
		{"hangs after the insert", func(t *testing.T, e *env) {
			var mu sync.Mutex
			inserted := false
			e.proxy(t, func(r *http.Request) bool {
				mu.Lock()
				defer mu.Unlock()
				if inserted {
					return true
				}
				inserted = r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/checkpoints")
				return false
			})
		}, "deny", "Zerto accepted checkpoint tag"},
		{"audit log lock held forever", func(t *testing.T, e *env) {
			dir := e.Vars["REWIND_STATE_DIR"]
			os.MkdirAll(dir, 0o700)
			fl := flock.New(filepath.Join(dir, "audit.lock"))
			if err := fl.Lock(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fl.Unlock() })
		}, "", "protects web-01"},
		{"VPG lock held forever", func(t *testing.T, e *env) {
			dir := e.Vars["REWIND_STATE_DIR"]
			os.MkdirAll(dir, 0o700)
			fl := flock.New(capture.LockFile(dir, e.Sim.VPGIdentifier("fast")))
			if err := fl.Lock(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { fl.Unlock() })
		}, "deny", "another rewind process"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, "1s", "")
			tt.setup(t, e)
			a, raw, _, el := e.runFull(t, "budget", "govc vm.power -off -vm web-01")
			// Every step gives up inside the budget (the last, the audit
			// log's lock, a sixteenth of a second before it); the slack is
			// for a loaded machine, and a step blind to the budget waits
			// until the test ends.
			if el > time.Second+500*time.Millisecond {
				t.Errorf("answered after %v, past the 1s budget", el)
			}
			h := a.HookSpecificOutput
			if h.PermissionDecision != tt.decision || !strings.Contains(h.PermissionDecisionReason+h.AdditionalContext, tt.want) {
				t.Errorf("answer %s, want %q with %q", raw, tt.decision, tt.want)
			}
		})
	}
}

// TestStateFolderUnusable: capture goes on without its bookkeeping when the
// state folder cannot be had or written.
func TestStateFolderUnusable(t *testing.T) {
	for _, name := range []string{"a file", "no HOME"} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, "3s", "")
			if name == "a file" {
				file := filepath.Join(e.Dir, "file")
				os.WriteFile(file, nil, 0o600)
				e.Vars["REWIND_STATE_DIR"] = file
			} else {
				delete(e.Vars, "REWIND_STATE_DIR")
				delete(e.Vars, "HOME")
			}
			a, raw, stderr, _ := e.runFull(t, "nostate", "govc vm.power -off -vm web-01")
			if !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
				t.Errorf("answer %s, want protected", raw)
			}
			if !strings.Contains(stderr, "audit log") {
				t.Errorf("stderr %q does not warn about the log", stderr)
			}
		})
	}
}

// TestTwoVPGsInParallel: a call on two VPGs does not do them one after the
// other: with the first VPG's lock held, the second still gets its insert.
func TestTwoVPGsInParallel(t *testing.T) {
	e := newEnv(t, "5s", "")
	dir := e.Vars["REWIND_STATE_DIR"]
	os.MkdirAll(dir, 0o700)
	fl := flock.New(capture.LockFile(dir, e.Sim.VPGIdentifier("fast")))
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	// The lock is let go once the other VPG has its insert, and not
	// before the budget ends otherwise: one after the other, "fast" would
	// wait out the budget for its lock.
	done := make(chan struct{})
	unlocked := make(chan struct{})
	go func() {
		defer close(unlocked)
		defer fl.Unlock()
		for e.Sim.CountInserts() == 0 {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	a, raw, _, _ := e.runFull(t, "two", "govc vm.power -off web-01 app-01")
	close(done)
	<-unlocked
	ctx := a.HookSpecificOutput.AdditionalContext
	if !strings.Contains(ctx, `VPG "fast"`) || !strings.Contains(ctx, `VPG "other"`) {
		t.Fatalf("answer %s, want both VPGs protected", raw)
	}
}

// TestSecretsNeverShown: the client secret and the tokens appear in no
// answer, warning or log record, whatever the ZVM says.
func TestSecretsNeverShown(t *testing.T) {
	e := newEnv(t, "3s", "")
	secret := e.Vars["REWIND_ZVM_CLIENT_SECRET"]
	var texts []string
	collect := func(id, cmd string) answer {
		a, raw, stderr, _ := e.runFull(t, id, cmd)
		texts = append(texts, raw, stderr)
		return a
	}
	// Mid-capture 401s: every token is revoked after two requests.
	e.Sim.SetFaults(zvmsim.Faults{Unauthorized401AfterN: 2})
	if a := collect("s1", "govc vm.power -off -vm web-01"); !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
		t.Errorf("with 401s mid-capture: %+v, want protected", a.HookSpecificOutput)
	}
	e.Sim.SetFaults(zvmsim.Faults{})
	e.Sim.ExpireTokens()
	if a := collect("s2", "govc vm.power -off -vm web-01"); !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
		t.Errorf("with an expired token: %+v, want protected", a.HookSpecificOutput)
	}
	// A wrong secret, with no token cached to hide it.
	e.Vars["REWIND_ZVM_CLIENT_SECRET"] = secret + "-wrong"
	t.Setenv("XDG_CACHE_HOME", filepath.Join(e.Dir, "cache2"))
	a := collect("s3", "govc vm.power -off -vm db-01")
	if h := a.HookSpecificOutput; h.PermissionDecision != "deny" || !strings.Contains(h.PermissionDecisionReason, "Invalid client") {
		t.Errorf("wrong secret: %+v, want a deny with Keycloak's message", h)
	}
	log, _ := os.ReadFile(filepath.Join(e.Vars["REWIND_STATE_DIR"], "audit.jsonl"))
	texts = append(texts, string(log))
	secrets := []string{secret}
	files, _ := filepath.Glob(filepath.Join(e.Dir, "cache", "rewind", "zvm-tokens", "*.json"))
	for _, f := range files {
		var tok struct{ AccessToken, RefreshToken string }
		b, _ := os.ReadFile(f)
		jsonUnmarshal(b, &tok)
		secrets = append(secrets, tok.AccessToken, tok.RefreshToken)
		if strings.Contains(string(b), secret) {
			t.Errorf("token cache %s holds the client secret", f)
		}
	}
	if len(secrets) < 3 {
		t.Fatalf("no token cached (files %v)", files)
	}
	for _, s := range secrets {
		for _, text := range texts {
			if s != "" && strings.Contains(text, s) {
				t.Errorf("secret %q shown in %q", s, text)
			}
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
