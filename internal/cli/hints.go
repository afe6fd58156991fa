package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
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

// zvmSettingsHint is the fix for settings zvm.New refused, by the first
// thing it checks that zo gets wrong: the URL, the auth scheme, the
// credentials, the CA file.
func zvmSettingsHint(zo zvm.Options) string {
	u, err := url.Parse(zo.URL)
	switch {
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return "set REWIND_ZVM_URL (or url in [zerto]) to the ZVM's address with its scheme, such as https://zvm.lab.local"
	case u.User != nil:
		return "take the user name and password out of the URL: set REWIND_ZVM_USERNAME and REWIND_ZVM_PASSWORD"
	case zo.Auth != "" && zo.Auth != zvm.AuthKeycloak && zo.Auth != zvm.AuthSession:
		return "set auth in [zerto] (or REWIND_ZVM_AUTH) to keycloak for a ZVM appliance or session for a Windows ZVM"
	case zo.Auth == zvm.AuthSession && (zo.Username == "" || zo.Password == ""):
		return "set REWIND_ZVM_USERNAME and REWIND_ZVM_PASSWORD: a Windows ZVM logs in with a user"
	case (zo.Username == "" || zo.Password == "") && zo.ClientSecret == "":
		return "set REWIND_ZVM_CLIENT_ID and REWIND_ZVM_CLIENT_SECRET, or REWIND_ZVM_USERNAME and REWIND_ZVM_PASSWORD (see docs/install.md)"
	case zo.CAFile != "":
		return "set ca_file in [zerto] (or REWIND_ZVM_CA_FILE) to a readable PEM file of the CA that signed the ZVM's certificate"
	}
	return "check the [zerto] table and the REWIND_ZVM_* variables (see docs/install.md)"
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
