package policy

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestRenamedRewind: a copy of a rewind binary under another name, run by
// its path or found in $PATH, is judged as rewind; another program given
// the same words is not.
func TestRenamedRewind(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	copyTo := func(name string) string {
		t.Helper()
		in, err := os.Open(self)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		p := filepath.Join(dir, name)
		out, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(out, in); err != nil {
			t.Fatal(err)
		}
		out.Close()
		return p
	}
	if !builtFromRewind(self) {
		t.Skip("this test binary carries no build information of rewind's module")
	}
	renamed := copyTo("x")
	script := filepath.Join(dir, "other")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := New(&Config{Hook: Default().Hook, PathEnv: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{renamed + " trust .rewind.toml", Ask},
		{"x trust .rewind.toml", Ask},
		{"cd " + dir + " && ./x undo 4en4xgkf6jph --restore --yes", Ask},
		{"sudo " + renamed + " uninstall", Ask},
		{renamed + " log --json", None},
		{"x explain -- 'rm -rf /'", None},
		{script + " trust me", None},
		{"other trust me", None},
		{"make install", None},
		{"git commit -m 'x trust .rewind.toml'", None},
	} {
		if v := p.ClassifyCommand(tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}
