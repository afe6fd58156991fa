package install

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The Claude Code plugin's files live at the repository's root.
const pluginRoot = ".."

func readJSON(t *testing.T, rel string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(pluginRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
}

func TestPluginLayout(t *testing.T) {
	t.Parallel()
	var manifest struct {
		Name, Version, Description, Homepage, Repository, License string
		Author                                                    struct{ Name string }
		Keywords                                                  []string
	}
	readJSON(t, ".claude-plugin/plugin.json", &manifest)
	if manifest.Name != "rewind" || manifest.Version == "" || manifest.Description == "" {
		t.Errorf("plugin.json: %+v", manifest)
	}

	var hooks struct {
		Description string
		Hooks       map[string][]struct {
			Matcher string
			Hooks   []struct {
				Type, Command, OnFailure string
				Timeout                  int
			}
		}
	}
	readJSON(t, "hooks/hooks.json", &hooks)
	if len(hooks.Hooks) != 3 {
		t.Fatalf("hooks.json: want PreToolUse, PostToolUse and PostToolUseFailure, got %+v", hooks.Hooks)
	}
	for ev, groups := range hooks.Hooks {
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("hooks.json: want one %s hook, got %+v", ev, groups)
		}
		h := groups[0].Hooks[0]
		if groups[0].Matcher != Matcher("claude", nil) {
			t.Errorf("%s matcher %q, want %q as rewind install writes it", ev, groups[0].Matcher, Matcher("claude", nil))
		}
		if ev != "PreToolUse" {
			if h.Command != `"${CLAUDE_PLUGIN_ROOT}/scripts/rewind" outcome` || h.Timeout != 30 || h.OnFailure != "" {
				t.Errorf("%s hook %+v", ev, h)
			}
			continue
		}
		if h.Type != "command" || h.Command != `"${CLAUDE_PLUGIN_ROOT}/scripts/rewind" hook` {
			t.Errorf("hook command %q", h.Command)
		}
		if _, ok := RewindHook(h.Command); !ok {
			t.Errorf("the plugin's hook %q is not recognised as rewind's", h.Command)
		}
		if h.Timeout != 180 || h.OnFailure != "block" {
			t.Errorf("timeout %d and onFailure %q, want 180 (above the default budget) and block", h.Timeout, h.OnFailure)
		}
	}

	var mcp struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
		} `json:"mcpServers"`
	}
	readJSON(t, ".mcp.json", &mcp)
	s, ok := mcp.MCPServers["rewind"]
	if len(mcp.MCPServers) != 1 || !ok || s.Command != "${CLAUDE_PLUGIN_ROOT}/scripts/rewind" || strings.Join(s.Args, " ") != "mcp" {
		t.Errorf(".mcp.json: %+v", mcp.MCPServers)
	}
}

// TestPluginScriptWithoutBinary runs the plugin's launcher where no rewind
// binary can be found: the hook must ask, not let the call through.
func TestPluginScriptWithoutBinary(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the launcher is a POSIX shell script")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	script, err := filepath.Abs(filepath.Join(pluginRoot, "scripts", "rewind"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	cmd := exec.Command(sh, script, "hook")
	cmd.Env = []string{"PATH=" + t.TempDir(), "HOME=" + home}
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"govc vm.destroy web-01"}}`)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("launcher: %v", err)
	}
	var got struct {
		HookSpecificOutput struct {
			PermissionDecision, PermissionDecisionReason string
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &got); err != nil || got.HookSpecificOutput.PermissionDecision != "ask" ||
		!strings.Contains(got.HookSpecificOutput.PermissionDecisionReason, "go install github.com/rewind-dev/rewind/cmd/...@latest") {
		t.Errorf("launcher output %s (%v)", out, err)
	}
	// The post-tool hook says nothing and succeeds without a binary.
	cmd = exec.Command(sh, script, "outcome")
	cmd.Env = []string{"PATH=" + t.TempDir(), "HOME=" + home}
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{},"tool_response":{}}`)
	if out, err := cmd.Output(); err != nil || len(out) > 0 {
		t.Errorf("outcome without a binary: %q, %v", out, err)
	}

	// With a rewind in $HOME/go/bin, the launcher runs it.
	bin := filepath.Join(home, "go", "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "rewind"), []byte("#!/bin/sh\necho \"fake rewind $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(sh, script, "version")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home}
	out, err = cmd.Output()
	if err != nil || string(out) != "fake rewind version\n" {
		t.Errorf("launcher with a binary: %q, %v", out, err)
	}
	// The post-tool hook never starts the full binary.
	cmd = exec.Command(sh, script, "outcome")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home}
	cmd.Stdin = strings.NewReader("{}")
	if out, err := cmd.Output(); err != nil || len(out) > 0 {
		t.Errorf("outcome without the front: %q, %v", out, err)
	}

	// The hook runs rewind-hook, the light front, when it sits beside
	// rewind, with the hook's flags; other commands still run rewind.
	if err := os.WriteFile(filepath.Join(bin, "rewind-hook"), []byte("#!/bin/sh\necho \"fake rewind-hook $*\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for args, want := range map[string]string{
		"hook --host codex": "fake rewind-hook --host codex\n",
		"outcome":           "fake rewind-hook \n",
		"version":           "fake rewind version\n",
	} {
		cmd = exec.Command(sh, append([]string{script}, strings.Fields(args)...)...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home}
		out, err = cmd.Output()
		if err != nil || string(out) != want {
			t.Errorf("launcher %s with the front: %q, %v; want %q", args, out, err, want)
		}
	}
}
