package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/zvmsim"
)

// startUI runs serveUI until the test ends and returns the first line it
// printed on stdout.
func startUI(t *testing.T, addr string) (firstLine string, stderr *testlab.Buffer) {
	t.Helper()
	dir := t.TempDir()
	log := audit.Open(dir)
	if err := log.Append(&audit.Record{Tool: "Bash", Excerpt: "govc vm.destroy db-01", Decision: audit.DecisionDeny}); err != nil {
		t.Fatal(err)
	}
	o, err := uiOptions("", func(k string) string {
		return map[string]string{"REWIND_STATE_DIR": dir, "HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config")}[k]
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	stderr = &testlab.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- serveUI(ctx, pw, stderr, addr, false, o)
		pw.Close()
	}()
	t.Cleanup(func() {
		cancel()
		go io.Copy(io.Discard, pr)
		if err := <-done; err != nil {
			t.Errorf("serveUI: %v", err)
		}
	})
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the URL: %v (stderr %s)", err, stderr.String())
	}
	return strings.TrimSpace(line), stderr
}

func TestUIPrintsItsURLFirst(t *testing.T) {
	line, stderr := startUI(t, "127.0.0.1:0")
	u, err := url.Parse(line)
	if err != nil || u.Scheme != "http" || !strings.HasPrefix(u.Host, "127.0.0.1:") || len(u.Query().Get("token")) < 22 {
		t.Fatalf("first line %q: want http://127.0.0.1:PORT/?token=...", line)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := c.Get(line)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "govc vm.destroy db-01") || !strings.Contains(string(body), "Zerto is not configured here") {
		t.Errorf("GET the URL: %s\n%s", resp.Status, body)
	}
	if strings.Contains(stderr.String(), "warning") {
		t.Errorf("a warning on loopback: %s", stderr.String())
	}
}

func TestUIWarnsOffLoopback(t *testing.T) {
	line, stderr := startUI(t, "0.0.0.0:0")
	if !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Errorf("first line %q: want a loopback URL to open here", line)
	}
	if !strings.Contains(stderr.String(), "rewind: warning: listening on port ") || !strings.Contains(stderr.String(), "of every address") {
		t.Errorf("stderr %q: want a warning", stderr.String())
	}
}

func TestUIOptions(t *testing.T) {
	sim := zvmsim.NewTestServer(t, nil)
	dir := t.TempDir()
	env := map[string]string{"REWIND_STATE_DIR": dir, "HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config")}
	getenv := func(k string) string { return env[k] }

	var stderr bytes.Buffer
	o, err := uiOptions("", getenv, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.Recovery != nil || !strings.Contains(o.ZertoProblem, "no Zerto configured") ||
		!strings.Contains(stderr.String(), "the page shows the timeline only") {
		t.Errorf("without Zerto: %+v, stderr %q", o, stderr.String())
	}
	if o.Log == nil || o.Log.Path() != filepath.Join(dir, audit.FileName) {
		t.Errorf("log %v, want the one in REWIND_STATE_DIR", o.Log)
	}

	env["REWIND_ZVM_URL"] = sim.URL
	env["REWIND_ZVM_CLIENT_ID"] = zvmsim.DefaultHookClient
	env["REWIND_ZVM_CLIENT_SECRET"] = zvmsim.DefaultHookClientSecret
	stderr.Reset()
	o, err = uiOptions("", getenv, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if o.Recovery == nil || o.Recovery.Tool != uiTool || o.Recovery.Log != o.Log || o.ZertoProblem != "" || stderr.Len() > 0 {
		t.Errorf("with Zerto: %+v, stderr %q", o, stderr.String())
	}
	if strings.Contains(stderr.String(), zvmsim.DefaultHookClientSecret) {
		t.Error("the secret reached stderr")
	}
}
