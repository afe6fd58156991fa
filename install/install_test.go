package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

const existingSettings = `{
  "permissions": {
    "allow": ["Bash(ls:*)"],
    "deny": []
  },
  "env": {"FOO": "1"},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --check", "timeout": 5}]}
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]
  },
  "futureKey": {"z": 1, "a": [1.50, 2e3]}
}
`

func testEnv(t *testing.T) Env {
	t.Helper()
	root := t.TempDir()
	env := Env{Dir: filepath.Join(root, "project"), Home: filepath.Join(root, "home")}
	for _, d := range []string{env.Dir, env.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return env
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func install(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Plan(o)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if err := Apply(res.Changes); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

func TestInstallClaudeProjectMerges(t *testing.T) {
	env := testEnv(t)
	settings := filepath.Join(env.Dir, ".claude", "settings.json")
	writeFile(t, settings, existingSettings, 0o640)
	o := Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/opt/rewind/bin/rewind"}

	res := install(t, o)
	if len(res.Changes) != 2 {
		t.Fatalf("%d changes, want settings and .mcp.json", len(res.Changes))
	}
	got := readFile(t, settings)
	want := `{
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ],
    "deny": []
  },
  "env": {
    "FOO": "1"
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --check",
            "timeout": 5
          }
        ]
      },
      {
        "matcher": "CLAUDE_MATCHER",
        "hooks": [
          {
            "type": "command",
            "command": "/opt/rewind/bin/rewind hook",
            "timeout": 180
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ]
  },
  "futureKey": {
    "z": 1,
    "a": [
      1.50,
      2e3
    ]
  }
}
`
	want = strings.Replace(want, "CLAUDE_MATCHER", Matcher(hostio.Claude, nil), 1)
	if got != want {
		t.Errorf("settings after install:\n%s\nwant:\n%s", got, want)
	}
	if fi, err := os.Stat(settings); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("settings mode %v, %v; want 0640 kept", fi.Mode().Perm(), err)
	}
	mcp := readFile(t, filepath.Join(env.Dir, ".mcp.json"))
	if want := "{\n  \"mcpServers\": {\n    \"rewind\": {\n      \"command\": \"/opt/rewind/bin/rewind\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"; mcp != want {
		t.Errorf(".mcp.json:\n%s\nwant:\n%s", mcp, want)
	}

	// A second run changes nothing.
	res2, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Changes) != 0 || len(res2.Unchanged) != 2 {
		t.Errorf("second run: %d changes, %d unchanged; want 0 and 2", len(res2.Changes), len(res2.Unchanged))
	}
	if n := strings.Count(readFile(t, settings), "rewind hook"); n != 1 {
		t.Errorf("hook appears %d times", n)
	}

	// Uninstall gives back the original content and removes .mcp.json.
	rm, err := PlanRemove(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(rm.Changes); err != nil {
		t.Fatal(err)
	}
	if !sameJSON([]byte(existingSettings), []byte(readFile(t, settings))) {
		t.Errorf("uninstall did not restore the settings:\n%s", readFile(t, settings))
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".mcp.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".mcp.json left after uninstall: %v", err)
	}
	// A second uninstall changes nothing.
	if rm2, err := PlanRemove(o); err != nil || len(rm2.Changes) != 0 {
		t.Errorf("second uninstall: %v, %d changes", err, len(rm2.Changes))
	}
}

func TestInstallUpdatesInPlace(t *testing.T) {
	env := testEnv(t)
	o := Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/old/rewind"}
	install(t, o)
	settings := filepath.Join(env.Dir, ".claude", "settings.json")
	// Another hook after rewind's: an update keeps rewind's place.
	data := strings.Replace(readFile(t, settings), `"PreToolUse": [`, `"PreToolUse": [{"matcher":"Write","hooks":[{"type":"command","command":"fmt"}]},`, 1)
	writeFile(t, settings, data, 0o644)

	cfg := policy.Default()
	cfg.Hook.Budget = 900 * time.Second
	o.Binary, o.Config = "/new/rewind", cfg
	install(t, o)
	got := readFile(t, settings)
	if strings.Contains(got, "/old/rewind") || !strings.Contains(got, `"command": "/new/rewind hook"`) || !strings.Contains(got, `"timeout": 930`) {
		t.Errorf("update did not replace the binary and timeout:\n%s", got)
	}
	if strings.Index(got, `"fmt"`) > strings.Index(got, "/new/rewind") {
		t.Errorf("rewind's hook moved:\n%s", got)
	}
}

// TestReinstallKeepsUserChoices: installing again (a new binary, say)
// changes the binary and nothing the user chose: the hook's --config file
// and the MCP server's env and extra arguments.
func TestReinstallKeepsUserChoices(t *testing.T) {
	env := testEnv(t)
	o := Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/old/rewind"}
	install(t, o)
	settings := filepath.Join(env.Dir, ".claude", "settings.json")
	writeFile(t, settings, strings.Replace(readFile(t, settings), `"/old/rewind hook"`, `"/old/rewind hook --config '/etc/rewind strict.toml'"`, 1), 0o644)
	mcp := filepath.Join(env.Dir, ".mcp.json")
	writeFile(t, mcp, `{"mcpServers":{"rewind":{"command":"/old/rewind","args":["mcp","--config","/etc/rewind.toml"],"env":{"REWIND_ZVM_URL":"https://zvm.lab"}}}}`, 0o644)

	o.Binary = "/new/rewind"
	install(t, o)
	if got := readFile(t, settings); !strings.Contains(got, `"command": "/new/rewind hook --config '/etc/rewind strict.toml'"`) {
		t.Errorf("the hook lost its --config:\n%s", got)
	}
	want := `{"mcpServers":{"rewind":{"command":"/new/rewind","args":["mcp","--config","/etc/rewind.toml"],"env":{"REWIND_ZVM_URL":"https://zvm.lab"}}}}`
	if got := readFile(t, mcp); !sameJSON([]byte(got), []byte(want)) {
		t.Errorf(".mcp.json:\n%s\nwant:\n%s", got, want)
	}
	// And a third run changes nothing.
	res, err := Plan(o)
	if err != nil || len(res.Changes) != 0 {
		t.Errorf("a third install plans %+v, %v; want no change", res, err)
	}
}

// TestInstallHookFront checks that with rewind-hook beside rewind the host
// runs the front, that it replaces rewind hook in place (and back), and
// that uninstall finds it.
func TestInstallHookFront(t *testing.T) {
	for _, host := range []hostio.Host{hostio.Claude, hostio.Codex} {
		t.Run(string(host), func(t *testing.T) {
			env := testEnv(t)
			o := Options{Host: host, Scope: DefaultScope(host), Env: env, Binary: "/b/rewind"}
			res := install(t, o)
			settings := res.Changes[0].Path
			o.HookBinary = "/b/rewind-hook"
			install(t, o)
			got := readFile(t, settings)
			want := `"command": "/b/rewind-hook"`
			if host != hostio.Claude {
				want = `"command": "/b/rewind-hook --host ` + string(host) + `"`
			}
			if !strings.Contains(got, want) || strings.Contains(got, "/b/rewind hook") || strings.Count(got, "rewind-hook") != 1 {
				t.Errorf("settings after installing the front, want %s once:\n%s", want, got)
			}
			found, errs := Find(env)
			if len(errs) != 0 || len(found) == 0 || found[0].Binary != "/b/rewind-hook" {
				t.Errorf("Find = %+v, %v; want the front", found, errs)
			}
			o.HookBinary = ""
			install(t, o)
			if got := readFile(t, settings); strings.Contains(got, "rewind-hook") {
				t.Errorf("the front stayed after installing without it:\n%s", got)
			}
			o.HookBinary = "/b/rewind-hook"
			install(t, o)
			rm, err := PlanRemove(o)
			if err != nil || len(rm.Changes) == 0 {
				t.Fatalf("uninstall: %v, %+v", err, rm)
			}
			for _, c := range rm.Changes {
				if strings.Contains(string(c.New), "rewind-hook") {
					t.Errorf("uninstall left the front in %s:\n%s", c.Path, c.New)
				}
			}
			o.HookBinary = "/b/rewinder"
			if _, err := Plan(o); err == nil {
				t.Errorf("a hook binary not named rewind-hook was accepted")
			}
		})
	}
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	env := testEnv(t)
	settings := filepath.Join(env.Dir, ".claude", "settings.json")
	broken := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\",]\n  }\n}\n"
	writeFile(t, settings, broken, 0o644)
	_, err := Plan(Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/bin/rewind"})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != settings || pe.Line != 3 {
		t.Fatalf("error %v, want a ParseError at %s:3", err, settings)
	}
	if got := readFile(t, settings); got != broken {
		t.Errorf("broken settings changed")
	}
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`} {
		writeFile(t, settings, bad, 0o644)
		if _, err := Plan(Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/bin/rewind"}); err == nil {
			t.Errorf("Plan accepted %s", bad)
		}
	}
}

func TestInstallRefusesForeignServer(t *testing.T) {
	env := testEnv(t)
	writeFile(t, filepath.Join(env.Dir, ".mcp.json"), `{"mcpServers":{"rewind":{"command":"node","args":["x.js"]}}}`, 0o644)
	if _, err := Plan(Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/bin/rewind"}); err == nil {
		t.Error("Plan replaced another server named rewind")
	}
}

// TestInstallHosts checks each host's files against the shape that host
// reads, and that uninstall removes what install wrote.
func TestInstallHosts(t *testing.T) {
	tests := []struct {
		host  hostio.Host
		scope Scope
		files map[string]string // relative to Dir ("" prefix) or Home ("~/")
	}{
		{hostio.Claude, User, map[string]string{
			"~/.claude/settings.json": `{"hooks":{"PreToolUse":[{"matcher":"CLAUDE_MATCHER","hooks":[{"type":"command","command":"/b/rewind hook","timeout":180}]}]}}`,
			"~/.claude.json":          `{"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}`,
		}},
		{hostio.Claude, Local, map[string]string{
			".claude/settings.local.json": `{"hooks":{"PreToolUse":[{"matcher":"CLAUDE_MATCHER","hooks":[{"type":"command","command":"/b/rewind hook","timeout":180}]}]}}`,
			"~/.claude.json":              `{"projects":{"DIR":{"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}}}`,
		}},
		{hostio.Codex, User, map[string]string{
			"~/.codex/hooks.json": `{"hooks":{"PreToolUse":[{"matcher":"CLAUDE_MATCHER","hooks":[{"type":"command","command":"/b/rewind hook --host codex","timeout":180}]}]}}`,
		}},
		{hostio.Gemini, Project, map[string]string{
			".gemini/settings.json": `{"hooks":{"BeforeTool":[{"matcher":"GEMINI_MATCHER","hooks":[{"type":"command","name":"rewind","command":"/b/rewind hook --host gemini","timeout":180000}]}]},"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}`,
		}},
		{hostio.Cursor, Project, map[string]string{
			".cursor/hooks.json": `{"version":1,"hooks":{"beforeShellExecution":[{"command":"/b/rewind hook --host cursor"}],"beforeMCPExecution":[{"command":"/b/rewind hook --host cursor"}]}}`,
			".cursor/mcp.json":   `{"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}`,
		}},
		{hostio.Copilot, Project, map[string]string{
			".github/hooks/rewind.json": `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"/b/rewind hook --host copilot","timeoutSec":180}]}}`,
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.host)+"-"+string(tt.scope), func(t *testing.T) {
			env := testEnv(t)
			o := Options{Host: tt.host, Scope: tt.scope, Env: env, Binary: "/b/rewind"}
			install(t, o)
			for rel, want := range tt.files {
				path := filepath.Join(env.Dir, rel)
				if strings.HasPrefix(rel, "~/") {
					path = filepath.Join(env.Home, rel[2:])
				}
				want = strings.NewReplacer("DIR", env.Dir,
					"CLAUDE_MATCHER", Matcher(hostio.Claude, nil), "GEMINI_MATCHER", Matcher(hostio.Gemini, nil)).Replace(want)
				if got := readFile(t, path); !sameJSON([]byte(got), []byte(want)) {
					t.Errorf("%s:\n%s\nwant:\n%s", rel, got, want)
				}
			}
			found, errs := Find(env)
			if len(errs) != 0 || len(found) == 0 || found[0].Host != tt.host || found[0].Binary != "/b/rewind" || found[0].Timeout != 0 && found[0].Timeout != 180*time.Second {
				t.Errorf("Find = %+v, %v", found, errs)
			}
			rm, err := PlanRemove(o)
			if err != nil {
				t.Fatal(err)
			}
			if err := Apply(rm.Changes); err != nil {
				t.Fatal(err)
			}
			for rel := range tt.files {
				path := filepath.Join(env.Dir, rel)
				if strings.HasPrefix(rel, "~/") {
					path = filepath.Join(env.Home, rel[2:])
				}
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left after uninstall", rel)
				}
			}
		})
	}
}

func TestScopesWithoutHooks(t *testing.T) {
	env := testEnv(t)
	for _, o := range []Options{{Host: hostio.Copilot, Scope: User}, {Host: hostio.Gemini, Scope: Local}, {Host: hostio.Codex, Scope: Local}} {
		o.Env, o.Binary = env, "/b/rewind"
		if _, err := Plan(o); err == nil {
			t.Errorf("Plan(%s, %s) succeeded", o.Host, o.Scope)
		}
	}
}

func TestMatcher(t *testing.T) {
	cfg := policy.Default()
	cfg.Tools = []policy.ToolRule{{Name: "Write"}, {Name: "mcp__vc__*"}, {Name: "Notebook*"}, {Name: "Write"}, {Name: "Deploy[A-Z]*"}}
	tests := []struct {
		host   hostio.Host
		prefix string
		judged []string // tools the hook must see
		passed []string // tools that need no hook run
	}{
		{hostio.Claude, `^(Bash|mcp__.*|Write|Notebook.*|Deploy[A-Z].*|`,
			[]string{"Bash", "mcp__vsphere__power_off_vm", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "DeployApp", "TodoWrite"},
			[]string{"Read", "Glob", "Grep", "WebFetch", "Deployapp", "bash"}},
		{hostio.Gemini, `^(run_shell_command|mcp_.*|write_file|Notebook.*|Deploy[A-Z].*|`,
			[]string{"run_shell_command", "mcp_vsphere_power_off_vm", "write_file", "replace"},
			[]string{"read_file", "glob", "google_web_search"}},
	}
	for _, tt := range tests {
		m := Matcher(tt.host, cfg)
		if !strings.HasPrefix(m, tt.prefix) {
			t.Errorf("%s matcher %s, want it to start %s (the shell, MCP tools, then the config's tools)", tt.host, m, tt.prefix)
		}
		for _, tool := range tt.judged {
			if !MatcherMatches(m, tool) {
				t.Errorf("%s matcher %s lets %s past the hook", tt.host, m, tool)
			}
		}
		for _, tool := range tt.passed {
			if MatcherMatches(m, tool) {
				t.Errorf("%s matcher %s sends %s to the hook", tt.host, m, tool)
			}
		}
	}
}

func TestRewindHook(t *testing.T) {
	tests := []struct {
		cmd, bin string
		ok       bool
	}{
		{"/usr/local/bin/rewind hook", "/usr/local/bin/rewind", true},
		{"rewind hook --host codex", "rewind", true},
		{"'/Users/a b/go/bin/rewind' hook", "/Users/a b/go/bin/rewind", true},
		{`"C:\Program Files\rewind\rewind.exe" hook`, `C:\Program Files\rewind\rewind.exe`, true},
		{"/usr/local/bin/rewind mcp", "", false},
		{"/usr/bin/rewinder hook", "", false},
		{"echo rewind hook", "", false},
		{"/usr/local/bin/rewind-hook", "/usr/local/bin/rewind-hook", true},
		{"'/Users/a b/go/bin/rewind-hook' --host codex", "/Users/a b/go/bin/rewind-hook", true},
		{`"C:\Program Files\rewind\rewind-hook.exe" --host copilot`, `C:\Program Files\rewind\rewind-hook.exe`, true},
		{"/usr/bin/rewind-hooks", "", false},
	}
	for _, tt := range tests {
		bin, ok := RewindHook(tt.cmd)
		if bin != tt.bin || ok != tt.ok {
			t.Errorf("RewindHook(%q) = %q, %v; want %q, %v", tt.cmd, bin, ok, tt.bin, tt.ok)
		}
	}
	if got := hookCommand("/Users/a b/rewind", hostio.Claude); got != `'/Users/a b/rewind' hook` {
		t.Errorf("hookCommand quoted %s", got)
	}
	if got := hookCommand("/Users/a b/rewind-hook", hostio.Codex); got != `'/Users/a b/rewind-hook' --host codex` {
		t.Errorf("hookCommand of the front: %s", got)
	}
}

func TestHookTimeout(t *testing.T) {
	for _, tt := range []struct{ budget, want time.Duration }{
		{150 * time.Second, 180 * time.Second},
		{900 * time.Second, 930 * time.Second},
		{1500 * time.Millisecond, 32 * time.Second},
	} {
		if got := HookTimeout(tt.budget); got != tt.want {
			t.Errorf("HookTimeout(%v) = %v, want %v", tt.budget, got, tt.want)
		}
	}
}

func TestDiff(t *testing.T) {
	env := testEnv(t)
	res, err := Plan(Options{Host: hostio.Claude, Scope: Project, Env: env, Binary: "/b/rewind"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Changes[0].Diff()
	if !bytes.HasPrefix(d, []byte("diff /dev/null "+filepath.Join(env.Dir, ".claude", "settings.json"))) || !bytes.Contains(d, []byte(`+        "matcher": "`+Matcher(hostio.Claude, nil)+`",`)) {
		t.Errorf("diff:\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".claude")); !errors.Is(err, os.ErrNotExist) {
		t.Error("Plan wrote something")
	}
	var v any
	if err := json.Unmarshal(res.Changes[0].New, &v); err != nil {
		t.Error(err)
	}
}

func TestMatcherMatches(t *testing.T) {
	tests := []struct {
		matcher, tool string
		want          bool
	}{
		{"", "Bash", true},
		{"*", "mcp__a__b", true},
		{"Bash", "Bash", true},
		{"Bash", "BashOutput", false},
		{"Edit|Write", "Write", true},
		{"Edit|Write", "Bash", false},
		{"^(Bash|mcp__.*)$", "mcp__vsphere__power_off_vm", true},
		{"^(Bash|mcp__.*)$", "Write", false},
		{"mcp__vsphere__.*", "mcp__vcenter__x", false},
		{"Notebook.*", "NotebookEdit", true},
		{"(", "Bash", false},
	}
	for _, tt := range tests {
		if got := MatcherMatches(tt.matcher, tt.tool); got != tt.want {
			t.Errorf("MatcherMatches(%q, %q) = %v, want %v", tt.matcher, tt.tool, got, tt.want)
		}
	}
}

func TestUncovered(t *testing.T) {
	cfg := policy.Default()
	cfg.Tools = []policy.ToolRule{{Name: "Write"}, {Name: "mcp__vc__*"}}
	for _, tt := range []struct {
		in   Installed
		want string
	}{
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: Matcher(hostio.Claude, cfg)}, ""},
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: "Bash"}, "mcp__server__tool Write Edit MultiEdit NotebookEdit"},
		// The matcher of an earlier install: the catalog's file tools,
		// whose writes to rewind's own config are asked, pass unjudged.
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: "^(Bash|mcp__.*)$"}, "Write Edit MultiEdit NotebookEdit"},
		{Installed{Host: hostio.Gemini, HasMatcher: true, Matcher: Matcher(hostio.Gemini, cfg)}, ""},
		{Installed{Host: hostio.Cursor}, ""},
	} {
		if got := strings.Join(tt.in.Uncovered(cfg), " "); got != tt.want {
			t.Errorf("Uncovered(%s %q) = %q, want %q", tt.in.Host, tt.in.Matcher, got, tt.want)
		}
	}
}
