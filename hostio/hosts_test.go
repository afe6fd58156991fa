package hostio

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

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
	{name: "CodexPostToolUse", host: Codex, in: `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{}}`, wantErr: ErrNotPreToolUse},
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
	{name: "CopilotNoTool", host: Copilot, in: `{"timestamp":1,"cwd":"/","toolArgs":{}}`, wantErr: new(*MalformedError)},
	{name: "CopilotSnakeCase", host: Copilot, in: `{"toolName":"view","ToolName":"bash","toolArgs":{}}`, wantErr: new(*MalformedError)},
}

func TestHostDecode(t *testing.T) {
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
				string(got.ToolInput) != string(tt.want.ToolInput) {
				t.Errorf("Decode:\n got %+v (input %s)\nwant %+v (input %s)", got, got.ToolInput, tt.want, tt.want.ToolInput)
			}
		})
	}
}

// TestResolveServersLeavesOthers checks that the config's servers do not
// rename a tool whose host named its server exactly.
func TestResolveServersLeavesOthers(t *testing.T) {
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
	{"CursorAsk", Cursor, Decision{Permission: Ask, Reason: "rewind: unknown VM"}, `{"permission":"ask","user_message":"rewind: unknown VM","agent_message":"rewind: unknown VM"}`},
	{"CursorWarning", Cursor, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"user_message":"rewind: ZVM unreachable"}`},
	{"CopilotNone", Copilot, Decision{}, ``},
	{"CopilotProtected", Copilot, Decision{Context: "checkpoint c1"}, `{"additionalContext":"checkpoint c1"}`},
	{"CopilotDeny", Copilot, Decision{Permission: Deny, Reason: "rewind: no"}, `{"permissionDecision":"deny","permissionDecisionReason":"rewind: no"}`},
	{"CopilotAsk", Copilot, Decision{Permission: Ask, Reason: "rewind: unknown VM"}, `{"permissionDecision":"ask","permissionDecisionReason":"rewind: unknown VM"}`},
	{"CopilotWarning", Copilot, Decision{SystemMessage: "rewind: ZVM unreachable"}, `{"additionalContext":"rewind: ZVM unreachable"}`},
}

func TestHostEncode(t *testing.T) {
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
			var buf bytes.Buffer
			d := Decision{Permission: Ask, Reason: ev.ToolName, Context: string(ev.ToolInput)}
			if err := Encode(&buf, h, d); err != nil {
				t.Fatalf("%s: Encode: %v", h, err)
			}
			if !json.Valid(buf.Bytes()) {
				t.Fatalf("%s: output is not JSON: %q", h, buf.Bytes())
			}
		}
	})
}
