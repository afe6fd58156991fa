package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/rewind-dev/rewind/audit"
)

// chromium finds a Chromium to drive: $REWIND_CHROMIUM, else chromium or
// chromium-browser on the PATH.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("REWIND_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium installed (apt-get install chromium, or set REWIND_CHROMIUM): the browser test needs one")
	return ""
}

// TestBrowser drives the page in a headless Chromium as a person would:
// the calls the hook logged are there, a new one appears live, a failover
// test is started from a rewind point, confirmed and followed to its end,
// and stopped; a restore is refused until the VM's name and the person's
// own Zerto credentials are typed, and then runs and says how to undo it.
func TestBrowser(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	l := newLab(t)
	first := l.Protected(t, "toolu_b1", "web-01")
	l.Call(t, "toolu_b2", "git commit -m 'do not run govc vm.destroy web-01'")
	denied := l.Call(t, "toolu_b3", "govc vm.destroy db-01")

	bctx := newBrowser(t, exe)

	point := `li.rp[data-checkpoint="` + first.Checkpoints[0].Identifier + `"]`
	steps(t, bctx, "open the page",
		chromedp.EmulateViewport(1200, 800),
		chromedp.Navigate(l.srv.URL()),
		chromedp.WaitVisible(css(`#rec-`+first.ID)),
		chromedp.WaitVisible(css(`#rec-`+denied.ID)),
		chromedp.WaitVisible(css(`#live[data-state="live"]`)),
		// The VPG's health comes from Zerto once the page is shown.
		chromedp.WaitVisible(css(`.vm .health.ok`)),
	)
	if location := get(t, bctx, chromedp.Location()); strings.Contains(location, "token") {
		t.Errorf("the token stayed in the address bar: %s", location)
	}
	recText := get(t, bctx, chromedp.Text(css(`#rec-`+first.ID)))
	for _, want := range []string{"protected", "govc vm.power -off -vm web-01", first.Checkpoints[0].Tag, first.Checkpoints[0].Identifier} {
		if !strings.Contains(recText, want) {
			t.Errorf("the call's row %q lacks %q", recText, want)
		}
	}

	// A call the hook decides now shows up without a reload.
	second := l.Protected(t, "toolu_b4", "db-01")
	steps(t, bctx, "see a new call live",
		chromedp.WaitVisible(css(`#rec-`+second.ID+`.new`)),
		chromedp.WaitVisible(css(`li.rp[data-checkpoint="`+second.Checkpoints[0].Identifier+`"]`)),
	)

	steps(t, bctx, "test from here",
		click(point+` button[data-action="test"]`),
		chromedp.WaitVisible(css(`#confirm[open]`)),
	)
	if text := get(t, bctx, chromedp.Text(css(`#confirm-text`))); !strings.Contains(text, "failover test") || !strings.Contains(text, first.Checkpoints[0].Tag) {
		t.Errorf("the confirmation says %q", text)
	}
	steps(t, bctx, "confirm the test",
		click(`#confirm-ok`),
		chromedp.WaitVisible(css(`.job[data-mode="test"][data-state="ok"]`)),
		chromedp.WaitVisible(css(`button[data-action="stop-test"]`)),
	)
	if n := l.Sim.CountAccepted("failoverTest"); n != 1 {
		t.Errorf("the simulator saw %d failover tests, want 1", n)
	}
	saveScreenshot(t, get(t, bctx, chromedp.CaptureScreenshot()))

	steps(t, bctx, "stop the test",
		click(`button[data-action="stop-test"]`),
		chromedp.WaitVisible(css(`#confirm[open]`)),
		click(`#confirm-ok`),
		chromedp.WaitVisible(css(`.job[data-mode="stop-test"][data-state="ok"]`)),
		chromedp.WaitNotPresent(css(`button[data-action="stop-test"]`)),
	)
	if n := l.Sim.CountAccepted("failoverTestStop"); n != 1 {
		t.Errorf("the simulator saw %d test stops, want 1", n)
	}

	// A restore states its loss and is refused without the VM's name.
	steps(t, bctx, "restore",
		chromedp.WaitVisible(css(point+` button[data-action="restore"]:not([disabled])`)),
		click(point+` button[data-action="restore"]`),
		chromedp.WaitVisible(css(`#confirm-names`)),
	)
	if text := get(t, bctx, chromedp.Text(css(`#confirm-text`))); !strings.Contains(text, "loses every change made to web-01") {
		t.Errorf("the restore's confirmation says %q", text)
	}
	steps(t, bctx, "confirm with the wrong name",
		chromedp.SendKeys(css(`#confirm-input`), "db-01"),
		click(`#confirm-ok`),
		chromedp.WaitVisible(css(`#confirm-error`)),
	)
	if text := get(t, bctx, chromedp.Text(css(`#confirm-error`))); !strings.Contains(text, "nothing was sent to Zerto") {
		t.Errorf("the refusal says %q", text)
	}
	// With the name but only what the page holds (token, cookie, CSRF),
	// it is refused again: a restore needs the person's own credentials.
	steps(t, bctx, "confirm with the name and no credentials",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("confirm-input").value = ""`),
		chromedp.SendKeys(css(`#confirm-input`), "web-01"),
		chromedp.WaitVisible(css(`#confirm-credentials`)),
		click(`#confirm-ok`),
		// The first refusal is still shown until the second arrives.
		waitText(`#confirm-error`, "your own Zerto user and password"),
	)
	steps(t, bctx, "cancel",
		click(`#confirm-cancel`),
		chromedp.WaitNotVisible(css(`#confirm`)),
	)
	if n := l.Sim.Count("restore"); n != 0 {
		t.Errorf("the simulator saw %d restores, want none", n)
	}

	// The person types their own Zerto user and password: the restore runs,
	// is committed, and says how to undo it.
	steps(t, bctx, "restore as the operator",
		click(point+` button[data-action="restore"]`),
		chromedp.WaitVisible(css(`#confirm-credentials`)),
		chromedp.SendKeys(css(`#confirm-input`), "web-01"),
		chromedp.SendKeys(css(`#confirm-user`), "operator"),
		chromedp.SendKeys(css(`#confirm-password`), "op-secret"),
		click(`#confirm-ok`),
		chromedp.WaitVisible(css(`.job[data-mode="restore"][data-state="ok"] code`)),
	)
	if text := get(t, bctx, chromedp.Text(css(`.job[data-mode="restore"]`))); !strings.Contains(text, "restored to checkpoint") || !strings.Contains(text, "To undo it: rewind undo ") {
		t.Errorf("the restore's outcome says %q", text)
	}
	if n := l.Sim.Count("restoreCommit"); n != 1 {
		t.Errorf("the simulator saw %d commits, want 1", n)
	}
	if pw := get(t, bctx, chromedp.Value(css(`#confirm-password`))); pw != "" {
		t.Errorf("the page kept the password: %q", pw)
	}
}

// browser is the one headless Chromium of the package's browser tests,
// started by the first of them: starting one took a fifth of each test.
// Each test has a browser context of its own (cookies, storage), as a new
// profile would give it. One that died (chromedp cancels its context when
// the connection drops) is started again for the next test, so that a
// crash fails the test it happened in, not every later one. TestMain
// closes it.
var browser struct {
	mu     sync.Mutex
	ctx    context.Context
	cancel context.CancelFunc
	dir    string
	err    error
}

// startBrowser starts the shared Chromium, with a window of 1200×800.
func startBrowser(exe string) {
	browser.dir, browser.err = os.MkdirTemp("", "rewind-ui-chromium-")
	if browser.err != nil {
		return
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(browser.dir),
		// Its shared memory files (disable-dev-shm-usage) go with the
		// profile instead of staying in /tmp when it is stopped.
		chromedp.Env("TMPDIR="+browser.dir),
		chromedp.WindowSize(1200, 800),
	)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	browser.ctx = bctx
	browser.cancel = func() {
		cancelBrowser()
		cancelAlloc()
		os.RemoveAll(browser.dir)
	}
	browser.err = chromedp.Do(bctx)
}

// closeBrowser stops the shared Chromium, if a test started it.
func closeBrowser() {
	if browser.cancel != nil {
		browser.cancel()
	}
}

// newBrowser returns the context that drives a new tab of the shared
// Chromium, in a browser context of the test's own, for at most a minute.
func newBrowser(t *testing.T, exe string) context.Context {
	t.Helper()
	browser.mu.Lock()
	if browser.ctx != nil && browser.ctx.Err() != nil {
		t.Logf("the shared Chromium is gone (%v): starting another", context.Cause(browser.ctx))
		closeBrowser()
		browser.ctx, browser.cancel, browser.err = nil, nil, nil
	}
	if browser.ctx == nil && browser.err == nil {
		startBrowser(exe)
	}
	bctx, err := browser.ctx, browser.err
	browser.mu.Unlock()
	if err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	tab, closeTab := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	t.Cleanup(closeTab)
	ctx, cancel := context.WithTimeout(tab, 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestMain closes the browser the tests shared.
func TestMain(m *testing.M) {
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}

// TestBrowserTimeZone checks that the page shows every time in one zone,
// named: the browser's by default, also the times inside reasons, the
// rows that come in live and the VMs view that Zerto's answers refresh;
// UTC once the person chooses it, which the page keeps across a reload.
func TestBrowserTimeZone(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	l := newLab(t)
	first := l.Protected(t, "toolu_z1", "web-01")
	denied := l.Call(t, "toolu_z2", "govc vm.destroy db-01")
	kolkata, err := time.LoadLocation("Asia/Kolkata")
	if err != nil {
		t.Skip(err)
	}
	bctx := newBrowser(t, exe)
	// A zone that is neither this machine's nor UTC, and has no summer
	// time: the page must write the times in the browser's zone.
	steps(t, bctx, "set the browser's zone",
		chromedp.Func(func(ctx context.Context, tgt *chromedp.Target) error {
			_, err := cdp.Call(ctx, tgt, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Kolkata"})
			return err
		}),
		chromedp.EmulateViewport(1200, 800),
		chromedp.Navigate(l.srv.URL()),
		chromedp.WaitVisible(css(`#rec-`+first.ID)),
		chromedp.WaitVisible(css(`#live[data-state="live"]`)),
		chromedp.WaitVisible(css(`.vm .health.ok`)),
	)
	cp := first.Checkpoints[0].Time
	inZone := func(t0 time.Time, loc *time.Location) string { return t0.In(loc).Format("2006-01-02 15:04:05") }

	local := `(GMT\+5:30|IST)`
	checkZone(t, bctx, local)
	row := get(t, bctx, chromedp.Text(css(`#rec-`+first.ID)))
	if want := inZone(cp, kolkata); !strings.Contains(row, want) {
		t.Errorf("the checkpoint's time is not in the browser's zone (%s): %q", want, row)
	}
	// The reason carries the checkpoint's time too (RFC 3339, UTC): it
	// reads in the page's zone like the others.
	reason := get(t, bctx, chromedp.Text(css(`#rec-`+first.ID+` .reason`)))
	if want := inZone(cp.Truncate(time.Second), kolkata); !regexp.MustCompile(regexp.QuoteMeta(want) + " " + local).MatchString(reason) {
		t.Errorf("the reason's time is not in the page's zone (%s): %q", want, reason)
	}
	if text := get(t, bctx, chromedp.Text(css(`#rec-`+denied.ID))); !strings.Contains(text, inZone(denied.Time, kolkata)) {
		t.Errorf("the denied call's time is not in the browser's zone: %q", text)
	}
	if b := get(t, bctx, chromedp.Text(css(`#zone`))); !regexp.MustCompile(`^times: ` + local + ` \(this computer\)$`).MatchString(b) {
		t.Errorf("the zone button says %q", b)
	}

	// A call that comes in live follows the page's zone, not the
	// server's.
	second := l.Protected(t, "toolu_z3", "db-01")
	steps(t, bctx, "see a new call live",
		chromedp.WaitVisible(css(`#rec-`+second.ID+`.new`)),
		chromedp.WaitVisible(css(`li.rp[data-checkpoint="`+second.Checkpoints[0].Identifier+`"]`)),
	)
	checkZone(t, bctx, local)

	steps(t, bctx, "show UTC",
		click(`#zone`),
		chromedp.WaitVisible(css(`html[data-zone="utc"]`)),
	)
	checkZone(t, bctx, "UTC")
	if row := get(t, bctx, chromedp.Text(css(`#rec-`+first.ID))); !strings.Contains(row, inZone(cp, time.UTC)+" UTC") {
		t.Errorf("the checkpoint's time is not in UTC: %q", row)
	}

	// The choice outlives a reload; choosing again goes back.
	steps(t, bctx, "reload",
		chromedp.Reload(),
		chromedp.WaitVisible(css(`#rec-`+second.ID)),
		chromedp.WaitVisible(css(`html[data-zone="utc"]`)),
	)
	checkZone(t, bctx, "UTC")
	steps(t, bctx, "show the browser's zone again",
		click(`#zone`),
		chromedp.WaitVisible(css(`html[data-zone="local"]`)),
	)
	checkZone(t, bctx, local)
}

// TestBrowserOutcomes: the page says how each call ended, a call that ran
// (exit 0), one that failed (exit 2, with the host's error), one the host
// never ran, one whose outcome is not known yet and one of a host that
// reports none; going back to a point undoes the calls that ran, saying
// how many of them no host reported; an outcome reported while the page
// is open shows at once, on the call's row and in what going back undoes.
func TestBrowserOutcomes(t *testing.T) {
	t.Parallel()
	exe := chromium(t)
	l := newLab(t)
	o := logOutcomes(t, l)
	bctx := newBrowser(t, exe)
	steps(t, bctx, "open the page",
		chromedp.EmulateViewport(1200, 800),
		chromedp.Navigate(l.srv.URL()),
		chromedp.WaitVisible(css(`#rec-`+o.oldHost.ID)),
		chromedp.WaitVisible(css(`#live[data-state="live"]`)),
		chromedp.WaitVisible(css(`.vm .health.ok`)),
	)
	badge := func(id string) string {
		t.Helper()
		return get(t, bctx, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
	const b = document.querySelector("#rec-%s .outcome");
	if (!b) return "no badge";
	return b.offsetParent === null ? "hidden" : b.textContent;
})()`, id)))
	}
	for _, tt := range []struct {
		rec  audit.Record
		want string
	}{
		{o.ran, "ran"}, {o.failed, "exit 2"}, {o.notRun, "not run"}, {o.running, "hidden"}, {o.oldHost, "hidden"},
	} {
		if got := badge(tt.rec.ID); got != tt.want {
			t.Errorf("the outcome of %s (%s) shows %q, want %q", tt.rec.ID, tt.rec.ToolUseID, got, tt.want)
		}
	}
	if text := get(t, bctx, chromedp.Text(css(`#rec-`+o.failed.ID+` .outcome-err`))); text != "the host reported: Exit code 2\nno such device" {
		t.Errorf("the failed call's error reads %q", text)
	}
	for _, id := range []string{o.ran.ID, o.notRun.ID, o.running.ID, o.oldHost.ID} {
		if n := get(t, bctx, chromedp.Evaluate[int](`document.querySelectorAll("#rec-`+id+` .outcome-err").length`)); n != 0 {
			t.Errorf("the row of %s shows an error", id)
		}
	}
	summary := func(cp string) string {
		t.Helper()
		return get(t, bctx, chromedp.Text(css(`li.rp[data-checkpoint="`+cp+`"] .undone summary`)))
	}
	if got, want := summary(o.ran.Checkpoints[0].Identifier), "going back to here undoes 2 calls (1 of them with no outcome reported: it may not have run)"; got != want {
		t.Errorf("the first point on web-01 says %q, want %q", got, want)
	}

	// Live: the call's row first, with no outcome; then its outcome, on
	// the row and in the count of what going back to db-01's first
	// point undoes.
	dbPoint := o.failed.Checkpoints[0].Identifier
	live := l.Protected(t, "toolu_live", "db-01")
	steps(t, bctx, "see the call live",
		chromedp.WaitVisible(css(`#rec-`+live.ID+`.new`)),
		waitText(`li.rp[data-checkpoint="`+dbPoint+`"] .undone summary`, "undoes 3 calls (1 of them with no outcome reported"),
	)
	if got := badge(live.ID); got != "hidden" {
		t.Errorf("the live call's outcome shows %q before its host reported it", got)
	}
	l.ran(t, "toolu_live", "db-01", "Exit code 2\nthe VM is locked")
	steps(t, bctx, "see its outcome live",
		waitText(`#rec-`+live.ID+` .outcome`, "exit 2"),
		waitText(`#rec-`+live.ID+` .outcome-err`, "the VM is locked"),
		waitText(`li.rp[data-checkpoint="`+dbPoint+`"] .undone li[data-id="`+live.ID+`"]`, "exit 2"),
	)
	if got, want := summary(dbPoint), "going back to here undoes 3 calls"; got != want {
		t.Errorf("db-01's first point says %q, want %q", got, want)
	}
	if got := badge(live.ID); got != "exit 2" {
		t.Errorf("the live call's outcome shows %q", got)
	}
}

// checkZone wants every time on the page to read as a time in the zone
// named by the pattern zone, and no time left as the server wrote it.
func checkZone(t *testing.T, ctx context.Context, zone string) {
	t.Helper()
	times := get(t, ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("time")].map(e => e.textContent)`))
	if len(times) < 3 {
		t.Fatalf("only %d times on the page: %q", len(times), times)
	}
	re := regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ` + zone + `$`)
	for _, s := range times {
		if !re.MatchString(s) {
			t.Errorf("a time reads %q, want one in %s", s, zone)
		}
	}
	text := get(t, ctx, chromedp.Text(css(`main`)))
	if m := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d`).FindString(text); m != "" {
		t.Errorf("a time is left as written (%s) in the page's text", m)
	}
}

// click clicks the first element sel matches once it is shown and
// enabled, finding it and clicking it in one step in the page. The page
// re-renders its VM cards as Zerto's answers come in, so a node that
// chromedp found first and clicked after may be gone by then ("Could not
// find node with given id").
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`new Promise((resolve, reject) => {
	const until = Date.now() + 20000;
	(function attempt() {
		const e = document.querySelector(%q);
		if (e && e.offsetParent !== null && !e.disabled) { e.click(); resolve(); return; }
		if (Date.now() > until) { reject(new Error("nothing to click: " + %q)); return; }
		setTimeout(attempt, 25);
	})();
})`, sel, sel), chromedp.EvalAwaitPromise)
}

// waitText waits until the first element sel matches holds text.
func waitText(sel, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`new Promise((resolve, reject) => {
	const until = Date.now() + 20000;
	(function attempt() {
		const e = document.querySelector(%q);
		if (e && e.textContent.includes(%q)) { resolve(); return; }
		if (Date.now() > until) { reject(new Error(%q + " never said: " + %q + " (it says " + (e ? e.textContent : "nothing") + ")")); return; }
		setTimeout(attempt, 25);
	})();
})`, sel, text, sel, text), chromedp.EvalAwaitPromise)
}

// css marks a selector as CSS: chromedp reads a plain string as a search.
func css(sel string) chromedp.CSS { return chromedp.CSS(sel) }

func steps(t *testing.T, ctx context.Context, step string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", step, err)
	}
}

func get[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// saveScreenshot keeps the page's picture in the test's artifact folder,
// and at $REWIND_UI_SCREENSHOT when set (the documentation's comes from
// there).
func saveScreenshot(t *testing.T, png []byte) {
	t.Helper()
	paths := []string{filepath.Join(t.ArtifactDir(), "ui.png")}
	if p := os.Getenv("REWIND_UI_SCREENSHOT"); p != "" {
		paths = append(paths, p)
	}
	for _, p := range paths {
		if err := os.WriteFile(p, png, 0o644); err != nil {
			t.Errorf("saving the screenshot: %v", err)
			continue
		}
		t.Logf("screenshot: %s", p)
	}
}

// TestBrowserRestartsAfterACrash: a shared Chromium that dies is started
// again for the next test, which would otherwise fail with the first. It
// runs before the parallel tests resume, so that none of them loses the
// browser it is using.
func TestBrowserRestartsAfterACrash(t *testing.T) {
	exe := chromium(t)
	t.Run("dies", func(t *testing.T) {
		bctx := newBrowser(t, exe)
		steps(t, bctx, "open a page", chromedp.Navigate("about:blank"))
		if err := chromedp.FromContext(bctx).Browser.Process().Kill(); err != nil {
			t.Fatalf("killing Chromium: %v", err)
		}
		<-bctx.Done() // the tab's context ends with the browser's
	})
	t.Run("next", func(t *testing.T) {
		bctx := newBrowser(t, exe)
		steps(t, bctx, "open a page after the crash", chromedp.Navigate("data:text/html,<title>up</title>"))
		if title := get(t, bctx, chromedp.Title()); title != "up" {
			t.Fatalf("after the crash the page's title is %q, want up", title)
		}
	})
}
