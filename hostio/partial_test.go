package hostio

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestPartial checks what Decode still reads of each shape of event it
// refuses: the tool names (every one a reader could take) and the cwd.
func TestPartial(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`{"a":`, 10001) + `1` + strings.Repeat(`}`, 10001)
	tests := []struct {
		name  string
		host  Host
		in    string
		tools []string // nil: no Partial
		cwd   string
	}{
		{"an input past the decoder's depth limit", Claude,
			`{"hook_event_name":"PreToolUse","tool_name":"mcp__vsphere__power_off_vm","cwd":"/p","tool_input":{"vm_name":"web-01","x":` + deep + `}}`,
			[]string{"mcp__vsphere__power_off_vm"}, "/p"},
		{"truncated", Claude, `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ssh web-01 sudo reb`, []string{"Bash"}, ""},
		{"a key twice", Claude, `{"tool_name":"Read","tool_name":"Bash","tool_input":{}}`, []string{"Bash", "Read"}, ""},
		{"a key in two cases", Claude, `{"tool_name":"Read","Tool_Name":"Bash","tool_input":{}}`, []string{"Bash", "Read"}, ""},
		{"a field of the wrong type", Claude, `{"session_id":7,"tool_name":"Bash","tool_input":{"command":"ls"}}`, []string{"Bash"}, ""},
		{"a huge number for a string", Claude, `{"cwd":1e999999,"tool_name":"Write","tool_input":{}}`, []string{"Write"}, ""},
		{"tool_input not an object", Claude, `{"tool_name":"Bash","tool_input":"sudo reboot"}`, []string{"Bash"}, ""},
		{"a tool name of the wrong type", Claude, `{"tool_name":["Bash"],"tool_input":{}}`, nil, ""},
		{"no tool name", Claude, `{"tool_input":{"command":"ls"`, nil, ""},
		{"not JSON", Claude, `tool_name=Bash`, nil, ""},
		{"Copilot's toolName and its shell", Copilot, `{"cwd":"/p","toolName":"bash","toolArgs":"{"}`, []string{"Bash"}, "/p"},
		{"Gemini's shell and MCP context", Gemini,
			`{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","mcp_context":{"server_name":"ssh","tool_name":"exec"},"tool_input":` + deep + `}`,
			[]string{"Bash", "mcp__ssh__exec"}, ""},
		{"Gemini's single-underscore MCP name", Gemini, `{"hook_event_name":"BeforeTool","tool_name":"mcp_vsphere_delete_vm","tool_input":` + deep + `}`, []string{"mcp__vsphere__delete_vm"}, ""},
		{"Cursor's shell event", Cursor, `{"hook_event_name":"beforeShellExecution","command":7,"cwd":"/p"}`, []string{"Bash"}, "/p"},
		{"Cursor's MCP event", Cursor, `{"hook_event_name":"beforeMCPExecution","tool_name":"power_off_vm","tool_input":` + deep + `}`, []string{"mcp__unknown__power_off_vm"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(strings.NewReader(tt.in), tt.host)
			var me *MalformedError
			if !errors.As(err, &me) {
				t.Fatalf("Decode: %v, want a malformed event", err)
			}
			if tt.tools == nil {
				if me.Partial != nil {
					t.Errorf("partial %+v, want none", me.Partial)
				}
				return
			}
			if me.Partial == nil || !reflect.DeepEqual(me.Partial.Tools, tt.tools) || me.Partial.Cwd != tt.cwd {
				t.Errorf("partial %+v, want tools %q and cwd %q", me.Partial, tt.tools, tt.cwd)
			}
			if strings.Contains(me.Error(), "web-01") {
				t.Errorf("the error quotes the event: %v", me)
			}
		})
	}
}

// TestPartialInvalidUTF8 pins down invalid UTF-8, which encoding/json
// does not refuse: the event is decoded, its bytes become U+FFFD.
func TestPartialInvalidUTF8(t *testing.T) {
	t.Parallel()
	ev, err := Decode(strings.NewReader("{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ssh web-01 re\xffboot\"}}"), Claude)
	if err != nil {
		t.Fatal(err)
	}
	if ev.ToolName != "Bash" {
		t.Errorf("tool %q", ev.ToolName)
	}
	// With a key twice as well, the decoder refuses it, and the names are read.
	_, err = Decode(strings.NewReader("{\"tool_name\":\"B\xffash\",\"tool_name\":\"Read\",\"tool_input\":{}}"), Claude)
	var me *MalformedError
	if !errors.As(err, &me) || me.Partial == nil || !reflect.DeepEqual(me.Partial.Tools, []string{"B\uFFFDash", "Read"}) {
		t.Errorf("got %v %+v", err, me)
	}
}
