package policy

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Removing, moving or replacing a folder writes every file in it: `rm -rf
// ~/.config`, `mv .claude /tmp`, `tar -xf x.tar -C ~`, `git clean -fdx`,
// `find . -delete`. Such a call names the folder, not the guarded file in
// it, so the files a rule with writes guards are looked for under the folder
// (see Policy.covered) and judged as written.

// treeKind says what a command does to a folder's files.
type treeKind int

const (
	// treeRemove removes, moves or changes the files already there.
	treeRemove treeKind = iota
	// treeUnknown writes files whose names are not known at call time
	// (an archive that cannot be listed, a recursive download): those
	// there, and any guarded file it could create.
	treeUnknown
	// treeGitTracked puts tracked files back to what git holds, losing
	// their changes (git reset --hard, git stash, git checkout -f).
	treeGitTracked
	// treeGitUntracked removes the files git does not track (git clean).
	treeGitUntracked
)

// tree is a folder a command writes as a whole.
type tree struct {
	root string
	kind treeKind
	// via says how, for the reason: "rm -r project".
	via string
	// archive is the archive an extraction reads, listed when it can be.
	archive string
	// patch is the patch file a patch or git apply reads, or, with
	// patchText set, the patch itself (stdin): the files it names are
	// written when it can be read.
	patch     string
	patchText bool
	// names, when set, tells whether a file of the tree by that base
	// name is written (find -name PATTERN -delete).
	names func(base string) bool
}

// written is a file a call writes, and, for a file found in a folder the
// call writes as a whole, how.
type written struct {
	name string
	via  string
}

func writtenNames(names []string) []written {
	out := make([]written, len(names))
	for i, n := range names {
		out[i] = written{name: n}
	}
	return out
}

// treeCommands are the commands known to write folders as a whole, and how
// to find them.
var treeCommands = sync.OnceValue(func() map[string]func(s *subject) []tree {
	return map[string]func(s *subject) []tree{
		"rm":     recursiveRemoval("-r", "-R", "--recursive"),
		"rmdir":  removedTrees(nil),
		"mv":     movedTrees,
		"chmod":  recursiveRemoval("-R", "--recursive"),
		"chown":  recursiveRemoval("-R", "--recursive"),
		"chgrp":  recursiveRemoval("-R", "--recursive"),
		"find":   findTrees,
		"rsync":  rsyncTrees,
		"git":    gitTrees,
		"tar":    extraction,
		"bsdtar": extraction,
		"unzip":  extraction,
		"7z":     extraction,
		"7za":    extraction,
		"cpio":   extraction,
		"patch":  patchTrees,
		"wget":   downloadTrees,
	}
})

// treesOf returns the folders s writes as a whole.
func treesOf(s *subject) []tree {
	if f := treeCommands()[s.name]; f != nil && !s.ps {
		return f(s)
	}
	return nil
}

// hasFlag reports whether s has one of the flags, also inside a cluster of
// short options (-rf).
func hasFlag(s *subject, flags ...string) bool {
	for _, a := range s.args {
		if a == "--" {
			return false
		}
		for _, f := range flags {
			if a == f || strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"=") {
				return true
			}
			if len(f) == 2 && f[0] == '-' && f[1] != '-' && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0 {
				return true
			}
		}
	}
	return false
}

// recursiveRemoval reads rm -r and chmod -R: with one of flags, each
// positional is a folder written as a whole.
func recursiveRemoval(flags ...string) func(s *subject) []tree {
	return func(s *subject) []tree {
		if !hasFlag(s, flags...) {
			return nil
		}
		return removedTrees(nil)(s)
	}
}

func removedTrees(valueOpts []string) func(s *subject) []tree {
	return func(s *subject) []tree {
		pos, _ := argWords(s, valueOpts)
		var out []tree
		for _, p := range pos {
			out = append(out, tree{root: p, kind: treeRemove, via: s.name + " " + p})
		}
		return out
	}
}

// movedTrees reads mv: every source leaves its folder.
func movedTrees(s *subject) []tree {
	pos, values := argWords(s, []string{"-t", "--target-directory", "-S", "--suffix"})
	if values["-t"] == "" && values["--target-directory"] == "" {
		if len(pos) < 2 {
			return nil
		}
		pos = pos[:len(pos)-1]
	}
	var out []tree
	for _, p := range pos {
		out = append(out, tree{root: p, kind: treeRemove, via: "mv " + p})
	}
	return out
}

// findTrees reads find ROOT... -delete (or -exec of a command that
// removes or changes files): every root is written as a whole.
func findTrees(s *subject) []tree {
	var roots []string
	removes := false
	expr := false
	// A conjunction of -name tests keeps only the files whose name
	// matches every one: find . -name '*.pyc' -delete removes no config.
	var patterns []string
	simple := true
	for i, a := range s.args {
		if !expr && !strings.HasPrefix(a, "-") && a != "(" && a != "!" {
			roots = append(roots, a)
			continue
		}
		expr = true
		switch a {
		case "-delete":
			removes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(s.args) && removesFiles(path.Base(s.args[i+1])) {
				removes = true
			}
		case "-name", "-iname":
			if i+1 < len(s.args) && !s.dynamic(i+1) {
				p := s.args[i+1]
				if a == "-iname" {
					p = strings.ToLower(p)
				}
				patterns = append(patterns, p)
			} else {
				simple = false
			}
		case "-o", "-or", "!", "-not", "(", ")", ",":
			simple = false
		}
	}
	if !removes {
		return nil
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	var names func(string) bool
	if simple && len(patterns) > 0 {
		names = func(base string) bool {
			for _, p := range patterns {
				// Guarded names are compared in lower case, so a
				// -name test is too: it can only match more.
				if ok, err := path.Match(strings.ToLower(p), strings.ToLower(base)); err == nil && !ok {
					return false
				}
			}
			return true
		}
	}
	var out []tree
	for _, r := range roots {
		out = append(out, tree{root: r, kind: treeRemove, via: "find " + r + " -delete", names: names})
	}
	return out
}

// removesFiles reports whether a command that find -exec runs on the files
// it finds removes or changes them.
func removesFiles(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "truncate", "mv", "chmod", "chown", "chgrp", "sed", "perl", "tee", "cp", "dd":
		return true
	}
	return false
}

// rsyncTrees reads rsync --delete (the destination loses what the source
// lacks) and --remove-source-files (the sources go).
func rsyncTrees(s *subject) []tree {
	pos, _ := argWords(s, []string{"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "-T", "--temp-dir", "--partial-dir", "--compare-dest", "--copy-dest", "--link-dest", "--rsync-path", "--chmod", "--chown", "--log-file", "--password-file", "-B", "--block-size", "--port", "--timeout", "--bwlimit"})
	if len(pos) < 2 {
		return nil
	}
	var out []tree
	dest := pos[len(pos)-1]
	if hasFlag(s, "--delete", "--delete-before", "--delete-during", "--delete-after", "--delete-delay", "--delete-excluded", "--del") && !strings.Contains(dest, ":") {
		out = append(out, tree{root: dest, kind: treeRemove, via: "rsync --delete into " + dest})
	}
	if hasFlag(s, "--remove-source-files") {
		for _, src := range pos[:len(pos)-1] {
			if !strings.Contains(src, ":") {
				out = append(out, tree{root: src, kind: treeRemove, via: "rsync --remove-source-files " + src})
			}
		}
	}
	return out
}

// gitTrees reads the git subcommands that put the working tree back: what
// they write is the repository's working tree (found from the call's
// folder), or the paths they name.
func gitTrees(s *subject) []tree {
	pos, _ := argWords(s, []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "-s", "--source", "-b", "-B", "--orphan", "-m", "-e", "--exclude", "--pathspec-from-file"})
	if len(pos) == 0 {
		return nil
	}
	sub, rest := pos[0], pos[1:]
	here := func(kind treeKind, via string) []tree {
		roots := rest
		if len(roots) == 0 {
			roots = []string{gitTop}
		}
		out := make([]tree, len(roots))
		for i, r := range roots {
			out[i] = tree{root: r, kind: kind, via: via}
		}
		return out
	}
	switch sub {
	case "reset":
		if hasFlag(s, "--hard", "--merge", "--keep") {
			return []tree{{root: gitTop, kind: treeGitTracked, via: "git reset --hard"}}
		}
	case "stash":
		if len(rest) > 0 && !slices.Contains([]string{"push", "save"}, rest[0]) {
			// list, show, drop, pop, apply... leave the tree to the
			// stash's own paths, which are not known here.
			return nil
		}
		if len(rest) > 0 {
			rest = rest[1:]
		}
		kind := treeGitTracked
		if hasFlag(s, "-u", "--include-untracked", "-a", "--all") {
			kind = treeGitUntracked
			return append(here(treeGitTracked, "git stash"), here(kind, "git stash -u")...)
		}
		return here(kind, "git stash")
	case "checkout", "switch":
		if hasFlag(s, "-f", "--force", "--discard-changes") {
			return []tree{{root: gitTop, kind: treeGitTracked, via: "git " + sub + " --force"}}
		}
		if sub == "checkout" && slices.Contains(rest, ".") {
			return []tree{{root: ".", kind: treeGitTracked, via: "git checkout ."}}
		}
	case "restore":
		for _, p := range rest {
			if p == "." || p == ":/" {
				return []tree{{root: strings.TrimPrefix(p, ":"), kind: treeGitTracked, via: "git restore " + p}}
			}
		}
	case "clean":
		if hasFlag(s, "-f", "--force") {
			return here(treeGitUntracked, "git clean")
		}
	case "read-tree", "checkout-index":
		if hasFlag(s, "-u", "-a", "--all") {
			return []tree{{root: gitTop, kind: treeGitTracked, via: "git " + sub}}
		}
	case "apply", "am":
		// The files a patch changes are in the patch: named when it can
		// be read, else any guarded file in the tree may be changed.
		if hasFlag(s, "--check", "--stat", "--numstat", "--summary") {
			return nil
		}
		t := tree{root: gitTop, kind: treeRemove, via: "git " + sub}
		switch {
		case len(rest) == 1:
			t.patch = rest[0]
		case len(rest) == 0 && len(s.payload) > 0:
			t.patch, t.patchText = strings.Join(s.payload, "\n"), true
		}
		return []tree{t}
	}
	return nil
}

// gitTop stands for the top of the git working tree the call runs in.
const gitTop = "\x00git-top"

// extraction reads tar -x, unzip, 7z x and cpio -i: the folder they
// extract into, whose files the archive may replace and add to.
func extraction(s *subject) []tree {
	var dir string
	switch s.name {
	case "tar", "bsdtar":
		if !tarExtracts(s) {
			return nil
		}
		_, values := argWords(s, []string{"-C", "--directory", "-f", "--file", "-b", "-T", "--files-from", "-X", "--exclude-from"})
		dir = values["-C"]
		if dir == "" {
			dir = values["--directory"]
		}
	case "unzip":
		if hasFlag(s, "-l", "-v", "-t", "-Z", "-p") {
			return nil
		}
		_, values := argWords(s, []string{"-d", "-x"})
		dir = values["-d"]
	case "7z", "7za":
		pos, _ := argWords(s, nil)
		if len(pos) == 0 || pos[0] != "x" && pos[0] != "e" {
			return nil
		}
		for _, a := range s.args {
			if v, ok := strings.CutPrefix(a, "-o"); ok && v != "" {
				dir = v
			}
		}
	case "cpio":
		if !hasFlag(s, "-i", "--extract") {
			return nil
		}
		_, values := argWords(s, []string{"-D", "--directory"})
		dir = values["-D"]
	}
	if dir == "" {
		dir = "."
	}
	via := "extracting into " + dir
	archive := archiveOf(s)
	if archive != "" {
		via = "extracting " + archive + " into " + dir
	}
	return []tree{{root: dir, kind: treeUnknown, via: via, archive: archive}}
}

// tarExtracts reports whether tar's arguments ask it to extract: -x or
// --extract/--get, or x in the first word's old-style letters (tar xzf).
func tarExtracts(s *subject) bool {
	if len(s.args) > 0 && !strings.HasPrefix(s.args[0], "-") && strings.ContainsRune(s.args[0], 'x') {
		return true
	}
	return hasFlag(s, "-x", "--extract", "--get")
}

// patchTrees reads patch: the files it changes are named in the patch
// itself, which is read from stdin or -i; without --dry-run the folder it
// runs in (or -d DIR) is written.
func patchTrees(s *subject) []tree {
	if hasFlag(s, "--dry-run", "-C", "--check") {
		return nil
	}
	pos, values := argWords(s, []string{"-p", "-d", "--directory", "-i", "--input", "-o", "--output", "-r", "-B", "-F", "-z", "-D", "-V", "-Y"})
	if len(pos) > 0 {
		// patch FILE [PATCHFILE]: the one file is named.
		return nil
	}
	dir := values["-d"]
	if dir == "" {
		dir = values["--directory"]
	}
	if dir == "" {
		dir = "."
	}
	t := tree{root: dir, kind: treeRemove, via: "patch in " + dir}
	switch in := values["-i"] + values["--input"]; {
	case in != "":
		t.patch = in
	case len(s.payload) > 0:
		t.patch, t.patchText = strings.Join(s.payload, "\n"), true
	}
	return []tree{t}
}

// downloadTrees reads wget's recursive and list downloads, whose file names
// come from the server.
func downloadTrees(s *subject) []tree {
	if !hasFlag(s, "-r", "--recursive", "-m", "--mirror", "-i", "--input-file") {
		return nil
	}
	_, values := argWords(s, []string{"-P", "--directory-prefix", "-O", "--output-document"})
	dir := values["-P"]
	if dir == "" {
		dir = values["--directory-prefix"]
	}
	if dir == "" {
		dir = "."
	}
	return []tree{{root: dir, kind: treeUnknown, via: "wget into " + dir}}
}

// walk is where a call's commands run and what looking at folders has
// cost it: every folder a command writes as a whole is looked into, and an
// agent must not make a call cost one look per command of millions.
type walk struct {
	dir    string
	probes int
}

// maxTreeProbes bounds the folders written as a whole that one call's
// commands may have looked into; past it, such a command is asked.
const maxTreeProbes = 256

// cover returns covered(t, w.dir), or false past maxTreeProbes. A tree
// whose root does not exist costs nothing: most rm -r of a build folder.
func (w *walk) cover(p *Policy, t tree) ([]written, bool) {
	if w.probes >= maxTreeProbes {
		return nil, false
	}
	w.probes++
	return p.covered(t, w.dir), true
}

// maxProbeDirs bounds the folders covered looks into for one tree: the
// tree's root and the folders of the call's path below it.
const maxProbeDirs = 64

// covered returns the guarded files a command that writes tree t in the
// folder cwd writes: rewind's own files under the tree's root, and the
// files the rules with writes guard by name (.rewind.toml,
// .claude/settings.json...) in the root and in every folder from cwd up
// to the root, which discovery and the hosts read. A guarded file is
// written when it is there (and, for git, when git would change it), or,
// for a tree of unknown content, also when the archive could create it
// in a folder the host reads settings from.
func (p *Policy) covered(t tree, cwd string) []written {
	root := t.root
	if root == gitTop {
		root = gitTopOf(p.absPath(cwd, ""))
		if root == "" && t.patch != "" {
			// git apply outside a repository applies in the folder.
			root = cwd
		}
		if root == "" {
			return nil
		}
	}
	abs := p.absPath(root, cwd)
	if abs == "" {
		return nil
	}
	if t.archive != "" {
		if entries, ok := listArchive(p.absPath(t.archive, cwd)); ok {
			out := make([]written, len(entries))
			for i, e := range entries {
				out[i] = written{name: filepath.Join(abs, filepath.FromSlash(e)), via: t.via}
			}
			return out
		}
	}
	if t.patch != "" {
		if files, ok := p.patchedFiles(t, cwd); ok {
			out := make([]written, len(files))
			for i, f := range files {
				out[i] = written{name: filepath.Join(abs, filepath.FromSlash(f)), via: t.via}
			}
			return out
		}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil
	}
	var out []written
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, written{name: f, via: t.via})
		}
	}
	var index map[string]indexEntry
	top, known := "", true
	if t.kind == treeGitTracked || t.kind == treeGitUntracked {
		top = gitTopOf(abs)
		index, known = readGitIndex(top)
	}
	keep := func(f string) bool {
		if !known {
			// An index that cannot be read says nothing of what git
			// will change: every guarded file there may be.
			return true
		}
		switch t.kind {
		case treeGitTracked:
			e, tracked := index[gitRel(top, f)]
			return tracked && e.changed(f)
		case treeGitUntracked:
			_, tracked := index[gitRel(top, f)]
			return !tracked
		}
		return true
	}
	for _, own := range p.cfg.OwnFiles {
		if within(abs, own) && exists(own) && keep(own) && (t.names == nil || t.names(filepath.Base(own))) {
			add(own)
		}
	}
	names := p.guardedNames()
	dirs := []string{abs}
	if c := p.absPath(cwd, ""); c != "" && within(abs, c) {
		for d := c; d != abs && len(dirs) < maxProbeDirs; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	creates := t.kind == treeUnknown && (p.absPath(cwd, "") == "" || within(abs, p.absPath(cwd, "")) || p.home != "" && abs == filepath.Clean(p.home))
	for _, d := range dirs {
		for _, n := range names {
			f := filepath.Join(d, filepath.FromSlash(n))
			if t.names != nil && !t.names(path.Base(n)) {
				continue
			}
			if exists(f) && keep(f) || creates && d == abs {
				add(f)
			}
		}
	}
	return out
}

// maxPatchSize bounds a patch file read.
const maxPatchSize = 4 << 20

// patchedFiles returns the files the patch of t names, or false when the
// patch cannot be read.
func (p *Policy) patchedFiles(t tree, cwd string) ([]string, bool) {
	text := t.patch
	if !t.patchText {
		data, err := readConfig(p.absPath(t.patch, cwd))
		if err != nil || len(data) > maxPatchSize {
			return nil, false
		}
		text = string(data)
	}
	return patchFiles(text), true
}

// absPath returns name made absolute against cwd, with ~ and $HOME
// expanded, or "" when that cannot be known.
func (p *Policy) absPath(name, cwd string) string {
	name = strings.Trim(name, `"'`)
	if p.home != "" {
		for _, prefix := range []string{"~/", "$HOME/", "${HOME}/"} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				name = filepath.Join(p.home, rest)
			}
		}
		if name == "~" || name == "$HOME" || name == "${HOME}" {
			name = p.home
		}
	}
	if !filepath.IsAbs(name) {
		if cwd == "" || cwd == unknownDir || !filepath.IsAbs(cwd) && !strings.HasPrefix(cwd, "~") {
			return ""
		}
		name = filepath.Join(p.absPath(cwd, ""), name)
		if !filepath.IsAbs(name) {
			return ""
		}
	}
	return filepath.Clean(name)
}

// within reports whether path is dir or lies under it.
func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// guardedNames returns the files and folders the rules with writes guard
// by name in any folder: the literal tails of their "**/NAME" globs
// (".rewind.toml", ".claude/settings.json").
func (p *Policy) guardedNames() []string {
	var out []string
	for _, w := range p.writes {
		for _, g := range w.globs {
			n, ok := strings.CutPrefix(g, "**/")
			if !ok || strings.ContainsAny(n, "*?[\\") || slices.Contains(out, n) {
				continue
			}
			out = append(out, n)
		}
	}
	for _, t := range p.tighten {
		for _, n := range t.guardedNames() {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

// maxGitDepth bounds the folders gitTopOf climbs.
const maxGitDepth = 128

// gitTopOf returns the top of the git working tree holding dir: the
// nearest folder from dir upwards with a .git in it, or "".
func gitTopOf(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	for range maxGitDepth {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

func gitRel(top, f string) string {
	rel, err := filepath.Rel(top, f)
	if err != nil {
		return ""
	}
	return filepath.ToSlash(rel)
}
