package zvmsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-dev/rewind/internal/memnet"
)

// client talks to a TestServer the way a ZVM client would.
type client struct {
	t     testing.TB
	base  string
	token string
	http  *http.Client
	creds Credentials // the scenario's, to log in with
}

func newClient(t testing.TB, ts *TestServer) *client {
	c := &client{t: t, base: ts.URL, http: &http.Client{Timeout: 5 * time.Second}, creds: ts.sc.Credentials}
	c.token = c.login()
	return c
}

// memServer serves a simulator of sc in memory (see memnet) and returns it
// with a client, for a test in a testing/synctest bubble (see inBubble),
// whose clock the journals and the client's waits then keep.
func memServer(t testing.TB, sc *Scenario) (*TestServer, *client) {
	t.Helper()
	s := NewServer(sc)
	hc := memnet.Serve(t, s)
	t.Cleanup(s.Close) // first: it releases hanging requests the server waits for
	ts := &TestServer{Server: s, URL: memnet.URL}
	hc.Timeout = 5 * time.Second
	c := &client{t: t, base: ts.URL, http: hc, creds: ts.sc.Credentials}
	c.token = c.login()
	return ts, c
}

// inBubble runs f in parallel with the package's other tests, in a
// testing/synctest bubble of its own.
func inBubble(t *testing.T, f func(t *testing.T)) {
	t.Parallel()
	synctest.Test(t, f)
}

// login obtains an access token for the scenario's first identity that
// may do everything (a confidential client, else a user through the public
// client), since the tests drive every route.
func (c *client) login() string {
	c.t.Helper()
	all := func(roles []string) bool {
		return allows(roles, permCheckpoint) && allows(roles, permTest) && allows(roles, permFailover) && allows(roles, permRestore)
	}
	var form url.Values
	for _, cl := range c.creds.Clients {
		if cl.Secret != "" && all(cl.Roles) {
			form = url.Values{"grant_type": {"client_credentials"}, "client_id": {cl.ID}, "client_secret": {cl.Secret}}
			break
		}
	}
	for _, u := range c.creds.Users {
		if form == nil && all(u.Roles) {
			form = url.Values{"grant_type": {"password"}, "client_id": {DefaultPublicClient}, "username": {u.Name}, "password": {u.Password}}
		}
	}
	if form == nil {
		c.t.Fatal("the scenario has no identity that may do everything")
	}
	st, body := c.form(form)
	if st != http.StatusOK {
		c.t.Fatalf("token: HTTP %d: %s", st, body)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		c.t.Fatalf("token answer %s: %v", body, err)
	}
	return tok.AccessToken
}

func (c *client) form(v url.Values) (int, []byte) {
	c.t.Helper()
	resp, err := c.http.PostForm(c.base+"/auth/realms/zerto/protocol/openid-connect/token", v)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// do sends an API request with the client's token; body is JSON-encoded
// unless it is a string, which is sent as is.
func (c *client) do(method, path string, body any) (int, []byte) {
	c.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	default:
		j, _ := json.Marshal(b)
		r = bytes.NewReader(j)
	}
	req, _ := http.NewRequest(method, c.base+path, r)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// get decodes a 200 answer into v.
func (c *client) get(path string, v any) {
	c.t.Helper()
	st, b := c.do(http.MethodGet, path, nil)
	if st != http.StatusOK {
		c.t.Fatalf("GET %s: HTTP %d: %s", path, st, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		c.t.Fatalf("GET %s: %v in %s", path, err, b)
	}
}

// post expects a 200 answer carrying a task id.
func (c *client) post(path string, body any) string {
	c.t.Helper()
	st, b := c.do(http.MethodPost, path, body)
	if st != http.StatusOK {
		c.t.Fatalf("POST %s: HTTP %d: %s", path, st, b)
	}
	var id string
	if err := json.Unmarshal(b, &id); err != nil || id == "" {
		c.t.Fatalf("POST %s: answer %s is not a task id: %v", path, b, err)
	}
	return id
}

type wireCheckpoint struct {
	CheckpointIdentifier string
	TimeStamp            string
	Tag                  *string
	Type                 int
}

type wireTask struct {
	TaskIdentifier string
	Type           string
	Status         struct{ State, Progress int }
	Completed      *string
	CompleteReason *string
	InitiatedBy    string
}

type wireVM struct {
	VmIdentifier       string
	VmName             string
	VpgName            string
	VpgIdentifier      string
	RecoveryCheckpoint *wireCheckpoint
	RecoveryOperation  string
}

type wireVPG struct {
	VpgIdentifier string
	VpgName       string
	Status        int
	SubStatus     int
	Entities      struct{ Protected, Recovery int }
	ActualRPO     int
	VmsCount      int
	LastTest      *string

	ActiveProcessesApi struct {
		RunningFailOverTestApi *struct{ Stage string }
	}
}

// waitTask polls a task until it leaves InProgress, for at most 5 s.
func (c *client) waitTask(id string) wireTask {
	c.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		var tk wireTask
		c.get("/v1/tasks/"+id, &tk)
		if tk.Status.State != int(TaskInProgress) || time.Now().After(deadline) {
			return tk
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func fastScenario(t testing.TB) *Scenario {
	t.Helper()
	sc, err := LoadScenario("testdata/fast.toml")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
