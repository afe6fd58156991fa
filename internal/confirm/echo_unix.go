//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package confirm

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// secret turns the terminal's echo off, then writes prompt and reads a
// line, and turns echo back on.
func (t *Terminal) secret(prompt string) (string, error) {
	fd := int(t.in.Fd())
	old, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return "", fmt.Errorf("turning the terminal's echo off: %w", err)
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, setTermios, &quiet); err != nil {
		return "", fmt.Errorf("turning the terminal's echo off: %w", err)
	}
	defer unix.IoctlSetTermios(fd, setTermios, old)
	return t.Line(prompt)
}
