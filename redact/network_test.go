package redact

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// networkErrors are the texts of Go's network failures as a client sees
// them, each quoting a URL whose path ends in a word a label rule would
// take for a secret's name ("…/token": ...).
func networkErrors(t *testing.T) []string {
	t.Helper()
	const tokenURL = "https://zvm.lab.local/auth/realms/zerto/protocol/openid-connect/token"
	texts := []string{
		`Post "` + tokenURL + `": dial tcp 127.0.0.1:1: connect: connection refused`,
		`Post "` + tokenURL + `": dial tcp: lookup zvm.lab.local on 127.0.0.53:53: no such host`,
		`Post "` + tokenURL + `": dial tcp: lookup zvm.lab.local: i/o timeout`,
		`Post "` + tokenURL + `": dial tcp 10.0.0.5:443: i/o timeout`,
		`Post "` + tokenURL + `": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
		`Post "` + tokenURL + `": tls: failed to verify certificate: x509: certificate is valid for zvm.other.local, not zvm.lab.local`,
		`Post "` + tokenURL + `": tls: failed to verify certificate: x509: certificate has expired or is not yet valid: current time 2026-12-01T05:00:00Z is after 2026-06-01T00:00:00Z`,
		`Post "` + tokenURL + `": EOF`,
		`Post "` + tokenURL + `": unexpected EOF`,
		`Post "` + tokenURL + `": read tcp 127.0.0.1:50412->127.0.0.1:443: read: connection reset by peer`,
		`Post "` + tokenURL + `": write tcp 127.0.0.1:50412->127.0.0.1:443: write: broken pipe`,
		`Post "` + tokenURL + `": context deadline exceeded`,
		`Post "` + tokenURL + `": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
		`Post "` + tokenURL + `": net/http: TLS handshake timeout`,
		`Post "` + tokenURL + `": proxyconnect tcp: dial tcp 127.0.0.1:3128: connect: connection refused`,
		`Post "` + tokenURL + `": Proxy Authentication Required`,
		`Post "` + tokenURL + `": http: server gave HTTP response to HTTPS client`,
		`Get "https://zvm.lab.local/v1/session/add": net/http: request canceled while waiting for connection`,
		`Get "https://zvm.lab.local/v1/tasks/token": context canceled`,
		"zvm: POST /auth/realms/zerto/protocol/openid-connect/token: unauthorized (401): Invalid client or Invalid client credentials",
		"zvm: POST /auth/realms/zerto/protocol/openid-connect/token: bad request (400): invalid_grant: Token is not active",
		"x509: certificate signed by unknown authority (possibly because of \"crypto/rsa: verification error\" while trying to verify candidate authority certificate \"zvm-ca\")",
		"bearer authentication required",
	}
	// The real ones, where this machine can make them: a refused
	// connection, a TLS handshake with an unknown authority and with a
	// wrong host name, a deadline, a reset.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsSrv.Close()
	stop := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-stop }))
	defer hang.Close()
	defer close(stop)
	reset := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
		}
	}))
	defer reset.Close()
	wrongName := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs, ServerName: "zvm.lab.local"}}}
	for _, try := range []struct {
		client *http.Client
		url    string
	}{
		{http.DefaultClient, "http://" + closed + "/auth/realms/zerto/protocol/openid-connect/token"},
		{http.DefaultClient, tlsSrv.URL + "/auth/realms/zerto/protocol/openid-connect/token"},
		{wrongName, tlsSrv.URL + "/v1/token"},
		{&http.Client{Timeout: 50 * time.Millisecond}, hang.URL + "/token"},
		{http.DefaultClient, reset.URL + "/token"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, try.url, strings.NewReader("grant_type=client_credentials"))
		resp, err := try.client.Do(req)
		cancel()
		if err == nil {
			resp.Body.Close()
			t.Fatalf("%s: no error", try.url)
		}
		texts = append(texts, err.Error())
	}
	return texts
}

// TestNetworkErrorsReadUnchanged: the errors of every kind of network
// failure keep every word, through Text (errors) and Command (what the
// decision log keeps of a reason that quotes one), while the secrets of
// TestSetEncodings are still scrubbed in the same texts.
func TestNetworkErrorsReadUnchanged(t *testing.T) {
	t.Parallel()
	var set Set
	set.Add(secret)
	for _, e := range networkErrors(t) {
		for name, f := range map[string]func(string) string{"Text": Text, "Command": Command, "Set.Scrub": set.Scrub} {
			if got := f(e); got != e {
				t.Errorf("%s changed a network error:\n got %q\nwant %q", name, got, e)
			}
		}
		for _, enc := range encodings(secret) {
			in := e + "; the server said: " + enc.text
			if got := set.Scrub(in); strings.Contains(got, enc.text) || !strings.HasPrefix(got, e) {
				t.Errorf("%s: Scrub(%q) = %q", enc.name, in, got)
			}
		}
	}
}

const secret = `p@ss/w0rd "é" + 100%`

type encoded struct{ name, text string }

// encodings are the ways a server may echo v back.
func encodings(v string) []encoded {
	jsonText, _ := json.Marshal(v)
	var lowerPct strings.Builder
	for _, c := range []byte(v) {
		fmt.Fprintf(&lowerPct, "%%%02x", c)
	}
	var u strings.Builder
	for _, r := range v {
		fmt.Fprintf(&u, `\u%04X`, r)
	}
	out := []encoded{
		{"raw", v},
		{"json", strings.Trim(string(jsonText), `"`)},
		{"json \\u upper", u.String()},
		{"json slash", strings.ReplaceAll(strings.Trim(string(jsonText), `"`), "/", `\/`)},
		{"query", url.QueryEscape(v)},
		{"path", url.PathEscape(v)},
		{"percent lower", lowerPct.String()},
		{"percent upper", strings.ToUpper(lowerPct.String())},
		{"percent lower query", strings.ToLower(url.QueryEscape(v))},
		{"redirect location", (&url.URL{Scheme: "https", Host: "login.example", Path: "/reset/" + v}).String()},
		{"html", html.EscapeString(v)},
	}
	for _, enc := range []struct {
		name string
		e    *base64.Encoding
	}{{"std", base64.StdEncoding}, {"url", base64.URLEncoding}, {"std raw", base64.RawStdEncoding}, {"url raw", base64.RawURLEncoding}} {
		out = append(out, encoded{"base64 " + enc.name, enc.e.EncodeToString([]byte(v))})
		for _, prefix := range []string{"a", "ab", "abc", "admin:"} {
			out = append(out, encoded{fmt.Sprintf("base64 %s after %q", enc.name, prefix), enc.e.EncodeToString([]byte(prefix + v + "!"))})
		}
	}
	return out
}

// TestSetEncodings: a value the Set holds is scrubbed in every encoding;
// what remains of an encoded text around it gives away no more than the
// bits its edge characters mix in.
func TestSetEncodings(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add(secret)
	for _, enc := range encodings(secret) {
		t.Run(enc.name, func(t *testing.T) {
			in := "refused: " + enc.text + " (echoed)"
			got := s.Scrub(in)
			if !strings.Contains(got, Redacted) {
				t.Fatalf("Scrub(%q) = %q: not scrubbed", in, got)
			}
			if strings.Contains(got, "p@ss") || strings.Contains(got, "w0rd") {
				t.Errorf("Scrub(%q) = %q: part of the secret shows", in, got)
			}
			if !strings.HasPrefix(got, "refused: ") || !strings.HasSuffix(got, " (echoed)") {
				t.Errorf("Scrub(%q) = %q: the text around it changed", in, got)
			}
		})
	}
}

func TestSetBounds(t *testing.T) {
	t.Parallel()
	var s Set
	s.Add("abc") // below MinLen: "abc" is a word, not a secret
	if got := s.Scrub("abc abc"); got != "abc abc" {
		t.Errorf("a value below MinLen was scrubbed: %q", got)
	}
	for i := range maxTokens + 2 {
		s.AddToken(fmt.Sprintf("token-number-%02d", i))
	}
	if got := s.Scrub("token-number-00"); got != "token-number-00" {
		t.Errorf("the oldest token is still scrubbed: %q", got)
	}
	if got := s.Scrub("x token-number-09 y"); got != "x "+Redacted+" y" {
		t.Errorf("the newest token is not scrubbed: %q", got)
	}
	var nilSet *Set
	if got := nilSet.Scrub("x"); got != "x" {
		t.Errorf("nil Set: %q", got)
	}
}

func FuzzSetScrub(f *testing.F) {
	for _, enc := range encodings(secret) {
		f.Add(secret, enc.text)
	}
	f.Fuzz(func(t *testing.T, value, text string) {
		var s Set
		s.Add(value)
		got := s.Scrub(text + value)
		if len(value) >= MinLen && strings.HasSuffix(got, value) && !strings.HasSuffix(value, Redacted) {
			t.Errorf("Scrub(%q) with %q left it in: %q", text+value, value, got)
		}
	})
}
