package zvm

import (
	"strings"
	"testing"
)

func TestApplyEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"REWIND_ZVM_URL":                  "https://env.example",
		"REWIND_ZVM_PASSWORD":             "from-env",
		"REWIND_ZVM_INSECURE_SKIP_VERIFY": "true",
		"REWIND_ZVM_USERNAME":             "", // set but empty: the file's value stays
	}
	o := Options{URL: "https://file.example", Username: "file-user", Password: "file-pw", ClientID: "file-client"}
	if err := o.ApplyEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	want := Options{URL: "https://env.example", Username: "file-user", Password: "from-env", ClientID: "file-client", InsecureSkipVerify: true}
	if o.URL != want.URL || o.Username != want.Username || o.Password != want.Password || o.ClientID != want.ClientID || o.InsecureSkipVerify != want.InsecureSkipVerify {
		t.Errorf("ApplyEnv = %+v, want %+v", o, want)
	}
	err := (&Options{}).ApplyEnv(func(k string) string {
		if k == "REWIND_ZVM_INSECURE_SKIP_VERIFY" {
			return "maybe"
		}
		return ""
	})
	if err == nil {
		t.Error("bad boolean: no error")
	}
}

func TestNewValidates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    Options
		err  string // "" means valid
	}{
		{"password grant", Options{URL: "https://zvm", Username: "u", Password: "p"}, ""},
		{"client credentials", Options{URL: "https://zvm", ClientID: "rewind", ClientSecret: "s"}, ""},
		{"session", Options{URL: "http://zvm:9669", Auth: "session", Username: "u", Password: "p"}, ""},
		{"no URL", Options{Username: "u", Password: "p"}, "no Zerto configured"},
		{"not http", Options{URL: "ftp://zvm", Username: "u", Password: "p"}, "want an http or https URL"},
		{"no scheme", Options{URL: "zvm.lab.local:9669", Username: "u", Password: "p"}, `"zvm.lab.local:9669" has no scheme: write it as https://zvm.lab.local:9669`},
		{"unknown session method", Options{URL: "https://zvm", Auth: "session", Username: "u", Password: "p", SessionMethod: "ldap"}, "session_method"},
		{"credentials in URL", Options{URL: "https://u:hunter2@zvm", Username: "u", Password: "p"}, "credentials"},
		{"no credentials", Options{URL: "https://zvm"}, "needs client_id and client_secret"},
		{"session without user", Options{URL: "https://zvm", Auth: "session", ClientSecret: "s"}, "needs username"},
		{"unknown auth", Options{URL: "https://zvm", Auth: "ldap", Username: "u", Password: "p"}, "auth"},
	}
	for _, tt := range tests {
		_, err := New(tt.o)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: err = %v, want one mentioning %q", tt.name, err, tt.err)
		case err != nil && strings.Contains(err.Error(), "hunter2"):
			t.Errorf("%s: error %q shows the password", tt.name, err)
		}
	}
}

func TestExpandHome(t *testing.T) {
	t.Setenv("HOME", "/home/op")
	for in, want := range map[string]string{
		"~/ca.pem":      "/home/op/ca.pem",
		"/etc/ca.pem":   "/etc/ca.pem",
		"ca.pem":        "ca.pem",
		"~other/ca.pem": "~other/ca.pem",
	} {
		if got := expandHome(in); got != want {
			t.Errorf("expandHome(%q) = %q, want %q", in, got, want)
		}
	}
}
