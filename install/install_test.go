package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

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

// testOptions are the options of an install in env, with rewind-hook
// beside rewind in /b, on the PATH, and the state folder in the test's.
func testOptions(t *testing.T, env Env, host hostio.Host, scope Scope) Options {
	return Options{Host: host, Scope: scope, Env: env, Binary: "/b/rewind", HookBinary: "/b/rewind-hook",
		StateDir: filepath.Join(filepath.Dir(env.Dir), "state"), LookPath: func(name string) (string, error) { return "/b/" + name, nil }}
}

// changedLines counts the lines of a unified diff that start with sign
// (the lines taken out, or added).
func changedLines(diff string, sign byte) int {
	n := 0
	for _, l := range strings.Split(diff, "\n") {
		if len(l) > 0 && l[0] == sign && !strings.HasPrefix(l, string([]byte{sign, sign, sign})) {
			n++
		}
	}
	return n
}

func install(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := Plan(o)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	if err := res.Apply(); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

func uninstall(t *testing.T, o Options) *Result {
	t.Helper()
	res, err := PlanRemove(o)
	if err != nil {
		t.Fatalf("PlanRemove: %v", err)
	}
	if err := res.Apply(); err != nil {
		t.Fatalf("Apply: %v", err)
	}
	return res
}

// handFormatted is settings as a person writes them: four spaces, objects
// on one line, keys in no order, numbers as typed.
const handFormatted = `{
    "permissions": { "allow": ["Bash(ls:*)"], "deny": [] },
    "hooks": {
        "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ],
        "PreToolUse": [
            { "matcher": "Write", "hooks": [ { "type": "command", "command": "prettier --check", "timeout": 5 } ] }
        ]
    },
    "futureKey": { "z": 1.50, "a": [2e3] }
}
`

// TestInstallClaudeProjectMerges checks an install into settings a team
// commits: a diff of a few lines that touches only rewind's entries,
// keeps the file's layout, names no path of this machine's, and an
// uninstall that gives back the file byte for byte.
func TestInstallClaudeProjectMerges(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	settings := filepath.Join(env.Dir, ".claude", "settings.json")
	writeFile(t, settings, handFormatted, 0o640)
	o := testOptions(t, env, hostio.Claude, Project)

	res := install(t, o)
	if len(res.Changes) != 2 {
		t.Fatalf("%d changes, want settings and .mcp.json", len(res.Changes))
	}
	got := readFile(t, settings)
	wantAdded := strings.ReplaceAll(`            { "matcher": "Write", "hooks": [ { "type": "command", "command": "prettier --check", "timeout": 5 } ] },
            {
                "matcher": "MATCHER",
                "hooks": [
                    {
                        "type": "command",
                        "command": "rewind-hook",
                        "timeout": 180,
                        "onFailure": "block"
                    }
                ]
            }
        ],
        "PostToolUse": [`, "MATCHER", strings.ReplaceAll(Matcher(hostio.Claude, nil), `\`, `\\`))
	if !strings.Contains(got, wantAdded) {
		t.Errorf("settings after install:\n%s\nwant it to hold:\n%s", got, wantAdded)
	}
	if !strings.HasPrefix(got, "{\n    \"permissions\": { \"allow\": [\"Bash(ls:*)\"], \"deny\": [] },\n") ||
		!strings.HasSuffix(got, "    \"futureKey\": { \"z\": 1.50, \"a\": [2e3] }\n}\n") {
		t.Errorf("the rest of the file changed:\n%s", got)
	}
	// The diff touches rewind's lines only: the groups added, and the
	// comma the line before them gets.
	d := string(res.Changes[0].Diff())
	if n := changedLines(d, '-'); n != 1 {
		t.Errorf("the diff takes out %d lines, want 1 (the comma after the last group):\n%s", n, d)
	}
	for _, c := range res.Changes {
		if strings.Contains(string(c.New), "/b/") {
			t.Errorf("%s names a path of this machine's:\n%s", c.Path, c.New)
		}
	}
	if fi, err := os.Stat(settings); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("settings mode %v, %v; want 0640 kept", fi.Mode().Perm(), err)
	}
	if got := readFile(t, filepath.Join(env.Dir, ".mcp.json")); !sameJSON([]byte(got), []byte(`{"mcpServers":{"rewind":{"command":"rewind","args":["mcp"]}}}`)) {
		t.Errorf(".mcp.json:\n%s", got)
	}

	// A second run changes nothing.
	res2, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Changes) != 0 || len(res2.Unchanged) != 2 {
		t.Errorf("second run: %d changes, %d unchanged; want 0 and 2", len(res2.Changes), len(res2.Unchanged))
	}

	// Uninstall gives back the file byte for byte, and removes .mcp.json.
	uninstall(t, o)
	if got := readFile(t, settings); got != handFormatted {
		t.Errorf("uninstall did not restore the settings:\n%q\nwant\n%q", got, handFormatted)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".mcp.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".mcp.json left after uninstall: %v", err)
	}
	if rm2, err := PlanRemove(o); err != nil || len(rm2.Changes) != 0 {
		t.Errorf("second uninstall: %v, %d changes", err, len(rm2.Changes))
	}
}

// TestUninstallKeepsWhatWasThere checks that an uninstall takes out what
// the install made and nothing else: an empty "mcpServers" and an empty
// file that were there stay, and so does a folder rewind did not make,
// while the folders it made go.
func TestUninstallKeepsWhatWasThere(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	mcp := filepath.Join(env.Dir, ".mcp.json")
	const before = "{\n  \"mcpServers\": {}\n}\n"
	writeFile(t, mcp, before, 0o644)
	cursorMCP := filepath.Join(env.Dir, ".cursor", "mcp.json")
	writeFile(t, cursorMCP, "{}\n", 0o644)
	o := testOptions(t, env, hostio.Claude, Project)
	install(t, o)
	if got := readFile(t, mcp); !strings.Contains(got, `"rewind"`) {
		t.Fatalf(".mcp.json after install:\n%s", got)
	}
	uninstall(t, o)
	if got := readFile(t, mcp); got != before {
		t.Errorf(".mcp.json after uninstall:\n%q\nwant\n%q", got, before)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".claude")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the .claude folder rewind made stayed: %v", err)
	}

	oc := testOptions(t, env, hostio.Cursor, Project)
	install(t, oc)
	uninstall(t, oc)
	if got := readFile(t, cursorMCP); got != "{}\n" {
		t.Errorf("Cursor's mcp.json after uninstall: %q", got)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".cursor", "hooks.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hooks.json rewind made stayed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(env.Dir, ".cursor")); err != nil {
		t.Errorf("the .cursor folder that was there went: %v", err)
	}
}

// TestUninstallWithoutRecord checks an uninstall of what another
// machine's install wrote (a cloned project): rewind's entries go, and
// what they leave empty.
func TestUninstallWithoutRecord(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	o := testOptions(t, env, hostio.Claude, Project)
	install(t, o)
	o.StateDir = filepath.Join(filepath.Dir(env.Dir), "elsewhere")
	uninstall(t, o)
	for _, f := range []string{".claude/settings.json", ".mcp.json"} {
		if _, err := os.Stat(filepath.Join(env.Dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left: %v", f, err)
		}
	}
}

func TestInstallUpdatesInPlace(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	o := testOptions(t, env, hostio.Claude, User)
	o.Binary, o.HookBinary = "/old/rewind", ""
	install(t, o)
	settings := filepath.Join(env.Home, ".claude", "settings.json")
	// Another hook before rewind's: an update keeps rewind's place.
	data := strings.Replace(readFile(t, settings), `"PreToolUse": [`, `"PreToolUse": [{"matcher":"Write","hooks":[{"type":"command","command":"fmt"}]},`, 1)
	writeFile(t, settings, data, 0o644)

	cfg := policy.Default()
	cfg.Hook.Budget = 900 * time.Second
	o.Binary, o.Config = "/new/rewind", cfg
	res := install(t, o)
	got := readFile(t, settings)
	if strings.Contains(got, "/old/rewind") || !strings.Contains(got, `"command": "/new/rewind hook"`) || !strings.Contains(got, `"timeout": 930`) {
		t.Errorf("update did not replace the binary and timeout:\n%s", got)
	}
	if strings.Index(got, `"fmt"`) > strings.Index(got, "/new/rewind") {
		t.Errorf("rewind's hook moved:\n%s", got)
	}
	// Only the two values changed.
	if d := string(res.Changes[0].Diff()); changedLines(d, '+') != 2 {
		t.Errorf("diff:\n%s", d)
	}
}

// TestReinstallKeepsUserChoices: installing again (a new binary, say)
// changes the binary and nothing the user chose: the hook's --config file,
// a key they added to rewind's entry, and the MCP server's env and extra
// arguments.
func TestReinstallKeepsUserChoices(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	o := testOptions(t, env, hostio.Claude, Local)
	o.Binary, o.HookBinary = "/old/rewind", ""
	install(t, o)
	settings := filepath.Join(env.Dir, ".claude", "settings.local.json")
	writeFile(t, settings, strings.Replace(readFile(t, settings), `"/old/rewind hook"`, `"/old/rewind hook --config '/etc/rewind strict.toml'", "statusMessage": "rewind"`, 1), 0o644)
	claudeJSON := filepath.Join(env.Home, ".claude.json")
	writeFile(t, claudeJSON, `{"projects":{"`+env.Dir+`":{"mcpServers":{"rewind":{"command":"/old/rewind","args":["mcp","--config","/etc/rewind.toml"],"env":{"REWIND_ZVM_URL":"https://zvm.lab"}}}}}}`, 0o600)

	o.Binary = "/new/rewind"
	install(t, o)
	if got := readFile(t, settings); !strings.Contains(got, `"command": "/new/rewind hook --config '/etc/rewind strict.toml'", "statusMessage": "rewind"`) {
		t.Errorf("the hook lost its --config or the key added:\n%s", got)
	}
	want := `{"projects":{"` + env.Dir + `":{"mcpServers":{"rewind":{"command":"/new/rewind","args":["mcp","--config","/etc/rewind.toml"],"env":{"REWIND_ZVM_URL":"https://zvm.lab"}}}}}}`
	if got := readFile(t, claudeJSON); got != want {
		t.Errorf("~/.claude.json:\n%s\nwant:\n%s", got, want)
	}
	if res, err := Plan(o); err != nil || len(res.Changes) != 0 {
		t.Errorf("a third install plans %+v, %v; want no change", res, err)
	}
}

// TestInstallHookFront checks that the post-tool hooks come with the
// light front and go without it, since they must never start the full
// binary, and that the front replaces rewind hook in place (and back).
func TestInstallHookFront(t *testing.T) {
	t.Parallel()
	for _, host := range []hostio.Host{hostio.Claude, hostio.Codex, hostio.Cursor} {
		t.Run(string(host), func(t *testing.T) {
			env := testEnv(t)
			o := testOptions(t, env, host, User)
			o.HookBinary = ""
			res := install(t, o)
			settings := res.Changes[0].Path
			if got := readFile(t, settings); strings.Contains(got, "ostToolUse") || strings.Count(got, "/b/rewind hook") != 1 {
				t.Errorf("without the front, want the pre-tool hook alone:\n%s", got)
			}
			o.HookBinary = "/b/rewind-hook"
			install(t, o)
			got := readFile(t, settings)
			if strings.Contains(got, "/b/rewind hook") || !strings.Contains(got, "ostToolUse") {
				t.Errorf("with the front:\n%s", got)
			}
			found, errs := Find(env)
			if len(errs) != 0 || len(found) < 2 || found[0].Binary != "/b/rewind-hook" || found[0].Post || !found[1].Post {
				t.Errorf("Find = %+v, %v; want the front, pre and post", found, errs)
			}
			o.HookBinary = ""
			install(t, o)
			if got := readFile(t, settings); strings.Contains(got, "rewind-hook") || strings.Contains(got, "ostToolUse") {
				t.Errorf("the front stayed after installing without it:\n%s", got)
			}
			o.HookBinary = "/b/rewinder"
			if _, err := Plan(o); err == nil {
				t.Errorf("a hook binary not named rewind-hook was accepted")
			}
		})
	}
}

func TestInstallRefusesBrokenSettings(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	settings := filepath.Join(env.Dir, ".claude", "settings.json")
	broken := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls:*)\",]\n  }\n}\n"
	writeFile(t, settings, broken, 0o644)
	o := testOptions(t, env, hostio.Claude, Project)
	_, err := Plan(o)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != settings || pe.Line != 3 {
		t.Fatalf("error %v, want a ParseError at %s:3", err, settings)
	}
	if got := readFile(t, settings); got != broken {
		t.Errorf("broken settings changed")
	}
	for _, bad := range []string{`[]`, `{"hooks": []}`, `{"hooks": {"PreToolUse": {}}}`} {
		writeFile(t, settings, bad, 0o644)
		if _, err := Plan(o); err == nil {
			t.Errorf("Plan accepted %s", bad)
		}
	}
}

func TestInstallRefusesForeignFiles(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	writeFile(t, filepath.Join(env.Dir, ".mcp.json"), `{"mcpServers":{"rewind":{"command":"node","args":["x.js"]}}}`, 0o644)
	if _, err := Plan(testOptions(t, env, hostio.Claude, Project)); err == nil {
		t.Error("Plan replaced another server named rewind")
	}
	// A hook script of Cline's that is someone else's is not replaced,
	// nor removed.
	script := filepath.Join(env.Dir, ".clinerules", "hooks", "PreToolUse")
	writeFile(t, script, "#!/bin/sh\necho '{\"cancel\": false}'\n", 0o755)
	o := testOptions(t, env, hostio.Cline, Project)
	if _, err := Plan(o); err == nil || !strings.Contains(err.Error(), "is not rewind's") {
		t.Errorf("Plan over another PreToolUse script: %v", err)
	}
	if rm, err := PlanRemove(o); err != nil || len(rm.Changes) != 0 {
		t.Errorf("PlanRemove of another script: %+v, %v", rm, err)
	}
}

// TestInstallHosts checks each host's files against the shape that host
// reads, and that uninstall removes what install wrote.
func TestInstallHosts(t *testing.T) {
	t.Parallel()
	pre := func(cmd string) string {
		return `{"matcher":"MATCHER","hooks":[{"type":"command","command":"` + cmd + `","timeout":180,"onFailure":"block"}]}`
	}
	post := func(cmd string) string {
		return `{"matcher":"MATCHER","hooks":[{"type":"command","command":"` + cmd + `","timeout":30}]}`
	}
	claudeHooks := func(cmd string) string {
		return `{"hooks":{"PreToolUse":[` + pre(cmd) + `],"PostToolUse":[` + post(cmd) + `],"PostToolUseFailure":[` + post(cmd) + `]}}`
	}
	codex := func(cmd string) string {
		p := strings.Replace(pre(cmd), `,"onFailure":"block"`, "", 1)
		return `{"hooks":{"PreToolUse":[` + p + `],"PostToolUse":[` + post(cmd) + `]}}`
	}
	tests := []struct {
		host  hostio.Host
		scope Scope
		files map[string]string // relative to Dir ("" prefix) or Home ("~/"); JSON compared as JSON
	}{
		{hostio.Claude, User, map[string]string{
			"~/.claude/settings.json": claudeHooks("/b/rewind-hook"),
			"~/.claude.json":          `{"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}`,
		}},
		{hostio.Claude, Local, map[string]string{
			".claude/settings.local.json": claudeHooks("/b/rewind-hook"),
			"~/.claude.json":              `{"projects":{"DIR":{"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}}}`,
		}},
		{hostio.Codex, User, map[string]string{"~/.codex/hooks.json": codex("/b/rewind-hook --host codex")}},
		{hostio.Codex, Project, map[string]string{".codex/hooks.json": codex("rewind-hook --host codex")}},
		{hostio.Antigravity, Project, map[string]string{
			".agents/hooks.json":      `{"rewind":{"PreToolUse":[{"matcher":"","hooks":[{"type":"command","command":"rewind-hook --host antigravity","timeout":180}]}]}}`,
			".agents/mcp_config.json": `{"mcpServers":{"rewind":{"command":"rewind","args":["mcp"]}}}`,
		}},
		{hostio.Antigravity, User, map[string]string{
			"~/.gemini/config/hooks.json":      `{"rewind":{"PreToolUse":[{"matcher":"","hooks":[{"type":"command","command":"/b/rewind-hook --host antigravity","timeout":180}]}]}}`,
			"~/.gemini/config/mcp_config.json": `{"mcpServers":{"rewind":{"command":"/b/rewind","args":["mcp"]}}}`,
		}},
		{hostio.Cursor, Project, map[string]string{
			".cursor/hooks.json": `{"version":1,"hooks":{"preToolUse":[{"command":"rewind-hook --host cursor","timeout":180,"failClosed":true}],` +
				`"postToolUse":[{"command":"rewind-hook --host cursor","timeout":30}],"postToolUseFailure":[{"command":"rewind-hook --host cursor","timeout":30}]}}`,
			".cursor/mcp.json": `{"mcpServers":{"rewind":{"command":"rewind","args":["mcp"]}}}`,
		}},
		{hostio.Copilot, Project, map[string]string{
			".github/hooks/rewind.json": `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"rewind-hook --host copilot","powershell":"rewind-hook --host copilot","timeoutSec":180}]}}`,
		}},
		{hostio.Copilot, User, map[string]string{
			"~/.copilot/hooks/rewind.json": `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"/b/rewind-hook --host copilot","powershell":"/b/rewind-hook --host copilot","timeoutSec":180}]}}`,
		}},
		{hostio.Windsurf, Project, map[string]string{
			".windsurf/hooks.json": `{"hooks":{"pre_run_command":[{"command":"rewind-hook --host windsurf"}],"pre_mcp_tool_use":[{"command":"rewind-hook --host windsurf"}],"pre_write_code":[{"command":"rewind-hook --host windsurf"}]}}`,
		}},
		{hostio.Windsurf, User, map[string]string{
			"~/.codeium/windsurf/hooks.json": `{"hooks":{"pre_run_command":[{"command":"/b/rewind-hook --host windsurf"}],"pre_mcp_tool_use":[{"command":"/b/rewind-hook --host windsurf"}],"pre_write_code":[{"command":"/b/rewind-hook --host windsurf"}]}}`,
		}},
		{hostio.Kiro, Project, map[string]string{
			".kiro/hooks/rewind.json": `{"version":"v1","hooks":[{"name":"rewind","trigger":"PreToolUse","action":{"type":"command","command":"rewind-hook --host kiro"},"timeout":180,"enabled":true}]}`,
		}},
		{hostio.OpenCode, Project, map[string]string{".opencode/plugins/rewind.js": "const COMMAND = [\"rewind-hook\",\"--host\",\"opencode\"];"}},
		{hostio.OpenCode, User, map[string]string{"~/.config/opencode/plugins/rewind.js": "const COMMAND = [\"/b/rewind-hook\",\"--host\",\"opencode\"];"}},
		{hostio.Cline, Project, map[string]string{".clinerules/hooks/PreToolUse": "\nexec rewind-hook --host cline\n"}},
		{hostio.Gemini, Project, map[string]string{
			".gemini/settings.json": `{"hooks":{"BeforeTool":[{"matcher":"GEMINI_MATCHER","hooks":[{"type":"command","name":"rewind","command":"rewind-hook --host gemini","timeout":180000}]}]},"mcpServers":{"rewind":{"command":"rewind","args":["mcp"]}}}`,
		}},
	}
	for _, tt := range tests {
		t.Run(string(tt.host)+"-"+string(tt.scope), func(t *testing.T) {
			env := testEnv(t)
			o := testOptions(t, env, tt.host, tt.scope)
			install(t, o)
			for rel, want := range tt.files {
				path := filepath.Join(env.Dir, rel)
				if strings.HasPrefix(rel, "~/") {
					path = filepath.Join(env.Home, rel[2:])
				}
				want = strings.NewReplacer("DIR", env.Dir,
					"MATCHER", strings.ReplaceAll(Matcher(tt.host, nil), `\`, `\\`), "GEMINI_MATCHER", Matcher(hostio.Gemini, nil)).Replace(want)
				got := readFile(t, path)
				switch {
				case strings.HasPrefix(want, "{"):
					if !sameJSON([]byte(got), []byte(want)) {
						t.Errorf("%s:\n%s\nwant:\n%s", rel, got, want)
					}
				case !strings.Contains(got, want):
					t.Errorf("%s:\n%s\nwant it to hold %q", rel, got, want)
				}
			}
			found, errs := Find(env)
			if len(errs) != 0 || len(found) == 0 || found[0].Host != tt.host || !strings.HasSuffix(found[0].Binary, "rewind-hook") ||
				found[0].Timeout != 0 && found[0].Timeout != 180*time.Second {
				t.Errorf("Find = %+v, %v", found, errs)
			}
			uninstall(t, o)
			for rel := range tt.files {
				path := filepath.Join(env.Dir, rel)
				if strings.HasPrefix(rel, "~/") {
					path = filepath.Join(env.Home, rel[2:])
				}
				if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s left after uninstall", rel)
				}
				// The folders the install made go too, up to the
				// project or home folder.
				for dir := filepath.Dir(path); dir != env.Dir && dir != env.Home; dir = filepath.Dir(dir) {
					if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s left after uninstall", dir)
					}
				}
			}
		})
	}
}

// TestFailOpen checks --fail-open: each host's switch left off, or, where
// rewind writes the file that runs the hook, that file answering for a
// hook that could not run.
func TestFailOpen(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		host         hostio.Host
		file         string
		closed, open string
	}{
		{hostio.Claude, ".claude/settings.json", `"onFailure": "block"`, ""},
		{hostio.Cursor, ".cursor/hooks.json", `"failClosed": true`, ""},
		{hostio.Cline, ".clinerules/hooks/PreToolUse", "exec rewind-hook --host cline", `rewind-hook --host cline || echo '{"cancel": false}'`},
		{hostio.OpenCode, ".opencode/plugins/rewind.js", "const FAIL_CLOSED = true;", "const FAIL_CLOSED = false;"},
	} {
		t.Run(string(tt.host), func(t *testing.T) {
			env := testEnv(t)
			o := testOptions(t, env, tt.host, Project)
			install(t, o)
			path := filepath.Join(env.Dir, tt.file)
			if got := readFile(t, path); !strings.Contains(got, tt.closed) {
				t.Errorf("by default %s lacks %s:\n%s", tt.file, tt.closed, got)
			}
			found, _ := Find(env)
			if len(found) == 0 || found[0].Failure != FailsClosed {
				t.Errorf("Find: %+v, want it failing closed", found)
			}
			o.FailOpen = true
			install(t, o)
			got := readFile(t, path)
			if strings.Contains(got, tt.closed) || tt.open != "" && !strings.Contains(got, tt.open) {
				t.Errorf("with --fail-open, %s:\n%s", tt.file, got)
			}
			found, _ = Find(env)
			if len(found) == 0 || found[0].Failure != FailsOpenBySetting {
				t.Errorf("Find: %+v, want it failing open by its setting", found)
			}
		})
	}
}

// TestCursorTakesOutOldEvents checks that an install over the events
// rewind used for Cursor before preToolUse moves to it, and keeps what
// others installed there.
func TestCursorTakesOutOldEvents(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	hooks := filepath.Join(env.Dir, ".cursor", "hooks.json")
	writeFile(t, hooks, `{"version":1,"hooks":{"beforeShellExecution":[{"command":"/old/rewind hook --host cursor"},{"command":"audit.sh"}],"beforeMCPExecution":[{"command":"/old/rewind hook --host cursor"}]}}`, 0o644)
	install(t, testOptions(t, env, hostio.Cursor, Project))
	got := readFile(t, hooks)
	if strings.Contains(got, "/old/rewind") || strings.Contains(got, "beforeMCPExecution") || !strings.Contains(got, `"beforeShellExecution":[{"command":"audit.sh"}]`) {
		t.Errorf("hooks.json:\n%s", got)
	}
}

// TestNotes checks the next steps an install ends with: where the hook
// does not resolve, what to set, and, last, trusting the hook in Codex.
func TestNotes(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	o := testOptions(t, env, hostio.Codex, Project)
	o.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	res, err := Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(res.Notes, "\n")
	for _, want := range []string{"rewind-hook is not on your PATH", "REWIND_ZVM_URL", "restart Codex CLI", "no setting to refuse"} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
	if last := res.Notes[len(res.Notes)-1]; !strings.Contains(last, "trust") || !strings.Contains(last, "/hooks") {
		t.Errorf("the last note is %q, want the one about trusting the hook in /hooks", last)
	}
	o = testOptions(t, env, hostio.Claude, User)
	o.LookPath = func(string) (string, error) { return "", errors.New("not found") }
	res, err = Plan(o)
	if err != nil {
		t.Fatal(err)
	}
	if all := strings.Join(res.Notes, "\n"); strings.Contains(all, "PATH") || strings.Contains(all, "no setting") {
		t.Errorf("a user-scope install of Claude Code, by absolute path and failing closed, noted:\n%s", all)
	}
}

func TestScopesWithoutHooks(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	for _, o := range []Options{{Host: hostio.Copilot, Scope: Local}, {Host: hostio.Gemini, Scope: Local}, {Host: hostio.Codex, Scope: Local},
		{Host: hostio.Cline, Scope: User}, {Host: hostio.Antigravity, Scope: Local}} {
		o.Env, o.Binary = env, "/b/rewind"
		if _, err := Plan(o); err == nil {
			t.Errorf("Plan(%s, %s) succeeded", o.Host, o.Scope)
		}
	}
}

func TestMatcher(t *testing.T) {
	t.Parallel()
	cfg := policy.Default()
	cfg.Tools = []policy.ToolRule{{Name: "Write"}, {Name: "mcp__vc__*"}, {Name: "Notebook*"}, {Name: "Write"}, {Name: "Deploy[A-Z]*"}}
	tests := []struct {
		host   hostio.Host
		prefix string
		judged []string // tools the hook must see
		passed []string // tools that need no hook run
	}{
		{hostio.Claude, `^(Bash|PowerShell|mcp__.*|Write|Notebook.*|Deploy[A-Z].*|`,
			// The read tools too: rewind judges them for its secrets.
			[]string{"Bash", "PowerShell", "mcp__vsphere__power_off_vm", "Write", "Edit", "MultiEdit", "NotebookEdit", "NotebookRead", "DeployApp", "TodoWrite", "Read", "Glob", "Grep", "LS"},
			[]string{"WebFetch", "WebSearch", "Deployapp", "bash", "Task"}},
		{hostio.Gemini, `^(run_shell_command|mcp_.*|write_file|Notebook.*|Deploy[A-Z].*|`,
			[]string{"run_shell_command", "mcp_vsphere_power_off_vm", "write_file", "replace", "read_file", "read_many_files", "glob", "search_file_content"},
			[]string{"google_web_search", "web_fetch"}},
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	env := testEnv(t)
	res, err := Plan(testOptions(t, env, hostio.Claude, Project))
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
	t.Parallel()
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
	t.Parallel()
	const readTools = "Read Grep Glob LS NotebookRead"
	cfg := policy.Default()
	cfg.Tools = []policy.ToolRule{{Name: "Write"}, {Name: "mcp__vc__*"}}
	for _, tt := range []struct {
		in   Installed
		want string
	}{
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: Matcher(hostio.Claude, cfg)}, ""},
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: "Bash"}, "mcp__server__tool PowerShell Write Edit MultiEdit NotebookEdit " + readTools},
		// The matcher of an earlier install: the catalog's file tools,
		// whose writes to rewind's own config are asked, the Windows
		// shell, and the read tools, judged for rewind's secrets, pass
		// unjudged.
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: "^(Bash|mcp__.*)$"}, "PowerShell Write Edit MultiEdit NotebookEdit " + readTools},
		{Installed{Host: hostio.Codex, HasMatcher: true, Matcher: "^(Bash|mcp__.*)$"}, "Write Edit MultiEdit NotebookEdit " + readTools},
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: "^(Bash|PowerShell|mcp__.*|Write|Edit|MultiEdit|NotebookEdit)$"}, readTools},
		{Installed{Host: hostio.Claude, HasMatcher: true, Matcher: "Bash", Post: true}, ""},
		{Installed{Host: hostio.Gemini, HasMatcher: true, Matcher: Matcher(hostio.Gemini, cfg)}, ""},
		{Installed{Host: hostio.Cursor}, ""},
	} {
		if got := strings.Join(tt.in.Uncovered(cfg), " "); got != tt.want {
			t.Errorf("Uncovered(%s %q) = %q, want %q", tt.in.Host, tt.in.Matcher, got, tt.want)
		}
	}
}

// TestInstallRecordsBinaries: an install records the binaries its hooks
// run in installs.json, where the policy reads them to guard them; a
// dry run or an install that changes nothing records none.
func TestInstallRecordsBinaries(t *testing.T) {
	env := testEnv(t)
	o := testOptions(t, env, hostio.Claude, Project)
	record := filepath.Join(o.StateDir, provenanceFile)
	if _, err := Plan(o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(record); err == nil {
		t.Fatal("a plan alone recorded the install")
	}
	install(t, o)
	var rec struct{ Binaries []string }
	if err := json.Unmarshal([]byte(readFile(t, record)), &rec); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rec.Binaries, []string{"/b/rewind", "/b/rewind-hook"}) {
		t.Errorf("binaries %q", rec.Binaries)
	}
}
