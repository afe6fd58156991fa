//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package confirm

import (
	"io"

	"golang.org/x/term"
)

// secret writes prompt and reads a line with echo off, as
// term.ReadPassword turns it off.
func (t *Terminal) secret(prompt string) (string, error) {
	io.WriteString(t.out, Printable(prompt))
	b, err := term.ReadPassword(int(t.in.Fd()))
	return string(b), err
}
