package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/zvmsim"
)

// TestFixHints: a failure the person can fix says what to set; Zerto's own
// refusal is answered in Zerto's words alone.
func TestFixHints(t *testing.T) {
	t.Run("untrusted certificate names ca_file", func(t *testing.T) {
		e := newEnv(t, "20s", "")
		sc, err := zvmsim.LoadScenario("testdata/lab.toml")
		if err != nil {
			t.Fatal(err)
		}
		tlsSim := zvmsim.NewTLSTestServer(t, sc)
		e.Vars["REWIND_ZVM_URL"] = tlsSim.URL
		a, _ := e.run(t, "tls1", "govc vm.power -off -vm web-01")
		r := a.HookSpecificOutput.PermissionDecisionReason
		if a.HookSpecificOutput.PermissionDecision != "deny" || !strings.Contains(r, "Fix: trust the ZVM's certificate with ca_file") {
			t.Fatalf("untrusted certificate: %q %q", a.HookSpecificOutput.PermissionDecision, r)
		}
		// With the CA trusted the same call is protected.
		ca := filepath.Join(e.Dir, "zvm-ca.pem")
		if err := os.WriteFile(ca, tlsSim.CAPEM, 0o600); err != nil {
			t.Fatal(err)
		}
		e.Vars["REWIND_ZVM_CA_FILE"] = ca
		a, _ = e.run(t, "tls2", "govc vm.power -off -vm web-01")
		if a.HookSpecificOutput.PermissionDecision != "" || !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
			t.Fatalf("with ca_file: %+v", a.HookSpecificOutput)
		}
	})
	t.Run("refused credentials name the variables", func(t *testing.T) {
		e := newEnv(t, "20s", "")
		e.Vars["REWIND_ZVM_CLIENT_SECRET"] = "wrong"
		a, _ := e.run(t, "cred", "govc vm.power -off -vm web-01")
		if r := a.HookSpecificOutput.PermissionDecisionReason; !strings.Contains(r, "Fix: check the ZVM credentials: REWIND_ZVM_CLIENT_ID") {
			t.Fatalf("refused credentials: %q", r)
		}
	})
	t.Run("Zerto's refusal has no hint", func(t *testing.T) {
		e := newEnv(t, "20s", "")
		a, _ := e.run(t, "rej", "govc vm.power -off -vm rej-01")
		r := a.HookSpecificOutput.PermissionDecisionReason
		if !strings.HasSuffix(r, "The checkpoint name is not valid.") || strings.Contains(r, "Fix:") {
			t.Fatalf("Zerto's refusal: %q", r)
		}
	})
}

// TestAuditRecordsMappedVMs: the audit record names the Zerto VM a target
// stands for when the config maps it to another name, and only then.
func TestAuditRecordsMappedVMs(t *testing.T) {
	e := newEnv(t, "20s", "[targets.aliases]\n\"10.0.0.5\" = \"web-01\"\n")
	a, _ := e.run(t, "alias", "ssh ops@10.0.0.5 sudo systemctl restart nginx")
	if !strings.Contains(a.HookSpecificOutput.AdditionalContext, "protects web-01") {
		t.Fatalf("aliased target: %+v", a.HookSpecificOutput)
	}
	e.run(t, "plain", "ssh nosuch-vm sudo reboot")
	recs := e.Records(t)
	byID := map[string]audit.Record{}
	for _, r := range recs {
		byID[r.ToolUseID] = r
	}
	if r := byID["alias"]; !slices.Equal(r.Targets, []string{"10.0.0.5"}) || !slices.Equal(r.VMs, []string{"web-01"}) {
		t.Errorf("aliased record: targets %q, vms %q", r.Targets, r.VMs)
	}
	if r := byID["plain"]; !slices.Equal(r.Targets, []string{"nosuch-vm"}) || r.VMs != nil {
		t.Errorf("plain record: targets %q, vms %q", r.Targets, r.VMs)
	}
}
