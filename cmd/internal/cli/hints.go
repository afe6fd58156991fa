package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"strings"
	"syscall"

	"github.com/rewind-dev/rewind/policy"
)

// configError gives a config that cannot be used the fix that matches
// why: a file named by --config or $REWIND_CONFIG that is not there, or
// one with an error in it.
func configError(configPath string, err error) error {
	var le *policy.LoadError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		from := "--config"
		if configPath == "" {
			from = "$REWIND_CONFIG"
		}
		return &hintError{err: err, hint: "correct the path given by " + from +
			", or leave it out: rewind then reads .rewind.toml in the project and rewind/config.toml in your config folder"}
	case errors.As(err, &le):
		return &hintError{err: err, hint: "correct the file at the line named; rewind doctor checks every config in force"}
	}
	return err
}

// listenError says why a server cannot listen on addr, given with flag,
// and what to give instead.
func listenError(err error, flag, addr string) error {
	var ae *net.AddrError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return &hintError{
			err:  fmt.Errorf("cannot listen on %s: the address is already in use", addr),
			hint: fmt.Sprintf("another program (another rewind?) is listening there; choose another port with %s 127.0.0.1:PORT, or %s 127.0.0.1:0 for any free one", flag, flag),
		}
	case errors.Is(err, syscall.EACCES):
		return &hintError{
			err:  fmt.Errorf("cannot listen on %s: permission denied", addr),
			hint: fmt.Sprintf("ports below 1024 need privileges; choose a port above 1023 with %s 127.0.0.1:PORT", flag),
		}
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return &hintError{
			err:  fmt.Errorf("cannot listen on %s: no such address on this machine", addr),
			hint: fmt.Sprintf("give an address of this machine, such as %s 127.0.0.1:PORT", flag),
		}
	case errors.As(err, &ae), strings.Contains(err.Error(), "unknown port"):
		return &hintError{
			err:  fmt.Errorf("%s wants HOST:PORT, not %q", flag, addr),
			hint: fmt.Sprintf("such as %s 127.0.0.1:9669, or %s 127.0.0.1:0 for any free port", flag, flag),
		}
	}
	return err
}
