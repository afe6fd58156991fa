package zvmconf

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestOverlayAndDifferences(t *testing.T) {
	t.Parallel()
	user := Settings{URL: "https://zvm", Auth: AuthKeycloak, ClientID: "rewind-hook", ClientSecretFile: "/u/secret"}
	proj := Settings{URL: "https://evil", Auth: AuthKeycloak, ClientSecret: "s3cret", InsecureSkipVerify: true}
	set := func(keys ...string) func(string) bool { return func(k string) bool { return slices.Contains(keys, k) } }

	d := user.Differences(proj, set("url", "auth", "client_secret", "insecure_skip_verify"))
	var got []string
	for _, x := range d {
		got = append(got, x.Key+"="+x.Value)
	}
	if want := `url="https://evil" client_secret=... insecure_skip_verify=true`; strings.Join(got, " ") != want {
		t.Errorf("Differences = %v, want %s (auth is the same; the secret is not shown)", got, want)
	}
	s := user
	s.Overlay(proj, set("url", "insecure_skip_verify"))
	if s.URL != "https://evil" || !s.InsecureSkipVerify || s.ClientSecret != "" || s.ClientID != "rewind-hook" {
		t.Errorf("Overlay = %+v: only the keys set move over", s)
	}
}

func TestProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Settings
		want string // "key: start of message", "" for none
	}{
		{Settings{Auth: AuthKeycloak, URL: "https://zvm.lab.local/zvm"}, ""},
		{Settings{Auth: AuthSession, URL: "https://zvm:9669", SessionMethod: SessionWindows}, ""},
		{Settings{Auth: "ldap"}, "auth: unknown value"},
		{Settings{Auth: AuthSession, SessionMethod: "kerberos"}, "session_method: unknown value"},
		{Settings{Auth: AuthKeycloak, URL: "zvm.lab.local:9669"}, `url: "zvm.lab.local:9669" has no scheme: write it as https://zvm.lab.local:9669`},
		{Settings{Auth: AuthKeycloak, URL: "ftp://zvm"}, "url: want an http or https URL"},
		{Settings{Auth: AuthKeycloak, URL: "https://admin:pw@zvm"}, "url: the URL must not carry credentials"},
		{Settings{Auth: AuthKeycloak, ClientSecret: "x", ClientSecretFile: "/f"}, "client_secret_file: give client_secret or client_secret_file, not both"},
		{Settings{Auth: AuthKeycloak, Password: "x", PasswordFile: "/f"}, "password_file: give password or password_file, not both"},
	}
	for _, tt := range tests {
		ps := tt.s.Problems()
		switch {
		case tt.want == "" && len(ps) != 0:
			t.Errorf("%+v: %v", tt.s, ps)
		case tt.want != "" && (len(ps) != 1 || !strings.HasPrefix(ps[0].Key+": "+ps[0].Msg, tt.want)):
			t.Errorf("%+v: %v, want %q", tt.s, ps, tt.want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, want string }{
		{"https://zvm.lab.local", ""},
		{"HTTPS://zvm.lab.local:9669/", ""},
		{"http://10.0.0.5:9080/v1?x=1#top", ""},
		{"https://[fd00::5]:9669", ""},
		{"https://[::ffff:10.0.0.5]", ""},
		{"http://[:]", "want an http or https URL"},
		{"http://[1::2::3]", "want an http or https URL"},
		{"http://[::1.2.3.256]", "want an http or https URL"},
		{"https://zvm:", ""},
		{"zvm.lab.local", `"zvm.lab.local" has no scheme`},
		{"//zvm", `"//zvm" has no scheme: write it as https://zvm`},
		{"ftp://zvm", "want an http or https URL"},
		{"https://", "want an http or https URL"},
		{"https:///path", "want an http or https URL"},
		{"https://zvm:96x9", "want an http or https URL"},
		{"https://zvm lab", "want an http or https URL"},
		{"https://zvm/%zz", "want an http or https URL"},
		{"https://[fd00::5", "want an http or https URL"},
		{"https://zvm\x00", "want an http or https URL"},
		{"https://admin:pw@zvm", "the URL must not carry credentials"},
		{"https://admin@zvm", "the URL must not carry credentials"},
	}
	for _, tt := range tests {
		got := CheckURL(tt.url)
		if tt.want == "" && got != "" || tt.want != "" && !strings.HasPrefix(got, tt.want) {
			t.Errorf("CheckURL(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
}

// FuzzCheckURL holds CheckURL to net/url, which it reads URLs without: a
// URL it takes, net/url parses as an http or https URL with a host and no
// user.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{"https://zvm.lab.local:9669/zvm", "http://[::1]:80", "https://a@b", "https://zvm/%41?q#f", "HTTP://x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckURL(s) != "" {
			return
		}
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || u.User != nil {
			t.Fatalf("CheckURL(%q) takes it; net/url: %+v, %v", s, u, err)
		}
	})
}
