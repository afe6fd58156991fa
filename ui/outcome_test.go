package ui

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
)

// postEvent is Claude Code's post-tool event for the Bash call id of
// command in session s1: PostToolUse when it succeeded, else PostToolUseFailure with
// failure as its error.
func postEvent(id, command, failure string) []byte {
	ev := map[string]any{
		"hook_event_name": "PostToolUse", "session_id": "s1", "tool_use_id": id, "cwd": "/",
		"tool_name": "Bash", "tool_input": map[string]string{"command": command},
		"tool_response": map[string]any{"stdout": "", "stderr": "", "interrupted": false}, "duration_ms": 812,
	}
	if failure != "" {
		delete(ev, "tool_response")
		ev["hook_event_name"], ev["error"], ev["is_interrupt"] = "PostToolUseFailure", failure, false
	}
	b, err := json.Marshal(ev)
	if err != nil {
		panic(err) // the tests' events always encode
	}
	return b
}

// ran reports, through the hook's post-tool hook, how the call id on vm
// (made by lab.Protected) ended.
func (l *lab) ran(t *testing.T, id, vm, failure string) {
	t.Helper()
	if out, errs, code := l.Hook(postEvent(id, "govc vm.power -off -vm "+vm, failure)); out != "" || code != 0 {
		t.Fatalf("the post-tool hook answered %q (exit %d, stderr %s)", out, code, errs)
	}
}

// outcomes are calls of every outcome, logged by the real hook and its
// post-tool hook.
type outcomes struct {
	ran, failed, notRun, running, oldHost audit.Record
}

// logOutcomes makes, in session s1: a call that ran (exit 0); one that
// failed (exit 2); one another hook refused, so the host never ran it
// and reported nothing, which the log shows once the session went on
// past it; one that ran and another still running, with no outcome yet;
// and, in a session whose host has no post-tool hook (an older host), a
// call with no outcome.
func logOutcomes(t *testing.T, l *lab) outcomes {
	t.Helper()
	var o outcomes
	o.ran = l.Protected(t, "toolu_o1", "web-01")
	l.ran(t, "toolu_o1", "web-01", "")
	o.failed = l.Protected(t, "toolu_o2", "db-01")
	l.ran(t, "toolu_o2", "db-01", "Exit code 2\nno such device")
	o.notRun = l.Protected(t, "toolu_o3", "web-01")
	l.Protected(t, "toolu_o4", "db-01")
	l.ran(t, "toolu_o4", "db-01", "")
	o.running = l.Protected(t, "toolu_o5", "web-01")
	ev := strings.Replace(string(testlab.BashEvent("toolu_old", "govc vm.power -off -vm app-01")), `"session_id":"s1"`, `"session_id":"s-old"`, 1)
	l.Hook([]byte(ev))
	recs := l.Records(t)
	o.oldHost = recs[len(recs)-1]
	if o.oldHost.Session != "s-old" || o.oldHost.Decision != audit.DecisionProtected {
		t.Fatalf("the older host's call: %+v", o.oldHost)
	}
	return o
}

// rowOf returns the timeline row of record id in page.
func rowOf(t *testing.T, page, id string) string {
	t.Helper()
	for _, row := range strings.Split(page, `<li class="rec `)[1:] {
		if strings.Contains(row, `id="rec-`+id+`"`) {
			return row
		}
	}
	t.Fatalf("no row of %s in the page", id)
	return ""
}

// TestTimelineOutcomes: each call's row says how it ended: ran, its exit
// status and the host's error, not run; a call of unknown outcome has no
// badge, hidden until its host reports one.
func TestTimelineOutcomes(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	o := logOutcomes(t, l)
	page := l.browser(t).page("/")
	for _, tt := range []struct {
		rec   audit.Record
		badge string
		want  []string
	}{
		{o.ran, `<span class="outcome" data-state="ran" title="reported by the host: ran after 812ms">ran</span>`, nil},
		{o.failed, `<span class="outcome" data-state="failed" title="reported by the host: exit 2 after 812ms">exit 2</span>`,
			[]string{`<p class="outcome-err">the host reported: Exit code 2` + "\n" + `no such device</p>`}},
		{o.notRun, `<span class="outcome" data-state="not-run" title="the host reported nothing of it, and its session went on past it: a person declined it, or another hook refused it">not run</span>`, nil},
		{o.running, `<span class="outcome" data-state="" title="" hidden></span>`, nil},
		{o.oldHost, `<span class="outcome" data-state="" title="" hidden></span>`, nil},
	} {
		row := rowOf(t, page, tt.rec.ID)
		for _, want := range append(tt.want, tt.badge, `data-tool-use="`+tt.rec.ToolUseID+`"`) {
			if !strings.Contains(row, want) {
				t.Errorf("the row of %s (%s) lacks %q:\n%s", tt.rec.ID, tt.rec.ToolUseID, want, row)
			}
		}
		if tt.want == nil && strings.Contains(row, "outcome-err") {
			t.Errorf("the row of %s shows an error:\n%s", tt.rec.ID, row)
		}
	}
}

// TestUndoneCountsCallsThatRan: going back to the first point on web-01
// undoes its own call and the one still running, whose outcome is not
// known yet (and says so), not the call the host never ran.
func TestUndoneCountsCallsThatRan(t *testing.T) {
	t.Parallel()
	l := newLab(t, noZerto)
	o := logOutcomes(t, l)
	vms := l.browser(t).page("/fragment/vms")
	i := strings.Index(vms, `data-checkpoint="`+o.ran.Checkpoints[0].Identifier+`"`)
	if i < 0 {
		t.Fatalf("no rewind point of %s:\n%s", o.ran.ID, vms)
	}
	point := vms[i:]
	point = point[:strings.Index(point, "</li>\n")]
	for _, want := range []string{
		"going back to here undoes 2 calls (1 of them with no outcome reported: it may not have run)</summary>",
		`<li data-id="` + o.ran.ID + `" data-host="claude" data-session="s1" data-tool-use="toolu_o1">`,
		`<span class="outcome" data-state="ran" title="reported by the host: ran after 812ms">ran</span>`,
		`<li data-id="` + o.running.ID + `"`,
	} {
		if !strings.Contains(point, want) {
			t.Errorf("the point lacks %q:\n%s", want, point)
		}
	}
	if strings.Contains(point, o.notRun.ID) {
		t.Errorf("the point counts the call the host never ran:\n%s", point)
	}
}

// TestLiveOutcome: an outcome the host reports after the page connected
// comes as an "outcome" event naming the call, whatever the page's filter.
func TestLiveOutcome(t *testing.T) {
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
	feed := &sse{t: t, br: bufio.NewReader(resp.Body)}
	if ev := feed.next(); ev.name != "ready" {
		t.Fatalf("first event %+v, want ready", ev)
	}
	l.Protected(t, "toolu_live", "web-01")
	l.ran(t, "toolu_live", "web-01", "Exit code 3\nboom at 2026-12-01T05:15:32Z")
	for {
		ev := feed.next()
		if ev.name == "vms" {
			continue // the protected call's checkpoint, filtered out
		}
		if ev.name != "outcome" {
			t.Fatalf("event %+v, want the outcome", ev)
		}
		var got outcomeEvent
		if err := json.Unmarshal([]byte(ev.data), &got); err != nil {
			t.Fatalf("outcome %q: %v", ev.data, err)
		}
		want := outcomeEvent{"claude", "s1", "toolu_live", outcomeView{Text: "exit 3", State: audit.OutcomeFailed,
			Title: "reported by the host: exit 3 after 812ms", Error: "Exit code 3\nboom at 2026-12-01T05:15:32Z"}}
		if got != want {
			t.Errorf("outcome %+v, want %+v", got, want)
		}
		return
	}
}
