//go:build windows

package confirm

import (
	"os/exec"
	"syscall"
)

// detachCmd starts cmd without a console.
func detachCmd(cmd *exec.Cmd) {
	const detachedProcess = 0x00000008
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: detachedProcess}
}
