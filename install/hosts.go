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

// committed reports whether the files of scope s go with the project to
// every machine that clones it: then they must not name anything of this
// machine's (see Options.Binary).
func committed(s Scope) bool { return s == Project }

// failure is how a host treats a hook that never answered: one that
// could not start, was killed at its timeout or crashed.
type failure int

const (
	// failOpen: the host lets the call through, and has no setting to
	// change that.
	failOpen failure = iota
	// failSwitch: the host lets the call through unless the hook's entry
	// asks it to block (onFailure, failClosed).
	failSwitch
	// failClosed: the host blocks the call on its own.
	failClosed
	// failClosedButTimeout: the host blocks the call when the hook fails,
	// but lets it through when the hook times out (GitHub Copilot).
	failClosedButTimeout
)

// hookEvent is one event a host runs rewind's hook for.
type hookEvent struct {
	// key is the event's key in the host's settings.
	key string
	// post marks a post-tool event, whose hook records how a call ended.
	post bool
	// old marks an event rewind installed before and takes out now
	// (Cursor's beforeShellExecution, beforeMCPExecution).
	old bool
}

// hookFile describes how one host keeps its hooks in one settings file.
type hookFile struct {
	host hostio.Host
	path string
	// hooksPath is the path of keys to the object of events: "hooks",
	// or Antigravity CLI's name of the hook, "rewind".
	hooksPath []string
	events    []hookEvent
	// grouped means the event's array holds {"matcher", "hooks": [...]}
	// groups, not the hooks themselves; matcher is the groups' matcher,
	// "" for none.
	grouped bool
	matcher string
	// typeKey means entries have "type": "command".
	typeKey bool
	// commandKeys name the hook's command: "command", or "bash" and
	// "powershell" for Copilot.
	commandKeys []string
	// timeoutKey names the hook's timeout, in timeoutUnit; "" when the
	// host has none.
	timeoutKey  string
	timeoutUnit time.Duration
	// defaultTimeout is what the host allows a hook without a timeout;
	// 0 when its documentation does not say.
	defaultTimeout time.Duration
	// failure is how the host treats a hook that never answered, and
	// failKey, for failSwitch, the entry's key that makes it block
	// (failValue is its value).
	failure   failure
	failKey   string
	failValue any
	// version, when set, is the file's "version" member.
	version any
	// name, when set, is the hook's "name" field.
	name string
	// owned is set for a file rewind writes whole (a plugin, a script,
	// a hooks file of its own): its content for a hook command, timeout
	// and failure choice. Such a file is removed by an uninstall.
	owned *ownedFile
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

// claudeDefault is Claude Code's timeout of a command hook that sets
// none, and codexDefault Codex CLI's.
const (
	claudeDefault = 600 * time.Second
	codexDefault  = 600 * time.Second
)

// targetFor returns the files of host h at scope s.
func targetFor(h hostio.Host, s Scope, env Env, cfg *policy.Config) (*target, error) {
	grouped := func(path string, events ...hookEvent) *hookFile {
		return &hookFile{host: h, path: path, hooksPath: []string{"hooks"}, events: events, grouped: true,
			matcher: Matcher(h, cfg), typeKey: true, commandKeys: []string{"command"},
			timeoutKey: "timeout", timeoutUnit: time.Second}
	}
	pre := hookEvent{key: "PreToolUse"}
	post := hookEvent{key: "PostToolUse", post: true}
	claude := func(path string) *hookFile {
		hf := grouped(path, pre, post, hookEvent{key: "PostToolUseFailure", post: true})
		hf.defaultTimeout, hf.failure, hf.failKey, hf.failValue = claudeDefault, failSwitch, "onFailure", "block"
		return hf
	}
	dir := env.Dir
	if s == User {
		dir = env.Home
	}
	switch h {
	case hostio.Claude:
		claudeJSON := filepath.Join(env.Home, ".claude.json")
		switch s {
		case Project:
			return &target{hooks: claude(filepath.Join(env.Dir, ".claude", "settings.json")),
				mcp: &mcpFile{path: filepath.Join(env.Dir, ".mcp.json"), keys: []string{"mcpServers"}}}, nil
		case Local:
			return &target{hooks: claude(filepath.Join(env.Dir, ".claude", "settings.local.json")),
				mcp: &mcpFile{path: claudeJSON, keys: []string{"projects", env.Dir, "mcpServers"}}}, nil
		case User:
			return &target{hooks: claude(filepath.Join(env.Home, ".claude", "settings.json")),
				mcp: &mcpFile{path: claudeJSON, keys: []string{"mcpServers"}}}, nil
		}
	case hostio.Codex:
		if s == Local {
			break
		}
		hf := grouped(filepath.Join(dir, ".codex", "hooks.json"), pre, post)
		hf.defaultTimeout, hf.failure = codexDefault, failOpen
		return &target{hooks: hf, notes: []string{
			"Codex keeps MCP servers in config.toml, which rewind does not edit: add [mcp_servers.rewind] with command = \"" +
				"BINARY\" and args = [\"mcp\"] to ~/.codex/config.toml to use rewind's MCP tools"}}, nil
	case hostio.Antigravity:
		if s == Local {
			break
		}
		// Global hooks and MCP servers are in the shared configuration
		// folder, ~/.gemini/config; a workspace's in .agents.
		folder := filepath.Join(env.Dir, ".agents")
		if s == User {
			folder = filepath.Join(env.Home, ".gemini", "config")
		}
		hf := grouped(filepath.Join(folder, "hooks.json"), pre)
		// Top-level keys are the names of hooks, each an object of
		// events. The tool names of MCP calls are not documented, so the
		// hook sees every call; the ones that change nothing pass quickly.
		hf.hooksPath, hf.matcher, hf.failure = []string{mcpServerName}, "", failClosed
		return &target{hooks: hf, mcp: &mcpFile{path: filepath.Join(folder, "mcp_config.json"), keys: []string{"mcpServers"}}}, nil
	case hostio.Cursor:
		if s == Local {
			break
		}
		entry := func(key string, post bool) hookEvent { return hookEvent{key: key, post: post} }
		return &target{
			hooks: &hookFile{host: h, path: filepath.Join(dir, ".cursor", "hooks.json"), hooksPath: []string{"hooks"},
				events: []hookEvent{entry("preToolUse", false), entry("postToolUse", true), entry("postToolUseFailure", true),
					{key: "beforeShellExecution", old: true}, {key: "beforeMCPExecution", old: true}},
				commandKeys: []string{"command"}, version: 1, timeoutKey: "timeout", timeoutUnit: time.Second,
				failure: failSwitch, failKey: "failClosed", failValue: true},
			mcp: &mcpFile{path: filepath.Join(dir, ".cursor", "mcp.json"), keys: []string{"mcpServers"}},
		}, nil
	case hostio.Copilot:
		if s == Local {
			break
		}
		path := filepath.Join(env.Dir, ".github", "hooks", "rewind.json")
		if s == User {
			path = filepath.Join(env.Home, ".copilot", "hooks", "rewind.json")
		}
		return &target{
			hooks: &hookFile{host: h, path: path, hooksPath: []string{"hooks"}, events: []hookEvent{{key: "preToolUse"}},
				typeKey: true, commandKeys: []string{"bash", "powershell"}, version: 1,
				timeoutKey: "timeoutSec", timeoutUnit: time.Second, defaultTimeout: 30 * time.Second, failure: failClosedButTimeout},
			notes: []string{"Copilot's MCP servers are configured outside its hooks files: add rewind (command BINARY, args [\"mcp\"]) with /mcp add in the Copilot CLI"},
		}, nil
	case hostio.OpenCode:
		if s == Local {
			break
		}
		path := filepath.Join(env.Dir, ".opencode", "plugins", "rewind.js")
		if s == User {
			path = filepath.Join(env.Home, ".config", "opencode", "plugins", "rewind.js")
		}
		return &target{
			hooks: &hookFile{host: h, path: path, events: []hookEvent{{key: "tool.execute.before"}, {key: "tool.execute.after", post: true}},
				commandKeys: []string{"command"}, timeoutUnit: time.Millisecond, failure: failSwitch, owned: openCodePlugin},
			notes: []string{"OpenCode keeps MCP servers in opencode.json, which rewind does not edit: add \"mcp\": {\"rewind\": {\"type\": \"local\", \"command\": [\"BINARY\", \"mcp\"]}} to use rewind's MCP tools"},
		}, nil
	case hostio.Kiro:
		if s == Local {
			break
		}
		return &target{
			hooks: &hookFile{host: h, path: filepath.Join(dir, ".kiro", "hooks", "rewind.json"), events: []hookEvent{{key: "PreToolUse"}},
				commandKeys: []string{"command"}, timeoutKey: "timeout", timeoutUnit: time.Second, defaultTimeout: 60 * time.Second,
				failure: failOpen, owned: kiroHooks},
			notes: []string{"Kiro CLI keeps MCP servers in its agent configuration, which rewind does not edit: add rewind (command BINARY, args [\"mcp\"]) to use rewind's MCP tools"},
		}, nil
	case hostio.Windsurf:
		if s == Local {
			break
		}
		path := filepath.Join(env.Dir, ".windsurf", "hooks.json")
		if s == User {
			path = filepath.Join(env.Home, ".codeium", "windsurf", "hooks.json")
		}
		return &target{
			hooks: &hookFile{host: h, path: path, hooksPath: []string{"hooks"},
				events:      []hookEvent{{key: "pre_run_command"}, {key: "pre_mcp_tool_use"}, {key: "pre_write_code"}},
				commandKeys: []string{"command"}, failure: failOpen},
			notes: []string{"Windsurf's MCP servers are configured in its MCP settings, which rewind does not edit: add rewind (command BINARY, args [\"mcp\"]) to use rewind's MCP tools"},
		}, nil
	case hostio.Cline:
		if s != Project {
			// Cline's documentation names two folders for global hooks;
			// rewind writes neither until one is confirmed.
			break
		}
		return &target{
			hooks: &hookFile{host: h, path: filepath.Join(env.Dir, ".clinerules", "hooks", "PreToolUse"), events: []hookEvent{{key: "PreToolUse"}},
				commandKeys: []string{"command"}, failure: failSwitch, owned: clineScript},
			notes: []string{"Cline keeps MCP servers in its MCP settings, which rewind does not edit: add rewind (command BINARY, args [\"mcp\"]) to use rewind's MCP tools"},
		}, nil
	case hostio.Gemini:
		if s == Local {
			break
		}
		path := filepath.Join(dir, ".gemini", "settings.json")
		hf := grouped(path, hookEvent{key: "BeforeTool"})
		hf.name, hf.timeoutUnit, hf.defaultTimeout, hf.failure = "rewind", time.Millisecond, 60*time.Second, failOpen
		return &target{hooks: hf, mcp: &mcpFile{path: path, keys: []string{"mcpServers"}},
			notes: []string{"Gemini CLI was retired on 2026-06-18 and Antigravity CLI replaced it: rewind install --host antigravity"}}, nil
	default:
		return nil, fmt.Errorf("unknown host %q", h)
	}
	return nil, fmt.Errorf("%s has no %s scope for hooks", h.Name(), s)
}

// Matcher returns the hook matcher for host h: a regular expression on the
// host's tool names that covers every tool the policy cfg (with the
// catalog) may judge: the shell (Bash, and PowerShell on Windows), every
// MCP tool (the catalog's rules match any server's tools, and the config's
// guarded servers are among them), and the tools the [[tool]] rules of the
// catalog and the config name (the catalog's include the file tools, whose
// writes to rewind's own config are asked). Tools it leaves out never
// reach the hook, which keeps the host fast for reads.
func Matcher(h hostio.Host, cfg *policy.Config) string {
	shells, mcp := []string{"Bash"}, "mcp__.*"
	if h == hostio.Claude {
		shells = append(shells, "PowerShell")
	}
	rename := map[string]string{}
	if h == hostio.Gemini {
		// Gemini CLI names MCP tools mcp_SERVER_TOOL or mcp__SERVER__TOOL.
		shells, mcp = []string{"run_shell_command"}, "mcp_.*"
		rename = map[string]string{"Bash": "run_shell_command", "Write": "write_file", "Edit": "replace"}
	}
	parts := append(append([]string{}, shells...), mcp)
	seen := map[string]bool{mcp: true}
	for _, s := range shells {
		seen[s] = true
	}
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
