package dirs

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
)

// State returns the folder rewind keeps its state in, the decision log
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
// Whoever writes there creates the folder, mode 0700.
func State(getenv func(string) string) (string, error) {
	return state(runtime.GOOS, getenv)
}

func state(goos string, getenv func(string) string) (string, error) {
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

// Cache returns rewind's folder in the user's cache folder, found as
// os.UserCacheDir finds it but with getenv: %LocalAppData% on Windows,
// ~/Library/Caches on macOS, $home/lib/cache on Plan 9, else
// $XDG_CACHE_HOME (which must be absolute) or ~/.cache. What is kept there
// can be made again: the Zerto token cache.
func Cache(getenv func(string) string) (string, error) {
	return cache(runtime.GOOS, getenv)
}

func cache(goos string, getenv func(string) string) (string, error) {
	var base string
	switch goos {
	case "windows":
		base = getenv("LocalAppData")
		if base == "" {
			return "", errors.New("cannot find the cache folder: %LocalAppData% is not set")
		}
	case "darwin", "ios":
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("cannot find the cache folder: $HOME is not set")
		}
		base = filepath.Join(home, "Library", "Caches")
	case "plan9":
		home := getenv("home")
		if home == "" {
			return "", errors.New("cannot find the cache folder: $home is not set")
		}
		base = filepath.Join(home, "lib", "cache")
	default:
		base = getenv("XDG_CACHE_HOME")
		if base == "" {
			home := getenv("HOME")
			if home == "" {
				return "", errors.New("cannot find the cache folder: neither $XDG_CACHE_HOME nor $HOME is set")
			}
			base = filepath.Join(home, ".cache")
		} else if !isAbs(goos, base) {
			return "", fmt.Errorf("cannot find the cache folder: $XDG_CACHE_HOME is relative: %q", base)
		}
	}
	return filepath.Join(base, "rewind"), nil
}

// isAbs reports whether path is absolute on goos. filepath.IsAbs answers
// for the running system only, and the tests cover every system.
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
