package zvm_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvm/zvmconf"
	"github.com/rewind-dev/rewind/zvmsim"
)

// flavoredSim starts a one-VPG lab with the given top-level scenario keys
// and [credentials] users.
func flavoredSim(t *testing.T, top, users string) *zvmsim.TestServer {
	t.Helper()
	doc := top + `
[[site]]
name = "HQ"
[[site]]
name = "DR"
[[vpg]]
name = "apps"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "1s"
vms = ["web-01"]
[credentials]
client = [{ id = "rewind", secret = "rewind-secret" }, { id = "rewind-hook", secret = "hook-secret", roles = ["builder"] }]
` + users
	sc, err := zvmsim.ParseScenario(t.Name(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return zvmsim.NewTestServer(t, sc)
}

// TestOffsetNotOverriddenByDate: behind a proxy whose Date header keeps
// its own clock, the offset is the ZVM's serverDateTimeUtc, and the Date
// header's differing word is kept for doctor; one clock reading per login.
func TestOffsetNotOverriddenByDate(t *testing.T) {
	t.Parallel()
	sim := flavoredSim(t, "[strict]\nclock_offset = \"-2m\"\n[proxy]\ndate_offset = \"2m\"\n", "")
	c := simClient(t, sim.URL, func(o *zvm.Options) {
		o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", "rewind", "rewind-secret"
	})
	for range 3 {
		if _, err := c.VPGs(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if off, ok := c.Offset(); !ok || (off+2*time.Minute).Abs() > time.Second {
		t.Errorf("offset %v (known %v), want the ZVM's -2m", off, ok)
	}
	if src := c.OffsetSource(); src != "serverDateTimeUtc" {
		t.Errorf("offset source %q", src)
	}
	if d, ok := c.DateOffset(); !ok || d.Abs() > 2*time.Second {
		t.Errorf("Date header offset %v (seen %v), want the proxy's ~0", d, ok)
	}
	if n := sim.Count("serverTime"); n != 1 {
		t.Errorf("%d clock readings, want 1", n)
	}
}

// TestOffsetRemeasuredAtLogin: a ZVM clock stepped since the offset was
// measured is measured again with the next login.
func TestOffsetRemeasuredAtLogin(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, "")
	c := simClient(t, sim.URL, nil)
	if _, err := c.VPGs(t.Context()); err != nil {
		t.Fatal(err)
	}
	sim.SetStrict(zvmsim.Strict{ClockOffset: zvmsim.SignedDuration(-10 * time.Minute)})
	sim.ExpireTokens()
	if _, err := c.VPGs(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Offset(); (got + 10*time.Minute).Abs() > 2*time.Second {
		t.Errorf("offset %v after a step to -10m and a login", got)
	}
}

// TestWindowsLoginSendsAuthenticationMethod: a Windows ZVM checks a
// vCenter user's password only when the login says so; rewind says so by
// default, and says Windows when told.
func TestWindowsLoginSendsAuthenticationMethod(t *testing.T) {
	t.Parallel()
	sim := flavoredSim(t, `flavor = "windows"`, `user = [{ name = "vsphere.local\\ops", password = "vc-pass" }, { name = "ZVM01\\svc", password = "win-pass", method = "windows" }]`)
	for _, tt := range []struct {
		user, password, method string
	}{
		{`vsphere.local\ops`, "vc-pass", ""},
		{`vsphere.local\ops`, "vc-pass", zvmconf.SessionVCenter},
		{`ZVM01\svc`, "win-pass", zvmconf.SessionWindows},
	} {
		c := simClient(t, sim.URL, func(o *zvm.Options) {
			o.Auth, o.Username, o.Password, o.SessionMethod = zvm.AuthSession, tt.user, tt.password, tt.method
		})
		if _, err := c.VPGs(t.Context()); err != nil {
			t.Errorf("%s (%q): %v", tt.user, tt.method, err)
		}
	}
	// The wrong method is refused, as the ZVM would.
	c := simClient(t, sim.URL, func(o *zvm.Options) {
		o.Auth, o.Username, o.Password, o.SessionMethod = zvm.AuthSession, `vsphere.local\ops`, "vc-pass", zvmconf.SessionWindows
	})
	if _, err := c.VPGs(t.Context()); !zvm.IsUnauthorized(err) {
		t.Errorf("a vCenter user logging in as a Windows one: %v", err)
	}
}

// TestApplianceHasNoWindowsLogin: auth = "session" against a ZVM
// appliance is told to use Keycloak, not that something was not found.
func TestApplianceHasNoWindowsLogin(t *testing.T) {
	t.Parallel()
	sim := flavoredSim(t, `flavor = "appliance"`, `user = [{ name = "admin", password = "zerto" }]`)
	c := simClient(t, sim.URL, func(o *zvm.Options) { o.Auth = zvm.AuthSession })
	_, err := c.VPGs(t.Context())
	if zvm.KindOf(err) != zvm.KindNotZerto {
		t.Fatalf("err = %v, want not a ZVM API answer", err)
	}
	if h := zvm.Hint(err); !strings.Contains(h, `auth = "keycloak"`) {
		t.Errorf("hint %q, want one to use keycloak", h)
	}
}

// TestMissingBasePath: a ZVM served by a proxy under a base path, reached
// without it, is told to add the base path.
func TestMissingBasePath(t *testing.T) {
	t.Parallel()
	sim := flavoredSim(t, "[proxy]\nbase_path = \"/zvm\"\n", "")
	login := func(o *zvm.Options) {
		o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", "rewind", "rewind-secret"
	}
	_, err := simClient(t, sim.URL, login).VPGs(t.Context())
	if zvm.KindOf(err) != zvm.KindNotZerto || !strings.Contains(zvm.Hint(err), "base path") {
		t.Errorf("err = %v, hint %q: want not the ZVM, and the base path named", err, zvm.Hint(err))
	}
	if _, err := simClient(t, sim.URL+"/zvm", login).VPGs(t.Context()); err != nil {
		t.Errorf("with the base path: %v", err)
	}
}

// TestRolesEnforced: the hook's client (Zerto's builder role) may tag a
// checkpoint and read, and is refused a restore, a failover test and a
// failover with 403 before anything is looked up.
func TestRolesEnforced(t *testing.T) {
	t.Parallel()
	sim := flavoredSim(t, "", "")
	c := simClient(t, sim.URL, func(o *zvm.Options) {
		o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", "rewind-hook", "hook-secret"
	})
	vpg := sim.VPGIdentifier("apps")
	if _, err := c.InsertTaggedCheckpoint(t.Context(), vpg, "rewind-test"); err != nil {
		t.Fatalf("the hook's client cannot tag: %v", err)
	}
	for name, try := range map[string]func() error{
		"restore": func() error {
			_, err := c.Restore(t.Context(), sim.VMIdentifier("web-01"), zvm.RestoreOptions{VPGIdentifier: vpg, CheckpointIdentifier: "1"})
			return err
		},
		"failover test": func() error { _, err := c.FailoverTest(t.Context(), vpg, "", nil); return err },
		"failover":      func() error { _, err := c.Failover(t.Context(), vpg, "", zvm.FailoverOptions{}); return err },
	} {
		err := try()
		var ze *zvm.Error
		if !errors.As(err, &ze) || ze.Status != 403 || ze.Kind != zvm.KindUnauthorized || !strings.Contains(ze.Message, "not authorized") {
			t.Errorf("%s: err = %v, want Zerto's 403", name, err)
		}
	}
	if n := sim.Count("restore"); n != 1 {
		t.Errorf("%d restore requests, want the one refused", n)
	}
	if _, _, ok := sim.VMRecovery("web-01"); ok {
		t.Error("the refused restore restored")
	}
}

// TestPrivileges: the probes tell the hook's client (tag and read only)
// from an all-powerful one, and act on nothing.
func TestPrivileges(t *testing.T) {
	t.Parallel()
	sim := flavoredSim(t, "", "")
	for _, tt := range []struct {
		client, secret string
		want           map[zvm.Operation]zvm.Allowed
	}{
		{"rewind-hook", "hook-secret", map[zvm.Operation]zvm.Allowed{zvm.OpCheckpoint: zvm.AllowedYes, zvm.OpFailoverTest: zvm.AllowedNo, zvm.OpFailover: zvm.AllowedNo, zvm.OpRestore: zvm.AllowedNo, zvm.OpStopTest: zvm.AllowedNo}},
		{"rewind", "rewind-secret", map[zvm.Operation]zvm.Allowed{zvm.OpCheckpoint: zvm.AllowedYes, zvm.OpFailoverTest: zvm.AllowedYes, zvm.OpFailover: zvm.AllowedYes, zvm.OpRestore: zvm.AllowedYes, zvm.OpStopTest: zvm.AllowedYes}},
	} {
		c := simClient(t, sim.URL, func(o *zvm.Options) {
			o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", tt.client, tt.secret
		})
		for _, p := range c.Privileges(t.Context()) {
			if p.Allowed != tt.want[p.Op] {
				t.Errorf("%s: %s: %v (%v), want %v", tt.client, p.Op, p.Allowed, p.Err, tt.want[p.Op])
			}
		}
		// A stop is asked on its own, as a test's stop is sent.
		if p := c.May(t.Context(), zvm.OpStopTest); p.Allowed != tt.want[zvm.OpStopTest] {
			t.Errorf("%s: %s: %v (%v), want %v", tt.client, p.Op, p.Allowed, p.Err, tt.want[zvm.OpStopTest])
		} else if p.Allowed == zvm.AllowedNo && !strings.Contains(p.Err.Error(), "not authorized") {
			t.Errorf("%s: the refusal %v lacks Zerto's message", tt.client, p.Err)
		}
		roles, ok, err := c.TokenRoles(t.Context())
		if err != nil || !ok || len(roles) != 1 {
			t.Errorf("%s: token roles %v, %v, %v", tt.client, roles, ok, err)
		}
	}
	if n := sim.CountInserts(); n != 0 {
		t.Errorf("the probes inserted %d checkpoints", n)
	}
	for _, k := range []string{"insert", "failoverTest", "failoverTestStop", "failover", "restore"} {
		if n := sim.Count(k); n != 2 {
			t.Errorf("%d %s probes, want 2", n, k)
		}
	}
}
