package shapes

import "strings"

// MCPShape is a call of an MCP tool whose input, JSON, grows to a size by
// repeating a unit: a list of command lines, a script, a notebook cell,
// keys typed into a terminal. The policy's tests and bench/hooklimits
// build the inputs of MCP tools that wear the policy down here.
type MCPShape struct {
	// Name names the shape in benchmark output.
	Name string
	// Tool is the tool's name, mcp__SERVER__TOOL.
	Tool string
	// prefix and suffix enclose the repetitions of unit in the input.
	prefix, unit, suffix string
}

// MCP lists the shapes of MCP tool calls. Those that end or start with a
// destroy must still have it found.
var MCP = []MCPShape{
	{Name: "mcp-command-list", Tool: "mcp__ssh__exec", prefix: `{"host":"web-01","commands":[`, unit: `"a",`, suffix: `"a"]}`},
	{Name: "mcp-destroy-then-command-list", Tool: "mcp__ssh__exec", prefix: `{"host":"web-01","commands":["govc vm.destroy web-02",`, unit: `"a",`, suffix: `"a"]}`},
	{Name: "mcp-script", Tool: "mcp__ssh__exec", prefix: `{"host":"web-01","command":"govc vm.destroy web-02\n`, unit: `uptime\n`, suffix: `uptime"}`},
	{Name: "mcp-command-keys", Tool: "mcp__ssh__exec", prefix: `{"host":"web-01","cmd":"uptime","script":"uptime","args":"x","command":"`, unit: `uptime;`, suffix: `uptime"}`},
	{Name: "mcp-argv", Tool: "mcp__gcloud__run_gcloud_command", prefix: `{"args":["compute","instances","list"`, unit: `,"x"`, suffix: `]}`},
	{Name: "mcp-cell", Tool: "mcp__jupyter__execute_code", prefix: `{"code":"`, unit: `!ls\nx = os.system\n`, suffix: `!ssh web-01 reboot"}`},
	{Name: "mcp-cell-lines", Tool: "mcp__jupyter__insert_execute_code_cell", prefix: `{"cell_index":0,"cell_source":[`, unit: `"!ls\n",`, suffix: `"x"]}`},
	{Name: "mcp-unknown-language", Tool: "mcp__sandbox__execute_code", prefix: `{"code":"`, unit: `os.system(`, suffix: `"}`},
	{Name: "mcp-typed-keys", Tool: "mcp__tmux__send_keys", prefix: `{"pane":"%1","keys":[`, unit: `"ls","Enter",`, suffix: `"ls"]}`},
	{Name: "mcp-dispatched", Tool: "mcp__azure__compute", prefix: `{"command":"compute_vm_delete","parameters":{"vm-name":"web-01","x":"`, unit: `a`, suffix: `"}}`},
	{Name: "mcp-vm-names", Tool: "mcp__vsphere__power_off_vm", prefix: `{"vm_name":"`, unit: `web-01,`, suffix: `web-01"}`},
}

// Make returns the shape's input grown to about size bytes, never more.
func (s MCPShape) Make(size int) string {
	return s.Repeat(max((size-len(s.prefix)-len(s.suffix))/len(s.unit), 0))
}

// Repeat returns the shape's input with n units.
func (s MCPShape) Repeat(n int) string {
	var b strings.Builder
	b.Grow(len(s.prefix) + n*len(s.unit) + len(s.suffix))
	b.WriteString(s.prefix)
	for range n {
		b.WriteString(s.unit)
	}
	b.WriteString(s.suffix)
	return b.String()
}
