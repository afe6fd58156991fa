package ui

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTestAsPersonThroughThePage: where Zerto refuses rewind's own client
// a failover test and its stop (least privilege), the page's dialog asks
// for the person's own Zerto credentials for them, as for a restore, and
// with only what `rewind ui` printed nothing is started. Where the client
// may test, the dialog asks for none (TestTestAndStopThroughThePage).
func TestTestAsPersonThroughThePage(t *testing.T) {
	l := newLabOf(t, "testdata/leastpriv.toml")
	r := l.Protected(t, "toolu_test", "web-01")
	c := l.browser(t)
	vpg := r.Checkpoints[0].VPGIdentifier

	for _, mode := range []string{"test", "stop-test"} {
		body := readBody(t, c.get("/api/prepare?mode="+mode+"&id="+r.ID+"&vpg="+vpg))
		if mode == "test" && (!strings.Contains(body, `"credentials":true`) || !strings.Contains(body, `"type_names":false`) ||
			!strings.Contains(body, "Zerto does not let rewind's own client start a failover test")) {
			t.Errorf("prepare %s: %s", mode, body)
		}
		if mode == "stop-test" && !strings.Contains(body, `"problem"`) {
			t.Errorf("prepare a stop with no test running: %s", body)
		}
	}
	form := func(user, password string) url.Values {
		return url.Values{"mode": {"test"}, "id": {r.ID}, "vpg": {vpg}, "zvm_user": {user}, "zvm_password": {password}}
	}
	for _, f := range []url.Values{
		{"mode": {"test"}, "id": {r.ID}, "vpg": {vpg}}, // what rewind ui printed, and no more
		form("operator", ""),
		form("service-account-rewind", "x"),
		form("operator", "rewind-secret"),
		form("operator", "guess"),
	} {
		resp, out := c.post("/api/action", f)
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			t.Errorf("%v: %s %v, want a refusal", f, resp.Status, out)
		}
	}
	if n := l.Sim.CountAccepted("failoverTest"); n != 0 {
		t.Fatalf("%d failover tests started without the person's credentials", n)
	}

	resp, out := c.post("/api/action", form("operator", "op-secret"))
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("test as the operator: %s %v", resp.Status, out)
	}
	if st := c.waitJob(out["id"].(string)); st["ok"] != true || !strings.Contains(st["message"].(string), ", as Zerto user operator: task Completed") {
		t.Fatalf("test job: %v", st)
	}
	body := readBody(t, c.get("/api/prepare?mode=stop-test&id="+r.ID+"&vpg="+vpg))
	if !strings.Contains(body, `"credentials":true`) || strings.Contains(body, `"foreign":true`) {
		t.Errorf("prepare the stop of rewind's test: %s", body)
	}
	stop := form("operator", "op-secret")
	stop.Set("mode", "stop-test")
	resp, out = c.post("/api/action", stop)
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("stop as the operator: %s %v", resp.Status, out)
	}
	if st := c.waitJob(out["id"].(string)); st["ok"] != true {
		t.Fatalf("stop job: %v", st)
	}
	if _, _, running := l.Sim.RunningTest("fast"); running {
		t.Error("the test still runs")
	}
}

// TestBrowserTestAsPerson drives the least-privilege page in Chromium: a
// failover test's dialog asks for the person's own Zerto user and
// password, refuses the hook's and none, runs the test and its stop with
// the person's, and forgets the password.
func TestBrowserTestAsPerson(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	l := newLabOf(t, "testdata/leastpriv.toml")
	first := l.Protected(t, "toolu_p1", "web-01")
	bctx := newBrowser(t, exe)
	point := `li.rp[data-checkpoint="` + first.Checkpoints[0].Identifier + `"]`
	steps(t, bctx, "open the page",
		chromedp.EmulateViewport(1200, 800),
		chromedp.Navigate(l.srv.URL()),
		chromedp.WaitVisible(css(`#rec-`+first.ID)),
		chromedp.WaitVisible(css(`.vm .health.ok`)),
	)

	steps(t, bctx, "test from here",
		click(point+` button[data-action="test"]`),
		chromedp.WaitVisible(css(`#confirm[open]`)),
		chromedp.WaitVisible(css(`#confirm-credentials`)),
	)
	if text := get(t, bctx, chromedp.Text(css(`#confirm-text`))); !strings.Contains(text, "Zerto does not let rewind's own client start a failover test") ||
		!strings.Contains(text, "is not authorized") {
		t.Errorf("the dialog says %q", text)
	}
	if names := get(t, bctx, chromedp.Evaluate[bool](`document.getElementById("confirm-names").hidden`)); !names {
		t.Error("a test's dialog asks for the VM names")
	}
	steps(t, bctx, "confirm without credentials",
		click(`#confirm-ok`),
		waitText(`#confirm-error`, "your own Zerto user and password"),
	)
	steps(t, bctx, "confirm with the hook's secret",
		chromedp.SendKeys(css(`#confirm-user`), "operator"),
		chromedp.SendKeys(css(`#confirm-password`), "rewind-secret"),
		click(`#confirm-ok`),
		waitText(`#confirm-error`, "rewind's own Zerto credentials"),
	)
	if n := l.Sim.CountAccepted("failoverTest"); n != 0 {
		t.Fatalf("%d tests started without the person", n)
	}
	steps(t, bctx, "confirm as the operator",
		chromedp.SendKeys(css(`#confirm-password`), "op-secret"),
		click(`#confirm-ok`),
		chromedp.WaitVisible(css(`.job[data-mode="test"][data-state="ok"]`)),
		chromedp.WaitVisible(css(`button[data-action="stop-test"]`)),
	)
	if text := get(t, bctx, chromedp.Text(css(`.job[data-mode="test"]`))); !strings.Contains(text, "as Zerto user operator") {
		t.Errorf("the test's outcome says %q", text)
	}
	if pw := get(t, bctx, chromedp.Value(css(`#confirm-password`))); pw != "" {
		t.Errorf("the page kept the password: %q", pw)
	}

	steps(t, bctx, "stop the test as the operator",
		click(`button[data-action="stop-test"]`),
		chromedp.WaitVisible(css(`#confirm[open]`)),
		chromedp.WaitVisible(css(`#confirm-credentials`)),
		chromedp.SendKeys(css(`#confirm-user`), "operator"),
		chromedp.SendKeys(css(`#confirm-password`), "op-secret"),
		click(`#confirm-ok`),
		chromedp.WaitVisible(css(`.job[data-mode="stop-test"][data-state="ok"]`)),
		chromedp.WaitNotPresent(css(`button[data-action="stop-test"]`)),
	)
	if a, b := l.Sim.CountAccepted("failoverTest"), l.Sim.CountAccepted("failoverTestStop"); a != 1 || b != 1 {
		t.Errorf("the simulator accepted %d tests and %d stops, want 1 and 1", a, b)
	}
}
