package mcpserver

import (
	"strings"
	"testing"
)

// TestCheckEventShellTools: a command is checked as the shell tool's, or
// as the tool it names when that runs commands too (the host's PowerShell
// tool); another tool takes its input, not a command.
func TestCheckEventShellTools(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in       CheckInput
		wantTool string
		wantErr  string
	}{
		{CheckInput{Command: "ssh web-01 reboot"}, "Bash", ""},
		{CheckInput{Command: "Stop-VM -Name web-01", Tool: "PowerShell"}, "PowerShell", ""},
		{CheckInput{Command: "Stop-VM -Name web-01", Tool: "powershell"}, "powershell", ""},
		{CheckInput{Command: "ls", Tool: "mcp__vsphere__power_off_vm"}, "", "give either"},
		{CheckInput{}, "", "nothing to check"},
	} {
		ev, err := checkEvent(tt.in, t.TempDir())
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%+v: err %v, want %q", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%+v: %v", tt.in, err)
		case ev.ToolName != tt.wantTool || !strings.Contains(string(ev.ToolInput), `"command"`):
			t.Errorf("%+v: event %s %s", tt.in, ev.ToolName, ev.ToolInput)
		}
	}
}
