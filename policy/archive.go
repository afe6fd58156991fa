package policy

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path"
	"strings"
	"syscall"
)

// An archive extracted into a folder writes the files it holds. When the
// archive is a local file the hook can list — tar (plain, gzip, bzip2) or
// zip, within the bounds below — its entries are the files written, and
// `tar -xzf release.tgz` in a project is judged by what the archive holds;
// any other archive (xz, zstd, 7z, stdin, too large) may hold anything,
// and is judged as a folder of unknown content (see treeUnknown).

// Bounds on listing an archive: the file's size, what decompressing it may
// read, and its entries. Past them the archive is not listed.
const (
	maxArchiveSize    = 64 << 20
	maxArchiveRead    = 256 << 20
	maxArchiveEntries = 100_000
)

var errArchiveLimit = errors.New("archive past the listing limits")

// listArchive returns the names of the entries of the archive at name, as
// relative slash paths, or false when it cannot be listed.
func listArchive(name string) ([]string, bool) {
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
		zr, err := zip.NewReader(f, fi.Size())
		if err != nil || len(zr.File) > maxArchiveEntries {
			return nil, false
		}
		names := make([]string, len(zr.File))
		for i, e := range zr.File {
			names[i] = e.Name
		}
		return cleanEntries(names), true
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			return nil, false
		}
		return listTar(zr)
	case bytes.HasPrefix(head, []byte("BZh")):
		return listTar(bzip2.NewReader(bufio.NewReader(f)))
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return listTar(f)
	}
	return nil, false
}

// listTar lists a tar stream, reading at most maxArchiveRead bytes of it.
func listTar(r io.Reader) ([]string, bool) {
	tr := tar.NewReader(&limitedReader{r: r, n: maxArchiveRead})
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return cleanEntries(names), true
		}
		if err != nil || len(names) >= maxArchiveEntries {
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
