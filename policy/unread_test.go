package policy

import "testing"

// TestClassifyUnread judges calls by their tool names alone, as the hook
// does for an event whose input it could not read: a tool that could
// change a VM is asked (denied when every reading denies); a tool whose
// name says it cannot passes, to be answered under hook.on_error.
func TestClassifyUnread(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "[[server]]\nname = \"infra\"\n[[tool]]\nname = \"mcp__infra__get_*\"\neffect = \"none\"\n")
	tests := []struct {
		tools []string
		want  Effect
	}{
		{[]string{"Bash"}, Ask},
		{[]string{"PowerShell"}, Ask},
		{[]string{"exec_command"}, Ask},
		{[]string{"Read"}, None},
		{[]string{"Grep"}, None},
		// Write could write rewind's own config.
		{[]string{"Write"}, Ask},
		{[]string{"mcp__vsphere__power_off_vm"}, Ask},
		{[]string{"mcp__vsphere__delete_vm"}, Deny},
		{[]string{"mcp__proxmox__proxmox_delete_vm", "mcp__vsphere__delete_vm"}, Deny},
		{[]string{"mcp__vsphere__delete_vm", "Read"}, Ask},
		{[]string{"Read", "Bash"}, Ask},
		{[]string{"mcp__vsphere__get_vm"}, None},
		{[]string{"mcp__vsphere__list_snapshots"}, None},
		{[]string{"mcp__vsphere__create_snapshot"}, Ask},
		{[]string{"mcp__ssh-mcp__exec"}, Ask},
		{[]string{"mcp__aws-api__call_aws"}, Ask},
		// A tool whose name says it creates could create rewind's config.
		{[]string{"mcp__github__create_issue"}, Ask},
		{[]string{"mcp__github__get_issue"}, None},
		{[]string{"mcp__slack__post_message"}, None},
		// A guarded server's unlisted tool is asked; its listed read passes.
		{[]string{"mcp__infra__frobnicate"}, Ask},
		{[]string{"mcp__infra__get_status"}, None},
		// rewind's own tools: a restore only with mode test passes.
		{[]string{"mcp__rewind__zerto_rewind"}, Ask},
		{[]string{"mcp__rewind__zerto_list_vms"}, None},
		{[]string{"mcp__rewind__zerto_failover"}, Ask},
		// Terraform's action_run applies with one action and not another.
		{[]string{"mcp__terraform__action_run"}, Ask},
		{nil, None},
	}
	for _, tt := range tests {
		v := p.ClassifyUnread(tt.tools)
		if v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.tools, v.Effect, v.Rule, v.Reason, tt.want)
		}
		if v.Effect != None && (v.Reason == "" || v.Rule == "") {
			t.Errorf("%q: %s without a rule and reason", tt.tools, v.Effect)
		}
	}
}

// TestClassifyUnreadTightens: an untrusted project's rules count too.
func TestClassifyUnreadTightens(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	l.projectConfig("[[tool]]\nname = \"Read\"\npaths = [\"secrets/**\"]\neffect = \"deny\"\n")
	_, p := l.find()
	if v := p.ClassifyUnread([]string{"Read"}); v.Effect != Ask {
		t.Errorf("Read under a project rule on some paths: got %s, want ask", v.Effect)
	}
}
