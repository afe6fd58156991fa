package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvmsim"
)

// clearZVMEnv keeps the developer's own ZVM settings out of a test.
func clearZVMEnv(t *testing.T) {
	for _, k := range []string{"REWIND_ZVM_URL", "REWIND_ZVM_AUTH", "REWIND_ZVM_CLIENT_ID", "REWIND_ZVM_CLIENT_SECRET",
		"REWIND_ZVM_USERNAME", "REWIND_ZVM_PASSWORD", "REWIND_ZVM_CA_FILE", "REWIND_ZVM_INSECURE_SKIP_VERIFY"} {
		t.Setenv(k, "")
	}
}

func TestDoctorZerto(t *testing.T) {
	clearZVMEnv(t)
	srv := zvmsim.NewTLSTestServer(t, nil)
	var id, secret string
	for _, c := range srv.Scenario().Credentials.Clients {
		if c.Secret != "" {
			id, secret = c.ID, c.Secret
			break
		}
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CAPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name           string
		caFile, secret string
		want           []string // regexps, each must match a line
		failed         int
	}{
		{"Untrusted", "", secret, []string{
			`^ok    zvm reachable: 127\.0\.0\.1:\d+ answers$`,
			`^FAIL  tls trusted: .*; fix: trust the ZVM's certificate with ca_file in \[zerto\] \(or REWIND_ZVM_CA_FILE\), a PEM file of the CA`,
		}, 1},
		{"Trusted", ca, secret, []string{
			`^ok    zvm reachable: 127\.0\.0\.1:\d+ answers \(site ".+", version .+\)$`,
			`^ok    tls trusted: the ZVM's certificate is trusted$`,
			`^ok    credentials accepted: logged in as client ` + regexp.QuoteMeta(id) + `$`,
		}, 0},
		{"WrongSecret", ca, "not-the-secret", []string{
			`^ok    tls trusted`,
			`^FAIL  credentials accepted: .*; fix: check the ZVM credentials: REWIND_ZVM_CLIENT_ID`,
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := policy.Default()
			cfg.Zerto.URL, cfg.Zerto.ClientID, cfg.Zerto.ClientSecret, cfg.Zerto.CAFile = srv.URL, id, tt.secret, tt.caFile
			var out bytes.Buffer
			d := &doctor{w: &out}
			d.zerto(context.Background(), cfg)
			for _, re := range tt.want {
				if !regexp.MustCompile(`(?m)` + re).Match(out.Bytes()) {
					t.Errorf("no line matches %s in:\n%s", re, out.String())
				}
			}
			if d.failed != tt.failed {
				t.Errorf("%d failed, want %d:\n%s", d.failed, tt.failed, out.String())
			}
			if bytes.Contains(out.Bytes(), []byte(tt.secret)) {
				t.Errorf("the secret is in the output:\n%s", out.String())
			}
		})
	}
}

func TestDoctorTokenCache(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", t.TempDir())
	dir := filepath.Join(cache, "rewind", "zvm-tokens")

	var out bytes.Buffer
	d := &doctor{w: &out}
	d.tokenCache()
	if d.failed != 0 || !regexp.MustCompile(`^ok    token cache: .*zvm-tokens is writable`).Match(out.Bytes()) {
		t.Errorf("fresh cache:\n%s", out.String())
	}

	leaky := filepath.Join(dir, "0123.json")
	if err := os.WriteFile(leaky, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(leaky, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	d = &doctor{w: &out}
	d.tokenCache()
	if d.failed != 1 || !bytes.Contains(out.Bytes(), []byte("has mode 0644: other users can read a Zerto token; fix: chmod 600 "+leaky)) {
		t.Errorf("readable token:\n%s", out.String())
	}
}
