package policy

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// git commands that put the working tree back, move it to another commit
// or merge one into it write the tracked guarded files whose content
// changes, and git clean and git stash -u remove the untracked ones. What
// each does to one guarded file is read from the index (gitindex.go), the
// target commit's tree (gitobjects.go) and the ignore rules
// (gitignore.go), never by running git:
//
//   - putting tracked files back (reset --hard, checkout -f, stash,
//     checkout ., restore .) writes a tracked file that differs from the
//     index;
//   - moving to a commit (checkout REF, switch, reset --hard REF,
//     read-tree -u, restore --source=REF) writes a tracked file whose
//     content there differs or is absent, and an untracked one the commit
//     holds; merging (merge, rebase) writes one that differs between the
//     commit and the index; applying a commit (cherry-pick, revert), one
//     the commit changes; applying a stash, one the stash changes or
//     holds untracked;
//   - a target not known before the call runs (pull, rebase --continue,
//     bisect) or not read within the bounds writes every tracked one;
//   - git clean removes an untracked one that is not ignored (-x: any,
//     -X: only ignored ones), in a folder git tracks unless -d.
//
// A guarded folder (.claude, .opencode/plugins) stands for the guarded
// files in it. An index that cannot be read, or a command that points git
// at another repository (--git-dir, GIT_DIR, -c), makes every guarded file
// there count.

// moveOp says how a git command moves the tracked files.
type moveOp int

const (
	// moveTo makes them the target's (checkout, switch, reset --hard).
	moveTo moveOp = iota
	// moveMerge merges the target's into them (merge, rebase).
	moveMerge
	// movePick applies the target commit's own changes (cherry-pick,
	// revert).
	movePick
	// moveStash applies a stash.
	moveStash
	// moveUnknown moves them to a commit not known before the call runs.
	moveUnknown
)

// gitMove is what a git command does to the tracked files.
type gitMove struct {
	op moveOp
	// rev is the target; empty is set for the empty tree (switch
	// --orphan).
	rev   string
	empty bool
	// guess lets a bare name be a remote-tracking branch.
	guess bool
	// paths are the pathspecs it is limited to, nil for the whole tree.
	paths []string
	// local is set when the changes to tracked files are lost too
	// (reset --hard REF, checkout -f REF).
	local bool
	// orPath is set when rev may name a file instead (git checkout NAME):
	// git takes it for a path when no revision has the name and the file
	// is there.
	orPath bool
}

// gitClean is what git clean and git stash -u remove of the untracked
// files.
type gitClean struct {
	// ignored is 0 for the files not ignored, 1 for all (-x, stash -a),
	// 2 for the ignored ones only (-X).
	ignored int
	// dirs is set when untracked folders are entered (-d, stash -u).
	dirs bool
}

// gitGlobalValueOpts are git's own options that take a value, before the
// subcommand.
var gitGlobalValueOpts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
		"--exec-path": true, "--config-env": true, "--super-prefix": true, "--list-cmds": true, "--attr-source": true}
})

// gitCommand is a git invocation read for its subcommand.
type gitCommand struct {
	sub  string
	args []string // after the subcommand
	dyn  []bool
	// cd is the folder -C moves git to, "" for none.
	cd string
	// opaque is set when git may work on another repository than the one
	// found from its folder, or with other settings (-c).
	opaque bool
}

// readGit splits a git invocation into its own options and its
// subcommand.
func readGit(s *subject) gitCommand {
	var g gitCommand
	g.opaque = setsEnv(s, "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
		"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_COMMON_DIR",
		"GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case gitGlobalValueOpts()[a] && i+1 < len(s.args):
			i++
			v := s.args[i]
			if a == "-C" {
				if g.cd == "" || filepath.IsAbs(v) || strings.HasPrefix(v, "~") {
					g.cd = v
				} else {
					g.cd = path.Join(g.cd, v)
				}
				if s.dynamic(i) {
					g.opaque = true
				}
			} else if a != "--namespace" && a != "--exec-path" && a != "--list-cmds" {
				g.opaque = true
			}
		case hasValue && gitGlobalValueOpts()[name]:
			g.opaque = true
		case strings.HasPrefix(a, "-"):
			if a == "--bare" {
				g.opaque = true
			}
		default:
			g.sub = a
			g.args = s.args[i+1:]
			if s.dyn != nil {
				g.dyn = s.dyn[i+1:]
			}
			if s.dynamic(i) {
				g.opaque = true
			}
			return g
		}
	}
	return g
}

// split returns the positionals of a subcommand's arguments (the values
// of valueOpts consumed) and the pathspecs after "--".
func (g gitCommand) split(valueOpts []string) (pos, paths []string, values map[string]string) {
	sub := subject{args: g.args}
	if i := slices.Index(g.args, "--"); i >= 0 {
		sub.args = g.args[:i]
		paths = g.args[i+1:]
	}
	pos, values = argWords(&sub, valueOpts)
	return pos, paths, values
}

func (g gitCommand) has(flags ...string) bool {
	sub := subject{args: g.args}
	if i := slices.Index(g.args, "--"); i >= 0 {
		sub.args = g.args[:i]
	}
	return hasFlag(&sub, flags...)
}

// gitTrees reads the git subcommands that put the working tree back, move
// it or remove untracked files from it.
func gitTrees(s *subject) []tree {
	g := readGit(s)
	t := func(kind treeKind, via string) tree {
		return tree{root: gitTop, kind: kind, via: via, gitCD: g.cd, gitOpaque: g.opaque}
	}
	move := func(via string, mv gitMove) []tree {
		x := t(treeGitMove, via)
		x.move = &mv
		return []tree{x}
	}
	here := func(kind treeKind, via string, roots []string) []tree {
		if len(roots) == 0 {
			return []tree{t(kind, via)}
		}
		out := make([]tree, len(roots))
		for i, r := range roots {
			out[i] = t(kind, via)
			out[i].root = r
		}
		return out
	}
	switch g.sub {
	case "reset":
		pos, paths, _ := g.split(nil)
		if !g.has("--hard", "--merge", "--keep") || len(paths) > 0 {
			return nil
		}
		rev := "HEAD"
		if len(pos) > 0 {
			rev = pos[0]
		}
		if rev == "HEAD" || rev == "@" {
			return []tree{t(treeGitTracked, "git reset --hard")}
		}
		return move("git reset --hard "+rev, gitMove{op: moveTo, rev: rev, local: g.has("--hard")})
	case "stash":
		pos, paths, _ := g.split([]string{"-m", "--message", "--pathspec-from-file"})
		verb := "push"
		if len(pos) > 0 {
			verb, pos = pos[0], pos[1:]
		}
		switch verb {
		case "push", "save":
			if verb == "push" {
				paths = append(pos, paths...)
			}
			out := here(treeGitTracked, "git stash", paths)
			switch {
			case g.has("-a", "--all"):
				for _, x := range here(treeGitUntracked, "git stash -a", paths) {
					x.clean = &gitClean{ignored: 1, dirs: true}
					out = append(out, x)
				}
			case g.has("-u", "--include-untracked"):
				for _, x := range here(treeGitUntracked, "git stash -u", paths) {
					x.clean = &gitClean{dirs: true}
					out = append(out, x)
				}
			}
			return out
		case "pop", "apply":
			rev := "stash@{0}"
			if len(pos) > 0 {
				rev = pos[0]
				if isDigits(rev) {
					rev = "stash@{" + rev + "}"
				}
			}
			return move("git stash "+verb, gitMove{op: moveStash, rev: rev})
		case "branch":
			return move("git stash branch", gitMove{op: moveUnknown})
		}
	case "checkout":
		pos, paths, values := g.split([]string{"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file", "-t", "--track"})
		force := g.has("-f", "--force")
		start := ""
		switch {
		case values["-b"] != "" || values["-B"] != "" || values["--orphan"] != "":
			if len(pos) > 0 {
				start = pos[0]
			}
		case len(pos) > 0 && len(paths) == 0 && !slices.Contains(g.args, "--"):
			// checkout NAME [PATH...]: a branch or commit when it is
			// one (covered looks), else files put back from the index.
			start, paths = pos[0], pos[1:]
		case len(pos) > 0:
			start = pos[0]
		}
		if start == "" || start == "HEAD" || start == "@" {
			switch {
			case len(paths) > 0 && !force:
				return here(treeGitTracked, "git checkout "+strings.Join(paths, " "), paths)
			case force:
				return []tree{t(treeGitTracked, "git checkout --force")}
			}
			return nil
		}
		mv := gitMove{op: moveTo, rev: start, guess: len(paths) == 0, paths: paths, local: force, orPath: !slices.Contains(g.args, "--")}
		if start == "-" {
			mv.rev = "@{-1}"
		}
		out := move("git checkout "+start, mv)
		if len(pos) > 0 && !slices.Contains(g.args, "--") {
			// Or the words are all files, put back from the index.
			out = append(out, here(treeGitTracked, "git checkout "+strings.Join(pos, " "), pos)...)
		}
		return out
	case "switch":
		pos, _, values := g.split([]string{"-c", "-C", "--create", "--force-create", "--orphan", "--conflict", "-t", "--track"})
		force := g.has("-f", "--force", "--discard-changes")
		if values["--orphan"] != "" {
			return move("git switch --orphan", gitMove{op: moveTo, empty: true})
		}
		start := "HEAD"
		if len(pos) > 0 {
			start = pos[0]
		} else if v := values["-t"] + values["--track"]; v != "" {
			start = v
		}
		if start == "-" {
			start = "@{-1}"
		}
		if start == "HEAD" || start == "@" {
			if force {
				return []tree{t(treeGitTracked, "git switch --discard-changes")}
			}
			return nil
		}
		return move("git switch "+start, gitMove{op: moveTo, rev: start, guess: true, local: force})
	case "restore":
		pos, paths, values := g.split([]string{"-s", "--source", "--conflict", "--pathspec-from-file"})
		paths = append(pos, paths...)
		if g.has("-S", "--staged") && !g.has("-W", "--worktree") {
			return nil // the index only
		}
		src := values["-s"] + values["--source"]
		if src == "" && g.has("-S", "--staged") {
			src = "HEAD"
		}
		for i, p := range paths {
			paths[i] = strings.TrimPrefix(p, ":/")
			if paths[i] == "" {
				paths[i] = "."
			}
		}
		if src == "" {
			return here(treeGitTracked, "git restore "+strings.Join(paths, " "), paths)
		}
		return move("git restore --source="+src, gitMove{op: moveTo, rev: src, paths: paths})
	case "read-tree":
		pos, _, values := g.split([]string{"--prefix", "--index-output", "--exclude-per-directory"})
		if !g.has("-u") {
			return nil
		}
		if values["--prefix"] != "" || len(pos) == 0 || len(pos) > 2 {
			return move("git read-tree -u", gitMove{op: moveUnknown})
		}
		return move("git read-tree -u "+pos[len(pos)-1], gitMove{op: moveTo, rev: pos[len(pos)-1]})
	case "checkout-index":
		if g.has("-a", "--all") {
			return []tree{t(treeGitTracked, "git checkout-index -a")}
		}
	case "clean":
		pos, paths, _ := g.split([]string{"-e", "--exclude"})
		if !g.has("-f", "--force") || g.has("-n", "--dry-run") {
			return nil
		}
		c := &gitClean{dirs: g.has("-d")}
		switch {
		case g.has("-x"):
			c.ignored = 1
		case g.has("-X"):
			c.ignored = 2
		}
		out := here(treeGitUntracked, "git clean", append(pos, paths...))
		for i := range out {
			out[i].clean = c
		}
		return out
	case "merge":
		pos, _, _ := g.split([]string{"-m", "-F", "--file", "-s", "--strategy", "-X", "--strategy-option", "--into-name", "--cleanup", "-S", "--gpg-sign"})
		switch {
		case g.has("--abort"):
			return move("git merge --abort", gitMove{op: moveTo, rev: "ORIG_HEAD", local: true})
		case g.has("--continue", "--quit"):
			return nil
		case len(pos) == 0:
			return move("git merge", gitMove{op: moveUnknown})
		}
		var out []tree
		for _, r := range pos {
			out = append(out, move("git merge "+r, gitMove{op: moveMerge, rev: r})...)
		}
		return out
	case "pull":
		if g.has("--dry-run") {
			return nil
		}
		return move("git pull", gitMove{op: moveUnknown})
	case "rebase":
		pos, _, values := g.split([]string{"--onto", "-s", "--strategy", "-X", "--strategy-option", "-x", "--exec", "-S", "--gpg-sign", "-C", "--whitespace", "--empty"})
		switch {
		case g.has("--abort"):
			return move("git rebase --abort", gitMove{op: moveTo, rev: "ORIG_HEAD", local: true})
		case g.has("--quit", "--edit-todo", "--show-current-patch"):
			return nil
		case g.has("--continue", "--skip"):
			return move("git rebase --continue", gitMove{op: moveUnknown})
		}
		var out []tree
		if len(pos) > 1 {
			// rebase UPSTREAM BRANCH checks BRANCH out first.
			out = append(out, move("git rebase: checkout "+pos[1], gitMove{op: moveTo, rev: pos[1]})...)
		}
		onto := values["--onto"]
		if onto == "" && len(pos) > 0 {
			onto = pos[0]
		}
		if onto == "" || g.has("--root") && values["--onto"] == "" {
			return append(out, move("git rebase", gitMove{op: moveUnknown})...)
		}
		return append(out, move("git rebase "+onto, gitMove{op: moveMerge, rev: onto})...)
	case "cherry-pick", "revert":
		pos, _, _ := g.split([]string{"-m", "--mainline", "-X", "--strategy-option", "--strategy", "-S", "--gpg-sign", "--cleanup"})
		switch {
		case g.has("--quit"):
			return nil
		case g.has("--abort"):
			return move("git "+g.sub+" --abort", gitMove{op: moveTo, rev: "ORIG_HEAD", local: true})
		case g.has("--continue", "--skip") || len(pos) == 0:
			return move("git "+g.sub, gitMove{op: moveUnknown})
		}
		var out []tree
		for _, r := range pos {
			mv := gitMove{op: movePick, rev: r}
			if strings.Contains(r, "..") || strings.HasPrefix(r, "^") {
				mv = gitMove{op: moveUnknown}
			}
			out = append(out, move("git "+g.sub+" "+r, mv)...)
		}
		return out
	case "bisect":
		pos, _, _ := g.split(nil)
		if len(pos) > 0 && slices.Contains([]string{"start", "good", "bad", "new", "old", "skip", "reset", "run", "replay"}, pos[0]) {
			return move("git bisect "+pos[0], gitMove{op: moveUnknown})
		}
	case "sparse-checkout":
		pos, _, _ := g.split(nil)
		if len(pos) > 0 && slices.Contains([]string{"set", "add", "reapply", "init", "disable"}, pos[0]) {
			return move("git sparse-checkout "+pos[0], gitMove{op: moveUnknown})
		}
	case "rm":
		pos, paths, _ := g.split(nil)
		if g.has("--cached") || !g.has("-r") {
			return nil
		}
		return here(treeRemove, "git rm -r", append(pos, paths...))
	case "apply", "am":
		// The files a patch changes are in the patch: named when it can
		// be read, else any guarded file in the tree may be changed.
		if g.has("--check", "--stat", "--numstat", "--summary", "--abort", "--quit", "--show-current-patch") {
			return nil
		}
		pos, _, _ := g.split([]string{"-p", "-C", "--directory", "--exclude", "--include", "--whitespace", "-S", "--gpg-sign", "--patch-format"})
		x := t(treeRemove, "git "+g.sub)
		switch {
		case len(pos) == 1:
			x.patch = pos[0]
		case len(pos) == 0 && len(s.payload) > 0:
			x.patch, x.patchText = strings.Join(s.payload, "\n"), true
		}
		return []tree{x}
	}
	return nil
}

// gitGuard is the guarded names read for git: the names of files, and the
// guarded folders with the patterns of the files in them they guard
// (".opencode/plugins": "*").
type gitGuard struct {
	files   []string
	folders map[string][]string
}

// gitGuarded sorts the policy's guarded names into files and folders: a
// name another guarded name lies under (.claude, for .claude/settings.json)
// or with a glob for what is in it (.kiro/hooks/*) is a folder, which for
// git stands for the guarded files in it.
func (p *Policy) gitGuarded() gitGuard {
	g := gitGuard{folders: map[string][]string{}}
	names := p.guardedNames()
	var globs []string
	for _, w := range p.writes {
		globs = append(globs, w.globs...)
	}
	for _, t := range p.tighten {
		for _, w := range t.writes {
			globs = append(globs, w.globs...)
		}
	}
	for _, n := range names {
		folder := false
		for _, other := range names {
			if strings.HasPrefix(other, n+"/") {
				folder = true
			}
		}
		for _, gl := range globs {
			if rest, ok := strings.CutPrefix(gl, "**/"+n+"/"); ok && rest != "" {
				folder = true
				if globMeta(rest) >= 0 && !slices.Contains(g.folders[n], rest) {
					g.folders[n] = append(g.folders[n], rest)
				}
			}
		}
		if folder {
			if _, ok := g.folders[n]; !ok {
				g.folders[n] = nil
			}
			continue
		}
		g.files = append(g.files, n)
	}
	return g
}

// gitCovered returns the guarded files a git command that writes tree t
// writes (see the comment at the top of this file).
func (p *Policy) gitCovered(t tree, abs string, w *walk) []written {
	cwd := w.dir
	if t.gitCD != "" {
		cwd = p.absPath(t.gitCD, cwd)
	}
	top := gitTopOf(abs)
	if top == "" {
		return nil
	}
	if w.gitBudget == nil {
		w.gitBudget = newGitBudget()
	}
	index, known := readGitIndex(top)
	if t.gitOpaque {
		known = false
	}
	var repo *gitRepo
	if t.move != nil && known {
		if r, ok := openGitRepo(top, w.gitBudget); ok {
			repo = r
			defer r.close()
		}
	}
	// The target's tree, and for a commit applied or a stash the trees
	// it is compared with.
	var target, other, untracked oid
	haveTarget, haveOther, haveUntracked := false, false, false
	if mv := t.move; mv != nil && repo != nil {
		switch {
		case mv.empty:
			haveTarget = true // the zero oid reads as an empty tree
		case mv.op == moveTo || mv.op == moveMerge:
			if c, ok := repo.resolve(mv.rev, mv.guess); ok {
				target, haveTarget = repo.treeOf(c)
			}
		case mv.op == movePick || mv.op == moveStash:
			if c, ok := repo.resolve(mv.rev, false); ok {
				if target, haveTarget = repo.treeOf(c); haveTarget {
					if ps, ok := repo.parents(c); ok && len(ps) > 0 {
						other, haveOther = repo.treeOf(ps[0])
						if mv.op == moveStash && len(ps) > 2 {
							untracked, haveUntracked = repo.treeOf(ps[2])
						}
					} else if ok {
						haveOther = true // a root commit: against nothing
					}
					if !haveOther {
						haveTarget = false
					}
				}
			}
		}
	}
	if mv := t.move; mv != nil && mv.orPath && repo != nil && !haveTarget {
		if _, ok := repo.resolve(mv.rev, mv.guess); !ok {
			if f := p.absPath(mv.rev, cwd); f != "" && exists(f) {
				// git checkout FILE: the file put back from the index,
				// which the tree of the paths judges.
				return nil
			}
		}
	}
	blob := func(tr oid, rel string) (treeEntry, bool, bool) {
		if tr == (oid{}) {
			return treeEntry{}, false, true
		}
		return repo.entryAt(tr, rel)
	}
	var ign *gitIgnore
	if t.clean != nil && t.clean.ignored != 1 && known && !w.gitDirty {
		ign = newGitIgnore(top, p.home)
	}
	writes := func(f string) bool {
		rel := gitRel(top, f)
		if rel == "" || strings.HasPrefix(rel, "../") || rel == ".git" || strings.HasPrefix(rel, ".git/") {
			// Git's own folder is no part of the tree it writes.
			return false
		}
		e, tracked := index[rel]
		switch t.kind {
		case treeGitTracked:
			return exists(f) && (!known || tracked && e.changed(f))
		case treeGitUntracked:
			if !exists(f) || known && tracked {
				return false
			}
			if known && !t.clean.dirs && !trackedDir(index, path.Dir(rel)) {
				return false // git clean without -d leaves untracked folders
			}
			switch {
			case t.clean.ignored == 1 || ign == nil:
				return true
			case t.clean.ignored == 2:
				return ign.ignored(rel)
			}
			return !ign.ignored(rel)
		}
		mv := t.move
		if !known {
			return exists(f)
		}
		if !inPathspecs(rel, mv.paths) {
			return false
		}
		if mv.local && tracked && e.changed(f) {
			return true
		}
		if mv.op == moveUnknown || !haveTarget {
			return tracked
		}
		te, present, ok := blob(target, rel)
		if !ok {
			return tracked
		}
		switch mv.op {
		case moveTo, moveMerge:
			if tracked {
				return !present || te.id != e.oid
			}
			return present
		default:
			oe, opresent, ok := blob(other, rel)
			if !ok {
				return tracked
			}
			if present != opresent || te.id != oe.id {
				return true
			}
			if haveUntracked {
				_, upresent, ok := blob(untracked, rel)
				return !ok || upresent
			}
			return false
		}
	}
	var out []written
	seen := map[string]bool{}
	consider := func(f string) {
		if !seen[f] && within(abs, f) {
			seen[f] = true
			if writes(f) {
				out = append(out, written{name: f, via: t.via})
			}
		}
	}
	for _, own := range p.ownPaths() {
		consider(own)
	}
	dirs := []string{abs}
	if c := p.absPath(cwd, ""); c != "" && within(abs, c) {
		for d := c; d != abs && len(dirs) < maxProbeDirs; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	g := p.gitGuarded()
	for _, d := range dirs {
		for _, n := range g.files {
			consider(filepath.Join(d, filepath.FromSlash(n)))
		}
		for n, pats := range g.folders {
			if len(pats) == 0 {
				continue
			}
			folder := filepath.Join(d, filepath.FromSlash(n))
			rel := gitRel(top, folder)
			for _, child := range folderChildren(folder, rel, index, repo, []oid{target, other, untracked}) {
				for _, pat := range pats {
					if ok, _ := path.Match(pat, child); ok || pat == "**" {
						consider(filepath.Join(folder, filepath.FromSlash(child)))
						break
					}
				}
			}
		}
	}
	return out
}

// maxFolderChildren bounds the entries of a guarded folder looked at.
const maxFolderChildren = 256

// folderChildren returns the names of the entries of a guarded folder:
// on the disk, in the index, and in the trees given.
func folderChildren(folder, rel string, index map[string]indexEntry, repo *gitRepo, trees []oid) []string {
	var out []string
	add := func(n string) {
		if len(out) < maxFolderChildren && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if names, err := readDirNames(folder, maxFolderChildren); err == nil {
		for _, n := range names {
			add(n)
		}
	}
	prefix := rel + "/"
	for k := range index {
		if rest, ok := strings.CutPrefix(k, prefix); ok {
			add(rest)
		}
	}
	if repo != nil {
		for _, tr := range trees {
			if tr == (oid{}) {
				continue
			}
			if e, present, ok := repo.entryAt(tr, rel); ok && present && e.isTree() {
				if entries, ok := repo.readTree(e.id); ok {
					for n := range entries {
						add(n)
					}
				}
			}
		}
	}
	return out
}

// trackedDir reports whether git tracks a file in the folder dir (relative
// to the top, "." for the top).
func trackedDir(index map[string]indexEntry, dir string) bool {
	if dir == "." || dir == "" {
		return true
	}
	prefix := dir + "/"
	for k := range index {
		if strings.HasPrefix(k, prefix) {
			return true
		}
	}
	return false
}

// inPathspecs reports whether rel is named by one of the pathspecs (all
// of them when there are none): the path itself, a folder above it, or a
// glob that matches it.
func inPathspecs(rel string, specs []string) bool {
	if len(specs) == 0 {
		return true
	}
	for _, s := range specs {
		s = strings.TrimPrefix(strings.TrimSuffix(path.Clean(filepath.ToSlash(s)), "/"), "./")
		if s == "." || s == "" || rel == s || strings.HasPrefix(rel, s+"/") {
			return true
		}
		if ok, _ := path.Match(s, rel); ok || strings.HasPrefix(s, ":") {
			return true
		}
	}
	return false
}

// gitConfigWrites reports whether a command can change what git ignores
// or how it is set up for the rest of the call: a write to a .gitignore,
// an exclude file or a git config, or git config itself.
func gitConfigWrites(s *subject, files []written) bool {
	if s.name == "git" {
		if g := readGit(s); g.sub == "config" || g.opaque {
			return true
		}
	}
	for _, f := range files {
		base := strings.ToLower(path.Base(filepath.ToSlash(f.name)))
		if base == ".gitignore" || base == "exclude" || base == "config" || base == ".gitconfig" || base == "ignore" || base == "attributes" {
			return true
		}
	}
	return false
}
