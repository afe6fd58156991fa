package testlab_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
)

func TestLab(t *testing.T) {
	t.Parallel()
	l := testlab.New(t, testlab.Options{Budget: "4s", Extra: "[capture]\nreuse_within = \"0s\"\n"})
	cfg, err := os.ReadFile(l.Vars["REWIND_CONFIG"])
	if err != nil {
		t.Fatal(err)
	}
	if want := "[hook]\nbudget = \"4s\"\n[capture]\nreuse_within = \"0s\"\n"; string(cfg) != want {
		t.Errorf("config %q, want %q", cfg, want)
	}
	if vpgs, err := l.Zerto(t).VPGs(t.Context()); err != nil || len(vpgs) != 1 {
		t.Fatalf("VPGs: %v, %v", vpgs, err)
	}

	out, _, code := l.Hook(testlab.BashEvent("toolu_01", "ssh web-01 uptime"))
	if code != 0 || out != "" || len(l.Records(t)) != 0 {
		t.Fatalf("read-only call: exit %d, stdout %q, %d records", code, out, len(l.Records(t)))
	}
	r := l.Protected(t, "toolu_02", "web-01")
	if r.Checkpoints[0].VPG != "fast" {
		t.Errorf("record %+v, want a checkpoint on VPG fast", r)
	}
	// The token the call got is cached in the lab's cache folder, found
	// through the lab's environment.
	if files, _ := filepath.Glob(filepath.Join(l.Getenv("XDG_CACHE_HOME"), "rewind", "zvm-tokens", "*.json")); len(files) != 1 {
		t.Errorf("token cache files %v, want one in the lab's cache folder", files)
	}
	if recs := l.Records(t); len(recs) != 1 || recs[0].ID != r.ID || recs[0].Decision != audit.DecisionProtected {
		t.Errorf("log %+v, want the protected call", recs)
	}
	// The token cache is the one the lab's environment names, not the
	// process's.
	if toks, _ := filepath.Glob(filepath.Join(l.Getenv("XDG_CACHE_HOME"), "rewind", "zvm-tokens", "*.json")); len(toks) != 1 {
		t.Errorf("token cache files %q, want one in the lab's cache folder", toks)
	}

	a := testlab.ParseAnswer(t, func() string {
		out, _, _ := l.Hook(testlab.BashEvent("toolu_03", "govc vm.destroy web-01"))
		return out
	}())
	if a.HookSpecificOutput.PermissionDecision != "deny" || !strings.Contains(a.HookSpecificOutput.PermissionDecisionReason, "destroy") {
		t.Errorf("answer %+v, want a deny of the destroy", a)
	}
}
