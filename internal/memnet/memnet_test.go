package memnet_test

import (
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rewind-dev/rewind/internal/memnet"
)

// TestServeInABubble: a handler that takes an hour answers at once in a
// bubble, on the bubble's clock, and the client's own timeout holds.
func TestServeInABubble(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := memnet.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(time.Hour):
				io.WriteString(w, "late "+r.URL.Path)
			case <-r.Context().Done():
			}
		}))
		start := time.Now()
		resp, err := c.Get(memnet.URL + "/x")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(body) != "late /x" || time.Since(start) != time.Hour {
			t.Errorf("body %q after %v, want %q after an hour", body, time.Since(start), "late /x")
		}
		c.Timeout = time.Minute
		start = time.Now()
		if _, err := c.Get(memnet.URL + "/y"); err == nil || time.Since(start) != time.Minute {
			t.Errorf("err %v after %v, want the client's timeout after a minute", err, time.Since(start))
		}
	})
}
