package mcpserver

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/recovery"
)

// The stop of a failover test rewind did not start is asked of the person
// through MCP elicitation, in the host's own UI: the tool answers with an
// input request (SEP-2322; the SDK turns it into elicitation/create for a
// client on an older protocol) and runs when the call comes back with the
// person's answer. The answer is accepted only with the request state this
// server issued for that very stop, once, so that a call cannot bring an
// answer of its own. Whoever drives the server's pipe can still answer
// the elicitation: that is why nothing that changes a VM's disks is ever
// confirmed this way (see terminalOnly).

// stopAnswer is the input request's key.
const stopAnswer = "confirm_stop"

// askTTL bounds how long an issued question may be answered.
const askTTL = 10 * time.Minute

// maxAsks bounds the questions awaiting an answer.
const maxAsks = 64

// asks are the questions issued, by request state.
var asks struct {
	mu    sync.Mutex
	state map[string]askedStop
}

// askedStop is what a question was about, and until when it may be
// answered.
type askedStop struct {
	key     string
	expires time.Time
}

// stopKey names a stop by what it stops.
func stopKey(rq recovery.Request) string {
	return rq.ID + "\x00" + strings.Join(rq.VPGs, "\x00")
}

// stopConfirmed reports whether req carries the person's confirmation of
// the stop in plan; when it carries none, and the client can ask, ask is
// the input-required result that asks.
func (s *Server) stopConfirmed(req *mcp.CallToolRequest, rq recovery.Request, plan *recovery.Plan) (confirmed bool, ask *mcp.CallToolResult) {
	if state := req.Params.RequestState; state != "" {
		asks.mu.Lock()
		a, ok := asks.state[state]
		delete(asks.state, state)
		asks.mu.Unlock()
		if !ok || a.key != stopKey(rq) || time.Now().After(a.expires) {
			return false, nil
		}
		r, ok := req.Params.InputResponses[stopAnswer].(*mcp.ElicitResult)
		if !ok || r.Action != "accept" {
			return false, nil
		}
		yes, _ := r.Content["stop"].(bool)
		return yes, nil
	}
	if !canElicit(req) {
		return false, nil
	}
	state := newState()
	asks.mu.Lock()
	if asks.state == nil {
		asks.state = map[string]askedStop{}
	}
	now := time.Now()
	for k, a := range asks.state {
		if now.After(a.expires) || len(asks.state) >= maxAsks {
			delete(asks.state, k)
		}
	}
	asks.state[state] = askedStop{key: stopKey(rq), expires: now.Add(askTTL)}
	asks.mu.Unlock()
	return false, &mcp.CallToolResult{
		RequestState: state,
		InputRequests: mcp.InputRequestMap{stopAnswer: &mcp.ElicitParams{
			Mode:    "form",
			Message: plan.Text() + "\nStop this failover test?",
			RequestedSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"stop": map[string]any{"type": "boolean", "title": "Stop the test", "description": "End this failover test, which rewind did not start"},
				},
				"required": []string{"stop"},
			},
		}},
	}
}

// canElicit reports whether the client said it can show a form.
func canElicit(req *mcp.CallToolRequest) bool {
	if req.Session == nil {
		return false
	}
	ip := req.Session.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return false
	}
	e := ip.Capabilities.Elicitation
	// No mode named means form, for clients older than URL elicitation.
	return e.Form != nil || e.URL == nil
}

func newState() string {
	b := make([]byte, 16)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
