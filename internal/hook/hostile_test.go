package hook

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/hostio"
)

// TestNamedConfigBudgetBoundsStdin: a host that never closes stdin is
// answered at the budget of the config --config or $REWIND_CONFIG names,
// not the default one, although the event (and so the project) is never
// read.
func TestNamedConfigBudgetBoundsStdin(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, []byte("[hook]\nbudget = \"1s\"\non_error = \"deny\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		flag string
		env  string
	}{
		{"--config", cfg, ""},
		{"REWIND_CONFIG", "", cfg},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := endlessStdin{done: make(chan struct{})}
			defer close(stdin.done)
			var out bytes.Buffer
			Run(context.Background(), stdin, &out, Options{
				Host:       hostio.Claude,
				ConfigPath: tt.flag,
				Getenv: func(k string) string {
					switch k {
					case "REWIND_STATE_DIR":
						return dir
					case "REWIND_CONFIG":
						return tt.env
					}
					return ""
				},
			})
			if !strings.Contains(out.String(), `"permissionDecision":"deny"`) ||
				!strings.Contains(out.String(), "no decision within the hook's budget of 1s") {
				t.Errorf("stdout %s, want the config's on_error (deny) at its budget of 1s", out.String())
			}
		})
	}
}

// TestSecretsStayOutOfTheReason: a ZVM (or a proxy in its place) that
// echoes the token request in its error, and a URL with a password that
// does not parse, put no secret into the reason, the audit log or stderr.
func TestSecretsStayOutOfTheReason(t *testing.T) {
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
			e := newEnv(t, "10s", "")
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
