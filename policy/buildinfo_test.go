package policy

import (
	"bytes"
	"debug/buildinfo"
	"encoding/binary"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGoBuildInfoAgrees holds goBuildInfo to debug/buildinfo on real
// binaries: this test's own, built from rewind's module, and the system's
// programs, Go or not.
func TestGoBuildInfoAgrees(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{self}
	for _, name := range []string{"sh", "go", "gofmt", "git", "python3"} {
		if p, err := exec.LookPath(name); err == nil {
			files = append(files, p)
		}
	}
	for _, name := range files {
		want, werr := buildinfo.ReadFile(name)
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		got, _, ok := goBuildInfo(f, maxBuildInfoScan)
		f.Close()
		if ok != (werr == nil) {
			t.Errorf("%s: goBuildInfo ok = %v; debug/buildinfo: %v", name, ok, werr)
			continue
		}
		if ok && (got.Path != want.Path || got.Main.Path != want.Main.Path || got.GoVersion != want.GoVersion) {
			t.Errorf("%s: goBuildInfo = %q %q %q, debug/buildinfo %q %q %q", name,
				got.Path, got.Main.Path, got.GoVersion, want.Path, want.Main.Path, want.GoVersion)
		}
	}
	if bi, _, ok := goBuildInfo(mustOpen(t, self), maxBuildInfoScan); !ok || bi.Main.Path != rewindModule {
		t.Errorf("this test binary: %+v, %v; want the main module %s", bi, ok, rewindModule)
	}
	// Past what the call may read of programs, whether it is rewind is
	// not known.
	w := &walk{programReads: maxProgramReads - 1<<20}
	if rewind, unknown := builtFromRewind(self, w); rewind || !unknown {
		t.Errorf("builtFromRewind with 1 MiB left = %v, unknown %v; want unknown", rewind, unknown)
	}
	if w.programReads != maxProgramReads {
		t.Errorf("programReads = %d after the call, want %d", w.programReads, maxProgramReads)
	}
	w = &walk{}
	if rewind, unknown := builtFromRewind(self, w); !rewind || unknown || w.programReads == 0 {
		t.Errorf("builtFromRewind = %v, unknown %v, read %d; want rewind", rewind, unknown, w.programReads)
	}
}

// TestGoBuildInfoBounds checks that a file holding the magic everywhere,
// or its blob past the limit, costs what the bounds allow.
func TestGoBuildInfoBounds(t *testing.T) {
	t.Parallel()
	blob := buildInfoBlob(0x2, "go1.26.8", "github.com/rewind-dev/rewind/cmd/rewind", rewindModule)
	// Aligned magics whose strings claim a MiB each and are not there.
	fake := append(append([]byte(nil), blob[:buildInfoHeaderSize]...), binary.AppendUvarint(nil, 1<<20)...)
	for len(fake)%buildInfoAlign != 0 {
		fake = append(fake, 0)
	}
	data := append(bytes.Repeat(fake, 10000), blob...)
	bi, read, ok := goBuildInfo(bytes.NewReader(data), maxBuildInfoScan)
	if ok || read > int64(len(data))*(1+maxBlobs) {
		t.Errorf("goBuildInfo = %v, %v after reading %d bytes of %d; want no blob past %d magics, each read once", bi, ok, read, len(data), maxBlobs)
	}
	if _, _, ok := goBuildInfo(bytes.NewReader(bytes.Repeat(fake, 4)), maxBuildInfoScan); ok {
		t.Error("goBuildInfo found a blob in fakes")
	}
	if _, _, ok := goBuildInfo(bytes.NewReader(append(bytes.Repeat(fake, 4), blob...)), maxBuildInfoScan); !ok {
		t.Error("goBuildInfo missed the blob after 4 fakes")
	}
	padded := append(make([]byte, 3<<20), blob...)
	if _, read, ok := goBuildInfo(bytes.NewReader(padded), 2<<20); ok || read != 2<<20 {
		t.Errorf("goBuildInfo past its limit = %v, read %d; want no blob, %d read", ok, read, 2<<20)
	}
	if _, _, ok := goBuildInfo(bytes.NewReader(padded), maxBuildInfoScan); !ok {
		t.Error("goBuildInfo missed the blob at 3 MiB")
	}
}

func mustOpen(t *testing.T, name string) *os.File {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// buildInfoBlob returns a blob of build information as the Go linker
// writes it, for a main package path in module mod.
func buildInfoBlob(flags byte, vers, path, mod string) []byte {
	start, end := "0w\xaf\x0c\x92t\b\x02A\xe1\xc1\a\xe6\xd6\x18\xe6", "\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2"
	info := start + "path\t" + path + "\nmod\t" + mod + "\t(devel)\t\n" + end
	b := append([]byte(nil), buildInfoMagic...)
	b = append(b, 8, flags)
	b = append(b, make([]byte, buildInfoHeaderSize-len(b))...)
	b = binary.AppendUvarint(b, uint64(len(vers)))
	b = append(b, vers...)
	b = binary.AppendUvarint(b, uint64(len(info)))
	return append(b, info...)
}

// afterMisaligned returns blob at offset 3, then blob again at the next
// aligned offset.
func afterMisaligned(blob []byte) []byte {
	b := append(bytes.Repeat([]byte{'x'}, 3), blob...)
	for len(b)%buildInfoAlign != 0 {
		b = append(b, 0)
	}
	return append(b, blob...)
}

func TestGoBuildInfo(t *testing.T) {
	t.Parallel()
	blob := buildInfoBlob(0x2, "go1.26.8", "github.com/rewind-dev/rewind/cmd/rewind", rewindModule)
	at := func(off int, b []byte) []byte {
		return append(bytes.Repeat([]byte{'x'}, off), b...)
	}
	tests := []struct {
		name string
		data []byte
		want string // the main package's path; "" for none
	}{
		{"at the start", blob, "github.com/rewind-dev/rewind/cmd/rewind"},
		{"aligned", at(4096, blob), "github.com/rewind-dev/rewind/cmd/rewind"},
		// The magic across the end of goBuildInfo's second read, which
		// begins a magic's length less one before the first one's end.
		{"across a read", at(2<<20-buildInfoAlign, blob), "github.com/rewind-dev/rewind/cmd/rewind"},
		{"after a misaligned copy", afterMisaligned(blob), "github.com/rewind-dev/rewind/cmd/rewind"},
		{"misaligned", at(7, blob), ""},
		{"before Go 1.18", buildInfoBlob(0x0, "go1.17", "x", "y"), ""},
		{"no version", buildInfoBlob(0x2, "", "x", "y"), ""},
		{"truncated header", blob[:20], ""},
		{"truncated strings", blob[:len(blob)-5], ""},
		{"no sentinels", append(append(append([]byte(nil), blob[:buildInfoHeaderSize]...), 8, 'g', 'o', '1', '.', '2', '6', '.', '8', 3), "mod"...), ""},
		{"length past the file", append(append(append([]byte(nil), blob[:buildInfoHeaderSize]...), binary.AppendUvarint(nil, 1<<40)...), "go"...), ""},
		{"empty", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi, _, ok := goBuildInfo(bytes.NewReader(tt.data), maxBuildInfoScan)
			got := ""
			if ok {
				got = bi.Path
			}
			if got != tt.want {
				t.Errorf("goBuildInfo = %q, %v; want %q", got, ok, tt.want)
			}
			if ok && (bi.Main.Path != rewindModule || bi.GoVersion != "go1.26.8") {
				t.Errorf("goBuildInfo = %+v", bi)
			}
		})
	}
}

// FuzzGoBuildInfo checks that no file makes goBuildInfo fail other than
// by answering no, and that what it reads it read from a blob.
func FuzzGoBuildInfo(f *testing.F) {
	f.Add(buildInfoBlob(0x2, "go1.26.8", "github.com/rewind-dev/rewind/cmd/rewind", rewindModule))
	f.Add(append([]byte("\x7fELF"), buildInfoBlob(0x2, "go1.26.8", "a", "b")...))
	f.Add(buildInfoBlob(0x3, "go1.26.8", "a\tb", "c\nd"))
	f.Add([]byte("\xff Go buildinf:"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bi, read, ok := goBuildInfo(bytes.NewReader(data), maxBuildInfoScan)
		// The scan reads the file once, and each blob it decodes at most
		// the rest of it.
		if read > int64(len(data))*(1+maxBlobs) {
			t.Errorf("read %d bytes of %d", read, len(data))
		}
		if !ok {
			return
		}
		if bi.GoVersion == "" || !bytes.Contains(data, buildInfoMagic) {
			t.Errorf("goBuildInfo = %+v from no blob", bi)
		}
		if strings.ContainsAny(bi.Path, "\n") {
			t.Errorf("path %q holds a line break", bi.Path)
		}
	})
}
