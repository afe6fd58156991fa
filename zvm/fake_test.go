package zvm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-dev/rewind/internal/memnet"
)

// fakeZVM is a small in-test ZVM: Keycloak's token endpoint, the Windows
// session login, and the /v1 routes the client uses, with hooks to inject
// faults. Unexpected requests fail the test loudly.
type fakeZVM struct {
	t      *testing.T
	prefix string // the path the ZVM is mounted under

	mu       sync.Mutex
	grants   map[string]int // token requests by grant_type, "session" for /v1/session/add
	calls    map[string]int // "/v1" requests by "METHOD path"
	valid    map[string]bool
	refresh  map[string]bool
	n        int
	ttl      int              // expires_in, seconds
	override http.HandlerFunc // when set, answers every /v1 request
	tasks    map[string][]int // task id -> states to report, one per GET, last repeats
}

func newFakeZVM(t *testing.T, prefix string) *fakeZVM {
	return &fakeZVM{
		t: t, prefix: prefix, ttl: 300,
		grants: map[string]int{}, calls: map[string]int{},
		valid: map[string]bool{}, refresh: map[string]bool{},
		tasks: map[string][]int{},
	}
}

func (f *fakeZVM) start() *httptest.Server {
	s := httptest.NewServer(f)
	f.t.Cleanup(s.Close)
	return s
}

// client serves the fake in memory (see memnet) and returns a client of
// it, for a test in a testing/synctest bubble (see inBubble), whose clock
// the client's waits and timeouts then keep.
func (f *fakeZVM) client(mod func(*Options)) *Client {
	f.t.Helper()
	hc := memnet.Serve(f.t, f)
	return newTestClient(f.t, memnet.URL, func(o *Options) {
		o.HTTPClient = hc
		if mod != nil {
			mod(o)
		}
	})
}

// inBubble runs f in parallel with the package's other tests, in a
// testing/synctest bubble of its own.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Parallel()
	synctest.Test(t, f)
}

func (f *fakeZVM) grantCount(g string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.grants[g]
}

func (f *fakeZVM) callCount(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

// expireAll invalidates every token the fake has issued, as a ZVM restart
// or a Keycloak session timeout does.
func (f *fakeZVM) expireAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.valid)
}

func (f *fakeZVM) setOverride(h http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.override = h
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeZVM) issue(w http.ResponseWriter, grant string) {
	f.n++
	access := fmt.Sprintf("access-%d", f.n)
	refresh := fmt.Sprintf("refresh-%d", f.n)
	f.valid[access] = true
	f.refresh[refresh] = true
	f.grants[grant]++
	writeJSON(w, 200, map[string]any{
		"access_token": access, "refresh_token": refresh, "token_type": "Bearer",
		"expires_in": f.ttl, "refresh_expires_in": 1800,
	})
}

func (f *fakeZVM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path, ok := strings.CutPrefix(r.URL.Path, f.prefix)
	if !ok {
		f.t.Errorf("fake ZVM: request outside the base path: %s %s", r.Method, r.URL)
		http.Error(w, "outside base path", http.StatusTeapot)
		return
	}
	f.mu.Lock()
	switch {
	case r.Method == http.MethodPost && path == tokenPath:
		defer f.mu.Unlock()
		f.token(w, r)
		return
	case r.Method == http.MethodPost && path == sessionPath:
		defer f.mu.Unlock()
		if u, p, ok := r.BasicAuth(); !ok || u != "admin" || p != "zerto" {
			writeJSON(w, 401, map[string]string{"Message": "Invalid credentials"})
			return
		}
		f.n++
		id := fmt.Sprintf("session-%d", f.n)
		f.valid[id] = true
		f.grants["session"]++
		w.Header().Set(sessionHeader, id)
		writeJSON(w, 200, "")
		return
	}
	f.calls[r.Method+" "+path]++
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if auth == "" {
		auth = r.Header.Get(sessionHeader)
	}
	authed := f.valid[auth]
	override := f.override
	f.mu.Unlock()
	if !authed {
		writeJSON(w, 401, map[string]string{"Message": "Authorization has been denied for this request."})
		return
	}
	if override != nil {
		override(w, r)
		return
	}
	f.api(w, r, path)
}

func (f *fakeZVM) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		f.t.Errorf("token request: %v", err)
	}
	if r.PostForm.Get("scope") != "openid" {
		f.t.Errorf("token request without scope=openid: %v", r.PostForm)
	}
	bad := func(status int, code, desc string) {
		writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
	}
	switch g := r.PostForm.Get("grant_type"); g {
	case "password":
		if r.PostForm.Get("client_id") != "zerto-client" || r.PostForm.Get("username") != "admin" || r.PostForm.Get("password") != "zerto" {
			bad(401, "invalid_grant", "Invalid user credentials")
			return
		}
		f.issue(w, g)
	case "client_credentials":
		if r.PostForm.Get("client_id") != "rewind" || r.PostForm.Get("client_secret") != "rewind-secret" {
			bad(401, "invalid_client", "Invalid client or Invalid client credentials")
			return
		}
		f.issue(w, g)
	case "refresh_token":
		if !f.refresh[r.PostForm.Get("refresh_token")] {
			bad(400, "invalid_grant", "Invalid refresh token")
			return
		}
		delete(f.refresh, r.PostForm.Get("refresh_token"))
		f.issue(w, g)
	default:
		bad(400, "unsupported_grant_type", "Unsupported grant_type")
	}
}

const (
	webVMID  = "9a1b2c3d-0000-4000-8000-000000000001.vm-38"
	webVPGID = "5f6e7d8c-0000-4000-8000-00000000000a"
)

// api answers the routes the client uses, in the PascalCase a real ZVM writes.
func (f *fakeZVM) api(w http.ResponseWriter, r *http.Request, path string) {
	vm := map[string]any{
		"VmIdentifier": webVMID, "VmName": "web-01", "VpgIdentifier": webVPGID, "VpgName": "web",
		"Status": 1, "SubStatus": 0, "ActualRPO": 7, "ProtectedSiteName": "Lab",
	}
	switch {
	case r.Method == "GET" && path == "/v1/vms":
		if n := r.URL.Query().Get("vmName"); n != "" && n != "web-01" {
			writeJSON(w, 200, []any{})
			return
		}
		writeJSON(w, 200, []any{vm})
	case r.Method == "GET" && path == "/v1/vms/"+webVMID:
		writeJSON(w, 200, vm)
	case r.Method == "GET" && strings.HasPrefix(path, "/v1/vms/"):
		writeJSON(w, 400, map[string]string{"Message": "The provided VM identifier is not valid."})
	case r.Method == "GET" && path == "/v1/vpgs":
		writeJSON(w, 200, []any{fakeVPG()})
	case r.Method == "GET" && path == "/v1/vpgs/"+webVPGID:
		writeJSON(w, 200, fakeVPG())
	case r.Method == "GET" && path == "/v1/vpgs/"+webVPGID+"/checkpoints":
		writeJSON(w, 200, []any{
			map[string]any{"CheckpointIdentifier": "cp-1", "TimeStamp": "2025-01-02T03:04:05.123Z", "Tag": nil, "Type": 0},
			map[string]any{"CheckpointIdentifier": "cp-2", "TimeStamp": "/Date(1735787050000)/", "Tag": "rewind-1", "Type": 1},
		})
	case r.Method == "GET" && path == "/v1/vpgs/"+webVPGID+"/checkpoints/stats":
		writeJSON(w, 200, map[string]any{
			"Earliest": map[string]any{"CheckpointIdentifier": "cp-1", "TimeStamp": "2025-01-02T03:04:05Z"},
			"Latest":   map[string]any{"CheckpointIdentifier": "cp-2", "TimeStamp": "2025-01-02T03:04:10Z", "Tag": "rewind-1"},
		})
	case r.Method == "GET" && path == "/v1/tasks":
		writeJSON(w, 200, []any{map[string]any{
			"TaskIdentifier": "task-1", "Type": "FailOverTest", "InitiatedBy": "admin",
			"Status":  map[string]any{"State": 6, "Progress": 100},
			"Started": "2025-01-02T03:04:05Z", "Completed": nil,
			"RelatedEntities": map[string]any{"Vpgs": []any{map[string]any{"identifier": webVPGID}}},
		}})
	case r.Method == "GET" && strings.HasPrefix(path, "/v1/tasks/"):
		id := strings.TrimPrefix(path, "/v1/tasks/")
		f.mu.Lock()
		states, ok := f.tasks[id]
		state := 6
		if len(states) > 0 {
			state = states[0]
			if len(states) > 1 {
				f.tasks[id] = states[1:]
			}
		}
		f.mu.Unlock()
		if !ok {
			writeJSON(w, 404, map[string]string{"Message": "Task " + id + " not found"})
			return
		}
		reason := ""
		if state == 4 {
			reason = "The VPG is not in a state that allows this operation."
		}
		writeJSON(w, 200, map[string]any{
			"TaskIdentifier": id, "Type": "InsertTaggedCP",
			"Status":         map[string]any{"State": state, "Progress": 50},
			"CompleteReason": reason, "Started": "2025-01-02T03:04:05Z", "Completed": nil,
		})
	case r.Method == "GET" && path == serverTimePath:
		writeJSON(w, 200, time.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
	case r.Method == "GET" && path == "/v1/localsite":
		writeJSON(w, 200, map[string]any{"SiteIdentifier": "site-1", "SiteName": "Lab", "Version": "10.0.60", "SiteType": "VCenter"})
	case r.Method == "POST" && strings.HasPrefix(path, "/v1/"):
		var body any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil && r.ContentLength != 0 {
			writeJSON(w, 400, map[string]string{"Message": "Bad body"})
			return
		}
		writeJSON(w, 200, "task-"+strings.ReplaceAll(strings.TrimPrefix(path, "/v1/"), "/", "-"))
	default:
		f.t.Errorf("fake ZVM: unexpected request %s %s", r.Method, r.URL)
		http.Error(w, "unexpected request", http.StatusTeapot)
	}
}

func fakeVPG() map[string]any {
	return map[string]any{
		"VpgIdentifier": webVPGID, "VpgName": "web", "Status": 1, "SubStatus": 0,
		"Entities": map[string]any{"Protected": 0, "Recovery": 3}, "VmsCount": 1,
		"ActualRPO": 6, "ConfiguredRpoSeconds": 300, "ProtectedSiteName": "Lab", "RecoverySiteName": "AWS",
	}
}

// newTestClient returns a Client for base with the fake's password
// credentials and a private token cache, and with short backoffs.
func newTestClient(t *testing.T, base string, mod func(*Options)) *Client {
	t.Helper()
	o := Options{URL: base, Username: "admin", Password: "zerto", CacheDir: t.TempDir()}
	if mod != nil {
		mod(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	c.retryBase = 5 * time.Millisecond
	return c
}
