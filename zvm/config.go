package zvm

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

// ErrNotConfigured says that no ZVM is configured: the [zerto] table and
// the environment name no URL. Every front end words its own sentence
// around it; Hint gives the fix.
var ErrNotConfigured = errors.New("no Zerto configured")

// Setup is what a front end adds to the [zerto] settings to reach the ZVM.
type Setup struct {
	// Getenv reads the environment (REWIND_ZVM_*); nil reads none.
	Getenv func(string) string
	// CacheDir is Options.CacheDir. Empty, it is the folder of rewind's
	// cache in the environment Getenv reads (zvmconf.CacheDir), or no
	// cache when that names none: the process's own environment is not
	// read.
	CacheDir string
	// Warnf is Options.Warnf.
	Warnf func(format string, args ...any)
}

// FromConfig returns the Client for a config's [zerto] settings, with the
// REWIND_ZVM_* variables that su.Getenv finds applied over them and the
// secrets read from their files, so that the hook and every command reach
// the same ZVM with the same credentials. A URL that is empty after both
// gives an error wrapping ErrNotConfigured. It does not contact the ZVM.
func FromConfig(s zvmconf.Settings, su Setup) (*Client, error) {
	o, err := ConfigOptions(s, su)
	if err != nil {
		return nil, err
	}
	return New(o)
}

// ConfigOptions returns the Options FromConfig makes a Client with: what
// a caller needs that makes more than one client of the same settings
// (Options.AsPerson).
//
// It lives here, not in policy, so that what only reads the config and
// judges a call (the hook's light front) does not link this client and
// net/http.
func ConfigOptions(s zvmconf.Settings, su Setup) (Options, error) {
	getenv := su.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	o := Options{
		URL:                s.URL,
		Auth:               s.Auth,
		ClientID:           s.ClientID,
		ClientSecret:       s.ClientSecret,
		Username:           s.Username,
		Password:           s.Password,
		SessionMethod:      s.SessionMethod,
		CAFile:             s.CAFile,
		InsecureSkipVerify: s.InsecureSkipVerify,
		CacheDir:           su.CacheDir,
		Warnf:              su.Warnf,
	}
	if o.CacheDir == "" && su.Getenv != nil {
		if o.CacheDir = zvmconf.CacheDir(su.Getenv); o.CacheDir == "" {
			o.CacheDir = "-"
		}
	}
	files := secretFiles{clientSecret: s.ClientSecretFile, password: s.PasswordFile}
	if err := o.ApplyEnv(getenv); err != nil {
		return Options{}, fmt.Errorf("zerto settings: %w", err)
	}
	// The environment's secrets replace the config's, a value or a file
	// alike; a file named in the environment is read as the value would be.
	for _, f := range []struct {
		env    string
		path   *string // the file to read
		inline *string // the value the config gave
	}{
		{"REWIND_ZVM_CLIENT_SECRET", &files.clientSecret, &o.ClientSecret},
		{"REWIND_ZVM_PASSWORD", &files.password, &o.Password},
	} {
		value, file := getenv(f.env), getenv(f.env+"_FILE")
		switch {
		case value != "" && file != "":
			return Options{}, &SettingsError{Key: f.env + "_FILE", Err: fmt.Errorf("set %s or %s_FILE, not both", f.env, f.env)}
		case value != "":
			*f.path = ""
		case file != "":
			*f.path, *f.inline = file, ""
		}
	}
	if err := files.read(&o); err != nil {
		return Options{}, err
	}
	if o.URL == "" {
		return Options{}, fmt.Errorf("%w: no url in the config's [zerto] table or REWIND_ZVM_URL", ErrNotConfigured)
	}
	return o, nil
}

// secretFiles are the files the secrets are read from, when named.
type secretFiles struct {
	clientSecret, password string
}

// read reads the named secret files into o. A file another user can read
// is refused: a secret is only as private as its file.
func (f secretFiles) read(o *Options) error {
	for _, s := range []struct {
		key, path string
		dst       *string
	}{
		{"client_secret_file", f.clientSecret, &o.ClientSecret},
		{"password_file", f.password, &o.Password},
	} {
		if s.path == "" {
			continue
		}
		v, err := ReadSecretFile(s.path)
		if err != nil {
			return &SettingsError{Key: s.key, Err: err}
		}
		*s.dst = v
	}
	return nil
}

// ReadSecretFile reads a secret from the file at path (a leading ~/ is the
// home folder): its first line, without the line ending. On systems with
// Unix permissions, a file that its group or other users can read, or
// that is not a regular file, is refused.
func ReadSecretFile(path string) (string, error) {
	path = expandHome(path)
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return "", &PermissionError{Path: path, Mode: fi.Mode().Perm()}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if len(b) > 64<<10 {
		return "", fmt.Errorf("%s is %d bytes: a secret file holds one line", path, len(b))
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return line, nil
}

// PermissionError reports a secret file that others can read.
type PermissionError struct {
	Path string
	Mode os.FileMode
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("%s has mode %04o: other users can read the secret in it", e.Path, e.Mode)
}

// SettingsError reports a [zerto] setting or REWIND_ZVM_* variable that
// cannot work, by its key.
type SettingsError struct {
	Key string // such as "url", "client_secret_file" or "REWIND_ZVM_PASSWORD_FILE"
	Err error
}

func (e *SettingsError) Error() string { return "zvm: " + e.Key + ": " + e.Err.Error() }

// Unwrap returns the cause.
func (e *SettingsError) Unwrap() error { return e.Err }

// AsPerson returns o for a person's own login on the same ZVM: user and
// password, typed just now (an operator's, for a restore), through the
// ZVM's public client (DefaultClientID) with Keycloak, or a session on a
// Windows ZVM. The URL, TLS settings and scheme stay o's, its credentials
// go. A person's login is theirs for this run: its token stays in the
// client's memory, since a token cached on disk would outlive it where the
// agent's commands can read it.
func (o Options) AsPerson(user, password string) Options {
	o.Username, o.Password = user, password
	o.ClientID, o.ClientSecret = DefaultClientID, ""
	o.CacheDir = "-"
	return o
}
