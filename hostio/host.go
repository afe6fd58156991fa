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
	// Antigravity is Google's Antigravity CLI (agy), which replaced
	// Gemini CLI.
	Antigravity Host = "antigravity"
	// Cursor is the Cursor editor's agent and its CLI.
	Cursor Host = "cursor"
	// Copilot is GitHub Copilot: its CLI and its cloud agent.
	Copilot Host = "copilot"
	// OpenCode is the OpenCode agent, through the plugin rewind installs.
	OpenCode Host = "opencode"
	// Kiro is Amazon's Kiro CLI.
	Kiro Host = "kiro"
	// Windsurf is the Windsurf editor's agent, Cascade.
	Windsurf Host = "windsurf"
	// Cline is the Cline agent.
	Cline Host = "cline"
	// Gemini is Google's Gemini CLI, retired on 2026-06-18: it stays for
	// the installs that still run it.
	Gemini Host = "gemini"
)

// Hosts lists every supported host, Claude Code first and the retired
// ones last.
var Hosts = []Host{Claude, Codex, Antigravity, Cursor, Copilot, OpenCode, Kiro, Windsurf, Cline, Gemini}

// Retired reports whether h is a host its maker no longer runs: rewind
// still speaks its protocol, for the installs that remain.
func Retired(h Host) bool { return h == Gemini }

// Name is the host's name for people.
func (h Host) Name() string {
	switch h {
	case Claude:
		return "Claude Code"
	case Codex:
		return "Codex CLI"
	case Antigravity:
		return "Antigravity CLI"
	case Cursor:
		return "Cursor"
	case Copilot:
		return "GitHub Copilot"
	case OpenCode:
		return "OpenCode"
	case Kiro:
		return "Kiro CLI"
	case Windsurf:
		return "Windsurf"
	case Cline:
		return "Cline"
	case Gemini:
		return "Gemini CLI"
	}
	return string(h)
}

// ParseHost returns the Host named s, as given to `rewind hook --host`.
func ParseHost(s string) (Host, error) {
	for _, h := range Hosts {
		if s == string(h) {
			return h, nil
		}
	}
	if s == "agy" {
		return Antigravity, nil
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
	for _, k := range Hosts {
		if h == k {
			return nil
		}
	}
	return fmt.Errorf("unknown host %q", string(h))
}
