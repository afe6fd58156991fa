package zvmconf

import (
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
