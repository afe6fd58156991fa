package demo

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
)

// TestAfterSeesTheLab: Options.After runs while the demo's simulator and
// log are still there, with a recovery service over them, and the folder
// goes once it returns.
func TestAfterSeesTheLab(t *testing.T) {
	tmp := t.TempDir()
	var out bytes.Buffer
	called := false
	err := Run(context.Background(), Options{Out: &out, TempDir: tmp, After: func(ctx context.Context, svc *recovery.Service) error {
		called = true
		recs, err := svc.Log.Read(audit.Filter{})
		if err != nil || len(recs) == 0 {
			t.Errorf("the demo's log: %d records, %v", len(recs), err)
		}
		if _, err := svc.Z.VPGs(ctx); err != nil {
			t.Errorf("the demo's simulator: %v", err)
		}
		if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
			t.Errorf("the demo's folder is gone before After returned: %v", entries)
		}
		return nil
	}})
	if err != nil || !called {
		t.Fatalf("Run = %v, After called %v\n%s", err, called, out.String())
	}
	if !strings.Contains(out.String(), "removed when you stop the page") {
		t.Errorf("the footer does not say the folder stays while the page runs:\n%s", out.String())
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("temporary folder not removed: %v", entries)
	}
}
