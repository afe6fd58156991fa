package ptytest

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// open returns a new pseudo-terminal's master and slave.
func open() (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("ptytest: unlocking the terminal: %w", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("ptytest: naming the terminal: %w", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// attach makes slave cmd's controlling terminal, in a new session; it is
// the command's descriptor 3, not one of its standard streams.
func attach(cmd *exec.Cmd, slave *os.File) {
	cmd.ExtraFiles = append(cmd.ExtraFiles, slave)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2 + len(cmd.ExtraFiles)}
}

// Detach starts a new session for the calling process when it is not a
// session leader already, which leaves it without a controlling terminal:
// a test binary run as a command from a developer's terminal must not ask
// that terminal. A process Run started leads its session, and keeps its
// pseudo-terminal.
func Detach() {
	if pid := os.Getpid(); pid != 0 {
		if sid, err := unix.Getsid(0); err == nil && sid != pid {
			unix.Setsid()
		}
	}
}
