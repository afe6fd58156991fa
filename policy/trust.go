package policy

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-dev/rewind/internal/dirs"
)

// trustFile is the file in the state folder that lists the trusted project
// configs: one "sha256:HEX<TAB>PATH" line each.
const trustFile = "trusted"

// TrustedHash returns the hash `rewind trust` records of a config's content.
func TrustedHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// IsTrusted reports whether the config at path with content data is
// trusted: `rewind trust` recorded this content for this file. An edited
// file, or the same content at another path, is not.
func IsTrusted(path string, data []byte, getenv func(string) string) bool {
	entries, err := readTrust(getenv)
	if err != nil {
		return false
	}
	return entries[canonical(path)] == TrustedHash(data)
}

// Trust records the content of the config file at path as trusted, after
// checking that it parses, and returns the file's canonical path and the
// hash recorded.
func Trust(path string, getenv func(string) string) (string, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", "", fmt.Errorf("reading config: %w", err)
	}
	return TrustData(path, data, getenv)
}

// TrustData is Trust of the text data, read from path before: what a
// person was shown is what is trusted, and a file that changed since does
// not match it.
func TrustData(path string, data []byte, getenv func(string) string) (string, string, error) {
	if _, err := Parse(path, data); err != nil {
		return "", "", err
	}
	entries, err := readTrust(getenv)
	if err != nil {
		return "", "", err
	}
	p, h := canonical(path), TrustedHash(data)
	if strings.ContainsAny(p, "\t\n") {
		return "", "", fmt.Errorf("%q: a file whose path holds a tab or a line break cannot be trusted", p)
	}
	entries[p] = h
	return p, h, writeTrust(getenv, entries)
}

// Revoke forgets the trust of the config file at path. It reports whether
// the file was trusted.
func Revoke(path string, getenv func(string) string) (bool, error) {
	entries, err := readTrust(getenv)
	if err != nil {
		return false, err
	}
	p := canonical(path)
	if _, ok := entries[p]; !ok {
		return false, nil
	}
	delete(entries, p)
	return true, writeTrust(getenv, entries)
}

// canonical is the absolute path with symbolic links followed, so that a
// file is trusted whatever way it is reached.
func canonical(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path
}

func trustPath(getenv func(string) string) (string, error) {
	dir, err := dirs.State(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, trustFile), nil
}

func readTrust(getenv func(string) string) (map[string]string, error) {
	p, err := trustPath(getenv)
	if err != nil {
		return nil, err
	}
	entries := map[string]string{}
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return entries, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading trusted configs: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		hash, path, ok := strings.Cut(sc.Text(), "\t")
		if ok && strings.HasPrefix(hash, "sha256:") && path != "" {
			entries[path] = hash
		}
	}
	return entries, nil
}

// writeTrust replaces the trust file in one rename, so that a hook reading
// it meanwhile sees the old list or the new one.
func writeTrust(getenv func(string) string, entries map[string]string) error {
	p, err := trustPath(getenv)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("recording trust: %w", err)
	}
	var b strings.Builder
	for path, hash := range entries {
		if strings.ContainsAny(path, "\t\n") {
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\n", hash, path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), trustFile+".*")
	if err != nil {
		return fmt.Errorf("recording trust: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return fmt.Errorf("recording trust: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("recording trust: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("recording trust: %w", err)
	}
	return nil
}
