package zerto_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/internal/race"
	"github.com/rewind-dev/rewind/zvmsim"
)

// proxy puts a reverse proxy in front of the simulator and points the
// hook at it: hold decides, per request, whether to hang it until the
// client gives up.
func (e *env) proxy(t *testing.T, hold func(r *http.Request) bool) {
	t.Helper()
	target, err := url.Parse(e.Sim.URL)
	if err != nil {
		t.Fatal(err)
	}
	// The client giving up on a request is no error of the proxy's.
	rp := &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) { pr.SetURL(target) }, ErrorLog: log.New(io.Discard, "", 0)}
	done := make(chan struct{})
	ps := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold(r) {
			select {
			case <-r.Context().Done():
			case <-done:
			}
			return
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(done); ps.Close() })
	e.Vars["REWIND_ZVM_URL"] = ps.URL
}

// TestAnswersWithinBudget: every step of a protect call keeps to the
// budget, and the answer says which step ran out of it. A step blind to
// the budget would be answered by the watch instead, with capture's
// progress, not these.
func TestAnswersWithinBudget(t *testing.T) {
	t.Parallel()
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
		{"hung ZVM", func(t *testing.T, e *env) { e.Sim.SetFaults(zvmsim.Faults{Hang: true}) }, "deny", "timeout"},
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
			t.Parallel()
			e := newEnv(t, "1s", "")
			tt.setup(t, e)
			a, raw, _ := e.run(t, "budget", "govc vm.power -off -vm web-01")
			h := a.HookSpecificOutput
			if h.PermissionDecision != tt.decision || !strings.Contains(h.PermissionDecisionReason+h.AdditionalContext, tt.want) {
				t.Errorf("answer %s, want %q with %q", raw, tt.decision, tt.want)
			}
			if tt.name == "audit log lock held forever" {
				return // the log cannot be read either
			}
			if recs := e.Records(t); len(recs) != 1 || strings.Contains(recs[0].Error, "did not return within the budget") {
				t.Errorf("log %+v, want one record of the step's own answer", recs)
			}
		})
	}
}

// TestStateFolderUnusable: capture goes on without its bookkeeping when the
// state folder cannot be had or written.
func TestStateFolderUnusable(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"a file", "no HOME"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "20s", "")
			if name == "a file" {
				file := filepath.Join(e.Dir, "file")
				os.WriteFile(file, nil, 0o600)
				e.Vars["REWIND_STATE_DIR"] = file
			} else {
				delete(e.Vars, "REWIND_STATE_DIR")
				delete(e.Vars, "HOME")
			}
			a, raw, stderr := e.run(t, "nostate", "govc vm.power -off -vm web-01")
			if !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
				t.Errorf("answer %s, want protected", raw)
			}
			if !strings.Contains(stderr, "rewind: audit log: ") {
				t.Errorf("stderr %q does not warn about the log", stderr)
			}
		})
	}
}

// TestTwoVPGsInParallel: a call on two VPGs does not do them one after the
// other: with the first VPG's lock held until the second has its insert,
// both are protected.
func TestTwoVPGsInParallel(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "20s", "")
	dir := e.Vars["REWIND_STATE_DIR"]
	os.MkdirAll(dir, 0o700)
	fl := flock.New(capture.LockFile(dir, e.Sim.VPGIdentifier("fast")))
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	// The lock is let go once the other VPG's insert is on its way, and
	// not before the budget ends otherwise: one after the other, "fast"
	// would wait out the budget for its lock.
	var once sync.Once
	e.proxy(t, func(r *http.Request) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/checkpoints") {
			once.Do(func() { fl.Unlock() })
		}
		return false
	})
	a, raw, _ := e.run(t, "two", "govc vm.power -off web-01 app-01")
	once.Do(func() { fl.Unlock() })
	ctx := a.HookSpecificOutput.AdditionalContext
	if !strings.Contains(ctx, `VPG "fast"`) || !strings.Contains(ctx, `VPG "other"`) {
		t.Fatalf("answer %s, want both VPGs protected", raw)
	}
}

// TestSecretsNeverShown: the client secret and the tokens appear in no
// answer, warning or log record, whatever the ZVM says.
func TestSecretsNeverShown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "20s", "")
	secret := e.Vars["REWIND_ZVM_CLIENT_SECRET"]
	var texts []string
	collect := func(id, cmd string) answer {
		a, raw, stderr := e.run(t, id, cmd)
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
	cache := e.Vars["XDG_CACHE_HOME"]
	e.Vars["REWIND_ZVM_CLIENT_SECRET"] = secret + "-wrong"
	e.Vars["XDG_CACHE_HOME"] = filepath.Join(e.Dir, "cache2")
	a := collect("s3", "govc vm.power -off -vm db-01")
	if h := a.HookSpecificOutput; h.PermissionDecision != "deny" || !strings.Contains(h.PermissionDecisionReason, "Invalid client") {
		t.Errorf("wrong secret: %+v, want a deny with Keycloak's message", h)
	}
	log, _ := os.ReadFile(filepath.Join(e.Vars["REWIND_STATE_DIR"], "audit.jsonl"))
	texts = append(texts, string(log))
	secrets := []string{secret}
	files, _ := filepath.Glob(filepath.Join(cache, "rewind", "zvm-tokens", "*.json"))
	for _, f := range files {
		var tok struct{ AccessToken, RefreshToken string }
		b, _ := os.ReadFile(f)
		json.Unmarshal(b, &tok)
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

// TestSecretsStayOutOfTheReason: a ZVM (or a proxy in its place) that
// echoes the token request in its error, and a URL with a password that
// does not parse, put no secret into the reason, the audit log or stderr.
func TestSecretsStayOutOfTheReason(t *testing.T) {
	t.Parallel()
	const secret = "rewind-secret"
	tests := []struct {
		name  string
		setup func(t *testing.T, e *env)
	}{
		{"error body echoes the form", func(t *testing.T, e *env) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, "cannot handle %s with Authorization: %s", body, r.Header.Get("Authorization"))
			}))
			t.Cleanup(s.Close)
			e.Vars["REWIND_ZVM_URL"] = s.URL
		}},
		{"redirect to plain http", func(t *testing.T, e *env) {
			var got atomic.Int32
			other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got.Add(1) }))
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+"/collect", http.StatusTemporaryRedirect)
			}))
			t.Cleanup(func() {
				s.Close()
				other.Close()
				if got.Load() != 0 {
					t.Errorf("the redirect was followed")
				}
			})
			e.Vars["REWIND_ZVM_URL"] = s.URL
		}},
		{"URL with a password that does not parse", func(t *testing.T, e *env) {
			e.Vars["REWIND_ZVM_URL"] = "https://admin:" + secret + " x@zvm.lab.local"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, "20s", "")
			tt.setup(t, e)
			out, errs, _ := e.Hook(testlab.BashEvent("t1", "govc vm.power -off -vm web-01"))
			if !strings.Contains(out, `"permissionDecision":"deny"`) {
				t.Errorf("stdout %s, want a deny", out)
			}
			logged, _ := os.ReadFile(filepath.Join(e.Vars["REWIND_STATE_DIR"], "audit.jsonl"))
			for where, text := range map[string]string{"stdout": out, "stderr": errs, "audit": string(logged)} {
				if strings.Contains(text, secret) {
					t.Errorf("%s shows the secret: %s", where, text)
				}
			}
		})
	}
}

// TestFixHints: a failure the person can fix says what to set; Zerto's own
// refusal is answered in Zerto's words alone.
func TestFixHints(t *testing.T) {
	t.Parallel()
	t.Run("untrusted certificate names ca_file", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "20s", "")
		sc, err := zvmsim.LoadScenario("testdata/lab.toml")
		if err != nil {
			t.Fatal(err)
		}
		tlsSim := zvmsim.NewTLSTestServer(t, sc)
		e.Vars["REWIND_ZVM_URL"] = tlsSim.URL
		a, _, _ := e.run(t, "tls1", "govc vm.power -off -vm web-01")
		r := a.HookSpecificOutput.PermissionDecisionReason
		if a.HookSpecificOutput.PermissionDecision != "deny" || !strings.Contains(r, "Fix: trust the ZVM's certificate with ca_file") {
			t.Fatalf("untrusted certificate: %q %q", a.HookSpecificOutput.PermissionDecision, r)
		}
		// With the CA trusted the same call is protected.
		ca := filepath.Join(e.Dir, "zvm-ca.pem")
		if err := os.WriteFile(ca, tlsSim.CAPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		e.Vars["REWIND_ZVM_CA_FILE"] = ca
		a, _, _ = e.run(t, "tls2", "govc vm.power -off -vm web-01")
		if a.HookSpecificOutput.PermissionDecision != "" || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
			t.Fatalf("with ca_file: %+v", a.HookSpecificOutput)
		}
	})
	t.Run("refused credentials name the variables", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "20s", "")
		e.Vars["REWIND_ZVM_CLIENT_SECRET"] = "wrong"
		a, _, _ := e.run(t, "cred", "govc vm.power -off -vm web-01")
		if r := a.HookSpecificOutput.PermissionDecisionReason; !strings.Contains(r, "Fix: check the ZVM credentials: REWIND_ZVM_CLIENT_ID") {
			t.Fatalf("refused credentials: %q", r)
		}
	})
	t.Run("Zerto's refusal has no hint", func(t *testing.T) {
		t.Parallel()
		e := newEnv(t, "20s", "")
		a, _, _ := e.run(t, "rej", "govc vm.power -off -vm rej-01")
		r := a.HookSpecificOutput.PermissionDecisionReason
		if !strings.HasSuffix(r, "The checkpoint name is not valid.") || strings.Contains(r, "Fix:") {
			t.Fatalf("Zerto's refusal: %q", r)
		}
	})
}

// TestAuditRecordsMappedVMs: the audit record names the Zerto VM a target
// stands for when the config maps it to another name, and only then.
func TestAuditRecordsMappedVMs(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "20s", "[targets.aliases]\n\"10.0.0.5\" = \"web-01\"\n")
	a, _, _ := e.run(t, "alias", "ssh ops@10.0.0.5 sudo systemctl restart nginx")
	if !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
		t.Fatalf("aliased target: %+v", a.HookSpecificOutput)
	}
	e.run(t, "plain", "ssh nosuch-vm sudo reboot")
	byID := map[string]audit.Record{}
	for _, r := range e.Records(t) {
		byID[r.ToolUseID] = r
	}
	if r := byID["alias"]; !slices.Equal(r.Targets, []string{"10.0.0.5"}) || !slices.Equal(r.VMs, []string{"web-01"}) {
		t.Errorf("aliased record: targets %q, vms %q", r.Targets, r.VMs)
	}
	if r := byID["plain"]; !slices.Equal(r.Targets, []string{"nosuch-vm"}) || r.VMs != nil {
		t.Errorf("plain record: targets %q, vms %q", r.Targets, r.VMs)
	}
}

// TestHostileShapes runs the shapes an agent can write to wear the
// analysis down through the whole hook: each gets its exact decision, or
// ask where it is past a limit, never a crash or a silent pass.
func TestHostileShapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, "20s", "")
	tests := []struct {
		name, command, decision string
	}{
		{"parens in data hide a destroy", "echo '" + strings.Repeat("(", 1001) + "'; g\\ovc vm.destroy web-01", "deny"},
		{"ifs in data hide a destroy", "echo '" + strings.Repeat("if ", 10001) + "'; g\\ovc vm.destroy web-01", "deny"},
		{"the same bytes as data", "echo '" + strings.Repeat("(", 1001) + "; govc vm.destroy web-01'", ""},
		{"deep test negation", "[[ " + strings.Repeat("! ", 1000000) + "x ]]", "ask"},
		{"sudo chain", strings.Repeat("sudo ", 250000) + "ls", "ask"},
		{"xargs chain", strings.Repeat("xargs ", 300000) + "ls", "ask"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			race.SkipHugeInput(t, len(tt.command))
			a, out, _ := e.run(t, "hostile-"+string(rune('a'+i)), tt.command)
			if got := a.HookSpecificOutput.PermissionDecision; got != tt.decision {
				t.Errorf("decision %q, want %q (stdout %.300s)", got, tt.decision, out)
			}
		})
	}
}
