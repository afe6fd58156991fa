package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/shapes"
)

// hookSeeds are events of every shape the hook meets: valid calls of each
// kind, and the broken inputs whose outcome is documented.
var hookSeeds = []string{
	`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la"},"tool_use_id":"t","cwd":"/tmp"}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"govc vm.destroy web-01"}}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"gh issue create --body-file - <<'EOF'\ndo not revisit\nEOF"}}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"sudo govc vm.power -off web-01"}}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git reset --hard\nif"}}`,
	`{"hook_event_name":"PreToolUse","tool_name":"mcp__vsphere__power_off_vm","tool_input":{"vm_name":"web-01"}}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a","content":"x"}}`,
	`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":"ls"}`,
	`{"hook_event_name":"PreToolUse","tool_name":"Bash"`,
	`[]`,
	``,
	"\x00\xff",
}

// FuzzHook checks the hook's protocol invariants on any input: it exits 0,
// and its stdout is empty or exactly one JSON object on one line.
func FuzzHook(f *testing.F) {
	f.Setenv("REWIND_CONFIG", "")
	f.Setenv("REWIND_ZVM_URL", "")
	f.Setenv("REWIND_STATE_DIR", f.TempDir())
	f.Setenv("XDG_CONFIG_HOME", f.TempDir())
	for _, s := range hookSeeds {
		f.Add([]byte(s))
	}
	// The shapes that wear the analysis down, small: the fuzzer grows
	// and mixes them, and minimises what it finds in little time.
	for _, s := range shapes.All {
		ev, _ := json.Marshal(map[string]any{
			"hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": s.Make(256)},
		})
		f.Add(ev)
	}
	f.Fuzz(func(t *testing.T, event []byte) {
		var stdout, stderr bytes.Buffer
		code := Run([]string{"hook"}, bytes.NewReader(event), &stdout, &stderr)
		if code != 0 {
			t.Fatalf("exit %d, stderr %q", code, stderr.String())
		}
		checkProtocol(t, stdout.Bytes())
	})
}

func checkProtocol(t *testing.T, out []byte) {
	t.Helper()
	if len(out) == 0 {
		return
	}
	if !bytes.HasSuffix(out, []byte("\n")) || bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("stdout is not one line: %q", out)
	}
	var obj map[string]any
	if err := json.Unmarshal(out, &obj); err != nil {
		t.Fatalf("stdout is not one JSON object: %v: %q", err, out)
	}
}

// TestHookTooLarge feeds an event over the 8 MiB limit, as an endless
// stream, and expects a question to the user, not a crash or a pass.
func TestHookTooLarge(t *testing.T) {
	t.Setenv("REWIND_CONFIG", "")
	t.Setenv("REWIND_ZVM_URL", "")
	t.Setenv("REWIND_STATE_DIR", t.TempDir())
	prefix := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"`
	in := io.MultiReader(strings.NewReader(prefix), endless('x'))
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"hook"}, io.LimitReader(in, hostio.MaxEventSize+1024), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	checkProtocol(t, stdout.Bytes())
	if !strings.Contains(stdout.String(), `"permissionDecision":"ask"`) || !strings.Contains(stdout.String(), "too large") {
		t.Fatalf("stdout %q, want an ask about the size", stdout.String())
	}
}

type endless byte

func (e endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(e)
	}
	return len(p), nil
}
