// Package hookrun starts the hook processes of the benchmarks: in a home
// of their own, so that what they find and write there (config discovery,
// the audit log of a denied call, the token cache) is the same on every
// machine and leaves the user's alone, and timed as a whole process.
package hookrun

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Env makes the folder home and returns the environment of a hook
// process whose home it is: this process's environment with the home, the
// XDG folders and rewind's state folder in it, and no config or ZVM
// named. home is not to be the folder of the binaries, where
// $XDG_CONFIG_HOME/rewind would be the rewind binary, a broken config.
func Env(home string) ([]string, error) {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, err
	}
	return append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+home, "XDG_CONFIG_HOME="+home,
		"XDG_CACHE_HOME="+home, "REWIND_STATE_DIR="+filepath.Join(home, "state"), "REWIND_CONFIG=",
		"REWIND_ZVM_URL="), nil
}

// Time runs cmd and returns its wall time and the CPU time of the process
// it waited for. Exit code 2 is a hook's way to refuse a call, and counts
// as a run.
func Time(cmd *exec.Cmd) (wall, cpu time.Duration, err error) {
	start := time.Now()
	err = cmd.Run()
	wall = time.Since(start)
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 2 {
		err = nil
	}
	if err != nil {
		return 0, 0, err
	}
	return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}
