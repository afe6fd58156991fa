package policy

import (
	"fmt"
	"io"
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
	// treeGitMove moves the tracked files to another commit's content
	// (git checkout REF, merge, cherry-pick...; see gitMove).
	treeGitMove
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
	// from is the source a copy of folders reads (cp -r SRC DEST): of a
	// tree of unknown content, only what SRC holds can be written.
	from string
	// unlessDir marks the tree written only when its root is not a
	// folder: cp -r SRC DEST makes DEST a copy of SRC then, and writes
	// DEST/SRC otherwise.
	unlessDir bool
	// move and clean say what a git command does to the tracked and the
	// untracked files; gitCD is the folder git -C moves to, and gitOpaque
	// is set when git may read another repository or settings than the
	// hook finds.
	move      *gitMove
	clean     *gitClean
	gitCD     string
	gitOpaque bool
}

// written is a file a call writes, and, for a file found in a folder the
// call writes as a whole, how.
type written struct {
	name string
	via  string
	// ifDir, when set, is a folder the file is written in only if it is
	// a folder when the call runs: cp a b writes b/a when b is one.
	ifDir string
}

func writtenNames(names []string) []written {
	out := make([]written, len(names))
	for i, n := range names {
		out[i] = written{name: n}
	}
	return out
}

// treeCommand returns how to find the folders that name, a command known
// to write folders as a whole, writes; nil for other commands.
func treeCommand(name string) func(s *subject) []tree {
	switch name {
	case "rm":
		return recursiveRemoval("-r", "-R", "--recursive")
	case "rmdir":
		return removedTrees(nil)
	case "mv":
		return movedTrees
	case "cp", "ln", "install", "scp":
		return copiedTrees
	case "chmod":
		return chmodTrees
	case "chown":
		return removedTrees([]string{"--reference", "--from"})
	case "chgrp":
		return removedTrees([]string{"--reference"})
	case "setfacl":
		return aclTrees
	case "chattr":
		return attrTrees
	case "find":
		return findTrees
	case "rsync":
		return rsyncTrees
	case "git":
		return gitTrees
	case "tar", "bsdtar":
		return tarTrees
	case "unzip", "cpio":
		return extraction
	case "7z", "7za", "7zr":
		return sevenZipAll
	case "patch":
		return patchTrees
	case "wget":
		return downloadTrees
	case "zip":
		return zipTrees
	case "rename", "prename":
		return renameTrees
	}
	if _, ok := compressorOf(name); ok {
		return compressTrees
	}
	return nil
}

// tarTrees reads tar extracting (see extraction) and tar
// --remove-files, whose inputs go.
func tarTrees(s *subject) []tree {
	if out := extraction(s); out != nil {
		return out
	}
	if !tarCreates(s) || !hasFlag(s, "--remove-files") {
		return nil
	}
	var out []tree
	for _, p := range tarInputs(s) {
		out = append(out, tree{root: p, kind: treeRemove, via: "tar --remove-files " + p})
	}
	return out
}

// sevenZipAll reads 7z extracting and 7z -sdel.
func sevenZipAll(s *subject) []tree {
	return append(extraction(s), sevenZipTrees(s)...)
}

// chmodTrees reads chmod: a mode that may take the owner's rights away
// writes every file below each folder it is given, recursive or not,
// since a folder its owner cannot read or search hides them all.
func chmodTrees(s *subject) []tree {
	pos, values := argWords(s, []string{"--reference"})
	if values["--reference"] == "" {
		if len(pos) == 0 || modeKeepsOwner(firstMode(s)) {
			return nil
		}
		pos = pos[1:]
	}
	var out []tree
	for _, p := range pos {
		out = append(out, tree{root: p, kind: treeRemove, via: "chmod " + p})
	}
	return out
}

// firstMode returns chmod's mode: its first word that is not one of its
// own options (a mode may begin with a dash: chmod -w x).
func firstMode(s *subject) string {
	for _, a := range s.args {
		switch a {
		case "-R", "--recursive", "-v", "--verbose", "-c", "--changes", "-f", "--silent", "--quiet", "--no-preserve-root", "--preserve-root", "-h", "--no-dereference", "-H", "-L", "-P":
			continue
		}
		if strings.HasPrefix(a, "--reference") {
			return ""
		}
		return a
	}
	return ""
}

// aclTrees reads setfacl: every path it is given may lose its owner's
// rights, and with them what is below it.
func aclTrees(s *subject) []tree {
	if hasFlag(s, "--test") {
		return nil
	}
	pos, _ := argWords(s, []string{"-m", "--modify", "-M", "--modify-file", "-x", "--remove", "-X", "--remove-file", "--set", "--set-file", "--restore"})
	var out []tree
	for _, p := range pos {
		out = append(out, tree{root: p, kind: treeRemove, via: "setfacl " + p})
	}
	return out
}

// attrTrees reads chattr, whose modes (+i, -a, =e) begin like options:
// every path it is given is written (an immutable state folder takes
// rewind's own writes away).
func attrTrees(s *subject) []tree {
	var out []tree
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		switch {
		case a == "-v" || a == "-p":
			i++
		case a == "" || strings.ContainsRune("+-=", rune(a[0])):
		default:
			out = append(out, tree{root: a, kind: treeRemove, via: "chattr " + a})
		}
	}
	return out
}

// copiedTrees reads a copy of folders: cp -r, scp -r and rsync write
// what their sources hold into the destination (into DEST/NAME, or into
// DEST itself for cp -r SRC/. DEST and -T); ln -n and -T, install -T and
// cp -T replace the destination itself.
func copiedTrees(s *subject) []tree {
	spec, _ := copyCommand(s.name)
	srcs, dest, folder := spec.args(s)
	if dest == "" {
		return nil
	}
	itself := noTargetDir(s)
	var out []tree
	if itself || s.name == "ln" && hasFlag(s, "-n", "--no-dereference") {
		out = append(out, tree{root: dest, kind: treeRemove, via: s.name + " over " + dest})
	}
	recursive := false
	switch s.name {
	case "cp":
		recursive = hasFlag(s, "-r", "-R", "-a", "--recursive", "--archive")
	case "scp":
		recursive = hasFlag(s, "-r")
	case "rsync":
		recursive = hasFlag(s, "-r", "-a", "--recursive", "--archive")
	}
	if !recursive {
		return out
	}
	for _, src := range srcs {
		if strings.Contains(dest, ":") && s.name != "cp" {
			continue // a remote destination
		}
		slash := filepath.ToSlash(src)
		root := dest
		switch {
		case itself, strings.HasSuffix(slash, "/."), s.name == "rsync" && strings.HasSuffix(slash, "/"):
		case folder || len(srcs) > 1:
			root = path.Join(dest, path.Base(slash))
		default:
			// DEST/NAME when DEST is a folder, DEST itself otherwise:
			// covered looks.
			root = path.Join(dest, path.Base(slash))
			out = append(out, tree{root: dest, kind: treeUnknown, via: s.name + " -r " + src + " " + dest, from: src, unlessDir: true})
		}
		out = append(out, tree{root: root, kind: treeUnknown, via: s.name + " -r " + src + " " + dest, from: src})
	}
	return out
}

// treesOf returns the folders s writes as a whole.
func treesOf(s *subject) []tree {
	if f := treeCommand(s.name); f != nil && !s.ps {
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
	mv, _ := copyCommand("mv")
	srcs, dest, _ := mv.args(s)
	var out []tree
	for _, p := range srcs {
		out = append(out, tree{root: p, kind: treeRemove, via: "mv " + p})
	}
	if dest != "" && noTargetDir(s) {
		out = append(out, tree{root: dest, kind: treeRemove, via: "mv over " + dest})
	}
	return out
}

// findTrees reads find ROOT... -delete (or -exec of a command that
// removes or changes files): every root is written as a whole, or only
// the files whose names could reach the branch of the expression that
// deletes (see findExpr): find . -name '*.pyc' -delete removes no config,
// nor does find . -path ./build -prune -o -name '*.pyc' -delete.
func findTrees(s *subject) []tree {
	roots, expr := findArgs(s)
	e := findExpr{s: s, args: expr}
	if !e.removes() {
		return nil
	}
	if len(roots) == 0 {
		roots = []string{"."}
	}
	names := func(base string) bool { return e.deletes(base) }
	var out []tree
	for _, r := range roots {
		out = append(out, tree{root: r, kind: treeRemove, via: "find " + r + " -delete", names: names})
	}
	return out
}

// findArgs splits find's words into its roots and its expression (after
// the options -H, -L, -P, -D and -O that come first).
func findArgs(s *subject) (roots []string, expr []int) {
	i := 0
	for i < len(s.args) {
		a := s.args[i]
		switch {
		case a == "-H" || a == "-L" || a == "-P":
			i++
			continue
		case a == "-D" || strings.HasPrefix(a, "-O"):
			if a == "-D" {
				i++
			}
			i++
			continue
		}
		break
	}
	for ; i < len(s.args); i++ {
		a := s.args[i]
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" || a == "," {
			break
		}
		roots = append(roots, a)
	}
	for ; i < len(s.args); i++ {
		expr = append(expr, i)
	}
	return roots, expr
}

// findArity are find's primaries that take words, and how many.
var findArity = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
		"-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1, "-size": 1, "-perm": 1, "-user": 1, "-group": 1, "-uid": 1,
		"-gid": 1, "-mtime": 1, "-atime": 1, "-ctime": 1, "-mmin": 1, "-amin": 1, "-cmin": 1, "-newer": 1, "-anewer": 1,
		"-cnewer": 1, "-samefile": 1, "-inum": 1, "-links": 1, "-maxdepth": 1, "-mindepth": 1, "-fstype": 1, "-context": 1,
		"-printf": 1, "-fprint": 1, "-fprint0": 1, "-fls": 1, "-used": 1, "-regextype": 1, "-files0-from": 1, "-fprintf": 2,
		"-newermm": 1, "-newerat": 1, "-newerct": 1, "-newerBt": 1,
	}
})

// maxFindDepth bounds the parentheses findExpr follows; deeper, any file
// may be deleted.
const maxFindDepth = 32

// findExpr is find's expression, read for what it deletes. Each primary
// is true or false of a file, or may be either (-type f, -newer x), and
// evaluation goes left to right with -a binding tighter than -o, as find
// evaluates it: -delete (or -exec rm) deletes the file when evaluation
// reaches it.
type findExpr struct {
	s    *subject
	args []int // indexes into s.args
}

// outcome is a possible result of evaluating part of the expression on a
// file: its value, and whether the file was deleted on the way.
type outcome struct{ value, deleted bool }

type outcomes [4]bool // indexed by value*2 + deleted

func (o *outcomes) add(x outcome) {
	i := 0
	if x.value {
		i += 2
	}
	if x.deleted {
		i++
	}
	o[i] = true
}

func (o outcomes) each(f func(outcome)) {
	for i, ok := range o {
		if ok {
			f(outcome{value: i >= 2, deleted: i%2 == 1})
		}
	}
}

// removes reports whether the expression has a primary that deletes.
func (e *findExpr) removes() bool {
	for k, i := range e.args {
		switch e.s.args[i] {
		case "-delete":
			return true
		case "-exec", "-execdir", "-ok", "-okdir":
			if k+1 < len(e.args) && removesFiles(path.Base(e.s.args[e.args[k+1]])) {
				return true
			}
		}
	}
	return false
}

// deletes reports whether a file named base may be deleted.
func (e *findExpr) deletes(base string) bool {
	pos := 0
	res, ok := e.or(&pos, base, 0)
	if !ok || pos < len(e.args) {
		return true // not read through: any file may be
	}
	may := false
	res.each(func(x outcome) { may = may || x.deleted })
	return may
}

func (e *findExpr) word(pos int) string { return e.s.args[e.args[pos]] }

// or reads OR := AND (-o AND)*, and , lists.
func (e *findExpr) or(pos *int, base string, depth int) (outcomes, bool) {
	left, ok := e.and(pos, base, depth)
	for ok && *pos < len(e.args) {
		op := e.word(*pos)
		if op != "-o" && op != "-or" && op != "," {
			break
		}
		*pos++
		right, rok := e.and(pos, base, depth)
		if !rok {
			return left, false
		}
		var out outcomes
		left.each(func(l outcome) {
			if op == "," {
				right.each(func(r outcome) { out.add(outcome{r.value, l.deleted || r.deleted}) })
				return
			}
			if l.value {
				out.add(l)
				return
			}
			right.each(func(r outcome) { out.add(outcome{r.value, l.deleted || r.deleted}) })
		})
		left = out
	}
	return left, ok
}

// and reads AND := NOT ((-a)? NOT)*.
func (e *findExpr) and(pos *int, base string, depth int) (outcomes, bool) {
	left, ok := e.not(pos, base, depth)
	for ok && *pos < len(e.args) {
		op := e.word(*pos)
		if op == "-o" || op == "-or" || op == "," || op == ")" {
			break
		}
		if op == "-a" || op == "-and" {
			*pos++
		}
		right, rok := e.not(pos, base, depth)
		if !rok {
			return left, false
		}
		var out outcomes
		left.each(func(l outcome) {
			if !l.value {
				out.add(l)
				return
			}
			right.each(func(r outcome) { out.add(outcome{r.value, l.deleted || r.deleted}) })
		})
		left = out
	}
	return left, ok
}

// not reads NOT := (! | -not)* PRIMARY | ( OR ).
func (e *findExpr) not(pos *int, base string, depth int) (outcomes, bool) {
	if *pos >= len(e.args) {
		return outcomes{}, false
	}
	switch w := e.word(*pos); w {
	case "!", "-not":
		*pos++
		in, ok := e.not(pos, base, depth)
		var out outcomes
		in.each(func(x outcome) { out.add(outcome{!x.value, x.deleted}) })
		return out, ok
	case "(":
		if depth >= maxFindDepth {
			return outcomes{}, false
		}
		*pos++
		in, ok := e.or(pos, base, depth+1)
		if !ok || *pos >= len(e.args) || e.word(*pos) != ")" {
			return in, false
		}
		*pos++
		return in, true
	}
	return e.primary(pos, base)
}

// primary reads one test or action.
func (e *findExpr) primary(pos *int, base string) (outcomes, bool) {
	var out outcomes
	i := *pos
	w := e.word(i)
	*pos++
	either := func() { out.add(outcome{true, false}); out.add(outcome{false, false}) }
	switch w {
	case "-delete":
		out.add(outcome{true, true})
	case "-exec", "-execdir", "-ok", "-okdir":
		removes := *pos < len(e.args) && removesFiles(path.Base(e.word(*pos)))
		for *pos < len(e.args) && e.word(*pos) != ";" && e.word(*pos) != "+" {
			*pos++
		}
		if *pos >= len(e.args) {
			return out, false
		}
		*pos++
		out.add(outcome{true, removes})
		out.add(outcome{false, removes})
	case "-name", "-iname":
		if *pos >= len(e.args) {
			return out, false
		}
		pat := e.word(*pos)
		dynamic := e.s.dynamic(e.args[*pos])
		*pos++
		if dynamic {
			either()
			break
		}
		// Guarded names are compared in lower case, so a -name test
		// is too: it can only match more.
		ok, err := path.Match(strings.ToLower(pat), strings.ToLower(base))
		if err != nil {
			either()
			break
		}
		out.add(outcome{ok, false})
	case "-true", "-print", "-print0", "-prune", "-ls", "-quit", "-depth", "-d", "-mount", "-xdev", "-noleaf", "-follow", "-ignore_readdir_race", "-noignore_readdir_race", "-daystart", "-nowarn", "-warn":
		out.add(outcome{true, false})
	case "-false":
		out.add(outcome{false, false})
	default:
		n, known := findArity()[w]
		if !known && !strings.HasPrefix(w, "-") {
			return out, false
		}
		if *pos+n > len(e.args) {
			return out, false
		}
		*pos += n
		either()
	}
	return out, true
}

// removesFiles reports whether a command that find -exec runs on the files
// it finds removes or changes them.
func removesFiles(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "shred", "truncate", "mv", "chmod", "chown", "chgrp", "sed", "perl", "tee", "cp", "dd",
		"setfacl", "chattr", "rename", "prename", "zip", "tar", "7z", "install", "ln", "rsync", "awk", "gawk",
		// A shell, an interpreter or xargs runs what it is given.
		"sh", "bash", "dash", "zsh", "ksh", "fish", "xargs", "env", "sudo", "busybox", "python", "python3", "ruby", "node", "php":
		return true
	}
	_, compresses := compressorOf(name)
	return compresses
}

// rsyncTrees reads rsync --delete (the destination loses what the source
// lacks) and --remove-source-files (the sources go), and what it copies
// (see copiedTrees).
func rsyncTrees(s *subject) []tree {
	return append(rsyncRemovals(s), copiedTrees(s)...)
}

func rsyncRemovals(s *subject) []tree {
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
	// programReads is what telling whether programs are rewind has read
	// (see builtFromRewind).
	programReads int64
	// archives is what listing archives may still cost the call, and
	// anchors the literal parts of the policy's guarded globs that an
	// archive's entries are looked through for (see archiveWrites);
	// both are made on first use.
	archives *archiveBudget
	anchors  *anchorSet
	// globLeft is what expanding patterns may still cost the call, and
	// globDots is set when the call may make patterns match dot files
	// (see mentionsGlobDots).
	globLeft *globBudget
	globDots bool
	// gitBudget is what reading git's objects may still cost the call,
	// and gitDirty is set once a command of the call may have changed
	// what git ignores (see gitConfigWrites).
	gitBudget *gitBudget
	gitDirty  bool
	// reads counts the code handed on that the call's commands had read
	// (see maxReachReads); code read inside shares its count.
	reads *int
	// unguarded holds the files, by folder and name, that the call wrote
	// and no rule of writes matches (see judgeWrites).
	unguarded map[fileIn]bool
	// vars are the variables the call's code assigns (see assignments),
	// read from its text on first use.
	vars *assignments
}

// fileIn is a file by the folder a command ran in and the name it wrote:
// a key of two strings, which no byte of either can make another's.
type fileIn struct{ dir, name string }

// unguardedFiles returns walk.unguarded, made on first use.
func (w *walk) unguardedFiles() map[fileIn]bool {
	if w.unguarded == nil {
		w.unguarded = map[fileIn]bool{}
	}
	return w.unguarded
}

// archiveBudget returns what listing archives may still cost the call.
func (w *walk) archiveBudget() *archiveBudget {
	if w.archives == nil {
		w.archives = newArchiveBudget()
	}
	return w.archives
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
	return p.covered(t, w), true
}

// globBound names the bounds on expanding patterns, for a reason.
func globBound() string {
	return fmt.Sprintf("%d names and %d folder entries", maxGlobMatches, maxGlobDirents)
}

// judgeCommandWrites is the pass of the rules with writes over the files
// a local command writes; the rule that matches decides when it is
// stricter than m, the verdict of the other rules. A name with a pattern
// in it (rm -rf ~/.local/*) stands also for the files the shell expands
// it to (see expandGlob).
func (p *Policy) judgeCommandWrites(s *subject, m Match, w *walk) Match {
	cwd := w.dir
	past := func(what, bound string) Match {
		m.Effect, m.Rule, m.Targets = max(m.Effect, Ask), "catalog:writes past a limit", nil
		m.Reason = fmt.Sprintf("%s, past the %s rewind looks into for one call: it may hold rewind's own files", what, bound)
		return m
	}
	var files []written
	for _, f := range writtenFiles(s) {
		files = append(files, f)
		if !hasGlob(f.name) {
			continue
		}
		matches, ok := p.expand(f.name, w)
		if !ok {
			return past(s.name+" "+f.name, globBound())
		}
		for _, x := range matches {
			files = append(files, written{name: x, via: s.name + " " + f.name})
		}
	}
	if !w.gitDirty && gitConfigWrites(&subject{}, writtenNames(s.writes)) {
		// The command's own redirections happen before it runs: git
		// clean > .gitignore cleans with the file emptied.
		w.gitDirty = true
	}
	for _, t := range treesOf(s) {
		if t.root != gitTop && hasGlob(t.root) {
			matches, ok := p.expand(t.root, w)
			if !ok {
				return past(t.via, globBound())
			}
			// The names a pattern expands to cost no look each: the
			// bound on expanding bounds them.
			for _, x := range matches {
				mt := t
				mt.root, mt.via = x, strings.Replace(t.via, t.root, x, 1)
				files = append(files, p.covered(mt, w)...)
			}
			continue
		}
		c, ok := w.cover(p, t)
		if !ok {
			// Past the bound on folders looked at, a folder written as
			// a whole may hold anything.
			return past(t.via, fmt.Sprintf("%d folders", maxTreeProbes))
		}
		files = append(files, c...)
	}
	if !w.gitDirty && gitConfigWrites(s, files) {
		w.gitDirty = true
	}
	if cm, ok := p.judgeSelfCopy(s, w); ok && cm.Effect > m.Effect {
		m.Effect, m.Rule, m.Reason, m.Targets = cm.Effect, cm.Rule, cm.Reason, nil
	}
	wm, ok := p.judgeWrites(p.writes, files, cwd, func(r *writeRule) bool {
		if r.cmd == nil {
			return false
		}
		_, ok := r.cmd.match(s, false)
		return ok
	}, w.unguardedFiles())
	if ok && (wm.Effect > m.Effect || m.Rule == "") {
		m.Effect, m.Rule, m.Reason, m.Targets = wm.Effect, wm.Rule, wm.Reason, nil
	}
	return m
}

// expand returns the files on the disk a name with a pattern stands for,
// of those that could be guarded ones: a name that holds the literal part
// of a guarded glob, or a link. It reports false past the call's bound.
func (p *Policy) expand(name string, w *walk) ([]string, bool) {
	abs := p.absPath(name, w.dir)
	if abs == "" {
		return nil, true
	}
	matches, ok := expandGlob(abs, w.globDots, w.globs())
	if !ok {
		return nil, false
	}
	if w.anchors == nil {
		w.anchors = p.writeAnchors()
	}
	out := matches[:0]
	for _, x := range matches {
		dir, base := path.Split(strings.ToLower(x))
		if fi, err := os.Lstat(x); err == nil && (fi.IsDir() || fi.Mode()&os.ModeSymlink != 0) || w.anchors.hit(strings.TrimSuffix(dir, "/"), base) {
			out = append(out, filepath.FromSlash(x))
		}
	}
	return out, true
}

// maxProbeDirs bounds the folders covered looks into for one tree: the
// tree's root and the folders of the call's path below it.
const maxProbeDirs = 64

// covered returns the guarded files a command that writes tree t in w's
// folder writes: rewind's own files under the tree's root, and the files
// the rules with writes guard by name (.rewind.toml,
// .claude/settings.json...) in the root and in every folder from the call's
// folder up to the root, which discovery and the hosts read. A guarded file
// is written when it is there, or, for a tree of unknown content, also when
// the archive (or copy) could create it in a folder the host reads
// settings from; an archive that can be listed writes its entries, a patch
// the files it names, and a git command what gitCovered says.
func (p *Policy) covered(t tree, w *walk) []written {
	cwd := w.dir
	root := t.root
	if t.gitCD != "" {
		cwd = p.absPath(t.gitCD, cwd)
	}
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
		if entries, ok := listArchive(p.absPath(t.archive, cwd), w.archiveBudget()); ok {
			if out, ok := p.archiveWrites(entries, abs, t.via, w); ok {
				return out
			}
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
	} else if t.unlessDir {
		return nil
	}
	if t.kind == treeGitTracked || t.kind == treeGitUntracked || t.kind == treeGitMove {
		return p.gitCovered(t, abs, w)
	}
	from, ok := p.sourceNames(t.from, cwd)
	if !ok {
		return nil // a copy of a file, not of a folder
	}
	var out []written
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, written{name: f, via: t.via})
		}
	}
	keep := func(f string) bool {
		if from == nil {
			return true
		}
		// A copy writes under the destination only the names its source
		// holds.
		first, _, _ := strings.Cut(gitRel(abs, f), "/")
		return from[strings.ToLower(first)]
	}
	for _, own := range p.ownPaths() {
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
			if keep(f) && (exists(f) || creates && d == abs) {
				add(f)
			}
		}
	}
	// A name of several parts reaches into the folder from above it:
	// .local/state/rewind is in ~/.local/state when that is removed.
	low := strings.ToLower(filepath.ToSlash(abs))
	for _, n := range names {
		parts := strings.Split(n, "/")
		for k := len(parts) - 1; k > 0; k-- {
			if !strings.HasSuffix(low, "/"+strings.Join(parts[:k], "/")) {
				continue
			}
			f := filepath.Join(abs, filepath.FromSlash(strings.Join(parts[k:], "/")))
			if (t.names == nil || t.names(path.Base(n))) && exists(f) && keep(f) {
				add(f)
			}
		}
	}
	return out
}

// maxSourceNames bounds the names read from the top of a folder a copy
// reads.
const maxSourceNames = 4096

// sourceNames returns the names (in lower case) at the top of the folder a
// copy of folders reads, nil when that cannot be told (no source, a
// remote one, a folder of too many), and false when the source is a file:
// then the copy writes no folder.
func (p *Policy) sourceNames(src, cwd string) (map[string]bool, bool) {
	if src == "" || strings.Contains(src, ":") {
		return nil, true
	}
	abs := p.absPath(src, cwd)
	if abs == "" {
		return nil, true
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, true
	}
	if !fi.IsDir() {
		return nil, false
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	names, err := f.Readdirnames(maxSourceNames + 1)
	if err != nil && err != io.EOF || len(names) > maxSourceNames {
		return nil, true
	}
	out := make(map[string]bool, len(names))
	for _, n := range names {
		out[strings.ToLower(n)] = true
	}
	return out, true
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
