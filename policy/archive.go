package policy

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// An archive extracted into a folder writes the files it holds. When the
// archive is a local file the hook can list — tar (plain, gzip, bzip2) or
// zip, within the bounds below — its entries are the files written, and
// `tar -xzf release.tgz` in a project is judged by what the archive holds;
// any other archive (xz, zstd, 7z, stdin, too large) may hold anything,
// and is judged as a folder of unknown content (see treeUnknown).
//
// Listing is bounded for the whole call, not per archive: a call that
// extracts the same large archive forty times lists it once and judges
// the other thirty-nine as of unknown content. An entry is judged against
// the guarded globs only when it could reach a guarded file (see
// archiveWrites), so the cost of an archive is linear in the bytes of its
// entry names.

// Bounds on listing one archive: the file's size, and its entries. Past
// them the archive is not listed.
const (
	maxArchiveSize    = 64 << 20
	maxArchiveEntries = 100_000
)

// Bounds on what the archives of one call may cost, all of them together:
// the bytes decompressed, the entries, the bytes of their names, and the
// entries of folders on the disk read to find links the entries would be
// written through. An entry name longer than maxEntryName or deeper than
// maxEntryDepth makes its archive one of unknown content.
const (
	maxCallArchiveRead    = 256 << 20
	maxCallArchiveEntries = 200_000
	maxCallArchiveNames   = 16 << 20
	maxCallArchiveDirents = 64 << 10
	maxEntryName          = 4096
	maxEntryDepth         = 256
)

var errArchiveLimit = errors.New("archive past the listing limits")

// archiveBudget is what listing archives may still cost a call.
type archiveBudget struct {
	read    int64
	entries int
	names   int
	dirents int
}

func newArchiveBudget() *archiveBudget {
	return &archiveBudget{read: maxCallArchiveRead, entries: maxCallArchiveEntries, names: maxCallArchiveNames, dirents: maxCallArchiveDirents}
}

// listArchive returns the names of the entries of the archive at name, as
// relative slash paths, or false when it cannot be listed within b.
func listArchive(name string, b *archiveBudget) ([]string, bool) {
	if b.entries <= 0 || b.read <= 0 || b.names <= 0 {
		return nil, false
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxArchiveSize {
		return nil, false
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, false
	}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return listZip(f, fi.Size(), b)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			return nil, false
		}
		return listTar(zr, b)
	case bytes.HasPrefix(head, []byte("BZh")):
		return listTar(bzip2.NewReader(bufio.NewReader(f)), b)
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return listTar(f, b)
	}
	return nil, false
}

// listZip lists a zip archive whose central directory says it holds no
// more entries than b allows: the count is read from its end record
// before the directory is.
func listZip(f *os.File, size int64, b *archiveBudget) ([]string, bool) {
	count, ok := zipEntryCount(f, size)
	if !ok || count > uint64(min(b.entries, maxArchiveEntries)) {
		b.entries = 0
		return nil, false
	}
	zr, err := zip.NewReader(f, size)
	if err != nil {
		return nil, false
	}
	names := make([]string, 0, len(zr.File))
	for _, e := range zr.File {
		if !b.take(e.Name) {
			return nil, false
		}
		names = append(names, e.Name)
	}
	return cleanEntries(names), true
}

// zipEntryCount reads the number of entries from a zip file's end of
// central directory record (or its zip64 form).
func zipEntryCount(f *os.File, size int64) (uint64, bool) {
	const eocdLen, maxComment = 22, 0xffff
	tail := min(size, eocdLen+maxComment)
	buf := make([]byte, tail)
	if _, err := f.ReadAt(buf, size-tail); err != nil {
		return 0, false
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocdLen {
		return 0, false
	}
	count := uint64(binary.LittleEndian.Uint16(buf[i+10:]))
	if count != 0xffff {
		return count, true
	}
	// zip64: the locator before the record names the zip64 record.
	if i < 20 || string(buf[i-20:i-16]) != "PK\x06\x07" {
		return 0, false
	}
	off := int64(binary.LittleEndian.Uint64(buf[i-20+8:]))
	rec := make([]byte, 56)
	if off < 0 || off > size-56 {
		return 0, false
	}
	if _, err := f.ReadAt(rec, off); err != nil || string(rec[:4]) != "PK\x06\x06" {
		return 0, false
	}
	return binary.LittleEndian.Uint64(rec[32:]), true
}

// take counts an entry name against b, and reports whether it is within
// the bounds: the call's entries and name bytes, and the name's own length
// and depth.
func (b *archiveBudget) take(name string) bool {
	b.entries--
	b.names -= len(name)
	return b.entries >= 0 && b.names >= 0 && len(name) <= maxEntryName && strings.Count(name, "/")+strings.Count(name, `\`) < maxEntryDepth
}

// listTar lists a tar stream, reading no more of it than b allows.
func listTar(r io.Reader, b *archiveBudget) ([]string, bool) {
	lr := &limitedReader{r: r, n: b.read}
	defer func() { b.read = lr.n }()
	tr := tar.NewReader(lr)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return cleanEntries(names), true
		}
		if err != nil || len(names) >= maxArchiveEntries || !b.take(h.Name) {
			return nil, false
		}
		names = append(names, h.Name)
		if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
			// A link in the archive can point a later entry anywhere:
			// what the archive writes is not known from its names.
			return nil, false
		}
	}
}

// limitedReader is io.LimitReader that fails past its limit instead of
// ending, so that a truncated listing is not taken for a whole one.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errArchiveLimit
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// cleanEntries makes entry names relative slash paths: an entry that
// climbs out of the folder (../x, /etc/x) keeps its climb, which resolves
// against the folder like any relative name.
func cleanEntries(names []string) []string {
	out := names[:0]
	for _, n := range names {
		n = strings.TrimSuffix(strings.ReplaceAll(n, "\\", "/"), "/")
		if n == "" || n == "." {
			continue
		}
		out = append(out, path.Clean(n))
	}
	return out
}

// archiveWrites returns the entries of an archive extracted into the
// folder abs that could be guarded files, as files written, or false when
// telling them costs more than b allows. Most entries of most archives
// cannot be: an entry is kept when its path (in abs) holds the literal
// part of a rule's glob (".rewind.toml", ".claude/settings.json",
// ".local/state/rewind"), when it climbs out of abs or is absolute, and
// when a folder on its way is a symbolic link on the disk, which the
// extraction would write through. The kept entries go through the rules'
// globs as any written file does.
func (p *Policy) archiveWrites(entries []string, abs, via string, w *walk) ([]written, bool) {
	if w.anchors == nil {
		w.anchors = p.writeAnchors()
	}
	anchors := w.anchors
	lowAbs := strings.ToLower(filepath.ToSlash(abs))
	// The folder's own links lead where the entries land.
	lowReal := lowAbs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		lowReal = strings.ToLower(filepath.ToSlash(real))
	}
	dirs := diskDirs{root: abs, b: w.archiveBudget()}
	var out []written
	for _, e := range entries {
		keep := e == ".." || strings.HasPrefix(e, "../") || strings.HasPrefix(e, "/")
		if !keep {
			le := strings.ToLower(e)
			keep = anchors.hit(lowAbs, le) || lowReal != lowAbs && anchors.hit(lowReal, le)
		}
		if !keep {
			link, ok := dirs.throughLink(e)
			if !ok {
				return nil, false
			}
			keep = link
		}
		if keep {
			out = append(out, written{name: filepath.Join(abs, filepath.FromSlash(e)), via: via})
		}
	}
	return out, true
}

// anchorSet is the literal parts of the rules' globs that a written path
// must hold to match one: for "**/.claude/settings.json" the components
// .claude, settings.json in a row anywhere in the path; for an absolute
// glob ("@rewind"'s /home/u/.config/rewind/config.toml) its literal
// start. A glob with neither ("**/*.yaml") makes every path a candidate.
type anchorSet struct {
	// seqs are the component sequences by their first component.
	seqs     map[string][][]string
	prefixes []string
	all      bool
}

// writeAnchors returns the anchors of the policy's rules with writes and
// of its own files.
func (p *Policy) writeAnchors() *anchorSet {
	a := &anchorSet{seqs: map[string][][]string{}}
	add := func(g string) {
		parts := strings.Split(g, "/")
		literal := func(part string) bool { return globMeta(part) < 0 || strings.Contains(part, `\`) }
		if strings.HasPrefix(g, "/") {
			var lit []string
			for _, part := range parts {
				if !literal(part) {
					break
				}
				lit = append(lit, strings.ReplaceAll(part, `\`, ""))
			}
			a.prefixes = append(a.prefixes, strings.Join(lit, "/"))
			return
		}
		var seq []string
		for _, part := range parts {
			if part == "**" && len(seq) == 0 {
				continue
			}
			if part == "" || !literal(part) {
				break
			}
			seq = append(seq, strings.ReplaceAll(part, `\`, ""))
		}
		if len(seq) == 0 {
			a.all = true
			return
		}
		a.seqs[seq[0]] = append(a.seqs[seq[0]], seq)
	}
	for _, w := range p.writes {
		for _, g := range w.globs {
			if g != OwnFilesGlob {
				add(g)
			}
		}
	}
	for _, g := range p.ownFiles() {
		add(g)
	}
	return a
}

// hit reports whether the path dir/entry (both lower case, slash
// separated) holds one of the anchors.
func (a *anchorSet) hit(dir, entry string) bool {
	if a.all {
		return true
	}
	full := dir + "/" + entry
	for _, pre := range a.prefixes {
		if strings.HasPrefix(full, pre) || strings.HasPrefix(pre, full+"/") {
			return true
		}
	}
	for rest := full; rest != ""; {
		comp, tail, _ := strings.Cut(rest, "/")
		for _, seq := range a.seqs[comp] {
			if holdsSeq(rest, seq) {
				return true
			}
		}
		rest = tail
	}
	return false
}

// holdsSeq reports whether the components of p begin with seq; a path
// that ends inside seq (a folder above the guarded file) holds it too,
// since writing it replaces what is below.
func holdsSeq(p string, seq []string) bool {
	for _, part := range seq {
		if p == "" {
			return true
		}
		comp, tail, _ := strings.Cut(p, "/")
		if comp != part {
			return false
		}
		p = tail
	}
	return true
}

// diskDirs reads the folders under root that an archive's entries go
// through, once each, to tell whether one is a symbolic link.
type diskDirs struct {
	root string
	b    *archiveBudget
	// kinds holds, by folder relative to root ("" for root), whether
	// each of its entries (by lower-case name) is a link or a folder;
	// nil for a folder that is not there.
	kinds map[string]map[string]fs.FileMode
}

// throughLink reports whether writing entry e (relative, clean) goes
// through a symbolic link on the disk: a folder on its way, or the entry
// itself, is one. ok is false past the budget of folder entries read.
func (d *diskDirs) throughLink(e string) (link, ok bool) {
	if d.kinds == nil {
		d.kinds = make(map[string]map[string]fs.FileMode)
	}
	dir := ""
	rest := e
	for rest != "" {
		kinds, ok := d.read(dir)
		if !ok {
			return false, false
		}
		if kinds == nil {
			return false, true
		}
		name, tail, more := strings.Cut(rest, "/")
		mode, there := kinds[strings.ToLower(name)]
		switch {
		case !there:
			return false, true
		case mode&fs.ModeSymlink != 0:
			return true, true
		case !more || !mode.IsDir():
			return false, true
		}
		dir = e[:len(e)-len(tail)-1]
		rest = tail
	}
	return false, true
}

// read returns the types of the entries of folder dir under root.
func (d *diskDirs) read(dir string) (map[string]fs.FileMode, bool) {
	if kinds, seen := d.kinds[dir]; seen {
		return kinds, true
	}
	f, err := os.Open(filepath.Join(d.root, filepath.FromSlash(dir)))
	if err != nil {
		d.kinds[dir] = nil
		return nil, true
	}
	defer f.Close()
	var kinds map[string]fs.FileMode
	for {
		list, err := f.ReadDir(256)
		d.b.dirents -= len(list)
		if d.b.dirents < 0 {
			return nil, false
		}
		for _, de := range list {
			if kinds == nil {
				kinds = make(map[string]fs.FileMode)
			}
			// Names are compared in lower case, as macOS and Windows
			// compare them; of two that differ only in case, a link or
			// a folder wins, which can only keep more entries.
			k := strings.ToLower(de.Name())
			kinds[k] |= de.Type() & (fs.ModeSymlink | fs.ModeDir)
		}
		if err != nil {
			break
		}
	}
	if kinds == nil {
		kinds = map[string]fs.FileMode{}
	}
	d.kinds[dir] = kinds
	return kinds, true
}

// archiveOf returns the archive file an extraction reads, or "" when it
// reads stdin or names none.
func archiveOf(s *subject) string {
	switch s.name {
	case "tar", "bsdtar":
		_, values := argWords(s, []string{"-C", "--directory", "-f", "--file", "-b", "-T", "--files-from", "-X", "--exclude-from"})
		if f := values["-f"]; f != "" {
			return f
		}
		if f := values["--file"]; f != "" {
			return f
		}
		// Old style: tar xzf FILE, the letters' f taking the next word.
		if len(s.args) > 1 && !strings.HasPrefix(s.args[0], "-") && strings.ContainsRune(s.args[0], 'f') {
			return s.args[1]
		}
		// -xzf FILE, a cluster ending in f.
		for i, a := range s.args {
			if len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "f") && i+1 < len(s.args) {
				return s.args[i+1]
			}
		}
	case "unzip":
		pos, _ := argWords(s, []string{"-d", "-x"})
		if len(pos) > 0 {
			return pos[0]
		}
	case "7z", "7za":
		pos, _ := argWords(s, nil)
		if len(pos) > 1 {
			return pos[1]
		}
	}
	return ""
}
