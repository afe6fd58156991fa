//go:build !windows

package confirm

import (
	"os/exec"
	"syscall"
)

// detachCmd starts cmd in a session of its own, without a controlling
// terminal.
func detachCmd(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
