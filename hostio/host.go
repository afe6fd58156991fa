package hostio

import (
	"fmt"
	"strings"
)

// Host names an agent host whose hook protocol rewind speaks.
type Host string

// The hosts rewind speaks to, by the name `rewind hook --host` takes.
const (
	// Claude is Anthropic's Claude Code.
	Claude Host = "claude"
	// Codex is OpenAI's Codex CLI.
	Codex Host = "codex"
	// Gemini is Google's Gemini CLI.
	Gemini Host = "gemini"
	// Cursor is the Cursor editor's agent.
	Cursor Host = "cursor"
	// Copilot is GitHub Copilot: its CLI and its cloud agent.
	Copilot Host = "copilot"
)

// Hosts lists every supported host, Claude Code first.
var Hosts = []Host{Claude, Codex, Gemini, Cursor, Copilot}

// ParseHost returns the Host named s, as given to `rewind hook --host`.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if s == string(h) {
			return h, nil
		}
	}
	names := make([]string, len(Hosts))
	for i, h := range Hosts {
		names[i] = string(h)
	}
	return "", fmt.Errorf("unknown host %q (supported: %s)", s, strings.Join(names, ", "))
}

// checkHost reports an error for a Host value that did not come from
// ParseHost or one of the constants.
func checkHost(h Host) error {
	_, err := ParseHost(string(h))
	return err
}
