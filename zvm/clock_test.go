package zvm_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// strictSim starts the default lab with a [strict] table and extra VPGs.
func strictSim(t *testing.T, strict string) *zvmsim.TestServer {
	t.Helper()
	return zvmsim.NewTestServer(t, strictScenario(t, strict))
}

// strictScenario is the scenario of strictSim.
func strictScenario(t *testing.T, strict string) *zvmsim.Scenario {
	t.Helper()
	doc := `
[[site]]
name = "HQ"
[[site]]
name = "DR"
[[vpg]]
name = "a"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
vms = ["web-01", "shared-01"]
[[vpg]]
name = "b"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "200ms"
vms = ["shared-01"]
[credentials]
user = [{ name = "admin", password = "zerto" }]
client = [{ id = "zerto-client" }, { id = "rewind", secret = "rewind-secret" }]
[strict]
` + strict
	sc, err := zvmsim.ParseScenario("strict", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestOffsetMeasuredAndCached: the offset is measured once per login,
// shared with the next process through the token cache, and Now is the
// ZVM's time.
func TestOffsetMeasuredAndCached(t *testing.T) {
	t.Parallel()
	for _, off := range []time.Duration{-2 * time.Minute, 90 * time.Second, time.Hour} {
		// On a bubble's clock, over the simulator in memory: the round
		// trip takes no time, and the offset is measured exactly.
		t.Run(off.String(), func(t *testing.T) {
			inBubble(t, func(t *testing.T) {
				sim, inMemory := memSim(t, strictScenario(t, fmt.Sprintf("clock_offset = %q\n", off)))
				dir := t.TempDir()
				a := simClient(t, sim.URL, func(o *zvm.Options) { inMemory(o); o.CacheDir = dir })
				if _, ok := a.Offset(); ok {
					t.Error("offset known before any request")
				}
				if _, err := a.VPGs(t.Context()); err != nil {
					t.Fatal(err)
				}
				got, ok := a.Offset()
				if !ok || (got-off).Abs() > 500*time.Millisecond {
					t.Errorf("offset %v (known %v), want ~%v", got, ok, off)
				}
				if d := a.Now().Sub(time.Now().Add(off)).Abs(); d > 500*time.Millisecond {
					t.Errorf("Now is %v off the ZVM's time", d)
				}
				if n := sim.Count("serverTime"); n != 1 {
					t.Errorf("%d clock readings for one login, want 1", n)
				}
				// The next process finds token and offset in the cache.
				b := simClient(t, sim.URL, func(o *zvm.Options) { inMemory(o); o.CacheDir = dir })
				if _, err := b.VPGs(t.Context()); err != nil {
					t.Fatal(err)
				}
				if got, ok := b.Offset(); !ok || (got-off).Abs() > 500*time.Millisecond {
					t.Errorf("cached offset %v (known %v), want ~%v", got, ok, off)
				}
				if n, tok := sim.Count("serverTime"), sim.CountTokens(); n != 1 || tok != 1 {
					t.Errorf("second process: %d clock readings and %d tokens in all, want 1 and 1", n, tok)
				}
				st, err := b.ServerTime(t.Context())
				if err != nil || st.Sub(time.Now().Add(off)).Abs() > 500*time.Millisecond {
					t.Errorf("ServerTime = %v, %v; want the ZVM's time", st, err)
				}
			})
		})
	}
}

// TestOffsetFromDateHeader: a ZVM without serverDateTimeUtc still gives
// its time in the Date header, to the second.
func TestOffsetFromDateHeader(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, `clock_offset = "-3m"`+"\n")
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "serverDateTime") {
			w.Header().Set("Date", time.Now().Add(-3*time.Minute).UTC().Format(http.TimeFormat))
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"Message":"No HTTP resource was found that matches the request URI."}`)
			return
		}
		sim.ServeHTTP(w, r)
	}))
	defer hs.Close()
	c := simClient(t, hs.URL, nil)
	if _, err := c.VPGs(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Offset(); !ok || (got+3*time.Minute).Abs() > 1500*time.Millisecond {
		t.Errorf("offset %v (known %v), want ~-3m", got, ok)
	}
}

// TestTokenCacheKeyedBySecret: a wrong or rotated secret never finds the
// token the right one cached.
func TestTokenCacheKeyedBySecret(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, "")
	dir := t.TempDir()
	creds := func(secret string) func(*zvm.Options) {
		return func(o *zvm.Options) {
			o.Username, o.Password, o.ClientID, o.ClientSecret, o.CacheDir = "", "", "rewind", secret, dir
		}
	}
	if _, err := simClient(t, sim.URL, creds("rewind-secret")).VPGs(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, err := simClient(t, sim.URL, creds("wrong-secret")).VPGs(t.Context())
	if !zvm.IsUnauthorized(err) {
		t.Errorf("wrong secret: err = %v, want unauthorized", err)
	}
	if _, err := simClient(t, sim.URL, creds("rewind-secret")).VPGs(t.Context()); err != nil {
		t.Errorf("right secret again: %v", err)
	}
	if n := sim.CountTokens(); n != 1 {
		t.Errorf("%d tokens issued, want 1: the right secret's cache entry survives a wrong one", n)
	}
}

// TestClientCredentialsWithoutRefresh: Keycloak's client_credentials
// answer has no refresh token; an expired token brings a new login.
func TestClientCredentialsWithoutRefresh(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, "no_client_credentials_refresh = true\n")
	c := simClient(t, sim.URL, func(o *zvm.Options) {
		o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", "rewind", "rewind-secret"
	})
	if _, err := c.VPGs(t.Context()); err != nil {
		t.Fatal(err)
	}
	sim.ExpireTokens()
	if _, err := c.VPGs(t.Context()); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if n := sim.CountTokens(); n != 2 {
		t.Errorf("%d tokens, want 2", n)
	}
}

// TestVMInSeveralVPGs: GET /v1/vms/{id} needs the VPG for a VM in several
// VPGs; the vmIdentifier filter lists it once per VPG.
func TestVMInSeveralVPGs(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, "")
	c := simClient(t, sim.URL, nil)
	id := sim.VMIdentifier("shared-01")
	vms, err := c.VMsByIdentifier(t.Context(), id)
	if err != nil || len(vms) != 2 || vms[0].VPGIdentifier == vms[1].VPGIdentifier {
		t.Fatalf("VMsByIdentifier = %+v, %v; want two rows, one per VPG", vms, err)
	}
	if _, err := c.VM(t.Context(), id); err == nil {
		t.Error("GET /v1/vms/{id} of a VM in two VPGs answered without vpgIdentifier")
	}
	if vms, err := c.VMsByIdentifier(t.Context(), strings.Replace(id, "vm-", "vm-9", 1)); err != nil || len(vms) != 0 {
		t.Errorf("unknown identifier: %+v, %v; want an empty list", vms, err)
	}
}

// TestTaskStateDoesNotLogInOn401: a ZVM answering 401 for a completed task
// costs the poll no login.
func TestTaskStateDoesNotLogInOn401(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, "completed_task_401 = true\ntags_at_once = true\n")
	c := simClient(t, sim.URL, nil)
	task, err := c.InsertTaggedCheckpoint(t.Context(), sim.VPGIdentifier("a"), "t-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.TaskState(t.Context(), task); !zvm.IsUnauthorized(err) {
		t.Errorf("TaskState of a completed task: %v, want the 401", err)
	}
	if n := sim.CountTokens(); n != 1 {
		t.Errorf("%d tokens, want 1: no login for the task's 401", n)
	}
}

// TestNotZerto: a 404 from something that is not the ZVM's API is a
// configuration error; Zerto's own 404 stays a lookup miss.
func TestNotZerto(t *testing.T) {
	t.Parallel()
	sim := strictSim(t, "")
	tests := []struct {
		name string
		ct   string
		body string
		want zvm.Kind
	}{
		{"Zerto's message", "application/json; charset=utf-8", `{"Message":"VPG with identifier 'x' was not found."}`, zvm.KindNotFound},
		{"HTML page", "text/html", "<html><body>404 Not Found</body></html>", zvm.KindNotZerto},
		{"plain text", "text/plain", "404 page not found", zvm.KindNotZerto},
		{"no route", "application/json", `{"Message":"No HTTP resource was found that matches the request URI 'https://zvm/v2/vpgs/x'."}`, zvm.KindNotZerto},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if strings.HasPrefix(r.URL.Path, "/v1/vpgs/") {
					w.Header().Set("Content-Type", tt.ct)
					w.WriteHeader(http.StatusNotFound)
					fmt.Fprint(w, tt.body)
					return
				}
				sim.ServeHTTP(w, r)
			}))
			defer hs.Close()
			_, err := simClient(t, hs.URL, nil).VPG(t.Context(), "5f6e7d8c-0000-4000-8000-00000000000a")
			if k := zvm.KindOf(err); k != tt.want {
				t.Errorf("kind %v (%v), want %v", k, err, tt.want)
			}
			var ze *zvm.Error
			if tt.want == zvm.KindNotZerto && (!errors.As(err, &ze) || ze.Message != "" || !strings.Contains(err.Error(), "check zerto.url")) {
				t.Errorf("error %v: want no Zerto message and a pointer at zerto.url", err)
			}
		})
	}
}
