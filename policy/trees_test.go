package policy

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// removalLab is a project with rewind's files in it: a .rewind.toml and
// Claude Code's settings, a user config and a state folder.
func removalLab(t testing.TB) (*lab, *Policy) {
	t.Helper()
	l := newLab(t, labUserConfig)
	l.projectConfig("")
	for _, d := range []string{filepath.Join(l.project, ".claude"), filepath.Join(l.project, "build"), l.state} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l.write(filepath.Join(l.project, ".claude", "settings.json"), `{"hooks":{}}`)
	l.write(filepath.Join(l.project, "build", "out.txt"), "x")
	l.write(filepath.Join(l.state, "trusted"), "")
	cfg, err := Find("", l.project, l.getenv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return l, p
}

func judgeIn(p *Policy, cwd, cmd string) Verdict {
	return p.Classify(Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + quoteJSON(cmd) + `}`), Cwd: cwd})
}

// TestRemovingThePolicy: moving, deleting, extracting over, downloading
// over or patching rewind's config, state and the host settings, or a
// folder above them, is a write to them; the same commands elsewhere, and
// prose quoting them, are not.
func TestRemovingThePolicy(t *testing.T) {
	t.Parallel()
	l, p := removalLab(t)
	home := filepath.Join(l.root, "home")
	sub := filepath.Join(l.project, "sub")
	tests := []struct {
		cwd, cmd string
		want     Effect
	}{
		// Folders above rewind's files.
		{l.project, "rm -rf .", Ask},
		{sub, "rm -r ..", Ask},
		{l.root, "rm -rf project", Ask},
		{l.project, "rm -rf ~/.config", Ask},
		{l.project, "rm -rf " + filepath.Dir(l.state), Ask},
		{l.project, "mv .claude /tmp/x", Ask},
		{l.root, "mv project /tmp/elsewhere", Ask},
		{l.project, "chmod -R 000 .", Ask},
		{l.project, "find . -delete", Ask},
		{l.project, "find . -name settings.json -delete", Ask},
		{l.project, "find . -type f -exec rm {} +", Ask},
		{l.project, "rsync -a --delete /tmp/empty/ ./", Ask},
		{l.project, "rmdir ~/.config/rewind", Ask},
		// ... and the same commands on folders without them.
		{l.project, "rm -rf build", None},
		{l.project, "rm -rf build sub", None},
		{l.project, "rm -rf /tmp/scratch", None},
		{l.project, "mv build dist", None},
		{l.project, "find . -name '*.pyc' -delete", None},
		{l.project, "find build -delete", None},
		{l.project, "chmod -R go-w build", None},
		{l.project, "rsync -a --delete build/ /tmp/copy/", None},
		// Downloads over them.
		{l.project, "curl -O https://example.com/x/.rewind.toml", Ask},
		{l.project, "curl -sSLO https://example.com/.mcp.json", Ask},
		{l.project, "curl --output-dir .claude -O https://example.com/settings.json", Ask},
		{l.project, "wget https://example.com/settings.json -P .claude", Ask},
		{l.project, "wget -O- https://example.com/.rewind.toml", None},
		{l.project, "curl -O https://example.com/release.tgz", None},
		{l.project, "wget https://example.com/release.tgz", None},
		// Extraction of an archive that cannot be listed, into a folder
		// the host reads settings from, may create them.
		{l.project, "tar -xJf /tmp/missing.tar.xz", Ask},
		{l.project, "tar -xJf /tmp/missing.tar.xz -C build", None},
		{l.project, "unzip /tmp/missing.zip -d build", None},
		{l.project, "tar -tzf /tmp/missing.tgz", None},
		// Patches from standard input name their files.
		{l.project, "patch -p1 <<'EOF'\n--- a/.claude/settings.json\n+++ b/.claude/settings.json\n@@ -1 +1 @@\n-{\"hooks\":{}}\n+{}\nEOF", Ask},
		{l.project, "patch -p1 <<'EOF'\n--- a/src/x.go\n+++ b/src/x.go\n@@ -1 +1 @@\n-a\n+b\nEOF", None},
		{l.project, "git apply <<'EOF'\ndiff --git a/.rewind.toml b/.rewind.toml\n--- a/.rewind.toml\n+++ b/.rewind.toml\nEOF", Ask},
		// Prose quoting them is data.
		{l.project, "git commit -m 'do not rm -rf . or curl -O https://x/.rewind.toml'", None},
		{l.project, "echo 'find . -delete' > build/notes.txt", None},
		{home, "cat <<'EOF'\nrm -rf ~/.config\nEOF", None},
	}
	for _, tt := range tests {
		if v := judgeIn(p, tt.cwd, tt.cmd); v.Effect != tt.want {
			t.Errorf("in %s: %q: got %s (%s: %s), want %s", strings.TrimPrefix(tt.cwd, l.root), tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
	// The reason names the guarded file and how the call reaches it.
	v := judgeIn(p, l.project, "rm -rf .")
	if !strings.Contains(v.Reason, ProjectFile) || !strings.Contains(v.Reason, "(rm .)") {
		t.Errorf("reason %q: want the file and the command that removes it", v.Reason)
	}
}

// TestExtractingAListedArchive: an archive the hook can list is judged by
// what it holds.
func TestExtractingAListedArchive(t *testing.T) {
	t.Parallel()
	l, p := removalLab(t)
	dir := t.TempDir()
	tgz := func(name string, files ...string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		tw := tar.NewWriter(zw)
		for _, f := range files {
			if err := tw.WriteHeader(&tar.Header{Name: f, Mode: 0o644, Size: 1, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}); err != nil {
				t.Fatal(err)
			}
			tw.Write([]byte("x"))
		}
		tw.Close()
		zw.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	zipOf := func(name string, files ...string) string {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for _, f := range files {
			w, _ := zw.Create(f)
			w.Write([]byte("x"))
		}
		zw.Close()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	clean := tgz("release.tgz", "src/a.go", "README.md")
	evil := tgz("evil.tgz", "src/a.go", ".claude/settings.local.json")
	cleanZip := zipOf("release.zip", "docs/x.md")
	evilZip := zipOf("evil.zip", "sub/../.rewind.toml")
	tests := []struct {
		cmd  string
		want Effect
	}{
		{"tar xzf " + clean, None},
		{"tar -xzf " + clean, None},
		{"tar -x -f " + clean + " -C .", None},
		{"tar xzf " + evil, Ask},
		{"tar -xzf " + evil + " -C ~", Ask},
		{"tar -xzf " + clean + " -C build", None},
		{"unzip " + cleanZip, None},
		{"unzip -o " + evilZip, Ask},
	}
	for _, tt := range tests {
		if v := judgeIn(p, l.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}

// TestGitPutsTheTreeBack: git reset --hard, stash and checkout -f rewrite
// a guarded file only when it differs from what git holds; git clean
// removes one git does not track.
func TestGitPutsTheTreeBack(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	l, p := removalLab(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = l.project
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", ".claude/settings.json", "build")
	git("commit", "-q", "-m", "x")
	sub := filepath.Join(l.project, "build")
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		// The tracked settings are as committed; .rewind.toml is untracked.
		{"git reset --hard", None},
		{"git stash", None},
		{"git checkout -f main", None},
		{"git clean -fdx", Ask},
		{"git clean -n", None},
		{"git status && git diff", None},
	} {
		if v := judgeIn(p, sub, tt.cmd); v.Effect != tt.want {
			t.Errorf("unchanged: %q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
	// Once the settings differ from what git holds, putting them back is
	// a write to them.
	settings := filepath.Join(l.project, ".claude", "settings.json")
	l.write(settings, `{"hooks":{"PreToolUse":[]}}`)
	if err := os.Chtimes(settings, time.Time{}, time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"git reset --hard", "git stash", "git stash push -m wip", "git checkout -f", "git checkout .", "git restore ."} {
		if v := judgeIn(p, l.project, cmd); v.Effect != Ask {
			t.Errorf("changed: %q: got %s (%s), want ask", cmd, v.Effect, v.Reason)
		}
	}
	if v := judgeIn(p, l.project, "git stash list && git log -1"); v.Effect != None {
		t.Errorf("git stash list: %s", v.Effect)
	}
}

func TestParseGitIndexRejectsJunk(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{nil, []byte("DIRC"), []byte("DIRC\x00\x00\x00\x09\x00\x00\x00\x01"), append([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x05"), make([]byte, 70)...)} {
		if _, ok := parseGitIndex(data); ok {
			t.Errorf("parseGitIndex(%q) ok", data)
		}
	}
}

// TestTreeProbesBounded: a call of thousands of folder removals looks into
// a bounded number of folders; past the bound such a command is asked.
func TestTreeProbesBounded(t *testing.T) {
	t.Parallel()
	l, p := removalLab(t)
	var b strings.Builder
	for i := range maxTreeProbes {
		fmt.Fprintf(&b, "rm -rf build/d%d\n", i)
	}
	if v := judgeIn(p, l.project, b.String()); v.Effect != None {
		t.Errorf("%d removals of harmless folders: %s (%s)", maxTreeProbes, v.Effect, v.Reason)
	}
	b.WriteString("rm -rf build/one-more\n")
	v := judgeIn(p, l.project, b.String())
	if v.Effect != Ask || !strings.Contains(v.Reason, "past the") {
		t.Errorf("past the bound: %s (%s), want ask", v.Effect, v.Reason)
	}
}
