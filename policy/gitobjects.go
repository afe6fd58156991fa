package policy

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// What git checkout, switch, reset --hard, merge and the others write
// depends on the commit they move the tree to: a guarded file that is the
// same there as in the index is left alone. The hook reads that commit's
// tree itself, from the repository's object store (loose objects, and
// packfiles through their index, deltas applied), for the few guarded
// paths only, and never runs git (see gitindex.go). Reading is bounded per
// call; a revision it cannot resolve or read within the bound makes the
// target unknown, and the caller asks where a guarded file is tracked.
//
// The formats are git's Documentation/gitformat-pack.txt (pack and index
// version 2) and gitformat-index.txt; refs follow gitrevisions(7): a full
// or abbreviated object name, a ref found as git finds it (NAME,
// refs/NAME, refs/tags/NAME, refs/heads/NAME, refs/remotes/NAME,
// refs/remotes/NAME/HEAD), in loose files or packed-refs, and the suffixes
// ~N, ^N and ^{...}. Reflog forms (@{-1}, stash@{2}) are read from the
// logs where they are simple; others are unknown.

// Bounds on reading the object store for one call.
const (
	maxGitObjects    = 4096
	maxGitBytes      = 64 << 20
	maxGitObjectSize = 16 << 20
	maxDeltaDepth    = 1024
	maxRefHops       = 8
	maxPackedRefs    = 16 << 20
	maxGitPacks      = 256
)

var errGitBound = errors.New("past the bound on reading git's objects")

// gitBudget is what reading objects may still cost a call.
type gitBudget struct {
	objects int
	bytes   int64
}

func newGitBudget() *gitBudget { return &gitBudget{objects: maxGitObjects, bytes: maxGitBytes} }

type oid [20]byte

// gitRepo is a repository read for its refs and objects.
type gitRepo struct {
	gitDir, common string
	objDirs        []string
	b              *gitBudget
	packs          []*gitPack
	packsRead      bool
	packed         map[string]oid
	packedRead     bool
	trees          map[oid]map[string]treeEntry
}

// treeEntry is an entry of a tree object.
type treeEntry struct {
	mode string
	id   oid
}

func (e treeEntry) isTree() bool { return e.mode == "40000" }

// openGitRepo opens the repository of the working tree at top, or returns
// false when its git folder cannot be found or is of a kind not read here
// (SHA-256 object names).
func openGitRepo(top string, b *gitBudget) (*gitRepo, bool) {
	gitDir := filepath.Join(top, ".git")
	if data, err := readSmall(gitDir, 4096); err == nil {
		dir, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !found {
			return nil, false
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(top, dir)
		}
		gitDir = filepath.Clean(dir)
	}
	r := &gitRepo{gitDir: gitDir, common: gitDir, b: b, trees: map[oid]map[string]treeEntry{}}
	if data, err := readSmall(filepath.Join(gitDir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		r.common = filepath.Clean(c)
	}
	if cfg, err := readSmall(filepath.Join(r.common, "config"), 1<<20); err == nil && bytes.Contains(bytes.ToLower(cfg), []byte("objectformat")) && bytes.Contains(bytes.ToLower(cfg), []byte("sha256")) {
		return nil, false
	}
	objects := filepath.Join(r.common, "objects")
	r.objDirs = []string{objects}
	if data, err := readSmall(filepath.Join(objects, "info", "alternates"), 64<<10); err == nil {
		for line := range strings.SplitSeq(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") || len(r.objDirs) > 8 {
				continue
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(objects, line)
			}
			r.objDirs = append(r.objDirs, filepath.Clean(line))
		}
	}
	return r, true
}

// readSmall reads a regular file of at most limit bytes.
func readSmall(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, errGitBound
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// perWorktree reports whether a ref lives in the worktree's own git
// folder rather than the common one.
func perWorktree(name string) bool {
	return !strings.HasPrefix(name, "refs/") || strings.HasPrefix(name, "refs/bisect/") ||
		strings.HasPrefix(name, "refs/worktree/") || strings.HasPrefix(name, "refs/rewritten/")
}

// ref reads a ref by its full name (HEAD, refs/heads/main), following
// symbolic refs.
func (r *gitRepo) ref(name string) (oid, bool) {
	for range maxRefHops {
		if strings.Contains(name, "..") || strings.ContainsAny(name, "\x00\\") {
			return oid{}, false
		}
		dir := r.common
		if perWorktree(name) {
			dir = r.gitDir
		}
		data, err := readSmall(filepath.Join(dir, filepath.FromSlash(name)), 64<<10)
		if err != nil {
			if name == "HEAD" || !strings.HasPrefix(name, "refs/") {
				return oid{}, false
			}
			id, ok := r.packedRef(name)
			return id, ok
		}
		line, _, _ := strings.Cut(string(data), "\n")
		line = strings.TrimSpace(line)
		if target, ok := strings.CutPrefix(line, "ref:"); ok {
			name = strings.TrimSpace(target)
			continue
		}
		if len(line) >= 40 {
			return parseOID(line[:40])
		}
		return oid{}, false
	}
	return oid{}, false
}

// packedRef looks a ref up in packed-refs.
func (r *gitRepo) packedRef(name string) (oid, bool) {
	if !r.packedRead {
		r.packedRead = true
		r.packed = map[string]oid{}
		data, err := readSmall(filepath.Join(r.common, "packed-refs"), maxPackedRefs)
		if err == nil {
			for line := range strings.SplitSeq(string(data), "\n") {
				if len(line) < 42 || line[0] == '#' || line[0] == '^' {
					continue
				}
				if id, ok := parseOID(line[:40]); ok {
					r.packed[strings.TrimSpace(line[41:])] = id
				}
			}
		}
	}
	id, ok := r.packed[name]
	return id, ok
}

// remoteBranches returns the remote-tracking refs named refs/remotes/*/name,
// as git checkout and git switch guess a branch from them.
func (r *gitRepo) remoteBranches(name string) []string {
	var out []string
	remotes, err := os.ReadDir(filepath.Join(r.common, "refs", "remotes"))
	if err == nil {
		for i, d := range remotes {
			if i >= 64 {
				break
			}
			ref := "refs/remotes/" + d.Name() + "/" + name
			if _, ok := r.ref(ref); ok && !slices.Contains(out, ref) {
				out = append(out, ref)
			}
		}
	}
	r.packedRef("")
	for ref := range r.packed {
		if rest, ok := strings.CutPrefix(ref, "refs/remotes/"); ok {
			if _, branch, ok := strings.Cut(rest, "/"); ok && branch == name && !slices.Contains(out, ref) {
				out = append(out, ref)
			}
		}
	}
	return out
}

func parseOID(s string) (oid, bool) {
	var id oid
	if len(s) != 40 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil {
		return id, false
	}
	return id, true
}

// resolve reads a revision to the object it names: a commit, or a tree.
// guess lets a bare name be a remote-tracking branch, as git checkout NAME
// and git switch NAME take it.
func (r *gitRepo) resolve(rev string, guess bool) (oid, bool) {
	base, ops := splitRev(rev)
	id, ok := r.resolveBase(base, guess)
	if !ok {
		return oid{}, false
	}
	for _, op := range ops {
		if id, ok = r.applyOp(id, op); !ok {
			return oid{}, false
		}
	}
	return id, true
}

// splitRev splits a revision into its base and its suffixes (~2, ^, ^2,
// ^{tree}).
func splitRev(rev string) (string, []string) {
	i := strings.IndexAny(rev, "~^")
	if i < 0 {
		return rev, nil
	}
	base, rest := rev[:i], rev[i:]
	var ops []string
	for rest != "" {
		j := 1
		if strings.HasPrefix(rest, "^{") {
			if k := strings.IndexByte(rest, '}'); k > 0 {
				j = k + 1
			}
		} else {
			for j < len(rest) && '0' <= rest[j] && rest[j] <= '9' {
				j++
			}
		}
		ops = append(ops, rest[:j])
		rest = rest[j:]
	}
	return base, ops
}

func (r *gitRepo) resolveBase(base string, guess bool) (oid, bool) {
	switch {
	case base == "" || base == "@":
		return r.ref("HEAD")
	case strings.Contains(base, "@{"):
		return r.reflog(base)
	case strings.ContainsAny(base, ": \t") || strings.HasPrefix(base, "-"):
		return oid{}, false
	}
	if base == "HEAD" || base == "ORIG_HEAD" || base == "MERGE_HEAD" || base == "CHERRY_PICK_HEAD" || base == "REVERT_HEAD" {
		return r.ref(base)
	}
	if base == "FETCH_HEAD" {
		data, err := readSmall(filepath.Join(r.gitDir, "FETCH_HEAD"), 1<<20)
		if err != nil || len(data) < 40 {
			return oid{}, false
		}
		return parseOID(string(data[:40]))
	}
	if len(base) == 40 && isHex(base) {
		return parseOID(strings.ToLower(base))
	}
	// git's order (gitrevisions(7)): $GIT_DIR/NAME (for names such as
	// ORIG_HEAD), refs/NAME, refs/tags/, refs/heads/, refs/remotes/, and
	// refs/remotes/NAME/HEAD.
	names := []string{"refs/" + base, "refs/tags/" + base, "refs/heads/" + base, "refs/remotes/" + base, "refs/remotes/" + base + "/HEAD"}
	if strings.HasPrefix(base, "refs/") || strings.ToUpper(base) == base {
		names = append([]string{base}, names...)
	}
	for _, name := range names {
		if id, ok := r.ref(name); ok {
			return id, true
		}
	}
	if isHex(base) && len(base) >= 4 {
		return r.abbrev(strings.ToLower(base))
	}
	if guess {
		if refs := r.remoteBranches(base); len(refs) == 1 {
			return r.ref(refs[0])
		}
	}
	return oid{}, false
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHexByte(s[i]) {
			return false
		}
	}
	return s != ""
}

// reflog reads REF@{N} and @{-N} from the reflogs: the Nth last value of
// the ref, and the Nth last branch checked out.
func (r *gitRepo) reflog(base string) (oid, bool) {
	name, sel, _ := strings.Cut(base, "@{")
	sel = strings.TrimSuffix(sel, "}")
	if strings.HasPrefix(sel, "-") {
		n, err := strconv.Atoi(sel[1:])
		if err != nil || n < 1 || name != "" {
			return oid{}, false
		}
		data, err := readSmall(filepath.Join(r.gitDir, "logs", "HEAD"), 16<<20)
		if err != nil {
			return oid{}, false
		}
		lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
		for i := len(lines) - 1; i >= 0; i-- {
			_, msg, _ := strings.Cut(lines[i], "\t")
			rest, ok := strings.CutPrefix(msg, "checkout: moving from ")
			if !ok {
				continue
			}
			if n--; n == 0 {
				from, _, _ := strings.Cut(rest, " to ")
				return r.resolveBase(from, false)
			}
		}
		return oid{}, false
	}
	n, err := strconv.Atoi(sel)
	if err != nil || n < 0 {
		return oid{}, false
	}
	switch name {
	case "", "@":
		name = "HEAD"
	case "stash":
		name = "refs/stash"
	default:
		if !strings.HasPrefix(name, "refs/") {
			name = "refs/heads/" + name
		}
	}
	data, err := readSmall(filepath.Join(r.gitDir, filepath.FromSlash("logs/"+name)), 16<<20)
	if err != nil && name != "HEAD" {
		data, err = readSmall(filepath.Join(r.common, filepath.FromSlash("logs/"+name)), 16<<20)
	}
	if err != nil {
		return oid{}, false
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	i := len(lines) - 1 - n
	if i < 0 || len(lines[i]) < 81 {
		return oid{}, false
	}
	return parseOID(lines[i][41:81])
}

// abbrev finds the one object whose name begins with prefix.
func (r *gitRepo) abbrev(prefix string) (oid, bool) {
	var found []oid
	for _, dir := range r.objDirs {
		names, err := readDirNames(filepath.Join(dir, prefix[:2]), 4096)
		if err != nil {
			continue
		}
		for _, n := range names {
			if strings.HasPrefix(prefix[:2]+n, prefix) {
				if id, ok := parseOID(prefix[:2] + n); ok && !slices.Contains(found, id) {
					found = append(found, id)
				}
			}
		}
	}
	for _, p := range r.allPacks() {
		ids, ok := p.withPrefix(prefix)
		if !ok {
			return oid{}, false
		}
		for _, id := range ids {
			if !slices.Contains(found, id) {
				found = append(found, id)
			}
		}
	}
	if len(found) != 1 {
		return oid{}, false
	}
	return found[0], true
}

func readDirNames(dir string, limit int) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(limit + 1)
	if len(names) > limit {
		return nil, errGitBound
	}
	if err == io.EOF {
		err = nil
	}
	return names, err
}

// applyOp applies one suffix of a revision.
func (r *gitRepo) applyOp(id oid, op string) (oid, bool) {
	switch {
	case op == "^{}" || op == "^{commit}":
		return r.peel(id, "commit")
	case op == "^{tree}":
		return r.peel(id, "tree")
	case strings.HasPrefix(op, "^{"):
		return oid{}, false
	}
	n := 1
	if len(op) > 1 {
		var err error
		if n, err = strconv.Atoi(op[1:]); err != nil || n > 1<<16 {
			return oid{}, false
		}
	}
	c, ok := r.peel(id, "commit")
	if !ok {
		return oid{}, false
	}
	if op[0] == '^' {
		if n == 0 {
			return c, true
		}
		parents, ok := r.parents(c)
		if !ok || n > len(parents) {
			return oid{}, false
		}
		return parents[n-1], true
	}
	for range n {
		parents, ok := r.parents(c)
		if !ok || len(parents) == 0 {
			return oid{}, false
		}
		c = parents[0]
	}
	return c, true
}

// peel follows tags to an object of the kind want (commit or tree; a
// commit peels to its tree).
func (r *gitRepo) peel(id oid, want string) (oid, bool) {
	for range maxRefHops {
		typ, data, ok := r.object(id)
		if !ok {
			return oid{}, false
		}
		switch {
		case typ == want:
			return id, true
		case typ == "tag":
			line, _, _ := strings.Cut(string(data), "\n")
			target, found := strings.CutPrefix(line, "object ")
			if !found {
				return oid{}, false
			}
			if id, ok = parseOID(target); !ok {
				return oid{}, false
			}
		case typ == "commit" && want == "tree":
			line, _, _ := strings.Cut(string(data), "\n")
			t, found := strings.CutPrefix(line, "tree ")
			if !found {
				return oid{}, false
			}
			return parseOID(t)
		default:
			return oid{}, false
		}
	}
	return oid{}, false
}

// parents returns a commit's parents.
func (r *gitRepo) parents(c oid) ([]oid, bool) {
	typ, data, ok := r.object(c)
	if !ok || typ != "commit" {
		return nil, false
	}
	var out []oid
	for line := range strings.SplitSeq(string(data), "\n") {
		if line == "" {
			break
		}
		if p, found := strings.CutPrefix(line, "parent "); found {
			id, ok := parseOID(p)
			if !ok {
				return nil, false
			}
			out = append(out, id)
		}
	}
	return out, true
}

// treeOf returns the tree of a commit, tag or tree.
func (r *gitRepo) treeOf(id oid) (oid, bool) { return r.peel(id, "tree") }

// readTree returns the entries of a tree object by name.
func (r *gitRepo) readTree(id oid) (map[string]treeEntry, bool) {
	if t, ok := r.trees[id]; ok {
		return t, true
	}
	typ, data, ok := r.object(id)
	if !ok || typ != "tree" {
		return nil, false
	}
	return r.readTreeData(id, data)
}

// readTreeData parses the content of tree id.
func (r *gitRepo) readTreeData(id oid, data []byte) (map[string]treeEntry, bool) {
	t := map[string]treeEntry{}
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, false
		}
		nul := bytes.IndexByte(data[sp:], 0)
		if nul < 0 || sp+nul+21 > len(data) {
			return nil, false
		}
		var e treeEntry
		e.mode = string(data[:sp])
		name := string(data[sp+1 : sp+nul])
		copy(e.id[:], data[sp+nul+1:sp+nul+21])
		t[name] = e
		data = data[sp+nul+21:]
	}
	r.trees[id] = t
	return t, true
}

// entryAt returns the entry at the slash path rel in tree root: present is
// false when the tree holds nothing there, ok false when it cannot be read.
func (r *gitRepo) entryAt(root oid, rel string) (e treeEntry, present, ok bool) {
	cur := root
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		t, ok := r.readTree(cur)
		if !ok {
			return treeEntry{}, false, false
		}
		e, there := t[part]
		if !there {
			return treeEntry{}, false, true
		}
		if i == len(parts)-1 {
			return e, true, true
		}
		if !e.isTree() {
			return treeEntry{}, false, true
		}
		cur = e.id
	}
	return treeEntry{}, false, true
}

// object reads an object by name: its type and content.
func (r *gitRepo) object(id oid) (string, []byte, bool) {
	if r.b.objects <= 0 {
		return "", nil, false
	}
	r.b.objects--
	hexID := hex.EncodeToString(id[:])
	for _, dir := range r.objDirs {
		f, err := os.Open(filepath.Join(dir, hexID[:2], hexID[2:]))
		if err != nil {
			continue
		}
		typ, data, err := r.loose(f)
		f.Close()
		return typ, data, err == nil
	}
	for _, p := range r.allPacks() {
		off, found, ok := p.find(id)
		if !ok {
			return "", nil, false
		}
		if found {
			typ, data, err := r.packedObject(p, off, 0)
			return typ, data, err == nil
		}
	}
	return "", nil, false
}

// take counts n bytes of objects read against the budget.
func (r *gitRepo) take(n int64) error {
	if n > maxGitObjectSize {
		return errGitBound
	}
	r.b.bytes -= n
	if r.b.bytes < 0 {
		return errGitBound
	}
	return nil
}

// loose reads a loose object: zlib of "TYPE SIZE\x00CONTENT".
func (r *gitRepo) loose(f *os.File) (string, []byte, error) {
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return "", nil, err
	}
	br := bufio.NewReader(zr)
	head, err := br.ReadString(0)
	if err != nil || len(head) > 32 {
		return "", nil, errors.New("bad object header")
	}
	typ, size, ok := strings.Cut(strings.TrimSuffix(head, "\x00"), " ")
	n, err := strconv.ParseInt(size, 10, 64)
	if !ok || err != nil || n < 0 {
		return "", nil, errors.New("bad object header")
	}
	if err := r.take(n); err != nil {
		return "", nil, err
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(br, data); err != nil {
		return "", nil, err
	}
	return typ, data, nil
}

// gitPack is a packfile and its index (version 2).
type gitPack struct {
	idx, pack *os.File
	fanout    [256]uint32
	n         uint32
}

// allPacks opens the packs of the object folders, once.
func (r *gitRepo) allPacks() []*gitPack {
	if r.packsRead {
		return r.packs
	}
	r.packsRead = true
	for _, dir := range r.objDirs {
		names, err := readDirNames(filepath.Join(dir, "pack"), 4*maxGitPacks)
		if err != nil {
			continue
		}
		slices.Sort(names)
		for _, n := range names {
			if !strings.HasSuffix(n, ".idx") || len(r.packs) >= maxGitPacks {
				continue
			}
			if p, ok := openPack(filepath.Join(dir, "pack", n)); ok {
				r.packs = append(r.packs, p)
			}
		}
	}
	return r.packs
}

// close closes the packs opened.
func (r *gitRepo) close() {
	for _, p := range r.packs {
		p.idx.Close()
		p.pack.Close()
	}
	r.packs = nil
}

func openPack(idxName string) (*gitPack, bool) {
	idx, err := os.Open(idxName)
	if err != nil {
		return nil, false
	}
	head := make([]byte, 8+256*4)
	if _, err := io.ReadFull(idx, head); err != nil || string(head[:4]) != "\xfftOc" || binary.BigEndian.Uint32(head[4:8]) != 2 {
		idx.Close()
		return nil, false
	}
	pack, err := os.Open(strings.TrimSuffix(idxName, ".idx") + ".pack")
	if err != nil {
		idx.Close()
		return nil, false
	}
	p := &gitPack{idx: idx, pack: pack}
	for i := range 256 {
		p.fanout[i] = binary.BigEndian.Uint32(head[8+4*i:])
	}
	p.n = p.fanout[255]
	return p, true
}

// nameAt reads the i-th object name of the index.
func (p *gitPack) nameAt(i uint32) (oid, bool) {
	var id oid
	_, err := p.idx.ReadAt(id[:], int64(8+256*4)+int64(i)*20)
	return id, err == nil
}

// find returns the offset of an object in the pack.
func (p *gitPack) find(id oid) (off int64, found, ok bool) {
	lo := uint32(0)
	if id[0] > 0 {
		lo = p.fanout[id[0]-1]
	}
	hi := p.fanout[id[0]]
	for lo < hi {
		mid := lo + (hi-lo)/2
		got, ok := p.nameAt(mid)
		if !ok {
			return 0, false, false
		}
		switch c := bytes.Compare(got[:], id[:]); {
		case c == 0:
			off, ok := p.offsetAt(mid)
			return off, ok, ok
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false, true
}

// withPrefix returns the names in the index that begin with a hex prefix.
func (p *gitPack) withPrefix(prefix string) ([]oid, bool) {
	first, err := strconv.ParseUint(prefix[:2], 16, 8)
	if err != nil {
		return nil, false
	}
	lo := uint32(0)
	if first > 0 {
		lo = p.fanout[first-1]
	}
	hi := p.fanout[first]
	var out []oid
	for i := lo; i < hi; i++ {
		if int(i-lo) > 1<<16 {
			return nil, false
		}
		id, ok := p.nameAt(i)
		if !ok {
			return nil, false
		}
		h := hex.EncodeToString(id[:])
		if strings.HasPrefix(h, prefix) {
			out = append(out, id)
		} else if h > prefix {
			break
		}
	}
	return out, true
}

func (p *gitPack) offsetAt(i uint32) (int64, bool) {
	var b [8]byte
	base := int64(8+256*4) + int64(p.n)*24
	if _, err := p.idx.ReadAt(b[:4], base+int64(i)*4); err != nil {
		return 0, false
	}
	v := binary.BigEndian.Uint32(b[:4])
	if v&0x80000000 == 0 {
		return int64(v), true
	}
	if _, err := p.idx.ReadAt(b[:], base+int64(p.n)*4+int64(v&0x7fffffff)*8); err != nil {
		return 0, false
	}
	off := binary.BigEndian.Uint64(b[:])
	return int64(off), off < 1<<62
}

var packTypes = [8]string{1: "commit", 2: "tree", 3: "blob", 4: "tag"}

// packedObject reads the object at off in a pack, applying its deltas.
func (r *gitRepo) packedObject(p *gitPack, off int64, depth int) (string, []byte, error) {
	if depth > maxDeltaDepth {
		return "", nil, errGitBound
	}
	br := bufio.NewReader(io.NewSectionReader(p.pack, off, 1<<62))
	c, err := br.ReadByte()
	if err != nil {
		return "", nil, err
	}
	typ := (c >> 4) & 7
	size := int64(c & 15)
	for shift := 4; c&0x80 != 0; shift += 7 {
		if c, err = br.ReadByte(); err != nil || shift > 56 {
			return "", nil, errors.New("bad pack entry")
		}
		size |= int64(c&0x7f) << shift
	}
	var baseType string
	var base []byte
	switch typ {
	case 6: // OFS_DELTA
		c, err := br.ReadByte()
		if err != nil {
			return "", nil, err
		}
		rel := int64(c & 0x7f)
		for c&0x80 != 0 {
			if c, err = br.ReadByte(); err != nil || rel > 1<<55 {
				return "", nil, errors.New("bad delta offset")
			}
			rel = (rel+1)<<7 | int64(c&0x7f)
		}
		if rel <= 0 || rel > off {
			return "", nil, errors.New("bad delta offset")
		}
		if baseType, base, err = r.packedObject(p, off-rel, depth+1); err != nil {
			return "", nil, err
		}
	case 7: // REF_DELTA
		var id oid
		if _, err := io.ReadFull(br, id[:]); err != nil {
			return "", nil, err
		}
		bp, boff, ok := r.locate(id)
		if !ok {
			return "", nil, errors.New("delta base not found")
		}
		if baseType, base, err = r.packedObject(bp, boff, depth+1); err != nil {
			return "", nil, err
		}
	default:
		if packTypes[typ] == "" {
			return "", nil, errors.New("bad pack entry type")
		}
	}
	if err := r.take(size); err != nil {
		return "", nil, err
	}
	zr, err := zlib.NewReader(br)
	if err != nil {
		return "", nil, err
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return "", nil, err
	}
	if typ != 6 && typ != 7 {
		return packTypes[typ], data, nil
	}
	out, err := r.applyDelta(base, data)
	return baseType, out, err
}

// locate finds an object in the packs, for a delta's base named by id.
func (r *gitRepo) locate(id oid) (*gitPack, int64, bool) {
	for _, p := range r.allPacks() {
		off, found, ok := p.find(id)
		if !ok {
			return nil, 0, false
		}
		if found {
			return p, off, true
		}
	}
	return nil, 0, false
}

// applyDelta applies a pack delta to its base.
func (r *gitRepo) applyDelta(base, delta []byte) ([]byte, error) {
	varint := func() (int64, bool) {
		var v int64
		for shift := 0; ; shift += 7 {
			if len(delta) == 0 || shift > 56 {
				return 0, false
			}
			c := delta[0]
			delta = delta[1:]
			v |= int64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != int64(len(base)) {
		return nil, errors.New("bad delta")
	}
	if err := r.take(dstSize); err != nil {
		return nil, err
	}
	out := make([]byte, 0, dstSize)
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		if op&0x80 == 0 {
			if op == 0 || int(op) > len(delta) {
				return nil, errors.New("bad delta")
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
			continue
		}
		var off, n int64
		for i := range 4 {
			if op&(1<<i) != 0 {
				if len(delta) == 0 {
					return nil, errors.New("bad delta")
				}
				off |= int64(delta[0]) << (8 * i)
				delta = delta[1:]
			}
		}
		for i := range 3 {
			if op&(0x10<<i) != 0 {
				if len(delta) == 0 {
					return nil, errors.New("bad delta")
				}
				n |= int64(delta[0]) << (8 * i)
				delta = delta[1:]
			}
		}
		if n == 0 {
			n = 0x10000
		}
		if off+n > int64(len(base)) || int64(len(out))+n > dstSize {
			return nil, errors.New("bad delta")
		}
		out = append(out, base[off:off+n]...)
	}
	if int64(len(out)) != dstSize {
		return nil, errors.New("bad delta")
	}
	return out, nil
}
