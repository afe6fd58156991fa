package policy

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/race"
)

// writeTgz writes a gzipped tar of empty files with the given names.
func writeTgz(tb testing.TB, p string, names func(yield func(string) bool)) {
	tb.Helper()
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	tw := tar.NewWriter(zw)
	for n := range names {
		if err := tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Typeflag: tar.TypeReg, ModTime: time.Unix(0, 0)}); err != nil {
			tb.Fatal(err)
		}
	}
	tw.Close()
	zw.Close()
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// manyFiles yields n names of a source tree.
func manyFiles(n int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for i := range n {
			if !yield(fmt.Sprintf("src/pkg%d/file%d.go", i/100, i)) {
				return
			}
		}
	}
}

// TestArchiveBounds: listing is bounded for the whole call and by the
// depth and length of entry names; past a bound the archive is one of
// unknown content, asked where it could create guarded files and quiet in
// a build folder.
func TestArchiveBounds(t *testing.T) {
	race.SkipHuge(t)
	t.Parallel()
	l, p := removalLab(t)
	dir := t.TempDir()
	// Each listing of big reads over half the bytes of entry names one
	// call may list.
	big := filepath.Join(dir, "big.tgz")
	writeTgz(t, big, func(yield func(string) bool) {
		for i := range maxCallArchiveNames / 2 / 4000 {
			if !yield(fmt.Sprintf("src/%d/%s", i, strings.Repeat("n", 4000))) {
				return
			}
		}
	})
	deep := filepath.Join(dir, "deep.tgz")
	writeTgz(t, deep, func(yield func(string) bool) {
		yield(strings.Repeat("d/", maxEntryDepth) + "x")
	})
	long := filepath.Join(dir, "long.tgz")
	writeTgz(t, long, func(yield func(string) bool) {
		yield(strings.Repeat("x", maxEntryName+1))
	})
	times := func(n int, cmd string) string {
		return strings.TrimSuffix(strings.Repeat(cmd+"\n", n), "\n")
	}
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{"tar xzf " + big, None},
		// A second listing is past the call's bound: the archive may
		// hold anything, here where the host reads settings. (The same
		// command twice is judged once.)
		{"tar xzf " + big + "\ntar -xzf " + big, Ask},
		{times(2, "tar xzf "+big), None},
		{times(40, "tar xzf "+big+" -C build"), None},
		{"tar xzf " + deep, Ask},
		{"tar xzf " + deep + " -C build", None},
		{"tar xzf " + long, Ask},
		{"tar xzf " + long + " -C build", None},
	} {
		if v := judgeIn(p, l.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%.80q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
}

// TestArchiveThroughLinks: an entry whose way goes through a symbolic
// link on the disk is written where the link leads; an entry whose name
// holds a guarded path is written in any case.
func TestArchiveThroughLinks(t *testing.T) {
	t.Parallel()
	l, p := removalLab(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Dir(l.user), filepath.Join(l.project, "build", "cfg")); err != nil {
		t.Skip(err)
	}
	through := filepath.Join(dir, "through.tgz")
	writeTgz(t, through, func(yield func(string) bool) { yield("cfg/config.toml") })
	cased := filepath.Join(dir, "cased.tgz")
	writeTgz(t, cased, func(yield func(string) bool) { yield("a/b/.Claude/Settings.JSON") })
	beside := filepath.Join(dir, "beside.tgz")
	writeTgz(t, beside, func(yield func(string) bool) { yield("cfgx/config.toml"); yield(".claude-notes/settings.json") })
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{"tar xzf " + through + " -C build", Ask},
		{"tar xzf " + cased + " -C build", Ask},
		{"tar xzf " + beside + " -C build", None},
		{"tar xzf " + beside, None},
	} {
		if v := judgeIn(p, l.project, tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s), want %s", tt.cmd, v.Effect, v.Reason, tt.want)
		}
	}
}

// TestZipEntryCount: a zip's entries are counted from its end record
// before its directory is read, also in the zip64 form.
func TestZipEntryCount(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 3, 70000} {
		if n > 0xffff {
			// Past the 16-bit count of a zip without zip64: written in one
			// goroutine, ten times slower under the race detector.
			race.SkipHuge(t)
		}
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for i := range n {
			zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprint(i), Method: zip.Store})
		}
		zw.Close()
		p := filepath.Join(t.TempDir(), "a.zip")
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := zipEntryCount(f, int64(b.Len()))
		f.Close()
		if !ok || got != uint64(n) {
			t.Errorf("%d entries: got %d, %v", n, got, ok)
		}
	}
}

func TestAnchorHit(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path string
		seq  []string
		want bool
	}{
		{"/p/.claude/settings.json", []string{".claude", "settings.json"}, true},
		{"/p/.claude", []string{".claude", "settings.json"}, true},
		{"/p/x.claude/settings.json", []string{".claude", "settings.json"}, false},
		{"/p/.claude/settings.json.bak", []string{".claude", "settings.json"}, false},
		{"/p/.claude/other.json", []string{".claude", "settings.json"}, false},
		{"/p/a/.rewind.toml", []string{".rewind.toml"}, true},
		{"/p/.local/state/rewind/x", []string{".local", "state", "rewind"}, true},
	} {
		a := &anchorSet{seqs: map[string][][]string{tt.seq[0]: {tt.seq}}}
		dir, entry, _ := strings.Cut(tt.path[1:], "/")
		if got := a.hit("/"+dir, entry); got != tt.want {
			t.Errorf("hit(%q, %q) = %v", tt.path, tt.seq, got)
		}
	}
}

// BenchmarkExtractLargeArchive judges the extraction of a 100,000-entry
// archive into a build folder, the red team's honest slow case.
func BenchmarkExtractLargeArchive(b *testing.B) {
	l, p := removalLab(b)
	big := filepath.Join(b.TempDir(), "big.tgz")
	writeTgz(b, big, manyFiles(maxArchiveEntries))
	cmd := "tar xzf " + big + " -C build"
	for b.Loop() {
		if v := judgeIn(p, l.project, cmd); v.Effect != None {
			b.Fatal(v.Reason)
		}
	}
}
