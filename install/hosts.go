package install

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// Scope says whose settings an install changes.
type Scope string

// The scopes, as Claude Code names them.
const (
	// Project is the project's shared settings, committed with it.
	Project Scope = "project"
	// User is the person's settings, for every project.
	User Scope = "user"
	// Local is the project's settings for this person only, not committed.
	Local Scope = "local"
)

// ParseScope returns the Scope named s.
func ParseScope(s string) (Scope, error) {
	switch Scope(s) {
	case Project, User, Local:
		return Scope(s), nil
	}
	return "", fmt.Errorf("unknown scope %q (supported: project, user, local)", s)
}

// DefaultScope is the scope an install of host h uses when none is given:
// the project's, but the user's for Codex, whose project hooks run only in
// projects the person has trusted.
func DefaultScope(h hostio.Host) Scope {
	if h == hostio.Codex {
		return User
	}
	return Project
}

// hookFile describes how one host keeps its hooks in one settings file.
type hookFile struct {
	host hostio.Host
	path string
	// events are the keys under "hooks" that get rewind's hook.
	events []string
	// grouped means the event's array holds {"matcher", "hooks": [...]}
	// groups, not the hooks themselves.
	grouped bool
	matcher string
	// commandKey names the hook's command: "command", or "bash" for
	// Copilot.
	commandKey string
	// timeoutKey names the hook's timeout, in timeoutUnit; "" when the
	// host has none.
	timeoutKey  string
	timeoutUnit time.Duration
	// defaultTimeout is what the host allows a hook without a timeout.
	defaultTimeout time.Duration
	// version means the file starts with "version": 1.
	version bool
	// name, when set, is the hook's "name" field.
	name string
}

// mcpFile describes where a host registers MCP servers: the object at path
// in the file (usually just "mcpServers").
type mcpFile struct {
	path string
	keys []string
}

// target is everything an install of one host at one scope writes.
type target struct {
	hooks *hookFile
	mcp   *mcpFile
	// notes are said to the person: what the install cannot do itself.
	notes []string
}

// Env is where an install looks: the project folder and the home folder,
// both absolute.
type Env struct {
	Dir  string
	Home string
}

// targetFor returns the files of host h at scope s.
func targetFor(h hostio.Host, s Scope, env Env, cfg *policy.Config) (*target, error) {
	claudeHooks := func(path string) *hookFile {
		return &hookFile{host: h, path: path, events: []string{"PreToolUse"}, grouped: true,
			matcher: Matcher(hostio.Claude, cfg), commandKey: "command",
			timeoutKey: "timeout", timeoutUnit: time.Second, defaultTimeout: 60 * time.Second}
	}
	claudeJSON := filepath.Join(env.Home, ".claude.json")
	switch h {
	case hostio.Claude:
		switch s {
		case Project:
			return &target{hooks: claudeHooks(filepath.Join(env.Dir, ".claude", "settings.json")),
				mcp: &mcpFile{path: filepath.Join(env.Dir, ".mcp.json"), keys: []string{"mcpServers"}}}, nil
		case Local:
			return &target{hooks: claudeHooks(filepath.Join(env.Dir, ".claude", "settings.local.json")),
				mcp: &mcpFile{path: claudeJSON, keys: []string{"projects", env.Dir, "mcpServers"}}}, nil
		case User:
			return &target{hooks: claudeHooks(filepath.Join(env.Home, ".claude", "settings.json")),
				mcp: &mcpFile{path: claudeJSON, keys: []string{"mcpServers"}}}, nil
		}
	case hostio.Codex:
		dir := env.Home
		if s == Project {
			dir = env.Dir
		} else if s == Local {
			break
		}
		hf := claudeHooks(filepath.Join(dir, ".codex", "hooks.json"))
		hf.matcher = Matcher(hostio.Codex, cfg)
		hf.defaultTimeout = 600 * time.Second
		return &target{hooks: hf, notes: []string{
			"Codex keeps MCP servers in config.toml, which rewind does not edit: add [mcp_servers.rewind] with command = \"" +
				"BINARY\" and args = [\"mcp\"] to ~/.codex/config.toml to use rewind's MCP tools"}}, nil
	case hostio.Gemini:
		dir := env.Dir
		if s == User {
			dir = env.Home
		} else if s == Local {
			break
		}
		path := filepath.Join(dir, ".gemini", "settings.json")
		return &target{
			hooks: &hookFile{host: h, path: path, events: []string{"BeforeTool"}, grouped: true,
				matcher: Matcher(hostio.Gemini, cfg), commandKey: "command", name: "rewind",
				timeoutKey: "timeout", timeoutUnit: time.Millisecond, defaultTimeout: 60 * time.Second},
			mcp: &mcpFile{path: path, keys: []string{"mcpServers"}},
		}, nil
	case hostio.Cursor:
		dir := env.Dir
		if s == User {
			dir = env.Home
		} else if s == Local {
			break
		}
		return &target{
			hooks: &hookFile{host: h, path: filepath.Join(dir, ".cursor", "hooks.json"),
				events: []string{"beforeShellExecution", "beforeMCPExecution"}, commandKey: "command", version: true},
			mcp: &mcpFile{path: filepath.Join(dir, ".cursor", "mcp.json"), keys: []string{"mcpServers"}},
		}, nil
	case hostio.Copilot:
		if s != Project {
			break
		}
		return &target{
			hooks: &hookFile{host: h, path: filepath.Join(env.Dir, ".github", "hooks", "rewind.json"),
				events: []string{"preToolUse"}, commandKey: "bash", version: true,
				timeoutKey: "timeoutSec", timeoutUnit: time.Second, defaultTimeout: 30 * time.Second},
			notes: []string{"Copilot's MCP servers are configured outside the repository: add rewind (command BINARY, args [\"mcp\"]) with /mcp add in the Copilot CLI"},
		}, nil
	default:
		return nil, fmt.Errorf("unknown host %q", h)
	}
	return nil, fmt.Errorf("%s has no %s scope for hooks", hostName(h), s)
}

// hostName is a host's name for people.
func hostName(h hostio.Host) string {
	switch h {
	case hostio.Claude:
		return "Claude Code"
	case hostio.Codex:
		return "Codex CLI"
	case hostio.Gemini:
		return "Gemini CLI"
	case hostio.Cursor:
		return "Cursor"
	case hostio.Copilot:
		return "GitHub Copilot"
	}
	return string(h)
}

// Matcher returns the hook matcher for host h: a regular expression on the
// host's tool names that covers every tool the policy cfg (with the
// catalog) may judge: the shell, every MCP tool (the catalog's rules match
// any server's tools, and the config's guarded servers are among them), and
// the tools the [[tool]] rules of the catalog and the config name (the
// catalog's include the file tools, whose writes to rewind's own config are
// asked). Tools it leaves out never reach the hook, which keeps the host
// fast for reads.
func Matcher(h hostio.Host, cfg *policy.Config) string {
	shell, mcp := "Bash", "mcp__.*"
	rename := map[string]string{}
	if h == hostio.Gemini {
		// Gemini CLI names MCP tools mcp_SERVER_TOOL or mcp__SERVER__TOOL.
		shell, mcp = "run_shell_command", "mcp_.*"
		rename = map[string]string{"Bash": "run_shell_command", "Write": "write_file", "Edit": "replace"}
	}
	parts := []string{shell, mcp}
	seen := map[string]bool{shell: true, mcp: true}
	for _, g := range policy.HookTools(cfg) {
		re := globRegexp(g)
		if n, ok := rename[g]; ok {
			re = regexp.QuoteMeta(n)
		}
		if !seen[re] {
			seen[re] = true
			parts = append(parts, re)
		}
	}
	return "^(" + strings.Join(parts, "|") + ")$"
}

// globRegexp turns a tool glob of path.Match ("*" any run, "?" one
// character, "[...]" a class, "\\" an escape) into a regular expression.
func globRegexp(glob string) string {
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		case '\\':
			if i+1 < len(glob) {
				i++
				b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
			}
		case '[':
			// A class is the same in both, "[^" included; one that does
			// not close is a literal "[" to path.Match as to us.
			if j := strings.IndexByte(glob[i:], ']'); j > 1 {
				b.WriteString(glob[i : i+j+1])
				i += j
				continue
			}
			b.WriteString(`\[`)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}
