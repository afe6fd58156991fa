package cli

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/zvmsim"
)

// startSim runs `rewind sim args...` until the test ends and returns the URL
// from its first stdout line, and its stderr.
func startSim(t *testing.T, args ...string) (url string, stderr *testlab.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr = &testlab.Buffer{}
	cmd := newSimCmd()
	cmd.SetArgs(args)
	cmd.SetOut(pw)
	cmd.SetErr(stderr)
	done := make(chan error, 1)
	go func() {
		done <- cmd.ExecuteContext(ctx)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("sim returned %v after cancel", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("sim did not stop after its context was cancelled")
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	return strings.TrimSpace(line), stderr
}

func TestSimCommand(t *testing.T) {
	url, _ := startSim(t, "--addr", "127.0.0.1:0")
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0") {
		t.Fatalf("first line %q, want the URL with the chosen port", url)
	}
	resp, err := http.Get(url + "/v1/vpgs")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /v1/vpgs without a token: HTTP %d, want 401", resp.StatusCode)
	}
	form := strings.NewReader("grant_type=password&client_id=zerto-client&username=admin&password=zerto")
	resp, err = http.Post(url+"/auth/realms/zerto/protocol/openid-connect/token", "application/x-www-form-urlencoded", form)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("password grant with the documented credentials: HTTP %d", resp.StatusCode)
	}
}

func TestSimCommandTLSAndScenario(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	scenario := filepath.Join("..", "..", "..", "zvmsim", "testdata", "fast.toml")
	url, _ := startSim(t, "--addr", "127.0.0.1:0", "--tls", "--ca-out", ca, "--scenario", scenario)
	if !strings.HasPrefix(url, "https://") {
		t.Fatalf("URL %q, want https", url)
	}
	pem, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatal("--ca-out wrote no certificate")
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	resp, err := c.Get(url + "/v1/localsite")
	if err != nil {
		t.Fatalf("with the written CA trusted: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("HTTP %d, want 401", resp.StatusCode)
	}
}

func TestSimHelpDocumentsCredentials(t *testing.T) {
	var out strings.Builder
	cmd := newSimCmd()
	cmd.SetArgs([]string{"--help"})
	cmd.SetOut(&out)
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{zvmsim.DefaultUser, zvmsim.DefaultPassword, zvmsim.DefaultPublicClient, zvmsim.DefaultHookClient, zvmsim.DefaultHookClientSecret, zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword, "--addr", "--scenario", "--tls", "--ca-out"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("help lacks %q", s)
		}
	}
}

func TestSimSummaryKeepsSecrets(t *testing.T) {
	_, stderr := startSim(t, "--addr", "127.0.0.1:0")
	// The summary follows the URL line.
	deadline := time.Now().Add(2 * time.Second)
	for !strings.Contains(stderr.String(), "stop with Ctrl-C") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	sum := stderr.String()
	for _, want := range []string{"lab-apps", "cadence 5s", "cadence 10m30s", "aws-windows", "user admin, roles: admin", "user operator, roles: user", "zerto-client", "confidential client (client_credentials) rewind-hook, roles: builder"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(sum, zvmsim.DefaultHookClientSecret) || strings.Contains(sum, zvmsim.DefaultOperatorPassword) || strings.Contains(sum, "password "+zvmsim.DefaultPassword) {
		t.Errorf("summary shows a secret:\n%s", sum)
	}
}

func TestSimCACNeedsTLS(t *testing.T) {
	cmd := newSimCmd()
	cmd.SetArgs([]string{"--addr", "127.0.0.1:0", "--ca-out", filepath.Join(t.TempDir(), "x")})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--tls") {
		t.Fatalf("err = %v, want one naming --tls", err)
	}
}

func TestSimDefaultAddrIsDocumented(t *testing.T) {
	cmd := newSimCmd()
	if got := cmd.Flags().Lookup("addr").DefValue; got != "127.0.0.1:9669" {
		t.Errorf("--addr defaults to %q, want 127.0.0.1:9669", got)
	}
	if !strings.Contains(cmd.Long, "127.0.0.1:9669") {
		t.Errorf("sim --help does not name its default address:\n%s", cmd.Long)
	}
}

func TestSimAddressInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr strings.Builder
	code := Run([]string{"sim", "--addr", ln.Addr().String()}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr:\n%s", code, stderr.String())
	}
	want := "rewind: cannot listen on " + ln.Addr().String() + ": the address is already in use\nhint: "
	if !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "--addr 127.0.0.1:0") {
		t.Errorf("stderr = %q, want it to start %q and name --addr 127.0.0.1:0", stderr.String(), want)
	}
	if stdout.Len() > 0 {
		t.Errorf("stdout = %q, want nothing", stdout.String())
	}
}
