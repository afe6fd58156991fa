package zvm

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

func TestConfigOptions(t *testing.T) {
	t.Parallel()
	file := zvmconf.Settings{URL: "https://zvm.lab.local", ClientID: "file-client", ClientSecret: "file-secret", CAFile: "/etc/zvm.pem"}
	tests := []struct {
		name    string
		env     map[string]string
		wantURL string
		wantID  string
		wantCA  string
		wantErr bool
	}{
		{"FileOnly", nil, "https://zvm.lab.local", "file-client", "/etc/zvm.pem", false},
		{"EnvWins", map[string]string{"REWIND_ZVM_URL": "https://other:9669", "REWIND_ZVM_CLIENT_ID": "env-client"}, "https://other:9669", "env-client", "/etc/zvm.pem", false},
		{"EmptyEnvKeepsFile", map[string]string{"REWIND_ZVM_URL": ""}, "https://zvm.lab.local", "file-client", "/etc/zvm.pem", false},
		{"BadBool", map[string]string{"REWIND_ZVM_INSECURE_SKIP_VERIFY": "maybe"}, "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ConfigOptions(file, Setup{Getenv: func(k string) string { return tt.env[k] }})
			if (err != nil) != tt.wantErr {
				t.Fatalf("ConfigOptions error %v, want error %v", err, tt.wantErr)
			}
			if o.URL != tt.wantURL || o.ClientID != tt.wantID || o.CAFile != tt.wantCA {
				t.Errorf("ConfigOptions = %+v", o)
			}
			if !tt.wantErr && o.ClientSecret != "file-secret" {
				t.Errorf("client secret not carried over")
			}
		})
	}
}

// TestCacheDirFromSetup: the token cache is where the environment Setup
// gives says, or none when it says nowhere, never the process's own; a
// folder Setup names wins.
func TestCacheDirFromSetup(t *testing.T) {
	t.Parallel()
	file := zvmconf.Settings{URL: "https://zvm.lab.local"}
	tests := []struct {
		name string
		su   Setup
		want string
	}{
		{"from the environment given", Setup{Getenv: func(k string) string { return map[string]string{"XDG_CACHE_HOME": "/lab/cache", "HOME": "/lab"}[k] }}, "/lab/cache/rewind"},
		{"from its HOME", Setup{Getenv: func(k string) string { return map[string]string{"HOME": "/lab"}[k] }}, "/lab/.cache/rewind"},
		{"none in it", Setup{Getenv: func(string) string { return "" }}, "-"},
		{"named", Setup{Getenv: func(k string) string { return map[string]string{"HOME": "/lab"}[k] }, CacheDir: "/state/cache"}, "/state/cache"},
		{"no environment: none", Setup{}, "-"},
	}
	for _, tt := range tests {
		o, err := ConfigOptions(file, tt.su)
		if err != nil || o.CacheDir != tt.want {
			t.Errorf("%s: CacheDir %q, %v; want %q", tt.name, o.CacheDir, err, tt.want)
		}
	}
}

// TestSecretFiles: a secret is read from its file (config or environment),
// the environment's over the config's; a file others can read, or a value
// given twice, is refused with its key.
func TestSecretFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	private := write("secret", "from-the-file\n", 0o600)
	other := write("other", "from-the-env-file\r\n", 0o600)
	leaky := write("leaky", "leaked", 0o644)
	base := zvmconf.Settings{URL: "https://zvm", ClientID: "rewind-hook"}
	tests := []struct {
		name    string
		file    string
		inline  string
		env     map[string]string
		want    string
		wantKey string // of the SettingsError
	}{
		{"config file", private, "", nil, "from-the-file", ""},
		{"env file over config file", private, "", map[string]string{"REWIND_ZVM_CLIENT_SECRET_FILE": other}, "from-the-env-file", ""},
		{"env file over config value", "", "inline", map[string]string{"REWIND_ZVM_CLIENT_SECRET_FILE": other}, "from-the-env-file", ""},
		{"env value over config file", private, "", map[string]string{"REWIND_ZVM_CLIENT_SECRET": "env-value"}, "env-value", ""},
		{"env value and file", "", "", map[string]string{"REWIND_ZVM_CLIENT_SECRET": "v", "REWIND_ZVM_CLIENT_SECRET_FILE": other}, "", "REWIND_ZVM_CLIENT_SECRET_FILE"},
		{"readable by others", leaky, "", nil, "", "client_secret_file"},
		{"missing", filepath.Join(dir, "nope"), "", nil, "", "client_secret_file"},
	}
	for _, tt := range tests {
		s := base
		s.ClientSecretFile, s.ClientSecret = tt.file, tt.inline
		o, err := ConfigOptions(s, Setup{Getenv: func(k string) string { return tt.env[k] }})
		var se *SettingsError
		switch {
		case tt.wantKey != "" && (!errors.As(err, &se) || se.Key != tt.wantKey):
			t.Errorf("%s: err = %v, want one about %s", tt.name, err, tt.wantKey)
		case tt.wantKey == "" && (err != nil || o.ClientSecret != tt.want):
			t.Errorf("%s: secret %q, %v; want %q", tt.name, o.ClientSecret, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "leaked") {
			t.Errorf("%s: the error shows the secret: %v", tt.name, err)
		}
	}
	var pe *PermissionError
	if _, err := ConfigOptions(zvmconf.Settings{URL: "https://zvm", ClientSecretFile: leaky}, Setup{}); !errors.As(err, &pe) || !strings.Contains(Hint(err), "chmod 600") {
		t.Errorf("leaky file: %v, hint %q", err, Hint(err))
	}
}

// TestAsPerson: a person's own credentials replace the configured ones
// and are never cached on disk; no URL at all is the one not-configured
// error.
func TestAsPerson(t *testing.T) {
	t.Parallel()
	s := zvmconf.Settings{URL: "https://zvm", ClientID: "rewind-hook", ClientSecret: "hook-secret", CAFile: "/etc/zvm-ca.pem"}
	hook, err := ConfigOptions(s, Setup{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	o := hook.AsPerson("operator", "typed-now")
	if o.Username != "operator" || o.Password != "typed-now" || o.ClientID != DefaultClientID || o.ClientSecret != "" || o.CacheDir != "-" || o.CAFile != hook.CAFile || o.URL != hook.URL {
		t.Errorf("options %+v: want the person's login on the hook's ZVM, kept in memory", o)
	}
	if _, err := FromConfig(zvmconf.Settings{}, Setup{}); !errors.Is(err, ErrNotConfigured) || Hint(err) == "" {
		t.Errorf("no URL: %v, hint %q", err, Hint(err))
	}
}
