package hostio

import "fmt"

// Host names an agent host whose hook protocol rewind speaks.
type Host string

// Claude is Anthropic's Claude Code.
const Claude Host = "claude"

// plannedHosts are hosts the design names for later. ParseHost tells them
// apart from typing mistakes, so a user learns that support is missing rather
// than that the name is wrong.
var plannedHosts = map[string]bool{
	"codex":   true,
	"gemini":  true,
	"cursor":  true,
	"copilot": true,
}

// ParseHost returns the Host named s, as given to `rewind hook --host`.
func ParseHost(s string) (Host, error) {
	switch {
	case s == string(Claude):
		return Claude, nil
	case plannedHosts[s]:
		return "", fmt.Errorf("host %q is not supported yet (supported: %s)", s, Claude)
	default:
		return "", fmt.Errorf("unknown host %q (supported: %s)", s, Claude)
	}
}

// checkHost reports an error for a Host value that did not come from
// ParseHost or the Claude constant.
func checkHost(h Host) error {
	if h != Claude {
		_, err := ParseHost(string(h))
		return err
	}
	return nil
}
