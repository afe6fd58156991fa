package policy

import (
	"bytes"
	"encoding/binary"
	"io"
	"runtime/debug"
)

// The Go linker writes a program's build information (the Go version, the
// main package, the modules) into every binary, as a blob in its data that
// begins with buildInfoMagic at a 16-byte boundary; since Go 1.18 the two
// strings follow the blob's 32-byte header inline, each prefixed by its
// length as a varint. debug/buildinfo finds the blob through the
// executable's format, with debug/elf, debug/macho and debug/pe, whose
// packages (and debug/dwarf and internal/zstd, which they import) start in
// every process that links them: about 65 µs of every hook call
// (docs/performance.md), for a question few calls ask. goBuildInfo finds
// the blob by its magic instead, at an aligned offset of the file (the
// linker aligns the data's file offset as its address), and reads the
// modules with runtime/debug, as debug/buildinfo does.
var buildInfoMagic = []byte("\xff Go buildinf:")

const (
	buildInfoAlign      = 16
	buildInfoHeaderSize = 32
	// maxBuildInfoScan bounds how far into a file goBuildInfo looks, and
	// so what a call that copies a large program costs: the blob is at
	// the start of the data, after the code, about 18 MiB into rewind
	// (8 MiB into rewind-hook). A Go program whose blob lies further is
	// not rewind.
	maxBuildInfoScan = 64 << 20
	// maxModInfo bounds the strings of the blob read.
	maxModInfo = 1 << 20
	// maxBlobs bounds the magics decoded in one file.
	maxBlobs = 8
)

// goBuildInfo returns the build information of the Go binary r holds,
// false when it holds none that Go 1.18 or later wrote, looking for the
// blob in its first limit bytes, and returns how much it read: those it
// looked through and those of the blobs it decoded.
// It decodes the first maxBlobs aligned magics at most: a program quotes
// the magic when it links a reader of build information, and a file an
// agent writes may hold it at every aligned offset.
func goBuildInfo(r io.ReaderAt, limit int64) (bi *debug.BuildInfo, read int64, ok bool) {
	buf := make([]byte, min(1<<20, limit))
	tries, decoded := 0, int64(0)
	for off := int64(0); off < limit; {
		n, err := r.ReadAt(buf[:min(int64(len(buf)), limit-off)], off)
		read = off + int64(n) + decoded
		data := buf[:n]
		for i := 0; i+len(buildInfoMagic) <= len(data); {
			j := bytes.Index(data[i:], buildInfoMagic)
			if j < 0 {
				break
			}
			at := off + int64(i+j)
			if at%buildInfoAlign == 0 {
				if tries++; tries > maxBlobs {
					return nil, read, false
				}
				bi, n, ok := decodeBuildInfo(r, at)
				decoded += n
				read += n
				if ok {
					return bi, read, true
				}
			}
			i += j + 1
		}
		if err != nil || n < len(buildInfoMagic) {
			return nil, read, false
		}
		// The next read starts where a magic cut by this one's end would.
		off += int64(n - len(buildInfoMagic) + 1)
	}
	return nil, read, false
}

// decodeBuildInfo reads the blob at offset at of r, and returns how much
// it read.
func decodeBuildInfo(r io.ReaderAt, at int64) (*debug.BuildInfo, int64, bool) {
	const flagsOffset, flagsVersionInl = 15, 0x2
	header := make([]byte, buildInfoHeaderSize)
	if _, err := r.ReadAt(header, at); err != nil || header[flagsOffset]&flagsVersionInl == 0 {
		return nil, buildInfoHeaderSize, false
	}
	vers, next, ok := readVarString(r, at+buildInfoHeaderSize)
	read := next - at
	if !ok || vers == "" {
		return nil, read, false
	}
	mod, end, ok := readVarString(r, next)
	read = end - at
	if !ok {
		return nil, read, false
	}
	// The module information is framed by two 16-byte sentinels
	// (cmd/go/internal/modload.infoStart and infoEnd).
	if len(mod) < 33 || mod[len(mod)-17] != '\n' {
		return nil, read, false
	}
	bi, err := debug.ParseBuildInfo(mod[16 : len(mod)-16])
	if err != nil {
		return nil, read, false
	}
	bi.GoVersion = vers
	return bi, read, true
}

// readVarString reads a string prefixed by its length as a varint at
// offset at of r, and returns it and the offset after what it read.
func readVarString(r io.ReaderAt, at int64) (string, int64, bool) {
	b := make([]byte, binary.MaxVarintLen64)
	n, _ := r.ReadAt(b, at) // a short read at the end of the file is fine
	length, m := binary.Uvarint(b[:n])
	if m <= 0 || length > maxModInfo {
		return "", at + int64(n), false
	}
	s := make([]byte, length)
	k, _ := r.ReadAt(s, at+int64(m))
	if k < len(s) {
		return "", at + int64(m) + int64(k), false
	}
	return string(s), at + int64(m) + int64(length), true
}
