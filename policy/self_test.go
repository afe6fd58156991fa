package policy

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	if rewind, _ := builtFromRewind(self, &walk{}); !rewind {
		t.Skip("this test binary carries no build information of rewind's module")
	}
	renamed := copyTo("x")
	script := filepath.Join(dir, "other")
	for _, f := range []string{script, filepath.Join(dir, "make")} {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(script, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	p, err := New(&Config{Hook: Default().Hook, PathEnv: dir})
	if err != nil {
		t.Fatal(err)
	}
	// Past what a call may read of programs, a program given one of
	// rewind's words may be rewind; within it, a script is not.
	spent := &walk{dir: dir, programReads: maxProgramReads}
	if why := p.inspectProgram(&subject{name: renamed, path: renamed}, spent); !strings.Contains(why, "past what rewind reads") {
		t.Errorf("inspectProgram(%s) past the bound = %q", renamed, why)
	}
	if why := p.inspectProgram(&subject{name: renamed, path: renamed}, &walk{dir: dir}); !strings.Contains(why, "is rewind under another name") {
		t.Errorf("inspectProgram(%s) = %q", renamed, why)
	}
	if why := p.inspectProgram(&subject{name: script, path: script}, &walk{dir: dir}); why != "" {
		t.Errorf("inspectProgram(%s) = %q; want not rewind", script, why)
	}
	wantEffects(t, p, []effectCase{
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
		// Programs that cannot be looked at when the call is judged.
		{`cp "$(command -v rewind)" ./t && script -qc "./t trust" /dev/null <<< trust`, Ask},
		{"cd " + dir + " && ln -s /usr/local/bin/rewind t; ./t trust", Ask},
		{"cd " + dir + " && ./link trust", Ask},
		{"cd " + dir + " && ./link build", None},
		{"cd " + dir + " && ./nosuch uninstall --scope user", Ask},
		{"cd " + dir + " && ./nosuch build", None},
		{"nosuch trust", Ask},
		{`"$(command -v rewind)" trust`, Ask},
		{"x=rewind; $x uninstall", Ask},
		{"go build -o /tmp/rw ./cmd/rewind && /tmp/rw trust", Ask},
		// Copying rewind's binary.
		{`cp "$(command -v rewind)" /tmp/t`, Ask},
		{"ln -s `which rewind-hook` /tmp/t", Ask},
		{"cp " + renamed + " /tmp/t", Ask},
		{"dd if=" + renamed + " of=/tmp/t", Ask},
		{`cp "$(command -v jq)" /tmp/t`, None},
		{`cp "$HOME/notes/rewind.md" /tmp/t`, None},
		{"cp " + script + " /tmp/t", None},
	})
}

// TestOwnBinariesGuarded: rewind's binaries — the running one and the one
// beside it, those the installed hooks run, and rewind's names in every
// folder of $PATH — are rewind's own files: writing them is asked, by a
// command or a file tool; reading or running them is not.
func TestOwnBinariesGuarded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bin := filepath.Join(root, "bin")         // on $PATH
	gobin := filepath.Join(root, "go", "bin") // where the hooks' binary was installed
	state := filepath.Join(root, "state")
	for _, d := range []string{bin, gobin, state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	hook := filepath.Join(gobin, "rewind-hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "installs.json"), []byte(`{"files":{},"binaries":[`+quoteJSON(hook)+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": filepath.Join(root, "home"), "PATH": bin + ":/usr/bin", "REWIND_STATE_DIR": state}
	cfg, err := Find("", root, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	for _, want := range []string{hook, filepath.Join(bin, "rewind-hook"), filepath.Join(bin, "rewind"), exe, filepath.Join(filepath.Dir(exe), "rewind-hook")} {
		if !slices.Contains(cfg.Binaries(), want) {
			t.Errorf("Binaries %q lack %s", cfg.Binaries(), want)
		}
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantEffects(t, p, []effectCase{
		{"cp /bin/true " + hook, Ask},
		{"printf '#!/bin/sh\\n' > " + hook, Ask},
		{"cp /bin/true " + bin + "/rewind-hook", Ask},
		{"install -m 755 /tmp/x " + bin + "/rewind", Ask},
		{"ln -sf /bin/true " + bin + "/rewind-hook", Ask},
		{"mv /tmp/x " + bin + "/rewind.exe", Ask},
		{"echo exit 0 | tee " + exe, Ask},
		{"rm -rf " + gobin, Ask},
		{"go build -o " + bin + "/ ./cmd/rewind-hook", Ask},
		// Reading, running, and other names.
		{hook + " --host claude < /dev/null", None},
		{"ls -l " + hook + " && file " + bin + "/rewind", None},
		{"cp /bin/true " + bin + "/other-tool", None},
		{"go build -o build/rewind-hook ./cmd/rewind-hook", None},
		{"git commit -m 'cp /bin/true " + hook + "'", None},
	})
	for _, tt := range []struct {
		tool, input string
		want        Effect
	}{
		{"Write", `{"file_path":` + quoteJSON(hook) + `,"content":"#!/bin/sh\n"}`, Ask},
		{"mcp__filesystem__write_file", `{"path":` + quoteJSON(bin+"/rewind-hook") + `,"content":"x"}`, Ask},
		{"Edit", `{"file_path":` + quoteJSON(exe) + `,"old_string":"a","new_string":"b"}`, Ask},
		{"Write", `{"file_path":` + quoteJSON(filepath.Join(root, "build", "rewind-hook")) + `,"content":"x"}`, None},
	} {
		if v := p.Classify(Call{Tool: tt.tool, Input: []byte(tt.input), Cwd: root}); v.Effect != tt.want {
			t.Errorf("%s %s: got %s (%s), want %s", tt.tool, tt.input, v.Effect, v.Reason, tt.want)
		}
	}
}
