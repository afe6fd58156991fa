package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitLab is a project in a git repository: commit "bare" holds only a
// README; main adds .rewind.toml and .claude/settings.json; "feature"
// changes only src; "evil" removes the settings; a stash changes them.
type gitLab struct {
	*lab
	p   *Policy
	git func(args ...string) string
}

func newGitLab(t *testing.T) *gitLab {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	l, p := removalLab(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = l.project
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null", "HOME="+filepath.Join(l.root, "home"),
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	settings := filepath.Join(l.project, ".claude", "settings.json")
	git("init", "-q", "-b", "main")
	l.write(filepath.Join(l.project, "README"), "x")
	git("add", "README")
	git("commit", "-q", "-m", "bare")
	git("tag", "bare")
	l.write(filepath.Join(l.project, ".gitignore"), ".claude/settings.local.json\nbuild/\n")
	git("add", ".rewind.toml", ".claude/settings.json", ".gitignore")
	git("commit", "-q", "-m", "guarded")
	git("checkout", "-q", "-b", "feature")
	os.MkdirAll(filepath.Join(l.project, "src"), 0o755)
	l.write(filepath.Join(l.project, "src", "a.go"), "package a")
	git("add", "src")
	git("commit", "-q", "-m", "feature")
	git("checkout", "-q", "-b", "evil", "main")
	git("rm", "-q", ".claude/settings.json")
	git("commit", "-q", "-m", "evil")
	git("checkout", "-q", "main")
	l.write(settings, `{"hooks":{"PreToolUse":[]}}`)
	git("stash", "-q")
	l.write(filepath.Join(l.project, "README"), "y")
	git("stash", "-q")
	return &gitLab{lab: l, p: p, git: git}
}

// TestGitMovesTheTree: moving the tree to a commit, merging or applying
// one writes the guarded files whose content changes, read from git's
// objects loose and packed; an honest switch between branches whose
// guarded files are the same is silent.
func TestGitMovesTheTree(t *testing.T) {
	t.Parallel()
	g := newGitLab(t)
	evil := g.git("rev-parse", "evil")
	feature := g.git("rev-parse", "feature")
	cases := []struct {
		cmd  string
		want Effect
	}{
		{"git checkout bare", Ask},
		{"git checkout " + g.git("rev-parse", "--short", "bare"), Ask},
		{"git checkout bare^{commit}", Ask},
		{"git checkout main~1", Ask},
		{"git switch --orphan x", Ask},
		{"git reset --hard bare", Ask},
		{"git read-tree -u --reset bare", Ask},
		{"git restore --source=bare .", Ask},
		{"git checkout bare -- .", Ask},
		{"git checkout evil", Ask},
		{"git merge evil", Ask},
		{"git rebase evil", Ask},
		{"git cherry-pick " + evil, Ask},
		{"git revert evil", Ask},
		{"git stash pop stash@{1}", Ask},
		{"git pull", Ask},
		{"git -C " + g.project + " checkout bare", Ask},
		{"GIT_DIR=/tmp/x git checkout feature", Ask},
		// Honest ones.
		{"git checkout feature", None},
		{"git switch feature", None},
		{"git switch -c topic", None},
		{"git checkout -b topic feature", None},
		{"git merge feature", None},
		{"git rebase feature", None},
		{"git cherry-pick " + feature, None},
		{"git stash pop", None},
		{"git restore --source=bare src", None},
		{"git checkout bare -- README", None},
		{"git checkout README", None},
		{"git reset --hard", None},
		{"git reset bare", None},
		{"git log bare..evil && git diff evil", None},
		{"git commit -m 'git checkout bare; git reset --hard bare'", None},
	}
	for _, stage := range []string{"loose", "packed"} {
		if stage == "packed" {
			g.git("gc", "-q", "--aggressive")
			if n, _ := filepath.Glob(filepath.Join(g.project, ".git", "objects", "pack", "*.pack")); len(n) == 0 {
				t.Fatal("no pack after gc")
			}
		}
		for _, tt := range cases {
			if v := judgeIn(g.p, g.project, tt.cmd); v.Effect != tt.want {
				t.Errorf("%s: %q: got %s (%s), want %s", stage, tt.cmd, v.Effect, v.Reason, tt.want)
			}
		}
	}
}

// TestGitCleanAndIgnore: git clean and git stash -u remove the untracked
// guarded files git does not ignore; a guarded folder stands for the
// guarded files in it.
func TestGitCleanAndIgnore(t *testing.T) {
	t.Parallel()
	g := newGitLab(t)
	local := filepath.Join(g.project, ".claude", "settings.local.json")
	g.write(local, "{}")
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		// settings.json is tracked, settings.local.json ignored.
		{"git clean -fd", None},
		{"git stash -u", None},
		{"git clean -f", None},
		{"git clean -fdx", Ask},
		{"git clean -fdX", Ask},
		{"git stash -a", Ask},
		// A call that changes the ignore rules first.
		{"printf '' > .gitignore && git clean -fd", Ask},
		{"git clean -fd > .gitignore", Ask},
		{"git config core.excludesFile /dev/null; git clean -fd", Ask},
		{"git -c core.excludesFile=/dev/null clean -fd", Ask},
	} {
		if v := judgeIn(g.p, g.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
	g.write(filepath.Join(g.project, ".gitignore"), "build/\n")
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{"git clean -fd", Ask},
		{"git stash -u", Ask},
		{"git clean -fdX", None},
		{"git clean -n -d", None},
	} {
		if v := judgeIn(g.p, g.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("not ignored: %q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
}

// TestGitObjectsBounded: a revision that cannot be read within the bound
// on objects is unknown, and a move to it asks where a guarded file is
// tracked.
func TestGitObjectsBounded(t *testing.T) {
	t.Parallel()
	g := newGitLab(t)
	top := g.project
	r, ok := openGitRepo(top, &gitBudget{objects: 1, bytes: maxGitBytes})
	if !ok {
		t.Fatal("open")
	}
	defer r.close()
	c, ok := r.resolve("bare", false)
	if !ok {
		t.Fatal("resolve bare")
	}
	if _, ok := r.treeOf(c); !ok {
		t.Fatal("tree of bare within one object")
	}
	if _, ok := r.treeOf(c); ok {
		t.Error("a second object past the bound was read")
	}
	for _, rev := range []string{"nosuch", "bare~9", "@{-7}", "stash@{9}", "HEAD:README", "-x"} {
		if _, ok := newRepo(t, top).resolve(rev, true); ok {
			t.Errorf("resolve(%q) ok", rev)
		}
	}
	if _, ok := newRepo(t, top).resolve("@{-1}", false); !ok {
		t.Error("@{-1} not read from the reflog")
	}
}

func newRepo(t *testing.T, top string) *gitRepo {
	r, ok := openGitRepo(top, newGitBudget())
	if !ok {
		t.Fatal("open")
	}
	t.Cleanup(r.close)
	return r
}

// TestGitMCPTools: a git MCP server's tools that move the tree are judged
// as the git commands they run.
func TestGitMCPTools(t *testing.T) {
	t.Parallel()
	g := newGitLab(t)
	repo := quoteJSON(g.project)
	for _, tt := range []struct {
		tool, input string
		want        Effect
	}{
		{"mcp__git__git_reset", `{"repo_path":` + repo + `,"mode":"hard","ref":"bare"}`, Ask},
		{"mcp__git__git_checkout", `{"repo_path":` + repo + `,"branch_name":"bare"}`, Ask},
		{"mcp__git__git_checkout", `{"repoPath":` + repo + `,"target":"evil"}`, Ask},
		{"mcp__git__git_merge", `{"repo_path":` + repo + `,"branch":"evil"}`, Ask},
		{"mcp__git__git_stash", `{"path":` + repo + `,"mode":"pop","stash":1}`, Ask},
		{"mcp__git__git_cherry_pick", `{"repo_path":` + repo + `,"commits":["a","b"]}`, Ask},
		{"mcp__git__git_pull", `{"repo_path":` + repo + `}`, Ask},
		{"mcp__tools__gitReset", `{"repo":` + repo + `,"hard":true,"commit":"bare"}`, Ask},
		// Honest ones.
		{"mcp__git__git_checkout", `{"repo_path":` + repo + `,"branch_name":"feature"}`, None},
		{"mcp__git__git_reset", `{"repo_path":` + repo + `}`, None},
		{"mcp__git__git_reset", `{"repo_path":` + repo + `,"mode":"soft","ref":"bare"}`, None},
		{"mcp__git__git_merge", `{"repo_path":` + repo + `,"branch":"feature"}`, None},
		{"mcp__git__git_status", `{"repo_path":` + repo + `}`, None},
		{"mcp__git__git_log", `{"repo_path":` + repo + `,"ref":"bare"}`, None},
		{"mcp__git__git_commit", `{"repo_path":` + repo + `,"message":"git reset --hard bare"}`, None},
	} {
		v := g.p.Classify(Call{Tool: tt.tool, Input: []byte(tt.input), Cwd: g.project})
		if v.Effect != tt.want {
			t.Errorf("%s %s: got %s (%s: %s), want %s", tt.tool, tt.input, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}

// FuzzGitObjects: no bytes an agent writes into .git (a delta, a tree, an
// index) crash the hook or make it read past its bounds.
func FuzzGitObjects(f *testing.F) {
	f.Add([]byte("abc"), []byte{3, 3, 0x90, 3})
	f.Add([]byte("hello world"), []byte{11, 5, 0x91, 6, 5})
	f.Add([]byte(""), []byte{0, 2, 2, 'h', 'i'})
	f.Add([]byte("100644 a\x0001234567890123456789"), []byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x01"), []byte{})
	f.Fuzz(func(t *testing.T, base, delta []byte) {
		r := &gitRepo{b: newGitBudget(), trees: map[oid]map[string]treeEntry{}}
		if out, err := r.applyDelta(base, delta); err == nil && int64(len(out)) > maxGitObjectSize {
			t.Fatalf("a delta made %d bytes", len(out))
		}
		parseGitIndex(base)
		var id oid
		copy(id[:], delta)
		r.trees = map[oid]map[string]treeEntry{}
		_, _ = r.readTreeData(id, base)
	})
}

// TestGitIgnoreRules: the ignore rules as gitignore(5) reads them: a
// deeper file first, the last rule that matches deciding, anchored and
// folder-only patterns, negation, and a folder that hides what is in it.
func TestGitIgnoreRules(t *testing.T) {
	t.Parallel()
	top, home := t.TempDir(), t.TempDir()
	for name, text := range map[string]string{
		".gitignore":        "*.log\n!keep.log\n/root-only\nbuild/\n# comment\n\\#hash\nsecret/\n",
		"sub/.gitignore":    "!debug.log\nlocal.json\n",
		".git/info/exclude": "excluded\n",
		".git/config":       "[core]\n\texcludesFile = ~/global-ignore\n",
	} {
		p := filepath.Join(top, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, "global-ignore"), []byte("*.swp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newGitIgnore(top, home)
	for rel, want := range map[string]bool{
		"a.log": true, "keep.log": false, "sub/debug.log": false, "sub/x.log": true, "root-only": true,
		"sub/root-only": false, "build/out": true, "x/build/out": true, "build": false, "#hash": true,
		"sub/local.json": true, "local.json": false, "excluded": true, "a.swp": true, "secret/keep.log": true,
		".claude/settings.local.json": false, "main.go": false,
	} {
		if got := g.ignored(rel); got != want {
			t.Errorf("ignored(%q) = %v, want %v", rel, got, want)
		}
	}
}
