package cli

import (
	"errors"
	"github.com/rewind-dev/rewind/recovery"
	"io"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/confirm"
)

// TestConfirmUnderAgentHost: under an agent host, trust and uninstall
// refuse before they ask any terminal, saying which host and where a
// person confirms instead.
func TestConfirmUnderAgentHost(t *testing.T) {
	saved := agentHost
	t.Cleanup(func() { agentHost = saved })
	agentHost = func() (confirm.Host, bool) {
		return confirm.Host{Name: "Claude Code", PID: 4242, Seen: "/home/u/.local/share/claude/versions/2.1.32"}, true
	}
	for _, what := range []string{"trust", "uninstall"} {
		err := personConfirms(what, "text", what)
		var he *hintError
		if !errors.As(err, &he) || !strings.Contains(err.Error(), what+" runs under Claude Code (process 4242") ||
			!strings.Contains(err.Error(), "nothing was changed") || !strings.Contains(he.hint, "outside the agent host") {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// TestStopUnderAgentHost: under an agent host, stopping a test rewind did
// not start, which the word stop alone confirms, is refused before any
// terminal is asked.
func TestStopUnderAgentHost(t *testing.T) {
	saved := agentHost
	t.Cleanup(func() { agentHost = saved })
	agentHost = func() (confirm.Host, bool) {
		return confirm.Host{Name: "Claude Code", PID: 4242}, true
	}
	asked := false
	u := &undo{stderr: io.Discard, terminal: func() (terminal, error) {
		asked = true
		return nil, errors.New("no terminal in the test")
	}}
	plan := &recovery.Plan{Mode: recovery.ModeStopTest, Tests: []recovery.TestOwner{{Rewind: false}}}
	_, err := u.confirm(t.Context(), plan)
	var ce *recovery.ConfirmError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "runs under Claude Code (process 4242)") || asked {
		t.Errorf("err = %v, terminal asked %v", err, asked)
	}
}
