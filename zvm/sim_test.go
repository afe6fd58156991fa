package zvm_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-dev/rewind/internal/memnet"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// simClient returns a Client for url with the simulator's password
// credentials and a private token cache.
func simClient(t *testing.T, url string, mod func(*zvm.Options)) *zvm.Client {
	t.Helper()
	o := zvm.Options{URL: url, Username: zvmsim.DefaultUser, Password: zvmsim.DefaultPassword, CacheDir: t.TempDir()}
	if mod != nil {
		mod(&o)
	}
	c, err := zvm.New(o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// memSim serves a simulator of sc in memory (see memnet) and returns it
// with a client option that reaches it: for a test in a testing/synctest
// bubble (inBubble), whose clock the simulator's journals and the
// client's waits then keep.
func memSim(t *testing.T, sc *zvmsim.Scenario) (*zvmsim.TestServer, func(*zvm.Options)) {
	t.Helper()
	sim := zvmsim.NewServer(sc)
	hc := memnet.Serve(t, sim)
	t.Cleanup(sim.Close) // first: it releases hanging requests the server waits for
	return &zvmsim.TestServer{Server: sim, URL: memnet.URL}, func(o *zvm.Options) { o.HTTPClient = hc }
}

// inBubble runs f in parallel with the package's other tests, in a
// testing/synctest bubble of its own.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Parallel()
	synctest.Test(t, f)
}

// mountUnder serves the simulator under prefix, in memory, with a
// catch-all that fails the test on any request outside it.
func mountUnder(t *testing.T, prefix string) (*zvmsim.Server, string, func(*zvm.Options)) {
	t.Helper()
	sim := zvmsim.NewServer(zvmsim.DefaultScenario())
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, sim))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the base path %s: %s %s", prefix, r.Method, r.URL)
		http.Error(w, "outside the base path", http.StatusTeapot)
	})
	hc := memnet.Serve(t, mux)
	t.Cleanup(sim.Close)
	return sim, memnet.URL + prefix, func(o *zvm.Options) { o.HTTPClient = hc }
}

// TestSimDoneWhen runs the client's acceptance path against the simulator's
// default scenario under a non-root base path.
func TestSimDoneWhen(t *testing.T) { inBubble(t, testSimDoneWhen) }

func testSimDoneWhen(t *testing.T) {
	sim, url, inMemory := mountUnder(t, "/zerto/api")
	c := simClient(t, url, inMemory)
	ctx, cancel := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancel()

	vms, err := c.VMs(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 1 || vms[0].Name != "web-01" || vms[0].Identifier != sim.VMIdentifier("web-01") || vms[0].VPGName != "lab-apps" {
		t.Fatalf("VMs(web-01) = %+v", vms)
	}
	vm, err := c.VM(ctx, vms[0].Identifier)
	if err != nil || vm.Name != "web-01" {
		t.Fatalf("VM(id) = %+v, %v", vm, err)
	}
	if _, err := c.VM(ctx, "web-01.lab.local"); !zvm.IsNotFound(err) {
		t.Fatalf("VM(host name) = %v, want KindNotFound", err)
	}
	if vms, err := c.VMs(ctx, "no-such-vm"); err != nil || len(vms) != 0 {
		t.Fatalf("VMs(no-such-vm) = %v, %v; want empty", vms, err)
	}

	vpg, err := c.VPG(ctx, vms[0].VPGIdentifier)
	if err != nil {
		t.Fatal(err)
	}
	if refused, reason := vpg.InsertRefused(); refused {
		t.Fatalf("lab-apps cannot checkpoint: %s", reason)
	}
	tag := "rewind-test-" + time.Now().Format("150405.000")
	before := time.Now()
	taskID, err := c.InsertTaggedCheckpoint(ctx, vpg.Identifier, tag)
	if err != nil {
		t.Fatal(err)
	}

	// The tag lands at the next journal tick: within one cadence (5 s),
	// on the bubble's clock as on the journal's.
	const cadence = 5 * time.Second
	var landed *zvm.Checkpoint
	for landed == nil && ctx.Err() == nil {
		cps, err := c.Checkpoints(ctx, vpg.Identifier, before.Add(-time.Minute), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range cps {
			if cps[i].Tag == tag {
				landed = &cps[i]
			}
		}
		if landed == nil {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if landed == nil {
		t.Fatalf("tag %q not in the journal after %v", tag, time.Since(before))
	}
	if landed.Identifier == "" || landed.Time.Before(before.Add(-time.Second)) {
		t.Errorf("landed checkpoint = %+v", landed)
	}
	if late := landed.Time.Sub(before); late > cadence {
		t.Errorf("tag written %v after the insert, want within one cadence (%v)", late, cadence)
	}
	task, err := c.WaitTask(ctx, taskID, 100*time.Millisecond, nil)
	if err != nil || task.State != zvm.TaskCompleted {
		t.Fatalf("task = %+v, %v; want Completed", task, err)
	}
	st, err := c.CheckpointStats(ctx, vpg.Identifier)
	if err != nil || st.Latest.Time.Before(landed.Time) || st.Earliest.Identifier == "" {
		t.Errorf("CheckpointStats = %+v, %v", st, err)
	}
	if site, err := c.LocalSite(ctx); err != nil || site.Name == "" {
		t.Errorf("LocalSite = %+v, %v", site, err)
	}
	if sim.CountTokens() != 1 || sim.CountInserts() != 1 {
		t.Errorf("tokens = %d, inserts = %d; want 1 and 1", sim.CountTokens(), sim.CountInserts())
	}
}

// TestSimTenClientsOneToken: ten hook-like clients, one after another on
// one cache folder, obtain one token; a token expired on the server is
// replaced without the caller noticing.
func TestSimTenClientsOneToken(t *testing.T) {
	t.Parallel()
	sim := zvmsim.NewTestServer(t, nil)
	dir := t.TempDir()
	for i := range 10 {
		c := simClient(t, sim.URL, func(o *zvm.Options) { o.CacheDir = dir })
		if _, err := c.VMs(t.Context(), "web-01"); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if n := sim.CountTokens(); n != 1 {
		t.Fatalf("token requests = %d, want 1", n)
	}
	sim.ExpireTokens()
	c := simClient(t, sim.URL, func(o *zvm.Options) { o.CacheDir = dir })
	if _, err := c.VMs(t.Context(), "web-01"); err != nil {
		t.Fatalf("after the server expired the token: %v", err)
	}
	if n := sim.CountTokens(); n != 2 {
		t.Errorf("token requests = %d, want 2", n)
	}
}

// TestSimHookProcesses starts ten real processes, one after another, each a
// fresh client as a hook run is, and expects one token request.
func TestSimHookProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	t.Parallel()
	sim := zvmsim.NewTestServer(t, nil)
	dir := t.TempDir()
	for i := range 10 {
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperHookProcess$", "-test.count=1")
		// atexit_sleep_ms: a -race binary otherwise idles a second at exit.
		cmd.Env = append(os.Environ(), "ZVM_TEST_HOOK_URL="+sim.URL, "ZVM_TEST_HOOK_CACHE="+dir, "GORACE=atexit_sleep_ms=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, out)
		}
	}
	if n := sim.CountTokens(); n != 1 {
		t.Fatalf("token requests from ten processes = %d, want 1", n)
	}
	if n := sim.Count("vms"); n != 10 {
		t.Errorf("VM lookups = %d, want 10", n)
	}
}

// TestHelperHookProcess is the child of TestSimHookProcesses; it does
// nothing in a normal test run.
func TestHelperHookProcess(t *testing.T) {
	t.Parallel()
	url := os.Getenv("ZVM_TEST_HOOK_URL")
	if url == "" {
		return
	}
	c := simClient(t, url, func(o *zvm.Options) { o.CacheDir = os.Getenv("ZVM_TEST_HOOK_CACHE") })
	if _, err := c.VMs(t.Context(), "web-01"); err != nil {
		t.Fatal(err)
	}
}

// TestSimFaults checks that each fault of the simulator's menu reaches the
// caller as the typed error it can act on, within its deadline.
func TestSimFaults(t *testing.T) {
	t.Parallel()
	const deadline = 2 * time.Second
	lookup := func(ctx context.Context, c *zvm.Client, _ *zvmsim.TestServer) error {
		_, err := c.VMs(ctx, "web-01")
		return err
	}
	insertWait := func(vpgName string) func(context.Context, *zvm.Client, *zvmsim.TestServer) error {
		return func(ctx context.Context, c *zvm.Client, sim *zvmsim.TestServer) error {
			id, err := c.InsertTaggedCheckpoint(ctx, sim.VPGIdentifier(vpgName), "rewind-fault")
			if err != nil {
				return err
			}
			_, err = c.WaitTask(ctx, id, 50*time.Millisecond, nil)
			return err
		}
	}
	tests := []struct {
		name    string
		setup   func(*zvmsim.TestServer)
		mod     func(*zvm.Options)
		call    func(context.Context, *zvm.Client, *zvmsim.TestServer) error
		kind    zvm.Kind
		message bool // Zerto's message must come through verbatim
	}{
		{name: "hang", setup: func(s *zvmsim.TestServer) { s.SetFaults(zvmsim.Faults{Hang: true}) }, call: lookup, kind: zvm.KindTimeout},
		{name: "server errors", setup: func(s *zvmsim.TestServer) { s.SetFaults(zvmsim.Faults{ServerErrorRate: 1}) }, call: lookup, kind: zvm.KindServer, message: true},
		{name: "malformed JSON", setup: func(s *zvmsim.TestServer) { s.SetFaults(zvmsim.Faults{MalformedJSON: true}) }, call: lookup, kind: zvm.KindMalformed},
		{name: "latency past the deadline", setup: func(s *zvmsim.TestServer) { s.SetFaults(zvmsim.Faults{Latency: zvmsim.Duration(time.Minute)}) }, call: lookup, kind: zvm.KindTimeout},
		{name: "wrong password", mod: func(o *zvm.Options) { o.Password = "wrong" }, call: lookup, kind: zvm.KindUnauthorized, message: true},
		{name: "wrong client secret", mod: func(o *zvm.Options) {
			o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", zvmsim.DefaultHookClient, "wrong"
		}, call: lookup, kind: zvm.KindUnauthorized, message: true},
		{name: "session auth, wrong password", mod: func(o *zvm.Options) { o.Auth, o.Password = zvm.AuthSession, "wrong" }, call: lookup, kind: zvm.KindUnauthorized},
		{name: "insert rejected", setup: func(s *zvmsim.TestServer) {
			if err := s.RejectInserts("lab-apps", "The VPG is being updated."); err != nil {
				t.Fatal(err)
			}
		}, call: insertWait("lab-apps"), kind: zvm.KindBadRequest, message: true},
		{name: "insert task fails", setup: func(s *zvmsim.TestServer) {
			if err := s.FailInserts("lab-apps", "Checkpoint insertion failed: VRA unreachable."); err != nil {
				t.Fatal(err)
			}
		}, call: insertWait("lab-apps"), kind: zvm.KindTaskFailed, message: true},
		{name: "unknown VPG", call: func(ctx context.Context, c *zvm.Client, _ *zvmsim.TestServer) error {
			_, err := c.VPG(ctx, "lab-apps")
			return err
		}, kind: zvm.KindNotFound},
		{name: "unknown task", call: func(ctx context.Context, c *zvm.Client, _ *zvmsim.TestServer) error {
			_, err := c.Task(ctx, "no-such-task")
			return err
		}, kind: zvm.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				sim, inMemory := memSim(t, zvmsim.DefaultScenario())
				if tt.setup != nil {
					tt.setup(sim)
				}
				c := simClient(t, sim.URL, func(o *zvm.Options) {
					inMemory(o)
					if tt.mod != nil {
						tt.mod(o)
					}
				})
				ctx, cancel := context.WithTimeout(t.Context(), deadline)
				defer cancel()
				start := time.Now()
				err := tt.call(ctx, c, sim)
				// On the bubble's clock: a call blind to the deadline
				// takes the test's whole time.
				if elapsed := time.Since(start); elapsed > deadline {
					t.Errorf("took %v, past the deadline %v", elapsed, deadline)
				}
				var e *zvm.Error
				if !errors.As(err, &e) || e.Kind != tt.kind {
					t.Fatalf("err = %v, want an *Error of %v", err, tt.kind)
				}
				if tt.message && (e.Message == "" || !strings.Contains(err.Error(), e.Message)) {
					t.Errorf("err = %v: Zerto's message missing", err)
				}
			})
		})
	}
}

func TestSimRevokedTokensAndTLS(t *testing.T) {
	t.Parallel()
	sim := zvmsim.NewTLSTestServer(t, nil)
	if _, err := simClient(t, sim.URL, nil).VMs(t.Context(), ""); zvm.KindOf(err) != zvm.KindTLS {
		t.Fatalf("self-signed certificate, no ca_file: err = %v, want KindTLS", err)
	}
	ca := filepath.Join(t.TempDir(), "zvm.pem")
	if err := os.WriteFile(ca, sim.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	c := simClient(t, sim.URL, func(o *zvm.Options) { o.CAFile = ca })
	sim.SetFaults(zvmsim.Faults{Unauthorized401AfterN: 2})
	for i := range 5 {
		if _, err := c.VPGs(t.Context()); err != nil {
			t.Fatalf("request %d with tokens revoked every 2 requests: %v", i, err)
		}
	}
	if n := sim.CountTokens(); n < 2 {
		t.Errorf("tokens = %d, want new ones after revocations", n)
	}

	paused := simClient(t, sim.URL, func(o *zvm.Options) { o.CAFile = ca })
	vpg, err := paused.VPG(t.Context(), sim.VPGIdentifier("lab-paused"))
	if err != nil {
		t.Fatal(err)
	}
	if refused, reason := vpg.InsertRefused(); !refused || reason == "" {
		t.Errorf("lab-paused (%v/%v): InsertRefused = %v, %q; want refused with a reason", vpg.Status, vpg.SubStatus, refused, reason)
	}
}
