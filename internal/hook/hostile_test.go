package hook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/hostio"
)

// TestNamedConfigBudgetBoundsStdin: a host that never closes stdin is
// answered at the budget of the config --config or $REWIND_CONFIG names,
// not the default one, although the event (and so the project) is never
// read.
func TestNamedConfigBudgetBoundsStdin(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, []byte("[hook]\nbudget = \"1s\"\non_error = \"deny\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		flag string
		env  string
	}{
		{"--config", cfg, ""},
		{"REWIND_CONFIG", "", cfg},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdin := endlessStdin{done: make(chan struct{})}
			defer close(stdin.done)
			var out bytes.Buffer
			Run(context.Background(), stdin, &out, Options{
				Host:       hostio.Claude,
				ConfigPath: tt.flag,
				Getenv: func(k string) string {
					switch k {
					case "REWIND_STATE_DIR":
						return dir
					case "REWIND_CONFIG":
						return tt.env
					}
					return ""
				},
			})
			if !strings.Contains(out.String(), `"permissionDecision":"deny"`) ||
				!strings.Contains(out.String(), "no decision within the hook's budget of 1s") {
				t.Errorf("stdout %s, want the config's on_error (deny) at its budget of 1s", out.String())
			}
		})
	}
}
