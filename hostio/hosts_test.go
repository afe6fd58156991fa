package hostio

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/policy"
)

// hostDecodeTests are real-shaped events of each host besides Claude Code,
// and what rewind reads from them. They seed FuzzHostDecode.
var hostDecodeTests = []struct {
	name    string
	host    Host
	in      string
	servers []string // the config's [[server]] names, for ResolveServers
	want    *Event
	wantErr any
}{
	{
		name: "CodexBash", host: Codex,
		in:   `{"session_id":"0199a1","turn_id":"1","transcript_path":null,"cwd":"/home/u/infra","hook_event_name":"PreToolUse","model":"gpt-5-codex","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"govc vm.power -off web-01"},"tool_use_id":"call_1"}`,
		want: &Event{SessionID: "0199a1", Cwd: "/home/u/infra", PermissionMode: "default", HookEventName: preToolUse, ToolName: "Bash", ToolUseID: "call_1", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01"}`)},
	},
	{
		name: "CodexMCP", host: Codex,
		in:   `{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"mcp__vsphere__power_off_vm","tool_input":{"vm_name":"web-01"},"tool_use_id":"c2","transcript_path":"/t.jsonl"}`,
		want: &Event{SessionID: "s", Cwd: "/", TranscriptPath: "/t.jsonl", HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolUseID: "c2", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "CodexPostToolUse", host: Codex,
		in: `{"session_id":"s","turn_id":"1","cwd":"/","hook_event_name":"PostToolUse","model":"m","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"false"},"tool_response":{"output":"","exit_code":1},"tool_use_id":"call_9"}`,
		want: &Event{SessionID: "s", Cwd: "/", PermissionMode: "default", HookEventName: postToolUse, ToolName: "Bash", ToolUseID: "call_9", ToolInput: json.RawMessage(`{"command":"false"}`),
			Outcome: &Outcome{Ran: true, Failed: true, ExitCode: intp(1)}},
	},
	{
		name: "CodexPostToolUseNoExitCode", host: Codex,
		in:   `{"hook_event_name":"PostToolUse","tool_name":"mcp__vsphere__power_off_vm","tool_input":{},"tool_response":"done","tool_use_id":"c"}`,
		want: &Event{HookEventName: postToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolUseID: "c", ToolInput: json.RawMessage(`{}`), Outcome: &Outcome{Ran: true}},
	},
	{name: "CodexStop", host: Codex, in: `{"hook_event_name":"Stop"}`, wantErr: ErrNotPreToolUse},
	{name: "CodexCaseTwin", host: Codex, in: `{"hook_event_name":"PreToolUse","tool_name":"Read","Tool_Name":"Bash","tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "CodexDuplicate", host: Codex, in: `{"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{},"tool_name":"Bash"}`, wantErr: new(*MalformedError)},
	{
		name: "GeminiShell", host: Gemini,
		in:   `{"session_id":"g1","transcript_path":"/home/u/.gemini/tmp/chats/g1.json","cwd":"/home/u/infra","hook_event_name":"BeforeTool","timestamp":"2026-12-01T05:00:00.000Z","tool_name":"run_shell_command","tool_input":{"command":"govc vm.power -off web-01","description":"power off"}}`,
		want: &Event{SessionID: "g1", TranscriptPath: "/home/u/.gemini/tmp/chats/g1.json", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01","description":"power off"}`)},
	},
	{
		name: "GeminiWriteFile", host: Gemini,
		in:   `{"hook_event_name":"BeforeTool","cwd":"/p","tool_name":"write_file","tool_input":{"file_path":"/p/a.txt","content":"x"}}`,
		want: &Event{Cwd: "/p", HookEventName: preToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/p/a.txt","content":"x"}`)},
	},
	{
		name: "GeminiMCPContext", host: Gemini,
		in:   `{"hook_event_name":"BeforeTool","tool_name":"mcp_my_vc_power_off_vm","tool_input":{"vm_name":"web-01"},"mcp_context":{"server_name":"my_vc","tool_name":"power_off_vm","command":"npx"}}`,
		want: &Event{HookEventName: preToolUse, ToolName: "mcp__my_vc__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "GeminiMCPDoubleUnderscore", host: Gemini,
		in:   `{"hook_event_name":"BeforeTool","tool_name":"mcp__vsphere__power_off_vm","tool_input":{}}`,
		want: &Event{HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{}`)},
	},
	{
		name: "GeminiMCPConfiguredServer", host: Gemini, servers: []string{"my", "my_vc"},
		in:   `{"hook_event_name":"BeforeTool","tool_name":"mcp_my_vc_power_off_vm","tool_input":{}}`,
		want: &Event{HookEventName: preToolUse, ToolName: "mcp__my_vc__power_off_vm", ToolInput: json.RawMessage(`{}`)},
	},
	{
		name: "GeminiMCPUnconfigured", host: Gemini,
		in:   `{"hook_event_name":"BeforeTool","tool_name":"mcp_vsphere_power_off_vm","tool_input":{}}`,
		want: &Event{HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{}`)},
	},
	{name: "GeminiAfterTool", host: Gemini, in: `{"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{},"tool_response":{}}`, wantErr: ErrNotPreToolUse},
	{name: "GeminiPreToolUseIsNotItsEvent", host: Gemini, in: `{"hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{}}`, wantErr: ErrNotPreToolUse},
	{
		name: "CursorShell", host: Cursor,
		in:   `{"conversation_id":"c-1","generation_id":"g-1","hook_event_name":"beforeShellExecution","workspace_roots":["/home/u/infra"],"command":"govc vm.power -off web-01","cwd":""}`,
		want: &Event{SessionID: "c-1", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01"}`)},
	},
	{
		name: "CursorMCPObject", host: Cursor, servers: []string{"vsphere"},
		in:   `{"conversation_id":"c-1","generation_id":"g-2","hook_event_name":"beforeMCPExecution","workspace_roots":["/w"],"tool_name":"power_off_vm","tool_input":{"vm_name":"web-01"},"command":"/opt/mcp/bin/vsphere --stdio"}`,
		want: &Event{SessionID: "c-1", Cwd: "/w", HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "CursorMCPString", host: Cursor, servers: []string{"vc"},
		in:   `{"hook_event_name":"beforeMCPExecution","tool_name":"power_off_vm","tool_input":"{\"vm_name\":\"web-01\"}","url":"https://vcenter.lab/mcp"}`,
		want: &Event{HookEventName: preToolUse, ToolName: "mcp__unknown__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "CursorPreToolUseShell", host: Cursor,
		in:   `{"conversation_id":"c-1","generation_id":"g-1","model":"default","hook_event_name":"preToolUse","cursor_version":"3.9.16","workspace_roots":["/home/u/infra"],"user_email":null,"transcript_path":"/t/c-1.jsonl","tool_name":"Shell","tool_input":{"command":"govc vm.power -off web-01","cwd":"","timeout":30000},"tool_use_id":"d024a132-85b4","cwd":"","session_id":"c-1"}`,
		want: &Event{SessionID: "c-1", TranscriptPath: "/t/c-1.jsonl", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolUseID: "d024a132-85b4", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01","cwd":"","timeout":30000}`)},
	},
	{
		name: "CursorPreToolUseWrite", host: Cursor,
		in:   `{"conversation_id":"c-1","hook_event_name":"preToolUse","workspace_roots":["/p"],"tool_name":"Write","tool_input":{"file_path":"/p/.rewind.toml","content":"x"},"tool_use_id":"tool_1"}`,
		want: &Event{SessionID: "c-1", Cwd: "/p", HookEventName: preToolUse, ToolName: "Write", ToolUseID: "tool_1", ToolInput: json.RawMessage(`{"file_path":"/p/.rewind.toml","content":"x"}`)},
	},
	{
		name: "CursorPreToolUseMCP", host: Cursor, servers: []string{"vsphere"},
		in:   `{"hook_event_name":"preToolUse","tool_name":"MCP:power_off_vm","tool_input":"{\"vm_name\":\"web-01\"}","tool_use_id":"tool_2"}`,
		want: &Event{HookEventName: preToolUse, ToolName: "mcp__unknown__power_off_vm", ToolUseID: "tool_2", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "CursorPostToolUse", host: Cursor,
		in: `{"conversation_id":"c-1","hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"false"},"tool_output":"{\"output\":\"\",\"exitCode\":1}","tool_use_id":"u1","cwd":"","duration":728.221}`,
		want: &Event{SessionID: "c-1", HookEventName: postToolUse, ToolName: "Bash", ToolUseID: "u1", ToolInput: json.RawMessage(`{"command":"false"}`),
			Outcome: &Outcome{Ran: true, ExitCode: intp(1), Duration: 728221 * time.Microsecond, HasDuration: true}},
	},
	{
		name: "CursorPostToolUseFailureDenied", host: Cursor,
		in: `{"hook_event_name":"postToolUseFailure","tool_name":"Shell","tool_input":{"command":"x"},"tool_use_id":"u2","error_message":"rewind: no","failure_type":"permission_denied"}`,
		want: &Event{HookEventName: postToolUse, ToolName: "Bash", ToolUseID: "u2", ToolInput: json.RawMessage(`{"command":"x"}`),
			Outcome: &Outcome{Failed: true, Error: "rewind: no"}},
	},
	{name: "CursorPreToolUseNoTool", host: Cursor, in: `{"hook_event_name":"preToolUse","tool_input":{}}`, wantErr: new(*MalformedError)},
	{name: "CursorShellNoCommand", host: Cursor, in: `{"hook_event_name":"beforeShellExecution","cwd":"/"}`, wantErr: new(*MalformedError)},
	{name: "CursorReadFile", host: Cursor, in: `{"hook_event_name":"beforeReadFile","file_path":"/etc/passwd"}`, wantErr: ErrNotPreToolUse},
	{name: "CursorMCPStringNotObject", host: Cursor, in: `{"hook_event_name":"beforeMCPExecution","tool_name":"t","tool_input":"[1]"}`, wantErr: new(*MalformedError)},
	{
		name: "CopilotBashStringArgs", host: Copilot,
		in:   `{"timestamp":1764565200000,"cwd":"/home/u/infra","toolName":"bash","toolArgs":"{\"command\":\"govc vm.power -off web-01\",\"description\":\"power off\"}"}`,
		want: &Event{Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01","description":"power off"}`)},
	},
	{
		name: "CopilotObjectArgs", host: Copilot,
		in:   `{"timestamp":1764565200000,"cwd":"/","toolName":"view","toolArgs":{"path":"/etc/hosts"}}`,
		want: &Event{Cwd: "/", HookEventName: preToolUse, ToolName: "view", ToolInput: json.RawMessage(`{"path":"/etc/hosts"}`)},
	},
	{
		name: "CopilotPowerShell", host: Copilot,
		in:   `{"sessionId":"s-9","timestamp":1764565200000,"cwd":"C:\\infra","toolName":"powershell","toolArgs":"{\"command\":\"Stop-VM -Name web-01\"}"}`,
		want: &Event{SessionID: "s-9", Cwd: `C:\infra`, HookEventName: preToolUse, ToolName: "PowerShell", ToolInput: json.RawMessage(`{"command":"Stop-VM -Name web-01"}`)},
	},
	{name: "CopilotNoTool", host: Copilot, in: `{"timestamp":1,"cwd":"/","toolArgs":{}}`, wantErr: new(*MalformedError)},
	{name: "CopilotSnakeCase", host: Copilot, in: `{"toolName":"view","ToolName":"bash","toolArgs":{}}`, wantErr: new(*MalformedError)},
	{
		name: "AntigravityRunCommand", host: Antigravity,
		in:   `{"conversationId":"conv-1","stepIdx":7,"toolCall":{"name":"run_command","args":{"CommandLine":"govc vm.power -off web-01","Cwd":"/home/u/infra","SafeToAutoRun":false}},"transcriptPath":"/t.jsonl","workspacePaths":["/home/u"],"artifactDirectoryPath":"/a"}`,
		want: &Event{SessionID: "conv-1", TranscriptPath: "/t.jsonl", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01"}`)},
	},
	{
		name: "AntigravityOtherTool", host: Antigravity,
		in:   `{"conversationId":"c","stepIdx":1,"toolCall":{"name":"write_to_file","args":{"TargetFile":"/p/a.txt"}},"workspacePaths":["/p"]}`,
		want: &Event{SessionID: "c", Cwd: "/p", HookEventName: preToolUse, ToolName: "write_to_file", ToolInput: json.RawMessage(`{"TargetFile":"/p/a.txt"}`)},
	},
	{name: "AntigravityNoToolCall", host: Antigravity, in: `{"conversationId":"c","workspacePaths":["/p"]}`, wantErr: new(*MalformedError)},
	{name: "AntigravityNoCommandLine", host: Antigravity, in: `{"toolCall":{"name":"run_command","args":{"Cwd":"/"}}}`, wantErr: new(*MalformedError)},
	{name: "AntigravityCommandLineTwice", host: Antigravity, in: `{"toolCall":{"name":"run_command","args":{"CommandLine":"ls","commandLine":"reboot"}}}`, wantErr: new(*MalformedError)},
	{name: "AntigravityCamelCaseOnly", host: Antigravity, in: `{"tool_call":{"name":"run_command","args":{"CommandLine":"ls"}}}`, wantErr: new(*MalformedError)},
	{
		name: "OpenCodeBash", host: OpenCode,
		in:   `{"event":"tool.execute.before","tool":"bash","sessionID":"ses_1","callID":"call_1","args":{"command":"govc vm.power -off web-01","description":"power off"},"directory":"/home/u/infra"}`,
		want: &Event{SessionID: "ses_1", ToolUseID: "call_1", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01","description":"power off"}`)},
	},
	{
		name: "OpenCodeWrite", host: OpenCode,
		in:   `{"event":"tool.execute.before","tool":"write","sessionID":"s","callID":"c","args":{"filePath":"/p/.rewind.toml","content":"x"},"directory":"/p"}`,
		want: &Event{SessionID: "s", ToolUseID: "c", Cwd: "/p", HookEventName: preToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"content":"x","file_path":"/p/.rewind.toml"}`)},
	},
	{
		name: "OpenCodeMCP", host: OpenCode, servers: []string{"vsphere"},
		in:   `{"event":"tool.execute.before","tool":"vsphere_power_off_vm","sessionID":"s","callID":"c","args":{"vm_name":"web-01"}}`,
		want: &Event{SessionID: "s", ToolUseID: "c", HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "OpenCodeToolNoServer", host: OpenCode,
		in:   `{"event":"tool.execute.before","tool":"todo_write","sessionID":"s","callID":"c","args":{}}`,
		want: &Event{SessionID: "s", ToolUseID: "c", HookEventName: preToolUse, ToolName: "todo_write", ToolInput: json.RawMessage(`{}`)},
	},
	{
		name: "OpenCodeAfter", host: OpenCode,
		in: `{"event":"tool.execute.after","tool":"bash","sessionID":"s","callID":"c","args":{"command":"false"},"metadata":{"exit":1,"output":""},"durationMs":31}`,
		want: &Event{SessionID: "s", ToolUseID: "c", HookEventName: postToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"false"}`),
			Outcome: &Outcome{Ran: true, Failed: true, ExitCode: intp(1), Duration: 31 * time.Millisecond, HasDuration: true}},
	},
	{name: "OpenCodeNoTool", host: OpenCode, in: `{"event":"tool.execute.before","args":{}}`, wantErr: new(*MalformedError)},
	{name: "OpenCodeOtherEvent", host: OpenCode, in: `{"event":"session.idle","tool":"bash"}`, wantErr: ErrNotPreToolUse},
	{
		name: "KiroShell", host: Kiro,
		in:   `{"hook_event_name":"preToolUse","cwd":"/home/u/infra","tool_name":"execute_bash","tool_input":{"command":"govc vm.power -off web-01","summary":"power off"}}`,
		want: &Event{Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01","summary":"power off"}`)},
	},
	{
		name: "KiroMCP", host: Kiro,
		in:   `{"hook_event_name":"PreToolUse","session_id":"k1","cwd":"/","tool_name":"@vsphere/power_off_vm","tool_input":{"vm_name":"web-01"}}`,
		want: &Event{SessionID: "k1", Cwd: "/", HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{name: "KiroPostToolUse", host: Kiro, in: `{"hook_event_name":"postToolUse","tool_name":"shell","tool_input":{},"tool_response":{}}`, wantErr: ErrNotPreToolUse},
	{
		name: "WindsurfCommand", host: Windsurf,
		in:   `{"agent_action_name":"pre_run_command","trajectory_id":"traj-1","execution_id":"exec-1","timestamp":"2026-12-01T10:00:00Z","model_name":"m","tool_info":{"command_line":"govc vm.power -off web-01","cwd":"/home/u/infra"}}`,
		want: &Event{SessionID: "traj-1", ToolUseID: "exec-1", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01"}`)},
	},
	{
		name: "WindsurfMCP", host: Windsurf,
		in:   `{"agent_action_name":"pre_mcp_tool_use","trajectory_id":"t","tool_info":{"mcp_server_name":"vsphere","mcp_tool_name":"power_off_vm","mcp_tool_arguments":{"vm_name":"web-01"}}}`,
		want: &Event{SessionID: "t", HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "WindsurfWrite", host: Windsurf,
		in:   `{"agent_action_name":"pre_write_code","tool_info":{"file_path":"/p/.rewind.toml","edits":[{"old_string":"","new_string":"x"}]}}`,
		want: &Event{HookEventName: preToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":"/p/.rewind.toml","edits":[{"old_string":"","new_string":"x"}]}`)},
	},
	{name: "WindsurfPostCommand", host: Windsurf, in: `{"agent_action_name":"post_run_command","tool_info":{"command_line":"ls","cwd":"/"}}`, wantErr: ErrNotPreToolUse},
	{name: "WindsurfNoCommandLine", host: Windsurf, in: `{"agent_action_name":"pre_run_command","tool_info":{"command":"ls"}}`, wantErr: new(*MalformedError)},
	{name: "WindsurfCommandLineTwice", host: Windsurf, in: `{"agent_action_name":"pre_run_command","tool_info":{"command_line":"ls","Command_Line":"reboot"}}`, wantErr: new(*MalformedError)},
	{
		name: "ClineCommand", host: Cline,
		in:   `{"clineVersion":"3.60.0","hookName":"PreToolUse","timestamp":"1764565200000","taskId":"task-1","workspaceRoots":["/home/u/infra"],"userId":"u","preToolUse":{"toolName":"execute_command","parameters":{"command":"govc vm.power -off web-01","requires_approval":"true"}}}`,
		want: &Event{SessionID: "task-1", Cwd: "/home/u/infra", HookEventName: preToolUse, ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"govc vm.power -off web-01"}`)},
	},
	{
		name: "ClineMCP", host: Cline,
		in:   `{"hookName":"PreToolUse","taskId":"t","workspaceRoots":["/p"],"preToolUse":{"toolName":"use_mcp_tool","parameters":{"server_name":"vsphere","tool_name":"power_off_vm","arguments":"{\"vm_name\":\"web-01\"}"}}}`,
		want: &Event{SessionID: "t", Cwd: "/p", HookEventName: preToolUse, ToolName: "mcp__vsphere__power_off_vm", ToolInput: json.RawMessage(`{"vm_name":"web-01"}`)},
	},
	{
		name: "ClineWrite", host: Cline,
		in:   `{"hookName":"PreToolUse","preToolUse":{"toolName":"write_to_file","parameters":{"path":".rewind.toml","content":"x"}}}`,
		want: &Event{HookEventName: preToolUse, ToolName: "Write", ToolInput: json.RawMessage(`{"file_path":".rewind.toml"}`)},
	},
	{name: "ClinePostToolUse", host: Cline, in: `{"hookName":"PostToolUse","postToolUse":{"toolName":"execute_command"}}`, wantErr: ErrNotPreToolUse},
	{name: "ClineNoTool", host: Cline, in: `{"hookName":"PreToolUse","preToolUse":{"parameters":{}}}`, wantErr: new(*MalformedError)},
}

func TestHostDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range hostDecodeTests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(strings.NewReader(tt.in), tt.host)
			if tt.wantErr != nil {
				if got != nil {
					t.Errorf("Decode returned an event %+v with an error", got)
				}
				checkErr(t, err, tt.wantErr)
				checkErrMessage(t, err)
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			cfg := policy.Default()
			for _, s := range tt.servers {
				cfg.Servers = append(cfg.Servers, policy.ServerRule{Name: s})
			}
			got.ResolveServers(cfg)
			got.mcp = nil
			if got.ToolName != tt.want.ToolName || got.SessionID != tt.want.SessionID || got.Cwd != tt.want.Cwd ||
				got.TranscriptPath != tt.want.TranscriptPath || got.ToolUseID != tt.want.ToolUseID ||
				got.PermissionMode != tt.want.PermissionMode || got.HookEventName != tt.want.HookEventName ||
				string(got.ToolInput) != string(tt.want.ToolInput) || !reflect.DeepEqual(got.Outcome, tt.want.Outcome) {
				t.Errorf("Decode:\n got %+v (input %s)\nwant %+v (input %s)", got, got.ToolInput, tt.want, tt.want.ToolInput)
			}
		})
	}
}

// TestResolveServersLeavesOthers checks that the config's servers do not
// rename a tool whose host named its server exactly.
func TestResolveServersLeavesOthers(t *testing.T) {
	t.Parallel()
	cfg := policy.Default()
	cfg.Servers = []policy.ServerRule{{Name: "v"}}
	ev, err := Decode(strings.NewReader(`{"hook_event_name":"PreToolUse","tool_name":"mcp__vsphere_x__power_off_vm","tool_input":{}}`), Claude)
	if err != nil {
		t.Fatal(err)
	}
	ev.ResolveServers(cfg)
	if ev.ToolName != "mcp__vsphere_x__power_off_vm" {
		t.Errorf("tool renamed to %q", ev.ToolName)
	}
}

func TestCursorServerMention(t *testing.T) {
	t.Parallel()
	tests := []struct {
		hint, server string
		want         bool
	}{
		{"npx -y @acme/vsphere-mcp", "vsphere", false},
		{"npx -y @acme/vsphere-mcp", "vsphere-mcp", true},
		{"/opt/mcp/vsphere --port 1", "vsphere", true},
		{"https://vcenter.lab/mcp", "vc", false},
		{"https://mcp.lab/vc", "vc", true},
		{"vc", "vc", true},
		{"anything", "", false},
	}
	for _, tt := range tests {
		m := &mcpTool{tool: "t", hints: []string{tt.hint}}
		if got := m.mentions(tt.server); got != tt.want {
			t.Errorf("mentions(%q in %q) = %v, want %v", tt.server, tt.hint, got, tt.want)
		}
	}
}

// hostEncodeTests are the decisions rewind makes, in each host's protocol.
var hostEncodeTests = []struct {
	name string
	host Host
	d    Decision
	want string
}{
	{"CodexNone", Codex, Decision{}, ``},
	{"CodexProtected", Codex, Decision{Context: "checkpoint c1"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"checkpoint c1"}}`},
	{"CodexDeny", Codex, Decision{Permission: Deny, Reason: "rewind: no"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rewind: no"}}`},
	{"CodexDenyNoReason", Codex, Decision{Permission: Deny}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rewind: denied"}}`},
	{"CodexAskIsDeny", Codex, Decision{Permission: Ask, Reason: "rewind: unknown VM"}, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rewind: unknown VM [Codex cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]"}}`},
	{"CodexAllowIsNoOpinion", Codex, Decision{Permission: Allow}, ``},
	{"CodexWarning", Codex, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"systemMessage":"rewind: ZVM unreachable"}`},
	{"GeminiNone", Gemini, Decision{}, `{}`},
	{"GeminiProtected", Gemini, Decision{Context: "checkpoint c1"}, `{"hookSpecificOutput":{"hookEventName":"BeforeTool","additionalContext":"checkpoint c1"}}`},
	{"GeminiDeny", Gemini, Decision{Permission: Deny, Reason: "rewind: no"}, `{"decision":"deny","reason":"rewind: no"}`},
	{"GeminiAskIsDeny", Gemini, Decision{Permission: Ask, Reason: "r"}, `{"decision":"deny","reason":"r [Gemini CLI cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]"}`},
	{"GeminiWarning", Gemini, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"systemMessage":"rewind: ZVM unreachable"}`},
	{"CursorNone", Cursor, Decision{}, `{}`},
	{"CursorProtected", Cursor, Decision{Context: "checkpoint c1"}, `{"agent_message":"checkpoint c1"}`},
	{"CursorDeny", Cursor, Decision{Permission: Deny, Reason: "rewind: no"}, `{"permission":"deny","user_message":"rewind: no","agent_message":"rewind: no"}`},
	{"CursorAskIsDeny", Cursor, Decision{Permission: Ask, Reason: "rewind: unknown VM"}, `{"permission":"deny","user_message":"rewind: unknown VM [Cursor cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]","agent_message":"rewind: unknown VM [Cursor cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]"}`},
	{"CursorWarning", Cursor, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"user_message":"rewind: ZVM unreachable"}`},
	{"CopilotNone", Copilot, Decision{}, ``},
	{"CopilotProtected", Copilot, Decision{Context: "checkpoint c1"}, `{"additionalContext":"checkpoint c1"}`},
	{"CopilotDeny", Copilot, Decision{Permission: Deny, Reason: "rewind: no"}, `{"permissionDecision":"deny","permissionDecisionReason":"rewind: no"}`},
	{"CopilotAsk", Copilot, Decision{Permission: Ask, Reason: "rewind: unknown VM"}, `{"permissionDecision":"ask","permissionDecisionReason":"rewind: unknown VM"}`},
	{"CopilotWarning", Copilot, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"additionalContext":"rewind: ZVM unreachable"}`},
	// Antigravity CLI refuses a call whose hook gives no decision.
	{"AntigravityNone", Antigravity, Decision{}, `{"decision":"allow"}`},
	{"AntigravityProtected", Antigravity, Decision{Context: "checkpoint c1"}, `{"decision":"allow","reason":"checkpoint c1"}`},
	{"AntigravityDeny", Antigravity, Decision{Permission: Deny, Reason: "rewind: no"}, `{"decision":"deny","reason":"rewind: no"}`},
	{"AntigravityAsk", Antigravity, Decision{Permission: Ask, Reason: "rewind: unknown VM"}, `{"decision":"force_ask","reason":"rewind: unknown VM"}`},
	{"AntigravityWarning", Antigravity, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"decision":"allow","reason":"rewind: ZVM unreachable"}`},
	{"OpenCodeNone", OpenCode, Decision{}, `{}`},
	{"OpenCodeProtected", OpenCode, Decision{Context: "checkpoint c1"}, `{}`},
	{"OpenCodeDeny", OpenCode, Decision{Permission: Deny, Reason: "rewind: no"}, `{"block":true,"reason":"rewind: no"}`},
	{"OpenCodeAskIsBlock", OpenCode, Decision{Permission: Ask, Reason: "r"}, `{"block":true,"reason":"r [OpenCode cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]"}`},
	{"ClineNone", Cline, Decision{}, `{"cancel":false}`},
	{"ClineProtected", Cline, Decision{Context: "checkpoint c1"}, `{"cancel":false,"contextModification":"checkpoint c1"}`},
	{"ClineDeny", Cline, Decision{Permission: Deny, Reason: "rewind: no"}, `{"cancel":true,"errorMessage":"rewind: no"}`},
	{"ClineAskIsCancel", Cline, Decision{Permission: Ask, Reason: "r"}, `{"cancel":true,"errorMessage":"r [Cline cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]"}`},
}

// exitCodeTests are the answers of the hosts that read an exit code.
var exitCodeTests = []struct {
	name           string
	host           Host
	d              Decision
	stdout, stderr string
	code           int
}{
	{"KiroNone", Kiro, Decision{}, "", "", 0},
	{"KiroProtected", Kiro, Decision{Context: "checkpoint c1"}, "checkpoint c1\n", "", 0},
	{"KiroDeny", Kiro, Decision{Permission: Deny, Reason: "rewind: no"}, "", "rewind: no\n", 2},
	{"KiroAsk", Kiro, Decision{Permission: Ask, Reason: "r"}, "", "r [Kiro CLI cannot ask for approval, so rewind refused the call: a person must approve it. Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]\n", 2},
	{"WindsurfNone", Windsurf, Decision{}, "", "", 0},
	{"WindsurfDeny", Windsurf, Decision{Permission: Deny, Reason: "rewind: no", SystemMessage: "rewind: config error"}, "", "rewind: no\n\nrewind: config error\n", 2},
	{"WindsurfWarning", Windsurf, Decision{SystemMessage: "rewind: ZVM unreachable"}, "rewind: ZVM unreachable\n", "", 0},
}

func TestExitCodeHosts(t *testing.T) {
	t.Parallel()
	for _, tt := range exitCodeTests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Respond(tt.host, nil, tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if string(r.Stdout) != tt.stdout || string(r.Stderr) != tt.stderr || r.Code != tt.code {
				t.Errorf("Respond = stdout %q, stderr %q, code %d; want %q, %q, %d", r.Stdout, r.Stderr, r.Code, tt.stdout, tt.stderr, tt.code)
			}
		})
	}
}

// TestCursorAnswerFollowsEvent checks that Cursor's older events, which
// enforce "ask", still get one, and that no event gets an answer about a
// call that has run.
func TestCursorAnswerFollowsEvent(t *testing.T) {
	t.Parallel()
	d := Decision{Permission: Ask, Reason: "r"}
	for _, tt := range []struct{ in, want string }{
		{`{"hook_event_name":"beforeShellExecution","command":"x"}`, `{"permission":"ask","user_message":"r","agent_message":"r"}` + "\n"},
		{`{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{"command":"x"}}`, `{"permission":"deny",`},
		{`{"hook_event_name":"postToolUse","tool_name":"Shell","tool_input":{"command":"x"},"tool_output":"{}"}`, ``},
	} {
		ev, err := Decode(strings.NewReader(tt.in), Cursor)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Respond(Cursor, ev, d)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(r.Stdout), tt.want) || tt.want == "" && len(r.Stdout) > 0 {
			t.Errorf("answer to %s = %q, want %q", tt.in, r.Stdout, tt.want)
		}
	}
}

func TestHostEncode(t *testing.T) {
	t.Parallel()
	for _, tt := range hostEncodeTests {
		t.Run(tt.name, func(t *testing.T) {
			w := &countingWriter{}
			if err := Encode(w, tt.host, tt.d); err != nil {
				t.Fatalf("Encode: %v", err)
			}
			want := tt.want
			if want != "" {
				want += "\n"
			}
			if got := w.buf.String(); got != want {
				t.Errorf("Encode:\n got %s\nwant %s", got, want)
			}
			if want != "" && w.writes != 1 {
				t.Errorf("Encode made %d writes, want 1", w.writes)
			}
		})
	}
}

// FuzzHostDecode feeds arbitrary bytes to every host's Decode and checks
// that it returns a well-formed event or a documented error, and that the
// decision encodes to nothing or one JSON object.
func FuzzHostDecode(f *testing.F) {
	for _, tt := range hostDecodeTests {
		f.Add(tt.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, h := range Hosts {
			ev, err := Decode(strings.NewReader(in), h)
			if err != nil {
				var me *MalformedError
				if !errors.Is(err, ErrTooLarge) && !errors.Is(err, ErrNotPreToolUse) && !errors.As(err, &me) {
					t.Fatalf("%s: undocumented error %T: %v", h, err, err)
				}
				if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || len(msg) > 200 {
					t.Fatalf("%s: error message is not one short line: %q", h, msg)
				}
				continue
			}
			cfg := policy.Default()
			cfg.Servers = []policy.ServerRule{{Name: "a_b"}, {Name: "vc"}}
			ev.ResolveServers(cfg)
			if ev.ToolName == "" || !json.Valid(ev.ToolInput) || bytes.TrimSpace(ev.ToolInput)[0] != '{' {
				t.Fatalf("%s: decoded event lacks a tool or an object input: %+v", h, ev)
			}
			d := Decision{Permission: Ask, Reason: ev.ToolName, Context: string(ev.ToolInput)}
			r, err := Respond(h, ev, d)
			if err != nil {
				t.Fatalf("%s: Respond: %v", h, err)
			}
			switch {
			case ev.Outcome != nil:
				if len(r.Stdout)+len(r.Stderr) > 0 || r.Code != 0 {
					t.Fatalf("%s: a post-tool event got an answer: %+v", h, r)
				}
			case h == Kiro || h == Windsurf:
				if r.Code != Blocking || len(r.Stderr) == 0 || len(r.Stdout) > 0 {
					t.Fatalf("%s: an ask is not refused by exit code: %+v", h, r)
				}
			case !json.Valid(r.Stdout):
				t.Fatalf("%s: output is not JSON: %q", h, r.Stdout)
			}
		}
	})
}
