package policy

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// git reset --hard, git stash and git checkout -f put a tracked file back
// to what git holds only when it differs from that: a guarded file that is
// as git has it is left alone. Whether it is, git tells from its index
// (.git/index), which records each tracked file's size and modification
// time: a file whose size and time still match was not changed since. The
// hook reads the index itself (it never runs git, whose config the agent
// can write: core.fsmonitor runs a program).

// indexEntry is what the index records of one tracked file.
type indexEntry struct {
	mtimeSec, mtimeNsec uint32
	size                uint32
	// oid names the content git holds for it.
	oid oid
}

// changed reports whether the file at f differs from what the index
// recorded: it is gone, or its size or modification time moved. (git
// compares more, and then the content; a file that only looks changed
// is asked about, never one that looks unchanged.)
func (e indexEntry) changed(f string) bool {
	fi, err := os.Lstat(f)
	if err != nil {
		return true
	}
	mt := fi.ModTime()
	return uint32(fi.Size()) != e.size || uint32(mt.Unix()) != e.mtimeSec || uint32(mt.Nanosecond()) != e.mtimeNsec
}

// maxIndexSize bounds the index read: a repository of a million files has
// an index of about 100 MiB; the hook reads no further than this.
const maxIndexSize = 32 << 20

// readGitIndex reads the index of the working tree at top, by path
// relative to top with slashes. ok is false when it cannot be read (no
// index, a version or size it does not know).
func readGitIndex(top string) (entries map[string]indexEntry, ok bool) {
	if top == "" {
		return nil, false
	}
	name := filepath.Join(top, ".git", "index")
	if data, err := os.ReadFile(filepath.Join(top, ".git")); err == nil {
		// A worktree or submodule: .git is a file naming the git folder.
		dir, found := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !found {
			return nil, false
		}
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(top, dir)
		}
		name = filepath.Join(dir, "index")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxIndexSize+1))
	if err != nil || len(data) > maxIndexSize {
		return nil, false
	}
	return parseGitIndex(data)
}

// parseGitIndex reads the entries of an index file of version 2, 3 or 4
// (git's Documentation/gitformat-index.txt).
func parseGitIndex(data []byte) (map[string]indexEntry, bool) {
	if len(data) < 12 || !bytes.Equal(data[:4], []byte("DIRC")) {
		return nil, false
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return nil, false
	}
	n := binary.BigEndian.Uint32(data[8:12])
	entries := make(map[string]indexEntry, min(n, 1<<16))
	rest := data[12:]
	var prev []byte
	for range n {
		// ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each),
		// object name (20), flags (2).
		const fixed = 62
		if len(rest) < fixed {
			return nil, false
		}
		e := indexEntry{
			mtimeSec:  binary.BigEndian.Uint32(rest[8:12]),
			mtimeNsec: binary.BigEndian.Uint32(rest[12:16]),
			size:      binary.BigEndian.Uint32(rest[36:40]),
		}
		copy(e.oid[:], rest[40:60])
		flags := binary.BigEndian.Uint16(rest[60:62])
		head := fixed
		if flags&0x4000 != 0 {
			if version < 3 || len(rest) < fixed+2 {
				return nil, false
			}
			head += 2
		}
		rest = rest[head:]
		var name []byte
		if version == 4 {
			// The name is the previous one less some bytes at its end,
			// then a NUL-terminated suffix.
			strip, k := binary.Uvarint(rest)
			if k <= 0 || strip > uint64(len(prev)) {
				return nil, false
			}
			rest = rest[k:]
			end := bytes.IndexByte(rest, 0)
			if end < 0 {
				return nil, false
			}
			name = append(append([]byte(nil), prev[:len(prev)-int(strip)]...), rest[:end]...)
			rest = rest[end+1:]
		} else {
			end := bytes.IndexByte(rest, 0)
			if end < 0 {
				return nil, false
			}
			name = rest[:end]
			// Entries are padded with NULs to a multiple of 8 bytes.
			size := head + end + 1
			pad := (8 - size%8) % 8
			if end+1+pad > len(rest) {
				return nil, false
			}
			rest = rest[end+1+pad:]
		}
		prev = name
		entries[string(name)] = e
	}
	return entries, true
}
