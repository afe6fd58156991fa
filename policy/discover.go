package policy

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// ProjectFile is the name of a project's config file, looked up from the
// call's directory upwards.
const ProjectFile = ".rewind.toml"

// isFile reports whether p is a regular file: a config is read from one.
// Anything else in its place — a FIFO that would block the read, a link
// to /dev/zero that never ends, a folder — is not a config file, so that
// nothing an agent can create in its project stalls the hook or stands
// for a config.
func isFile(p string) (bool, error) {
	fi, err := os.Stat(p)
	switch {
	case os.IsNotExist(err), os.IsPermission(err):
		// A folder we may not read is not a project of ours. os.Stat's
		// error is read without errors.Is, whose first use in a process
		// builds the runtime's tables for the interfaces it asks of the
		// error: 20 to 35 µs of every hook call, which stats a config
		// for each folder up from the project's.
		return false, nil
	case err != nil:
		return false, fmt.Errorf("finding config: %w", err)
	}
	return fi.Mode().IsRegular(), nil
}

// maxConfigSize bounds a config file read: a config is a few kilobytes,
// and a file an agent grew to gigabytes must not cost the hook its budget.
const maxConfigSize = 1 << 20

// readConfig reads the config file at path, no more than maxConfigSize
// bytes of it, and only from a regular file (opened without blocking, so
// that a FIFO put in its place since discovery cannot stall the read).
func readConfig(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxConfigSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxConfigSize {
		return nil, fmt.Errorf("%s is over %d KiB, too large for a config", path, maxConfigSize>>10)
	}
	return data, nil
}

// userConfigDir follows os.UserConfigDir, reading the environment through
// getenv so that discovery can be tested.
func userConfigDir(getenv func(string) string) string {
	switch runtime.GOOS {
	case "windows":
		return getenv("AppData")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, "Library", "Application Support")
		}
	case "plan9":
		if h := getenv("home"); h != "" {
			return filepath.Join(h, "lib")
		}
	default:
		if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
			return d
		}
		if h := getenv("HOME"); h != "" {
			return filepath.Join(h, ".config")
		}
	}
	return ""
}

// Candidates returns the Zerto VM names a target written in a command may
// stand for, in the order capture should try them: the alias when one is
// configured, the name as written, and, with strip_domain, the name without
// its domain (and its alias). Aliases match host names case-insensitively.
func (t TargetsConfig) Candidates(name string) []string {
	var out []string
	add := func(s string) {
		if s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	add(t.alias(name))
	add(name)
	if t.StripDomain && !isIPv4(name) {
		if short, _, ok := strings.Cut(name, "."); ok && short != "" {
			add(t.alias(short))
			add(short)
		}
	}
	return out
}

// alias returns the alias of name: an exact key first, else the first key
// in sorted order that equals it ignoring case.
func (t TargetsConfig) alias(name string) string {
	if v, ok := t.Aliases[name]; ok {
		return v
	}
	var best string
	found := false
	for k := range t.Aliases {
		if strings.EqualFold(k, name) && (!found || k < best) {
			best, found = k, true
		}
	}
	if !found {
		return ""
	}
	return t.Aliases[best]
}

func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
