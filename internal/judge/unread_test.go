package judge

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
)

// TestUnreadEvents: an event the decoder refuses is judged by the tool
// name that can still be read. A tool that could change a VM is asked
// (denied where every reading denies) even under on_error = allow; only
// a tool whose name says it cannot follows on_error.
func TestUnreadEvents(t *testing.T) {
	deep := strings.Repeat("[", 10001) + strings.Repeat("]", 10001)
	event := func(tool, input string) string {
		return `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"` + tool + `","tool_use_id":"t1","tool_input":` + input + `}`
	}
	tests := []struct {
		name, in, onError string
		want              string // the permission, "" for none
		logged            string
	}{
		{"an MCP power-off nested past the depth limit", event("mcp__vsphere__power_off_vm", `{"vm_name":"web-01","x":`+deep+`}`), "allow", "ask", audit.DecisionAsk},
		{"an MCP delete nested past the depth limit", event("mcp__vsphere__delete_vm", `{"vm_name":"web-01","x":`+deep+`}`), "allow", "deny", audit.DecisionDeny},
		{"an ssh server's command nested past the depth limit", event("mcp__ssh__exec", `{"command":"sudo reboot","x":`+deep+`}`), "allow", "ask", audit.DecisionAsk},
		{"a shell command nested past the depth limit", event("Bash", `{"command":"ssh web-01 sudo reboot","x":`+deep+`}`), "allow", "ask", audit.DecisionAsk},
		{"a truncated shell command", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reb`, "allow", "ask", audit.DecisionAsk},
		{"a tool name twice", `{"tool_name":"Read","tool_name":"Bash","tool_input":{"command":"sudo reboot","file_path":"x"}}`, "allow", "ask", audit.DecisionAsk},
		{"a field of the wrong type", `{"session_id":{},"tool_name":"Bash","tool_input":{"command":"ls"}}`, "allow", "ask", audit.DecisionAsk},
		{"tool_input of the wrong type", event("mcp__proxmox__proxmox_stop_vm", `"vmid=100"`), "allow", "ask", audit.DecisionAsk},
		{"a huge number where a string belongs", `{"cwd":1e999999,"tool_name":"mcp__libvirt__libvirt_undefine_domain","tool_input":{}}`, "allow", "deny", audit.DecisionDeny},
		{"on_error deny makes an ask a deny", event("Bash", `{"command":"ls","x":`+deep+`}`), "deny", "deny", audit.DecisionDeny},
		// A tool whose name says it cannot change a VM: on_error, as before.
		{"a read nested past the depth limit", event("Read", `{"file_path":"a","x":`+deep+`}`), "allow", "", audit.DecisionAllowOnError},
		{"an MCP read nested past the depth limit", event("mcp__vsphere__list_vms", `{"x":`+deep+`}`), "ask", "ask", audit.DecisionAskOnError},
		{"no tool name at all", `{"tool_input":{"command":"sudo reboot"`, "allow", "", audit.DecisionAllowOnError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := filepath.Join(dir, "rewind.toml")
			if err := os.WriteFile(cfg, []byte("[hook]\non_error = \""+tt.onError+"\"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			code := Run(context.Background(), strings.NewReader(tt.in), &out, Options{Host: hostio.Claude, ConfigPath: cfg, Getenv: env(dir)})
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			got := out.String()
			switch {
			case tt.want == "" && strings.Contains(got, "permissionDecision\""):
				t.Errorf("stdout %s, want no decision", got)
			case tt.want != "" && !strings.Contains(got, `"permissionDecision":"`+tt.want+`"`):
				t.Errorf("stdout %s, want %s", got, tt.want)
			}
			if !strings.Contains(got, "malformed hook event") {
				t.Errorf("stdout %s, want the decoder's reason", got)
			}
			recs := logged(t, dir)
			if len(recs) != 1 || recs[0].Decision != tt.logged || !strings.Contains(recs[0].Error, "malformed hook event") {
				t.Errorf("logged %+v, want one %s record with the error", recs, tt.logged)
			}
		})
	}
}

// TestUnreadEventLarge: an event of 8 MiB nested all the way is read
// without a recursion, and decided.
func TestUnreadEventLarge(t *testing.T) {
	head := `{"hook_event_name":"PreToolUse","tool_name":"mcp__vsphere__power_off_vm","tool_input":{"x":`
	n := (hostio.MaxEventSize - len(head) - 2) / 2
	in := head + strings.Repeat("[", n) + strings.Repeat("]", n) + "}}"
	dir := t.TempDir()
	var out bytes.Buffer
	Run(context.Background(), strings.NewReader(in), &out, Options{Host: hostio.Claude, Getenv: env(dir)})
	if !strings.Contains(out.String(), `"permissionDecision":"ask"`) {
		t.Errorf("stdout %.300s, want ask", out.String())
	}
}
