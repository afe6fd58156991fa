package zvm

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/redact"
)

// TestNoRedirects: a ZVM (or something on the path) that redirects gets
// an error naming where it pointed, and the place it pointed to gets
// nothing, neither the token form with the client secret nor the bearer
// token.
func TestNoRedirects(t *testing.T) {
	t.Parallel()
	var elsewhere atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		body, _ := io.ReadAll(r.Body)
		t.Errorf("the redirect was followed: %s %s with %q", r.Method, r.URL, body)
	}))
	defer other.Close()

	tests := []struct {
		name   string
		status int
		// redirectAPI makes the token endpoint answer, and the API
		// redirect.
		redirectAPI bool
	}{
		{"token 307 to http", http.StatusTemporaryRedirect, false},
		{"token 308 to http", http.StatusPermanentRedirect, false},
		{"token 302", http.StatusFound, false},
		{"api 307", http.StatusTemporaryRedirect, true},
		{"api 301", http.StatusMovedPermanently, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			zvm := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == tokenPath && tt.redirectAPI {
					writeJSON(w, 200, map[string]any{"access_token": "access-token-1234", "expires_in": 300})
					return
				}
				http.Redirect(w, r, other.URL+"/steal?x=1", tt.status)
			}))
			defer zvm.Close()
			c := newTestClient(t, zvm.URL, func(o *Options) {
				o.Username, o.Password = "", ""
				o.ClientID, o.ClientSecret = "rewind", "client-secret-value"
				o.HTTPClient = zvm.Client()
			})
			_, err := c.VMs(t.Context(), "web-01")
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindTransport || e.Status != tt.status {
				t.Fatalf("err = %v; want a transport error with status %d", err, tt.status)
			}
			msg := err.Error()
			if !strings.Contains(msg, "redirected to "+other.URL+"/steal") || strings.Contains(msg, "x=1") {
				t.Errorf("err = %q; want the place it pointed to, without its query", msg)
			}
		})
	}
	if n := elsewhere.Load(); n != 0 {
		t.Errorf("the other server got %d requests", n)
	}
}

// TestRedirectLocationScrubbed: a redirect whose Location carries the
// client's secret in its path, as it is or percent-encoded in either case,
// names where it pointed without the secret.
func TestRedirectLocationScrubbed(t *testing.T) {
	t.Parallel()
	const secret = "client secret/value"
	for _, path := range []string{"/login/client%20secret%2Fvalue", "/login/client%20secret%2fvalue/x", "/login/" + base64.RawURLEncoding.EncodeToString([]byte(secret))} {
		zvm := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "https://elsewhere.example"+path)
			w.WriteHeader(http.StatusFound)
		}))
		c := newTestClient(t, zvm.URL, func(o *Options) {
			o.Username, o.Password = "", ""
			o.ClientID, o.ClientSecret = "rewind", secret
		})
		_, err := c.VMs(t.Context(), "web-01")
		zvm.Close()
		if err == nil || !strings.Contains(err.Error(), "redirected to https://elsewhere.example/login/"+redact.Redacted) {
			t.Errorf("Location %s: err = %v", path, err)
		}
		for _, leak := range []string{"secret", "Y2xpZW50"} {
			if err != nil && strings.Contains(err.Error(), leak) {
				t.Errorf("Location %s: err %q shows %q", path, err, leak)
			}
		}
	}
}

// TestErrorBodiesRedacted: a ZVM or proxy that echoes the request in its
// error body does not get the secrets into the error text.
func TestErrorBodiesRedacted(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3t+value/x"
	tests := []struct {
		name string
		// path answers with status and body; other paths work.
		path   string
		status int
		ctype  string
		body   string
	}{
		{"form echoed as text", tokenPath, 400, "text/plain", "bad request: grant_type=client_credentials&client_id=rewind&client_secret=s3cr3t%2Bvalue%2Fx&scope=openid"},
		{"secret echoed bare", tokenPath, 401, "text/plain", "refused s3cr3t+value/x for rewind"},
		{"keycloak description", tokenPath, 401, "application/json", `{"error":"invalid_client","error_description":"client_secret: s3cr3t+value/x is wrong"}`},
		{"bearer echoed", "/v1/vms", 400, "application/json", `{"Message":"bad header Authorization: Bearer access-token-1234 in request"}`},
		{"token echoed bare", "/v1/vms", 500, "application/json", `{"Message":"session access-token-1234 is broken"}`},
		{"url user info", "/v1/vms", 502, "text/plain", "upstream https://admin:hunter22@zvm.internal/v1 failed"},
		// JSON escapes a secret ("+" as .NET's encoder writes it, "/" as
		// some others do): only decoding gives it back as sent.
		{"secret escaped in a Message", "/v1/vms", 400, "application/json", `{"Message":"refused s3cr3t\u002Bvalue\/x for rewind"}`},
		{"secret escaped in a description", tokenPath, 401, "application/json", `{"error":"invalid_client","error_description":"s3cr3t\u002bvalue\u002Fx is wrong"}`},
		// Other encodings a server may echo a secret in.
		{"percent-encoded lower case", tokenPath, 400, "text/plain", "bad form: client_secret=s3cr3t%2bvalue%2fx"},
		{"percent-encoded everywhere", "/v1/vms", 400, "text/plain", "refused %73%33%63%72%33%74%2B%76%61%6c%75%65%2F%78"},
		{"base64", tokenPath, 401, "text/plain", "bad credentials " + base64.StdEncoding.EncodeToString([]byte(secret))},
		{"base64 in a Basic header", tokenPath, 401, "text/plain", "Authorization was " + base64.RawURLEncoding.EncodeToString([]byte("rewind:"+secret+"!"))},
		{"token base64", "/v1/vms", 400, "text/plain", "session " + base64.URLEncoding.EncodeToString([]byte("xx"+"access-token-1234")) + " unknown"},
		{"html", "/v1/vms", 400, "text/plain", "refused s3cr3t&#43;value&#x2f;x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == tt.path {
					w.Header().Set("Content-Type", tt.ctype)
					w.WriteHeader(tt.status)
					io.WriteString(w, tt.body)
					return
				}
				if r.URL.Path == tokenPath {
					writeJSON(w, 200, map[string]any{"access_token": "access-token-1234", "expires_in": 300})
					return
				}
				if r.URL.Path == serverTimePath {
					// The clock reading after the login.
					writeJSON(w, 200, time.Now().UTC().Format(time.RFC3339Nano))
					return
				}
				t.Errorf("unexpected %s", r.URL)
			}))
			defer s.Close()
			c := newTestClient(t, s.URL, func(o *Options) {
				o.Username, o.Password = "", ""
				o.ClientID, o.ClientSecret = "rewind", secret
			})
			_, err := c.VMs(t.Context(), "web-01")
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			for _, leak := range []string{"s3cr3t", "access-token-1234", "hunter22", "czNjcjN0", "MzY3IzdCt2YWx1ZS9", "hY2Nlc3MtdG9rZW4", "%73%33", "&#43;"} {
				if strings.Contains(err.Error(), leak) || strings.Contains(e.Message, leak) {
					t.Errorf("error %q shows %q", err, leak)
				}
			}
			if !strings.Contains(e.Message, "[redacted]") {
				t.Errorf("Message = %q, want the secret replaced", e.Message)
			}
		})
	}
}

func TestRedactURL(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"https://admin:pa ss@zvm.lab.local",
		"https://admin:p/a?s#s@zvm.lab.local:9669",
		"https://admin:hunter22@zvm.lab.local%zz",
		"admin:hunter22@zvm",
	} {
		got := redactURL(in)
		if strings.Contains(got, "pa ss") || strings.Contains(got, "hunter22") || strings.Contains(got, "p/a?s") {
			t.Errorf("redactURL(%q) = %q", in, got)
		}
		if !strings.Contains(got, "zvm") {
			t.Errorf("redactURL(%q) = %q, lost the host", in, got)
		}
		_, err := New(Options{URL: in, Username: "u", Password: "p"})
		if err == nil || strings.Contains(err.Error(), "hunter22") || strings.Contains(err.Error(), "pa ss") {
			t.Errorf("New(%q) = %v", in, err)
		}
	}
}

func TestLongMessageBounded(t *testing.T) {
	t.Parallel()
	c := &Client{secrets: &redact.Set{}}
	got := c.message(errorMessage([]byte(`{"Message":"` + strings.Repeat("é", 4000) + `"}`)))
	if len(got) > maxMessage+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("message of %d bytes, want at most %d ending in …", len(got), maxMessage)
	}
}

// TestTaskReasonRedacted: a failed task's CompleteReason reaches the
// hook's reason and the audit log, so a ZVM that writes the client's
// credential into it, in whatever encoding, is scrubbed like any other
// message it sends.
func TestTaskReasonRedacted(t *testing.T) {
	t.Parallel()
	c := &Client{secrets: &redact.Set{}}
	c.secrets.Add("hunter2-secret")
	got := c.message("insert failed: POST token with client_secret=hunter2%2dsecret&grant_type=client_credentials")
	if strings.Contains(got, "hunter2-secret") {
		t.Errorf("CompleteReason = %q: the secret is shown", got)
	}
	if !strings.HasPrefix(got, "insert failed: ") {
		t.Errorf("CompleteReason = %q: Zerto's own words are lost", got)
	}
}
