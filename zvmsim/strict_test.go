package zvmsim

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// strictLab is a small lab for the strict behaviours: VM "shared" is in two
// VPGs of one site, "dup" names two VMs on two sites, and VPG "tickfail"
// fails its inserts at the tick.
const strictLab = `
[[site]]
name = "HQ"
[[site]]
name = "AWS"
type = "AWS"
[[vpg]]
name = "a"
protected_site = "HQ"
recovery_site = "AWS"
status = "MeetingSLA"
cadence = "50ms"
vms = ["shared", "dup"]
[[vpg]]
name = "b"
protected_site = "HQ"
recovery_site = "AWS"
status = "MeetingSLA"
cadence = "50ms"
vms = ["shared"]
[[vpg]]
name = "c"
protected_site = "AWS"
recovery_site = "HQ"
status = "MeetingSLA"
cadence = "1h"
vms = ["dup"]
[[vpg]]
name = "tickfail"
protected_site = "HQ"
recovery_site = "AWS"
status = "MeetingSLA"
cadence = "50ms"
vms = ["tf"]
insert_tick_failure = "The journal is full."
[credentials]
client = [{ id = "rewind", secret = "rewind-secret" }]
`

func strictServer(t *testing.T, strict Strict) (*TestServer, *client) {
	t.Helper()
	sc, err := ParseScenario("strict", []byte(strictLab))
	if err != nil {
		t.Fatal(err)
	}
	sc.Strict = strict
	ts := NewTestServer(t, sc)
	return ts, newClient(t, ts)
}

func TestClockOffset(t *testing.T) {
	t.Parallel()
	for _, off := range []time.Duration{-2 * time.Minute, time.Hour} {
		t.Run(off.String(), func(t *testing.T) {
			ts, c := strictServer(t, Strict{ClockOffset: SignedDuration(off)})
			want := time.Now().Add(off)
			var s string
			c.get("/v1/serverDateTime/serverDateTimeUtc", &s)
			got, err := time.Parse(time.RFC3339, s)
			if err != nil || got.Sub(want).Abs() > time.Second {
				t.Errorf("serverDateTimeUtc %q, want ~%v", s, want.UTC())
			}
			var cps []wireCheckpoint
			c.get("/v1/vpgs/"+ts.VPGIdentifier("c")+"/checkpoints", &cps)
			last, _ := time.Parse(time.RFC3339, cps[len(cps)-1].TimeStamp)
			// The 1h journal's newest checkpoint is about a cadence back.
			if d := want.Sub(last); d < 0 || d > time.Hour+time.Minute {
				t.Errorf("newest checkpoint %v is %v before the ZVM's now", last, d)
			}
			req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1/vpgs", nil)
			req.Header.Set("Authorization", "Bearer "+c.token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if d, err := http.ParseTime(resp.Header.Get("Date")); err != nil || d.Sub(want).Abs() > 2*time.Second {
				t.Errorf("Date %q, want the ZVM's clock", resp.Header.Get("Date"))
			}
		})
	}
}

func TestStrictAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		strict Strict
		method string
		path   string // {a}, {shared} and {task} are replaced
		body   string
		ctype  string
		want   int
		msg    string
	}{
		{"VM in two VPGs needs the VPG", Strict{}, "GET", "/v1/vms/{shared}", "", "", 400, "more than one VPG"},
		{"VM in two VPGs with the VPG", Strict{}, "GET", "/v1/vms/{shared}?vpgIdentifier={a}", "", "", 200, ""},
		{"unknown VPG is 404", Strict{}, "GET", "/v1/vpgs/5f6e7d8c-0000-4000-8000-00000000000a", "", "", 404, "was not found"},
		{"unknown VPG is 400 when strict", Strict{UnknownIdentifier400: true}, "GET", "/v1/vpgs/5f6e7d8c-0000-4000-8000-00000000000a", "", "", 400, "was not found"},
		{"unknown task is 400 when strict", Strict{UnknownIdentifier400: true}, "GET", "/v1/tasks/nosuch", "", "", 400, "was not found"},
		{"JSON body as text is fine", Strict{}, "POST", "/v1/vpgs/{a}/checkpoints", `{"checkpointName":"x"}`, "text/plain", 200, ""},
		{"JSON body as text is 415 when strict", Strict{RequireJSONContentType: true}, "POST", "/v1/vpgs/{a}/checkpoints", `{"checkpointName":"x"}`, "text/plain", 415, "media type 'text/plain'"},
		{"JSON body as JSON when strict", Strict{RequireJSONContentType: true}, "POST", "/v1/vpgs/{a}/checkpoints", `{"checkpointName":"x"}`, "application/json; charset=utf-8", 200, ""},
		{"completed task", Strict{}, "GET", "/v1/tasks/{task}", "", "", 200, ""},
		{"completed task is 401 when strict", Strict{CompletedTask401: true}, "GET", "/v1/tasks/{task}", "", "", 401, "Authorization has been denied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts, c := strictServer(t, Strict{TagsAtOnce: true})
			task := c.post("/v1/vpgs/"+ts.VPGIdentifier("a")+"/checkpoints", map[string]string{"checkpointName": "t"})
			ts.SetStrict(tt.strict)
			path := strings.NewReplacer("{a}", ts.VPGIdentifier("a"), "{shared}", ts.VMIdentifier("shared"), "{task}", task).Replace(tt.path)
			req, _ := http.NewRequest(tt.method, ts.URL+path, strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer "+c.token)
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e struct{ Message string }
			json.NewDecoder(resp.Body).Decode(&e)
			if resp.StatusCode != tt.want || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("HTTP %d %q, want %d %q", resp.StatusCode, e.Message, tt.want, tt.msg)
			}
		})
	}
}

func TestSeveralVPGsAndAmbiguousNames(t *testing.T) {
	t.Parallel()
	ts, c := strictServer(t, Strict{})
	var rows []wireVM
	c.get("/v1/vms?vmIdentifier="+url.QueryEscape(ts.VMIdentifier("shared")), &rows)
	if len(rows) != 2 || rows[0].VmIdentifier != rows[1].VmIdentifier || rows[0].VpgName == rows[1].VpgName {
		t.Errorf("shared: %+v, want one VM in two VPGs", rows)
	}
	c.get("/v1/vms?vmName=dup", &rows)
	if len(rows) != 2 || rows[0].VmIdentifier == rows[1].VmIdentifier {
		t.Errorf("dup: %+v, want two VMs of that name", rows)
	}
}

func TestTagsAtOnceAndTickFailures(t *testing.T) {
	t.Parallel()
	ts, c := strictServer(t, Strict{TagsAtOnce: true})
	// On a 1h journal the tag is written when accepted.
	task := c.post("/v1/vpgs/"+ts.VPGIdentifier("c")+"/checkpoints", map[string]string{"checkpointName": "now"})
	var tk wireTask
	c.get("/v1/tasks/"+task, &tk)
	if tk.Status.State != int(TaskCompleted) {
		t.Errorf("task state %d, want completed at once", tk.Status.State)
	}
	cps, _ := ts.Checkpoints("c")
	if cps[len(cps)-1].Tag != "now" {
		t.Errorf("newest checkpoint %+v, want the tag", cps[len(cps)-1])
	}
	// A tick failure is not at the POST: the task runs until the tick.
	task = c.post("/v1/vpgs/"+ts.VPGIdentifier("tickfail")+"/checkpoints", map[string]string{"checkpointName": "later"})
	tk = c.waitTask(task)
	if tk.Status.State != int(TaskFailed) || tk.CompleteReason == nil || *tk.CompleteReason != "The journal is full." {
		t.Errorf("task %+v, want failed at the tick with the reason", tk)
	}
	cps, _ = ts.Checkpoints("tickfail")
	for _, cp := range cps {
		if cp.Tag == "later" {
			t.Error("a failed insert wrote its tag")
		}
	}
}

func TestClientCredentialsWithoutRefreshToken(t *testing.T) {
	t.Parallel()
	for _, strict := range []bool{false, true} {
		ts, c := strictServer(t, Strict{NoClientCredentialsRefresh: strict})
		_ = ts
		_, body := c.form(url.Values{"grant_type": {"client_credentials"}, "client_id": {"rewind"}, "client_secret": {"rewind-secret"}})
		var tok map[string]any
		json.Unmarshal(body, &tok)
		if _, has := tok["refresh_token"]; has == strict {
			t.Errorf("strict %v: answer %s", strict, body)
		}
	}
}

func TestHabits(t *testing.T) {
	t.Parallel()
	if h := (Strict{}).Habits(); len(h) != 0 {
		t.Errorf("friendly simulator: habits %q", h)
	}
	h := Strict{ClockOffset: SignedDuration(-2 * time.Minute), TagsAtOnce: true}.Habits()
	if strings.Join(h, "; ") != "clock -2m0s off the host's; tags written at once" {
		t.Errorf("habits %q", h)
	}
}
