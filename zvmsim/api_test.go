package zvmsim

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

func TestTokenEndpoint(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := &client{t: t, base: ts.URL, http: http.DefaultClient}
	tests := []struct {
		name       string
		form       url.Values
		basic      [2]string
		wantStatus int
		wantError  string // Keycloak "error"; "" for success
		wantDesc   string
	}{
		{"password grant", url.Values{"grant_type": {"password"}, "client_id": {"zerto-client"}, "username": {"admin"}, "password": {"zerto"}, "scope": {"openid"}}, [2]string{}, 200, "", ""},
		{"password grant, user name casing", url.Values{"grant_type": {"password"}, "client_id": {"zerto-client"}, "username": {"Admin"}, "password": {"zerto"}}, [2]string{}, 200, "", ""},
		{"wrong password", url.Values{"grant_type": {"password"}, "client_id": {"zerto-client"}, "username": {"admin"}, "password": {"nope"}}, [2]string{}, 401, "invalid_grant", "Invalid user credentials"},
		{"client credentials in form", url.Values{"grant_type": {"client_credentials"}, "client_id": {"rewind-hook"}, "client_secret": {"rewind-hook-secret"}}, [2]string{}, 200, "", ""},
		{"client credentials in Basic", url.Values{"grant_type": {"client_credentials"}}, [2]string{"rewind-hook", "rewind-hook-secret"}, 200, "", ""},
		{"wrong secret", url.Values{"grant_type": {"client_credentials"}, "client_id": {"rewind-hook"}, "client_secret": {"x"}}, [2]string{}, 401, "unauthorized_client", "Invalid client or Invalid client credentials"},
		{"unknown client", url.Values{"grant_type": {"client_credentials"}, "client_id": {"nobody"}, "client_secret": {"x"}}, [2]string{}, 401, "invalid_client", "Invalid client or Invalid client credentials"},
		{"public client, client credentials", url.Values{"grant_type": {"client_credentials"}, "client_id": {"zerto-client"}}, [2]string{}, 401, "unauthorized_client", "Public client not allowed to retrieve service account"},
		{"unsupported grant", url.Values{"grant_type": {"implicit"}, "client_id": {"zerto-client"}}, [2]string{}, 400, "unsupported_grant_type", "Unsupported grant_type"},
		{"missing grant", url.Values{"client_id": {"zerto-client"}}, [2]string{}, 400, "invalid_request", "Missing form parameter: grant_type"},
		{"bad refresh token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"zerto-client"}, "refresh_token": {"forged"}}, [2]string{}, 400, "invalid_grant", "Invalid refresh token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, c.base+"/auth/realms/zerto/protocol/openid-connect/token", strings.NewReader(tt.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.basic[0] != "" {
				req.SetBasicAuth(tt.basic[0], tt.basic[1])
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("HTTP %d, want %d: %v", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantError != "" {
				if body["error"] != tt.wantError || body["error_description"] != tt.wantDesc {
					t.Fatalf("got %v, want error %q / %q", body, tt.wantError, tt.wantDesc)
				}
				return
			}
			for _, k := range []string{"access_token", "refresh_token", "expires_in", "refresh_expires_in", "token_type", "scope"} {
				if _, ok := body[k]; !ok {
					t.Errorf("answer lacks %s: %v", k, body)
				}
			}
			if body["token_type"] != "Bearer" || body["expires_in"].(float64) != 300 {
				t.Errorf("token_type %v expires_in %v, want Bearer 300", body["token_type"], body["expires_in"])
			}
		})
	}
	if got := ts.CountTokens(); got != 4 {
		t.Errorf("CountTokens = %d, want 4", got)
	}
}

func TestRefreshToken(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := &client{t: t, base: ts.URL, http: http.DefaultClient}
	st, b := c.form(url.Values{"grant_type": {"password"}, "client_id": {"zerto-client"}, "username": {"admin"}, "password": {"zerto"}})
	if st != 200 {
		t.Fatalf("HTTP %d %s", st, b)
	}
	var tok struct {
		RefreshToken string `json:"refresh_token"`
	}
	json.Unmarshal(b, &tok)
	refresh := url.Values{"grant_type": {"refresh_token"}, "client_id": {"zerto-client"}, "refresh_token": {tok.RefreshToken}}
	if st, b := c.form(refresh); st != 200 {
		t.Fatalf("refresh: HTTP %d %s", st, b)
	}
	// Keycloak rotates refresh tokens: the old one is spent.
	if st, b := c.form(refresh); st != 400 || !strings.Contains(string(b), "invalid_grant") {
		t.Fatalf("second refresh: HTTP %d %s, want 400 invalid_grant", st, b)
	}
}

func TestSessionAdd(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	post := func(user, pass string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/session/add", nil)
		req.SetBasicAuth(user, pass)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("admin", "wrong"); resp.StatusCode != 401 || resp.Header.Get("x-zerto-session") != "" {
		t.Fatalf("wrong password: HTTP %d session %q", resp.StatusCode, resp.Header.Get("x-zerto-session"))
	}
	resp := post("admin", "zerto")
	session := resp.Header.Get("x-zerto-session")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("HTTP %d session %q", resp.StatusCode, session)
	}
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/vpgs", nil)
	req.Header.Set("x-zerto-session", session)
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r2.Body.Close()
	if r2.StatusCode != 200 {
		t.Fatalf("GET /v1/vpgs with session: HTTP %d", r2.StatusCode)
	}
}

func TestAPIErrors(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	anon := &client{t: t, base: ts.URL, http: http.DefaultClient}
	vpg := ts.VPGIdentifier("lab-apps")
	vm := ts.VMIdentifier("web-01")
	tests := []struct {
		name       string
		c          *client
		method     string
		path       string
		body       any
		wantStatus int
		wantMsg    string // substring of Message
	}{
		{"no token", anon, "GET", "/v1/vpgs", nil, 401, "Authorization has been denied"},
		{"forged token", &client{t: t, base: ts.URL, http: http.DefaultClient, token: "forged"}, "GET", "/v1/vms", nil, 401, "Authorization has been denied"},
		{"unknown path", c, "GET", "/v1/nothing", nil, 404, "No HTTP resource was found"},
		{"unknown path without token", anon, "GET", "/v2/vpgs", nil, 404, "No HTTP resource was found"},
		{"method not allowed", c, "DELETE", "/v1/tasks", nil, 405, "does not support http method 'DELETE'"},
		{"vm by host name", c, "GET", "/v1/vms/web01.lab.local", nil, 400, "is not valid"},
		{"vm by name", c, "GET", "/v1/vms/web-01", nil, 400, "is not valid"},
		{"unknown vm id", c, "GET", "/v1/vms/" + ts.Scenario().Sites[0].ID + ".vm-9999", nil, 404, "was not found"},
		{"vm in other vpg", c, "GET", "/v1/vms/" + vm + "?vpgIdentifier=" + ts.VPGIdentifier("lab-paused"), nil, 404, "was not found"},
		{"vpg not a guid", c, "GET", "/v1/vpgs/lab-apps", nil, 400, "is not valid"},
		{"unknown vpg", c, "GET", "/v1/vpgs/00000000-0000-4000-8000-000000000000", nil, 404, "was not found"},
		{"unknown task", c, "GET", "/v1/tasks/nope", nil, 404, "was not found"},
		{"bad startDate", c, "GET", "/v1/vpgs/" + vpg + "/checkpoints?startDate=yesterday", nil, 400, "startDate"},
		{"bad status filter", c, "GET", "/v1/vpgs?status=green", nil, 400, "not valid for status"},
		{"insert without name", c, "POST", "/v1/vpgs/" + vpg + "/checkpoints", map[string]string{}, 400, "must not be empty"},
		{"insert with broken body", c, "POST", "/v1/vpgs/" + vpg + "/checkpoints", `{"checkpointName":`, 400, "not valid JSON"},
		{"insert into paused vpg", c, "POST", "/v1/vpgs/" + ts.VPGIdentifier("lab-paused") + "/checkpoints", map[string]string{"checkpointName": "x"}, 400, "ReplicationPausedUserInitiated"},
		{"restore without checkpoint", c, "POST", "/v1/vms/" + vm + "/Restore", map[string]string{"VpgIdentifier": vpg}, 400, "checkpoint identifier is required"},
		{"restore unknown checkpoint", c, "POST", "/v1/vms/" + vm + "/Restore", map[string]string{"CheckpointIdentifier": "1"}, 400, "was not found in the journal"},
		{"restore commit without restore", c, "POST", "/v1/vms/" + vm + "/RestoreCommit", `"` + vpg + `"`, 400, "no journal restore"},
		{"test stop without test", c, "POST", "/v1/vpgs/" + vpg + "/FailoverTestStop", map[string]any{}, 400, "no failover test"},
		{"failover test of foreign vm", c, "POST", "/v1/vpgs/" + vpg + "/FailoverTest", map[string]any{"VmIdentifiers": []string{ts.VMIdentifier("paused-01")}}, 400, "is not protected by VPG"},
		{"failover commit without failover", c, "POST", "/v1/vpgs/" + vpg + "/FailoverCommit", map[string]any{}, 400, "no failover awaiting commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, b := tt.c.do(tt.method, tt.path, tt.body)
			if st != tt.wantStatus {
				t.Fatalf("HTTP %d, want %d: %s", st, tt.wantStatus, b)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("answer %s: %v", b, err)
			}
			msg, _ := m["Message"].(string)
			if len(m) != 1 || !strings.Contains(msg, tt.wantMsg) {
				t.Fatalf("answer %s, want only a Message containing %q", b, tt.wantMsg)
			}
		})
	}
}

func TestWireFormat(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)

	// Keys are PascalCase, with the identifier fields the spec omits.
	var raw []map[string]any
	c.get("/v1/vpgs", &raw)
	if len(raw) != 4 {
		t.Fatalf("%d VPGs, want 4", len(raw))
	}
	for _, k := range []string{"VpgIdentifier", "VpgName", "Status", "SubStatus", "Entities", "ActualRPO", "ProtectedSite", "RecoverySite", "VmsCount"} {
		if _, ok := raw[0][k]; !ok {
			t.Errorf("VPG lacks %s: %v", k, raw[0])
		}
	}

	var vpgs []wireVPG
	c.get("/v1/vpgs", &vpgs)
	byName := map[string]wireVPG{}
	for _, v := range vpgs {
		byName[v.VpgName] = v
	}
	tests := []struct {
		vpg                 string
		status, sub         int
		protected, recovery int
		vms                 int
	}{
		{"lab-apps", 1, 0, 0, 0, 3},
		{"aws-windows", 1, 0, 3, 0, 1},
		{"lab-legacy", 1, 0, 0, 0, 1},
		{"lab-paused", 2, 25, 0, 0, 1},
	}
	for _, tt := range tests {
		v, ok := byName[tt.vpg]
		if !ok {
			t.Errorf("no VPG %s", tt.vpg)
			continue
		}
		if v.Status != tt.status || v.SubStatus != tt.sub || v.Entities.Protected != tt.protected || v.Entities.Recovery != tt.recovery || v.VmsCount != tt.vms {
			t.Errorf("%s = %+v, want status %d/%d entities %d/%d vms %d", tt.vpg, v, tt.status, tt.sub, tt.protected, tt.recovery, tt.vms)
		}
		if v.VpgIdentifier != ts.VPGIdentifier(tt.vpg) {
			t.Errorf("%s id %s, want %s", tt.vpg, v.VpgIdentifier, ts.VPGIdentifier(tt.vpg))
		}
	}

	// VM lookup by name, in any casing; identifiers look like <site>.vm-N.
	var vms []wireVM
	c.get("/v1/vms?vmname=WEB-01", &vms)
	if len(vms) != 1 || vms[0].VmName != "web-01" || vms[0].VpgName != "lab-apps" {
		t.Fatalf("vms = %+v", vms)
	}
	if !regexp.MustCompile(`^[0-9a-f-]{36}\.vm-\d+$`).MatchString(vms[0].VmIdentifier) {
		t.Errorf("VmIdentifier %q does not look like <site guid>.vm-N", vms[0].VmIdentifier)
	}
	var one wireVM
	c.get("/v1/vms/"+vms[0].VmIdentifier, &one)
	if one.VmName != "web-01" {
		t.Errorf("GET by id = %+v", one)
	}
	var aws []wireVM
	c.get("/v1/vms?vmName=win2019-1", &aws)
	if len(aws) != 1 || !strings.Contains(aws[0].VmIdentifier, ".i-") {
		t.Errorf("AWS VM = %+v, want an EC2-style identifier", aws)
	}
	var none []wireVM
	c.get("/v1/vms?vmName=nosuchvm", &none)
	if none == nil || len(none) != 0 {
		t.Errorf("unknown name: %v, want []", none)
	}
	var inVPG []wireVM
	c.get("/v1/vms?vpgName=lab-apps", &inVPG)
	if len(inVPG) != 3 {
		t.Errorf("vpgName filter: %d VMs, want 3", len(inVPG))
	}

	// Paths match in any casing, as on a ZVM.
	var site map[string]any
	c.get("/V1/LocalSite", &site)
	if site["SiteName"] != "Lab-vSphere" || site["SiteIdentifier"] != ts.Scenario().Sites[0].ID || site["SiteType"] != "VCenter" {
		t.Errorf("localsite = %v", site)
	}

	// Times are UTC with milliseconds.
	var cps []wireCheckpoint
	c.get("/v1/vpgs/"+ts.VPGIdentifier("lab-apps")+"/checkpoints", &cps)
	if len(cps) == 0 {
		t.Fatal("no checkpoints")
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`).MatchString(cps[0].TimeStamp) {
		t.Errorf("TimeStamp %q is not in the ZVM format", cps[0].TimeStamp)
	}
	if cps[0].Tag != nil {
		t.Errorf("automatic checkpoint has Tag %q", *cps[0].Tag)
	}
}

func TestDeterministicIdentifiers(t *testing.T) {
	t.Parallel()
	a, b := DefaultScenario(), DefaultScenario()
	for i := range a.VPGs {
		if a.VPGs[i].ID != b.VPGs[i].ID || !guidRE().MatchString(a.VPGs[i].ID) {
			t.Fatalf("VPG %s: ids %s and %s", a.VPGs[i].Name, a.VPGs[i].ID, b.VPGs[i].ID)
		}
	}
	s1, s2 := NewServer(a), NewServer(b)
	defer s1.Close()
	defer s2.Close()
	for _, vm := range []string{"jp-ubuntu", "web-01", "db-01", "win2019-1"} {
		if id := s1.VMIdentifier(vm); id == "" || id != s2.VMIdentifier(vm) {
			t.Errorf("VM %s: ids %q and %q", vm, id, s2.VMIdentifier(vm))
		}
	}
}
