package audit

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
)

// StateDir returns the folder rewind keeps its state in, the decision log
// among it, looking up environment variables with getenv:
//
//   - $REWIND_STATE_DIR, which must be an absolute path;
//   - else $XDG_STATE_HOME/rewind, when XDG_STATE_HOME is absolute (the XDG
//     base directory specification says to ignore a relative one);
//   - else, on Windows, %LocalAppData%\rewind;
//   - else, on macOS, ~/Library/Application Support/rewind, where macOS
//     programs keep data that must survive (the cache folder may be emptied);
//   - else ~/.local/state/rewind, the XDG default.
//
// StateDir does no I/O; whoever writes there creates the folder, mode 0700.
func StateDir(getenv func(string) string) (string, error) {
	return stateDir(runtime.GOOS, getenv)
}

func stateDir(goos string, getenv func(string) string) (string, error) {
	if dir := getenv("REWIND_STATE_DIR"); dir != "" {
		if !isAbs(goos, dir) {
			return "", fmt.Errorf("REWIND_STATE_DIR must be an absolute path, not %q", dir)
		}
		return filepath.Clean(dir), nil
	}
	if dir := getenv("XDG_STATE_HOME"); dir != "" && isAbs(goos, dir) {
		return filepath.Join(dir, "rewind"), nil
	}
	if goos == "windows" {
		if dir := getenv("LocalAppData"); dir != "" {
			return filepath.Join(dir, "rewind"), nil
		}
		return "", errors.New("cannot find the state folder: set REWIND_STATE_DIR or LocalAppData")
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("cannot find the state folder: set REWIND_STATE_DIR or HOME")
	}
	if goos == "darwin" || goos == "ios" {
		return filepath.Join(home, "Library", "Application Support", "rewind"), nil
	}
	return filepath.Join(home, ".local", "state", "rewind"), nil
}

// isAbs reports whether path is absolute on goos. filepath.IsAbs answers
// for the running system only, and StateDir's tests cover every system.
func isAbs(goos, path string) bool {
	if goos != "windows" {
		return len(path) > 0 && path[0] == '/'
	}
	if len(path) >= 3 && path[1] == ':' && (path[2] == '\\' || path[2] == '/') {
		return true
	}
	// UNC paths such as \\server\share.
	return len(path) >= 2 && (path[0] == '\\' || path[0] == '/') && (path[1] == '\\' || path[1] == '/')
}
