//go:build !windows

package confirm

import "os"

// openTTY opens the controlling terminal, which a process started without
// one (in a new session, or by a service) cannot.
func openTTY() (in, out *os.File, err error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	return f, f, nil
}
