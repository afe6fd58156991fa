package zvmsim

import (
	"net/http/httptest"
	"testing"
)

// TestServer is a Server listening on a loopback port for a test.
type TestServer struct {
	*Server
	// URL is the base URL, e.g. http://127.0.0.1:40123, without a slash.
	URL string
	// CAPEM is the certificate to trust, for a server from NewTLSTestServer.
	CAPEM []byte
}

// NewTestServer starts a Server for sc (DefaultScenario when nil) on a
// loopback port. It is closed when the test ends.
func NewTestServer(t testing.TB, sc *Scenario) *TestServer {
	t.Helper()
	s := NewServer(sc)
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close() // first: it releases hanging requests that hs.Close waits for
		hs.Close()
	})
	return &TestServer{Server: s, URL: hs.URL}
}

// NewTLSTestServer is NewTestServer serving HTTPS with a self-signed
// certificate, whose PEM is in CAPEM.
func NewTLSTestServer(t testing.TB, sc *Scenario) *TestServer {
	t.Helper()
	cfg, caPEM, err := SelfSignedTLS()
	if err != nil {
		t.Fatalf("zvmsim: generating certificate: %v", err)
	}
	s := NewServer(sc)
	hs := httptest.NewUnstartedServer(s)
	hs.TLS = cfg
	hs.StartTLS()
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return &TestServer{Server: s, URL: hs.URL, CAPEM: caPEM}
}
