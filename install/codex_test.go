package install

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/hostio"
)

// TestCodexIdentity checks the text whose hash Codex records as trusted:
// the normalized hook, keys sorted, compact, strings escaped as serde_json
// escapes them, and the 600 s default where the hook sets no timeout.
func TestCodexIdentity(t *testing.T) {
	t.Parallel()
	group, _ := decodeObject([]byte(`{"matcher":"^(Bash|mcp__.*)$","hooks":[]}`))
	for _, tt := range []struct{ entry, want string }{
		{`{"type":"command","command":"rewind-hook --host codex","timeout":180}`,
			`{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"rewind-hook --host codex","timeout":180,"type":"command"}],"matcher":"^(Bash|mcp__.*)$"}`},
		{`{"type":"command","command":"a \"b\" <&> é\u0001","statusMessage":"s"}`,
			`{"event_name":"pre_tool_use","hooks":[{"async":false,"command":"a \"b\" <&> é\u0001","statusMessage":"s","timeout":600,"type":"command"}],"matcher":"^(Bash|mcp__.*)$"}`},
		{`{"type":"command","command":"x","timeout":0,"async":true}`,
			`{"event_name":"pre_tool_use","hooks":[{"async":true,"command":"x","timeout":1,"type":"command"}],"matcher":"^(Bash|mcp__.*)$"}`},
		{`{"type":"command","command":"x","commandWindows":"y"}`, ``},
		{`{"type":"prompt","command":"x"}`, ``},
	} {
		e, err := decodeObject([]byte(tt.entry))
		if err != nil {
			t.Fatal(err)
		}
		if got := codexIdentity(hookEvent{key: "PreToolUse"}, group, e); got != tt.want {
			t.Errorf("codexIdentity(%s):\n got %s\nwant %s", tt.entry, got, tt.want)
		}
	}
}

// TestCodexTrust checks what doctor reads from Codex's config.toml: a hook
// trusted as it is, one that changed since, one never trusted and one
// turned off, and a file it cannot read.
func TestCodexTrust(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	o := testOptions(t, env, hostio.Codex, User)
	install(t, o)
	found, errs := Find(env)
	if len(errs) != 0 || len(found) != 2 || found[0].CodexKey == "" || found[0].CodexHash == "" {
		t.Fatalf("Find = %+v, %v", found, errs)
	}
	pre := found[0]
	if want := filepath.Join(env.Home, ".codex", "hooks.json") + ":pre_tool_use:0:0"; pre.CodexKey != want {
		t.Errorf("key %q, want %q", pre.CodexKey, want)
	}
	e, _ := decodeObject([]byte(`{"type":"command","command":"/b/rewind-hook --host codex","timeout":180}`))
	g, _ := decodeObject([]byte(`{"matcher":` + string(mustMarshal(Matcher(hostio.Codex, nil))) + `}`))
	sum := sha256.Sum256([]byte(codexIdentity(hookEvent{key: "PreToolUse"}, g, e)))
	if want := "sha256:" + hex.EncodeToString(sum[:]); pre.CodexHash != want {
		t.Errorf("hash %s, want %s", pre.CodexHash, want)
	}
	home := filepath.Join(env.Home, ".codex")
	state := func(body string) {
		if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := `[hooks.state."` + pre.CodexKey + `"]` + "\n"
	for _, tt := range []struct {
		config string
		want   CodexTrustState
	}{
		{"", Untrusted},
		{"model = \"gpt-5\"\n" + key + `trusted_hash = "` + pre.CodexHash + "\"\n", Trusted},
		{key + "trusted_hash = \"sha256:00\"\n", Modified},
		{key + `trusted_hash = "` + pre.CodexHash + "\"\nenabled = false\n", Disabled},
		{"[hooks.state.\"elsewhere:pre_tool_use:0:0\"]\ntrusted_hash = \"" + pre.CodexHash + "\"\n", Untrusted},
		{"[hooks\n", TrustUnknown},
	} {
		state(tt.config)
		if got, detail := CodexTrust(pre, home); got != tt.want {
			t.Errorf("config %q: %v (%s), want %v", tt.config, got, detail, tt.want)
		}
	}
	os.Remove(filepath.Join(home, "config.toml"))
	if got, _ := CodexTrust(pre, home); got != Untrusted {
		t.Errorf("without config.toml: %v", got)
	}
	if got, _ := CodexTrust(Installed{}, home); got != TrustUnknown {
		t.Errorf("a hook without a key: %v", got)
	}
}
