package zvmsim

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestFaults(t *testing.T) {
	t.Run("latency", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			ts, c := memServer(t, nil)
			ts.SetFaults(Faults{Latency: Duration(100 * time.Millisecond)})
			start := time.Now()
			c.do(http.MethodGet, "/v1/vpgs", nil)
			if d := time.Since(start); d != 100*time.Millisecond {
				t.Fatalf("answered in %s with 100ms latency, on the bubble's clock", d)
			}
		})
	})
	t.Run("hang", func(t *testing.T) {
		ts := NewTestServer(t, nil)
		c := newClient(t, ts)
		ts.SetFaults(Faults{Hang: true})
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/v1/vpgs", nil)
		req.Header.Set("Authorization", "Bearer "+c.token)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("hanging server answered HTTP %d", resp.StatusCode)
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want a deadline", err)
		}
	})
	t.Run("server errors", func(t *testing.T) {
		ts := NewTestServer(t, nil)
		c := newClient(t, ts)
		ts.SetFaults(Faults{ServerErrorRate: 0.5})
		fails := 0
		for range 10 {
			st, b := c.do(http.MethodGet, "/v1/vpgs", nil)
			if st == 500 {
				fails++
				if string(b) != `{"Message":"An error has occurred."}` {
					t.Errorf("500 body %s", b)
				}
			}
		}
		if fails != 5 {
			t.Fatalf("%d of 10 requests failed at rate 0.5, want 5", fails)
		}
	})
	t.Run("malformed json", func(t *testing.T) {
		ts := NewTestServer(t, nil)
		c := newClient(t, ts)
		ts.SetFaults(Faults{MalformedJSON: true})
		st, b := c.do(http.MethodGet, "/v1/vpgs", nil)
		var v any
		if st != 200 || json.Unmarshal(b, &v) == nil {
			t.Fatalf("HTTP %d, body parses: %s", st, b)
		}
	})
	t.Run("401 after n", func(t *testing.T) {
		ts := NewTestServer(t, nil)
		c := newClient(t, ts)
		ts.SetFaults(Faults{Unauthorized401AfterN: 2})
		var got []int
		for range 3 {
			st, _ := c.do(http.MethodGet, "/v1/localsite", nil)
			got = append(got, st)
		}
		if got[0] != 200 || got[1] != 200 || got[2] != 401 {
			t.Fatalf("statuses %v, want 200 200 401", got)
		}
		c.token = c.login()
		if st, _ := c.do(http.MethodGet, "/v1/localsite", nil); st != 200 {
			t.Fatalf("after a new token: HTTP %d", st)
		}
		if ts.CountTokens() != 2 {
			t.Errorf("CountTokens = %d, want 2", ts.CountTokens())
		}
	})
	t.Run("expired tokens", func(t *testing.T) {
		inBubble(t, func(t *testing.T) {
			ts, c := memServer(t, nil)
			ts.ExpireTokens()
			if st, _ := c.do(http.MethodGet, "/v1/vpgs", nil); st != 401 {
				t.Fatalf("expired token: HTTP %d", st)
			}
			ts.SetTokenTTL(time.Millisecond)
			c.token = c.login()
			time.Sleep(5 * time.Millisecond) // on the bubble's clock, past the TTL
			if st, _ := c.do(http.MethodGet, "/v1/vpgs", nil); st != 401 {
				t.Fatalf("token past its TTL: HTTP %d", st)
			}
		})
	})
	t.Run("from scenario", func(t *testing.T) {
		sc, err := ParseScenario("faulty", []byte(`
[[site]]
name = "A"
[[vpg]]
name = "v"
recovery_site = "A"
status = "MeetingSLA"
cadence = "1s"
vms = ["a"]
[credentials]
client = [{ id = "rewind", secret = "rewind-secret" }]
[faults]
server_error_rate = 1.0
`))
		if err != nil {
			t.Fatal(err)
		}
		ts := NewTestServer(t, sc)
		c := &client{t: t, base: ts.URL, http: http.DefaultClient}
		if st, _ := c.do(http.MethodGet, "/v1/vpgs", nil); st != 500 {
			t.Fatalf("HTTP %d, want 500", st)
		}
	})
}

func TestRequestLog(t *testing.T) {
	t.Parallel()
	ts := NewTestServer(t, nil)
	c := newClient(t, ts)
	c.do(http.MethodGet, "/v1/vms?vmName=web-01", nil)
	c.do(http.MethodGet, "/nowhere", nil)
	reqs := ts.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests logged, want 3: %+v", len(reqs), reqs)
	}
	want := []Request{
		{Method: "POST", Path: "/auth/realms/zerto/protocol/openid-connect/token", Kind: "token", Status: 200},
		{Method: "GET", Path: "/v1/vms", Query: "vmName=web-01", Kind: "vms", Status: 200},
		{Method: "GET", Path: "/nowhere", Kind: "", Status: 404},
	}
	for i, w := range want {
		g := reqs[i]
		if g.Method != w.Method || g.Path != w.Path || g.Query != w.Query || g.Kind != w.Kind || g.Status != w.Status || g.Time.IsZero() {
			t.Errorf("request %d = %+v, want %+v", i, g, w)
		}
	}
	if ts.Count("token") != 1 || ts.Count("vms") != 1 || ts.Count("") != 1 {
		t.Errorf("counts token %d vms %d unknown %d", ts.Count("token"), ts.Count("vms"), ts.Count(""))
	}
}
