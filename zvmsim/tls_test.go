package zvmsim

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"
)

func TestTLSTestServer(t *testing.T) {
	t.Parallel()
	ts := NewTLSTestServer(t, nil)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ts.CAPEM) {
		t.Fatal("CAPEM holds no certificate")
	}
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := trusting.Get(ts.URL + "/v1/localsite")
	if err != nil {
		t.Fatalf("with the CA trusted: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("HTTP %d, want 401 without a token", resp.StatusCode)
	}
	if _, err := http.Get(ts.URL + "/v1/localsite"); err == nil {
		t.Error("a client that does not trust the CA connected")
	}
}
