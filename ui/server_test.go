package ui

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

// noRedirect is a client that shows redirects instead of following them.
var noRedirect = &http.Client{
	Timeout:       30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func do(t *testing.T, req *http.Request) *http.Response {
	t.Helper()
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestTokenExchange(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	u, _ := url.Parse(l.srv.URL())
	token := u.Query().Get("token")
	if len(token) < 22 {
		t.Fatalf("token %q: want 128 bits", token)
	}
	if u.Host != l.ts.Listener.Addr().String() {
		t.Errorf("URL host %s, want the bound address %s", u.Host, l.ts.Listener.Addr())
	}

	tests := []struct {
		name     string
		target   string
		status   int
		location string
	}{
		{"right token", "/?token=" + token, http.StatusSeeOther, "/"},
		{"right token keeps the filter", "/?vm=web-01&token=" + token, http.StatusSeeOther, "/?vm=web-01"},
		{"wrong token", "/?token=" + token[:len(token)-1] + "x", http.StatusUnauthorized, ""},
		{"no token", "/", http.StatusUnauthorized, ""},
		{"no token, feed", "/events", http.StatusUnauthorized, ""},
		{"no token, script", "/static/app.js", http.StatusUnauthorized, ""},
		{"no token, job", "/api/jobs/x", http.StatusUnauthorized, ""},
		{"no token, VMs", "/fragment/vms", http.StatusUnauthorized, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, l.base+tt.target, nil)
			resp := do(t, req)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %s, want %d", resp.Status, tt.status)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "Referrer-Policy"} {
				if resp.Header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
			if tt.status != http.StatusSeeOther {
				if len(resp.Cookies()) > 0 {
					t.Errorf("cookie set without the token: %v", resp.Cookies())
				}
				return
			}
			if got := resp.Header.Get("Location"); got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			cs := resp.Cookies()
			if len(cs) != 1 || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Value == token {
				t.Fatalf("cookies %+v: want one HttpOnly SameSite=Strict session cookie that is not the token", cs)
			}
			// The cookie alone opens the page.
			req, _ = http.NewRequest(http.MethodGet, l.base+"/", nil)
			req.AddCookie(cs[0])
			if resp := do(t, req); resp.StatusCode != http.StatusOK {
				t.Errorf("with the cookie: %s", resp.Status)
			}
			req, _ = http.NewRequest(http.MethodGet, l.base+"/", nil)
			req.AddCookie(&http.Cookie{Name: cs[0].Name, Value: cs[0].Value + "x"})
			if resp := do(t, req); resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("with a wrong cookie: %s", resp.Status)
			}
		})
	}

	csp := do(t, mustRequest(t, http.MethodGet, l.base+"/")).Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP %q allows inline script", csp)
	}
}

func mustRequest(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

func TestHostHeader(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	c := l.browser(t)
	_, port, _ := net.SplitHostPort(l.ts.Listener.Addr().String())
	tests := []struct {
		host   string
		status int
	}{
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
		{"LOCALHOST:" + port, http.StatusOK},
		{"evil.example:" + port, http.StatusMisdirectedRequest},
		{"attacker.localhost.example:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1:1", http.StatusMisdirectedRequest},
		{"127.0.0.2:" + port, http.StatusMisdirectedRequest},
		{"127.0.0.1", http.StatusMisdirectedRequest},
	}
	u, _ := url.Parse(l.base)
	cookies := c.hc.Jar.Cookies(u)
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			req := mustRequest(t, http.MethodGet, l.base+"/")
			req.Host = tt.host
			// The browser's cookie goes with every Host: only the Host
			// decides.
			for _, ck := range cookies {
				req.AddCookie(ck)
			}
			resp := do(t, req)
			if resp.StatusCode != tt.status {
				t.Errorf("Host %q: %s, want %d", tt.host, resp.Status, tt.status)
			}
		})
	}
	// A rebound name cannot buy a session with the token either.
	req := mustRequest(t, http.MethodGet, l.srv.URL())
	req.Host = "evil.example:" + port
	if resp := do(t, req); resp.StatusCode != http.StatusMisdirectedRequest || len(resp.Cookies()) > 0 {
		t.Errorf("token through a rebound name: %s, cookies %v", resp.Status, resp.Cookies())
	}
}

func TestHostGuard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bound string
		host  string
		ok    bool
	}{
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "localhost:8080", true},
		{"127.0.0.1:8080", "[::1]:8080", false},
		{"[::1]:8080", "[::1]:8080", true},
		{"[::1]:8080", "localhost:8080", true},
		{"192.0.2.7:8080", "192.0.2.7:8080", true},
		{"192.0.2.7:8080", "localhost:8080", false},
		{"192.0.2.7:8080", "rewind.example:8080", false},
		{"0.0.0.0:8080", "192.0.2.7:8080", true},
		{"0.0.0.0:8080", "localhost:8080", true},
		{"0.0.0.0:8080", "rewind.example:8080", false},
		{"0.0.0.0:8080", "192.0.2.7:9090", false},
	}
	for _, tt := range tests {
		addr, err := net.ResolveTCPAddr("tcp", tt.bound)
		if err != nil {
			t.Fatal(err)
		}
		if got := newHostGuard(addr).allows(tt.host); got != tt.ok {
			t.Errorf("bound %s, Host %s: allowed %v, want %v", tt.bound, tt.host, got, tt.ok)
		}
	}
}

func TestCSRF(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	r := l.Protected(t, "toolu_csrf", "web-01")
	c := l.browser(t)
	before := len(l.Sim.Requests())
	form := url.Values{"mode": {"test"}, "id": {r.ID}, "vpg": {r.Checkpoints[0].VPGIdentifier}}
	tests := []struct {
		name   string
		token  string
		origin string
	}{
		{"no token", "", ""},
		{"wrong token", c.csrf + "x", ""},
		{"the URL token", l.srv.token, ""},
		{"right token, other origin", c.csrf, "http://evil.example"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, l.base+"/api/action", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if tt.token != "" {
				req.Header.Set("X-CSRF-Token", tt.token)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			resp, err := c.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("status %s, want 403", resp.Status)
			}
		})
	}
	if n := len(l.Sim.Requests()); n != before {
		t.Errorf("refused posts sent %d requests to Zerto", n-before)
	}
	// An action is a POST: a GET (a link, an image) does nothing.
	if resp := c.get("/api/action?mode=test&id=" + r.ID); resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /api/action: %s, want 405", resp.Status)
	}
	// Another session's token does not do either.
	other := l.browser(t)
	if other.csrf == c.csrf {
		t.Fatal("two sessions share a CSRF token")
	}
	c.csrf = other.csrf
	if resp, _ := c.post("/api/action", form); resp.StatusCode != http.StatusForbidden {
		t.Errorf("another session's CSRF token: %s, want 403", resp.Status)
	}
}

func TestTimelineFilters(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	recs := []audit.Record{
		{ID: "aaaa00000001", Session: "s1", Tool: "Bash", Excerpt: "govc vm.power -off -vm web-01", Decision: audit.DecisionProtected,
			Targets: []string{"web-01"}, Checkpoints: []audit.Checkpoint{{VM: "web-01", VPG: "fast", Identifier: "101", Tag: "rewind-a"}}},
		{ID: "aaaa00000002", Session: "s1", Tool: "Bash", Excerpt: "govc vm.destroy db-01", Decision: audit.DecisionDeny, Targets: []string{"db-01"},
			Reason: "a checkpoint cannot bring a destroyed VM back in place"},
		{ID: "aaaa00000003", Session: "s2", Tool: "mcp__vsphere__power_off_vm", Excerpt: `{"vm":"app-01"}`, Decision: audit.DecisionAsk, Targets: []string{"app-01"}},
		{ID: "aaaa00000004", Session: "s2", Tool: "rewind ui", Excerpt: "rewind ui aaaa00000001 --test", Decision: "undo-test", Targets: []string{"web-01"}, Rewinds: "aaaa00000001"},
	}
	for i := range recs {
		if err := l.Log.Append(&recs[i]); err != nil {
			t.Fatal(err)
		}
	}
	c := l.browser(t)
	tests := []struct {
		query string
		want  []string
	}{
		{"", []string{"aaaa00000004", "aaaa00000003", "aaaa00000002", "aaaa00000001"}},
		{"session=s1", []string{"aaaa00000002", "aaaa00000001"}},
		{"decision=deny", []string{"aaaa00000002"}},
		{"decision=undo", []string{"aaaa00000004"}},
		{"vm=WEB-01", []string{"aaaa00000004", "aaaa00000001"}},
		{"q=destroyed", []string{"aaaa00000002"}},
		{"q=rewind-a", []string{"aaaa00000001"}},
		{"q=power_off", []string{"aaaa00000003"}},
		{"session=s2&decision=ask", []string{"aaaa00000003"}},
		{"session=s3", nil},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			page := c.page("/?" + tt.query)
			var got []string
			for _, part := range strings.Split(page, `<li class="rec `)[1:] {
				i := strings.Index(part, `data-id="`)
				id := part[i+len(`data-id="`):]
				got = append(got, id[:strings.IndexByte(id, '"')])
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("rows %v, want %v (newest first)", got, tt.want)
			}
			if len(tt.want) == 0 && !strings.Contains(page, "No decision matches this filter") {
				t.Error("no empty-filter message")
			}
		})
	}
}

func TestPageEscapesTheLog(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	r := &audit.Record{ID: "bbbb00000001", Tool: "Bash", Excerpt: `echo "<script>alert(1)</script>"`, Decision: audit.DecisionAsk,
		Reason: `<img src=x onerror=alert(2)>`}
	if err := l.Log.Append(r); err != nil {
		t.Fatal(err)
	}
	page := l.browser(t).page("/")
	for _, bad := range []string{"<script>alert", "<img src=x"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the excerpt is not shown escaped")
	}
}

func TestEmptyAndNoZerto(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	c := l.browser(t)
	page := c.page("/")
	for _, want := range []string{"No calls yet", "rewind install", "rewind demo --ui", "Zerto is not configured here", "REWIND_ZVM_URL"} {
		if !strings.Contains(page, want) {
			t.Errorf("the empty page lacks %q", want)
		}
	}
	// With calls logged, the timeline works without Zerto, and the VMs
	// view lists the rewind points with what they undo, but no action
	// can be started.
	r := &audit.Record{ID: "cccc00000001", Tool: "Bash", Excerpt: "govc vm.power -off -vm web-01", Decision: audit.DecisionProtected,
		Targets: []string{"web-01"}, Checkpoints: []audit.Checkpoint{{VM: "web-01", VMIdentifier: "site.vm-1", VPG: "fast", VPGIdentifier: "vpg-1",
			Identifier: "101", Tag: "rewind-a", Time: time.Now()}}}
	if err := l.Log.Append(r); err != nil {
		t.Fatal(err)
	}
	page = c.page("/")
	for _, want := range []string{`id="rec-cccc00000001"`, "rewind-a", "going back to here undoes 1 call", "Zerto is not configured here"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "No calls yet") {
		t.Error("the page still says no calls yet")
	}
	resp := c.get("/api/prepare?mode=test&id=cccc00000001&vpg=vpg-1")
	if body := readBody(t, resp); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "no Zerto configured") {
		t.Errorf("prepare without Zerto: %s %s", resp.Status, body)
	}
	if resp, _ := c.post("/api/action", url.Values{"mode": {"test"}, "id": {"cccc00000001"}}); resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("action without Zerto: %s", resp.Status)
	}
}

func TestZertoUnreachable(t *testing.T) {
	t.Parallel()
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	l := newLab(t, func(o *Options) { o.ZertoWait = 500 * time.Millisecond })
	r := l.Protected(t, "toolu_dead", "web-01")
	z, err := zvm.New(zvm.Options{URL: dead, ClientID: "rewind", ClientSecret: "rewind-secret", CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	l.svc.Z = z
	// The page comes at once, with the timeline; the VMs view says why it
	// has no health.
	c := l.browser(t)
	page := c.page("/")
	for _, want := range []string{`id="rec-` + r.ID + `"`, `data-checking="1"`, "asking Zerto…", r.Checkpoints[0].Tag} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	vms := c.page("/fragment/vms")
	for _, want := range []string{"Zerto could not be read", "health unknown", r.Checkpoints[0].Tag} {
		if !strings.Contains(vms, want) {
			t.Errorf("the VMs view lacks %q", want)
		}
	}
}

func TestLiveFeed(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	c := l.browser(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, l.base+"/events?decision=deny", nil)
	resp, err := c.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	feed := &sse{t: t, br: bufio.NewReader(resp.Body)}
	if ev := feed.next(); ev.name != "ready" {
		t.Fatalf("first event %+v, want ready", ev)
	}
	// Appended after the page connected: the ask is filtered out, the
	// deny is streamed, rendered.
	for _, r := range []*audit.Record{
		{ID: "dddd00000001", Tool: "Bash", Excerpt: "ssh web-01 reboot", Decision: audit.DecisionAsk},
		{ID: "dddd00000002", Tool: "Bash", Excerpt: "govc vm.destroy db-01", Decision: audit.DecisionDeny, Reason: "no way back"},
	} {
		if err := l.Log.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	ev := feed.next()
	if ev.name != "record" || !strings.Contains(ev.data, `id="rec-dddd00000002"`) || !strings.Contains(ev.data, "govc vm.destroy db-01") {
		t.Fatalf("event %+v, want the deny's row", ev)
	}
	if strings.Contains(ev.data, "dddd00000001") {
		t.Error("the feed sent a record its filter excludes")
	}
}

func TestWatcherFollowsRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := audit.Open(dir)
	log.MaxSize = 600
	if err := log.Append(&audit.Record{ID: "before", Tool: "Bash", Decision: audit.DecisionAsk}); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(log.Path(), time.Hour)
	// What the log held when the watcher started is the page's, not the
	// feed's.
	w.info, _ = os.Stat(log.Path())
	w.offset = w.info.Size()
	ch, cancel := w.subscribe()
	defer cancel()
	var want []string
	for i := range 12 {
		id := "rec" + strings.Repeat("x", i)
		want = append(want, id)
		if err := log.Append(&audit.Record{ID: id, Tool: "Bash", Excerpt: strings.Repeat("y", 100), Decision: audit.DecisionAsk}); err != nil {
			t.Fatal(err)
		}
		// Check every other append, so that a rotation falls between
		// two looks now and then.
		if i%2 == 1 {
			w.check()
		}
	}
	if _, err := os.Stat(log.Path() + ".1"); err != nil {
		t.Fatalf("the log never rotated: %v", err)
	}
	var got []string
	for len(got) < len(want) {
		select {
		case r := <-ch:
			got = append(got, r.ID)
		default:
			t.Fatalf("published %v, want %v", got, want)
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("published %v, want %v", got, want)
	}
	// A line being written is not published until its newline is there.
	f, err := os.OpenFile(log.Path(), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(`{"id":"half","tool":"Bash",`)
	w.check()
	select {
	case r := <-ch:
		t.Fatalf("published %q before its line ended", r.ID)
	default:
	}
	f.WriteString(`"decision":"ask"}` + "\n")
	w.check()
	if r := <-ch; r.ID != "half" {
		t.Errorf("published %q, want half", r.ID)
	}
}

// TestRestoreNeedsTheOperator: a restore through the page needs the VM's
// name typed and the person's own Zerto credentials, which `rewind ui`
// never printed: with only the token, the cookie and the CSRF token (all
// an agent that started the page holds) it is refused before anything
// reaches Zerto, and so it is with the hook's own credentials.
func TestRestoreNeedsTheOperator(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	r := l.Protected(t, "toolu_restore", "web-01")
	c := l.browser(t)
	vpg := r.Checkpoints[0].VPGIdentifier

	// What the confirmation says is recovery's plan: the loss, the
	// checkpoint of now, the credentials.
	resp := c.get("/api/prepare?mode=restore&id=" + r.ID + "&vpg=" + vpg)
	body := readBody(t, resp)
	p, _ := l.svc.Find(t.Context(), r.ID)
	loss, _ := l.svc.Loss(t.Context(), p[0])
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"type_names":true`) || !strings.Contains(body, `"credentials":true`) ||
		!strings.Contains(body, jsonString(loss.Text)) || !strings.Contains(body, "takes a checkpoint of web-01 as it is now") {
		t.Fatalf("prepare: %s %s, want the Loss text %q", resp.Status, body, loss.Text)
	}

	form := func(typed, user, password string) url.Values {
		return url.Values{"mode": {"restore"}, "id": {r.ID}, "vpg": {vpg}, "confirm": {typed}, "zvm_user": {user}, "zvm_password": {password}}
	}
	before := len(l.Sim.Requests())
	for _, typed := range []string{"", "db-01", "web-0", "web-01 web-01", "WEB-01"} {
		resp, out := c.post("/api/action", form(typed, "operator", "op-secret"))
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out["error"].(string), "nothing was sent to Zerto") {
			t.Errorf("typed %q: %s %v, want a refusal", typed, resp.Status, out)
		}
	}
	for _, f := range []url.Values{
		{"mode": {"restore"}, "id": {r.ID}, "vpg": {vpg}, "confirm": {"web-01"}}, // what rewind ui printed, and no more
		form("web-01", "operator", ""),
		form("web-01", "service-account-rewind", "x"),
		form("web-01", "operator", "rewind-secret"),
	} {
		resp, out := c.post("/api/action", f)
		if (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) || !strings.Contains(out["error"].(string), "nothing was sent to Zerto") {
			t.Errorf("%v: %s %v, want a refusal", f, resp.Status, out)
		}
	}
	if reqs := l.Sim.Requests(); len(reqs) != before {
		t.Fatalf("refused restores sent %d requests to Zerto: %+v", len(reqs)-before, reqs[before:])
	}
	resp, out := c.post("/api/action", form("web-01", "operator", "guess"))
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(out["error"].(string), "Zerto refused the credentials of operator") {
		t.Errorf("wrong password: %s %v", resp.Status, out)
	}
	if l.Sim.Count("restore")+l.Sim.Count("insert") != 1 {
		t.Fatal("the simulator saw a restore, or a checkpoint of now, before a confirmation")
	}

	resp, out = c.post("/api/action", form(" web-01 ", "operator", "op-secret"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("confirmed restore: %s %v", resp.Status, out)
	}
	st := c.waitJob(out["id"].(string))
	if st["ok"] != true || !strings.Contains(st["message"].(string), "restored") || !strings.HasPrefix(st["undo"].(string), "rewind undo ") {
		t.Fatalf("restore job: %v", st)
	}
	if l.Sim.Count("restore") != 1 || l.Sim.Count("restoreCommit") != 1 {
		t.Errorf("simulator saw %d restores and %d commits, want 1 and 1", l.Sim.Count("restore"), l.Sim.Count("restoreCommit"))
	}
	last, _ := l.Log.Read(audit.Filter{Limit: 2})
	if len(last) != 2 || last[0].Decision != audit.DecisionCheckpoint || last[1].Decision != audit.DecisionUndoRestore ||
		last[1].Tool != "rewind ui" || last[1].Rewinds != r.ID || st["undo"] != "rewind undo "+last[0].ID+" --restore" {
		t.Errorf("audit records of the restore: %+v", last)
	}
}

func jsonString(s string) string {
	r := strings.NewReplacer(`"`, `\"`, "\n", `\n`, "<", `\u003c`, ">", `\u003e`, "&", `\u0026`)
	return r.Replace(s)
}

func TestTestAndStopThroughThePage(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	r := l.Protected(t, "toolu_test", "web-01")
	c := l.browser(t)
	vpg := r.Checkpoints[0].VPGIdentifier

	vms := c.page("/fragment/vms")
	if strings.Contains(vms, "failover test running") || !strings.Contains(vms, "MeetingSLA") {
		t.Fatalf("before the test, the VMs view shows:\n%s", vms)
	}
	resp, out := c.post("/api/action", url.Values{"mode": {"test"}, "id": {r.ID}, "vpg": {vpg}})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test: %s %v", resp.Status, out)
	}
	st := c.waitJob(out["id"].(string))
	if st["ok"] != true || st["state"] != "Completed" || !strings.Contains(st["message"].(string), "web-01 - testing recovery") {
		t.Fatalf("test job: %v", st)
	}
	vms = c.page("/fragment/vms")
	if !strings.Contains(vms, "failover test running") || !strings.Contains(vms, `data-action="stop-test" data-id="`+r.ID+`"`) {
		t.Fatalf("the VMs view shows no running test:\n%s", vms)
	}
	// While the test runs, the page offers no restore, and Zerto's
	// refusal shows before any confirmation.
	prep := readBody(t, c.get("/api/prepare?mode=restore&id="+r.ID+"&vpg="+vpg))
	if !strings.Contains(prep, "failover test") || !strings.Contains(prep, `"problem"`) {
		t.Errorf("prepare restore during a test: %s", prep)
	}

	resp, out = c.post("/api/action", url.Values{"mode": {"stop-test"}, "id": {r.ID}, "vpg": {vpg}})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("stop-test: %s %v", resp.Status, out)
	}
	if st := c.waitJob(out["id"].(string)); st["ok"] != true {
		t.Fatalf("stop job: %v", st)
	}
	if strings.Contains(c.page("/fragment/vms"), "failover test running") {
		t.Error("the VMs view still shows the test")
	}
	recs, _ := l.Log.Read(audit.Filter{Limit: 2})
	if len(recs) != 2 || recs[0].Decision != audit.DecisionUndoTest || recs[1].Decision != audit.DecisionUndoStopTest ||
		recs[0].Tool != "rewind ui" {
		t.Errorf("audit records: %+v", recs)
	}
	// An action Zerto's state does not allow is refused before it starts:
	// no test runs to stop.
	resp, out = c.post("/api/action", url.Values{"mode": {"stop-test"}, "id": {r.ID}, "vpg": {vpg}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(out["error"].(string), "no failover test is running") {
		t.Errorf("second stop: %s %v", resp.Status, out)
	}

	// A test someone else started is stopped only when the person says so.
	if _, err := l.Sim.StartTest("fast", "", "drill-lead"); err != nil {
		t.Fatal(err)
	}
	prep = readBody(t, c.get("/api/prepare?mode=stop-test&id="+r.ID+"&vpg="+vpg))
	if !strings.Contains(prep, `"foreign":true`) || !strings.Contains(prep, "drill-lead started it") {
		t.Errorf("prepare a stop of someone else's test: %s", prep)
	}
	resp, out = c.post("/api/action", url.Values{"mode": {"stop-test"}, "id": {r.ID}, "vpg": {vpg}})
	if resp.StatusCode != http.StatusConflict || !strings.Contains(out["error"].(string), "not started by rewind") {
		t.Errorf("stop of someone else's test: %s %v", resp.Status, out)
	}
	if _, _, running := l.Sim.RunningTest("fast"); !running {
		t.Fatal("someone else's test was stopped")
	}
	resp, out = c.post("/api/action", url.Values{"mode": {"stop-test"}, "id": {r.ID}, "vpg": {vpg}, "foreign": {"1"}})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("confirmed stop: %s %v", resp.Status, out)
	}
	if st := c.waitJob(out["id"].(string)); st["ok"] != true {
		t.Errorf("confirmed stop: %v", st)
	}
}

func TestOneActionPerVPG(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	p := recovery.Point{AuditID: "x", VPG: "fast", VPGIdentifier: "vpg-1"}
	l.srv.jobs.mu.Lock()
	l.srv.jobs.running["vpg-1"] = &job{Mode: recovery.ModeRestore, VPGs: []string{"fast"}}
	l.srv.jobs.mu.Unlock()
	_, err := l.srv.jobs.start(&recovery.Plan{Mode: recovery.ModeTest, Points: []recovery.Point{p}}, recovery.Request{ID: "x", Mode: recovery.ModeTest})
	var busy *BusyError
	if !errors.As(err, &busy) || !strings.Contains(err.Error(), "restore is already running on VPG fast") {
		t.Fatalf("start on a busy VPG: %v, want a BusyError", err)
	}
}

func TestBadActions(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	r := l.Protected(t, "toolu_bad", "web-01")
	denied := l.Call(t, "toolu_denied", "govc vm.destroy db-01")
	c := l.browser(t)
	tests := []struct {
		name   string
		form   url.Values
		status int
		want   string
	}{
		{"unknown mode", url.Values{"mode": {"failover"}, "id": {r.ID}}, http.StatusBadRequest, "unknown action"},
		{"unknown id", url.Values{"mode": {"test"}, "id": {"zzzzzzzzzzzz"}}, http.StatusNotFound, "neither an audit id"},
		{"unprotected call", url.Values{"mode": {"test"}, "id": {denied.ID}}, http.StatusBadRequest, "was not protected"},
		{"other VPG", url.Values{"mode": {"test"}, "id": {r.ID}, "vpg": {"nope"}}, http.StatusNotFound, "holds no rewind point of this call"},
		{"short id", url.Values{"mode": {"test"}, "id": {r.ID[:4]}}, http.StatusBadRequest, "too short"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, out := c.post("/api/action", tt.form)
			msg, _ := out["error"].(string)
			if resp.StatusCode != tt.status || !strings.Contains(msg, tt.want) {
				t.Errorf("%s %q, want %d %q", resp.Status, msg, tt.status, tt.want)
			}
		})
	}
	if n := l.Sim.Count("failoverTest"); n != 0 {
		t.Errorf("%d failover tests started", n)
	}
}

// TestRollbackThroughThePage: a restore that was sent and did not end
// committed may wait in Zerto; the page offers its commit and rollback,
// which need the operator's credentials like the restore.
func TestRollbackThroughThePage(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	r := l.Protected(t, "toolu_rb", "web-01")
	c := l.browser(t)
	cp := r.Checkpoints[0]
	// A restore Zerto has, waiting for its commit, which rewind stopped
	// following.
	l.Sim.SetTaskSteps(0)
	task, err := l.svc.Z.Restore(t.Context(), cp.VMIdentifier, zvm.RestoreOptions{VPGIdentifier: cp.VPGIdentifier,
		CheckpointIdentifier: cp.Identifier, CommitPolicy: zvm.CommitNone})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Log.Append(&audit.Record{Tool: "rewind ui", Decision: audit.DecisionUndoFailed, Rewinds: r.ID, Task: task,
		Excerpt: "rewind ui " + r.ID + " --restore", Checkpoints: r.Checkpoints, Error: "context canceled"}); err != nil {
		t.Fatal(err)
	}
	vms := c.page("/fragment/vms")
	if !strings.Contains(vms, `data-action="rollback" data-id="`+r.ID+`"`) || !strings.Contains(vms, "may wait in Zerto for its commit") {
		t.Fatalf("the VMs view offers no rollback:\n%s", vms)
	}
	resp, out := c.post("/api/action", url.Values{"mode": {"rollback"}, "id": {r.ID}, "vpg": {cp.VPGIdentifier}, "confirm": {"web-01"}})
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("rollback without credentials: %s %v", resp.Status, out)
	}
	resp, out = c.post("/api/action", url.Values{"mode": {"rollback"}, "id": {r.ID}, "vpg": {cp.VPGIdentifier}, "confirm": {"web-01"},
		"zvm_user": {"operator"}, "zvm_password": {"op-secret"}})
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("rollback: %s %v", resp.Status, out)
	}
	if st := c.waitJob(out["id"].(string)); st["ok"] != true || !strings.Contains(st["message"].(string), "rolled back") {
		t.Fatalf("rollback job: %v", st)
	}
	if _, _, ok := l.Sim.VMRecovery("web-01"); ok {
		t.Error("web-01 is still restored after the rollback")
	}
	if strings.Contains(c.page("/fragment/vms"), `data-action="rollback"`) {
		t.Error("the VMs view still offers a rollback")
	}
}
