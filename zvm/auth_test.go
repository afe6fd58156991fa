package zvm

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTokenCacheAcrossClients builds ten Clients one after another on one
// cache folder, as ten hook processes would, and expects one login.
func TestTokenCacheAcrossClients(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	dir := t.TempDir()
	for i := range 10 {
		c := newTestClient(t, s.URL, func(o *Options) { o.CacheDir = dir })
		if _, err := c.VMs(t.Context(), "web-01"); err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
	}
	if n := f.grantCount("password"); n != 1 {
		t.Fatalf("password logins = %d, want 1 for ten clients sharing a cache", n)
	}

	files, _ := filepath.Glob(filepath.Join(dir, "zvm-tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("cache files = %v, want one", files)
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode = %v, want 0600", fi.Mode().Perm())
	}
	di, err := os.Stat(filepath.Dir(files[0]))
	if err != nil {
		t.Fatal(err)
	}
	if di.Mode().Perm() != 0o700 {
		t.Errorf("cache folder mode = %v, want 0700", di.Mode().Perm())
	}
	b, _ := os.ReadFile(files[0])
	if strings.Contains(string(b), "zerto\"") || strings.Contains(string(b), `"password"`) {
		t.Errorf("cache file holds the password: %s", b)
	}

	// Another identity on the same ZVM gets its own entry.
	c := newTestClient(t, s.URL, func(o *Options) {
		o.CacheDir, o.Username, o.Password, o.ClientID, o.ClientSecret = dir, "", "", "rewind", "rewind-secret"
	})
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if n := f.grantCount("client_credentials"); n != 1 {
		t.Errorf("client_credentials logins = %d, want 1", n)
	}
}

// TestTokenExpiredOnServer: a token the server no longer accepts is
// refreshed and the request resent, without the caller noticing.
func TestTokenExpiredOnServer(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	dir := t.TempDir()
	c := newTestClient(t, s.URL, func(o *Options) { o.CacheDir = dir })
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	f.expireAll()
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatalf("after server-side expiry: %v", err)
	}
	if p, r := f.grantCount("password"), f.grantCount("refresh_token"); p != 1 || r != 1 {
		t.Errorf("logins = %d, refreshes = %d; want 1 and 1", p, r)
	}
	// The refreshed token went to the cache: a new process uses it.
	c2 := newTestClient(t, s.URL, func(o *Options) { o.CacheDir = dir })
	if _, err := c2.VMs(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if p, r := f.grantCount("password"), f.grantCount("refresh_token"); p != 1 || r != 1 {
		t.Errorf("after a new client: logins = %d, refreshes = %d; want 1 and 1", p, r)
	}

	// A refresh token the server refuses leads to a new login.
	f.mu.Lock()
	clear(f.refresh)
	f.mu.Unlock()
	f.expireAll()
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatalf("after a refused refresh: %v", err)
	}
	if p := f.grantCount("password"); p != 2 {
		t.Errorf("logins = %d, want 2", p)
	}
}

func TestTokenNearExpiryNotUsed(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	c := newTestClient(t, s.URL, nil)
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	// A one-minute token with a second left is inside its 6 s margin.
	c.tok.Issued, c.tok.Expiry = time.Now().Add(-59*time.Second), time.Now().Add(time.Second)
	c.mu.Unlock()
	if err := c.cache.store(c.tok, clockEntry{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if r := f.grantCount("refresh_token"); r != 1 {
		t.Errorf("refreshes = %d, want 1: a token about to expire is renewed before use", r)
	}
}

func TestTokenUsable(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		name string
		tok  token
		want bool
	}{
		{"fresh", token{AccessToken: "a", Issued: now, Expiry: now.Add(5 * time.Minute)}, true},
		{"inside 30s margin", token{AccessToken: "a", Issued: now.Add(-5 * time.Minute), Expiry: now.Add(20 * time.Second)}, false},
		{"short-lived, inside 10% margin", token{AccessToken: "a", Issued: now.Add(-55 * time.Second), Expiry: now.Add(5 * time.Second)}, false},
		{"short-lived, outside 10% margin", token{AccessToken: "a", Issued: now.Add(-50 * time.Second), Expiry: now.Add(10 * time.Second)}, true},
		{"expired", token{AccessToken: "a", Issued: now.Add(-time.Hour), Expiry: now.Add(-time.Minute)}, false},
		{"empty", token{}, false},
	}
	for _, tt := range tests {
		if got := tt.tok.usable(now); got != tt.want {
			t.Errorf("%s: usable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestConcurrentClients: clients in parallel on one cache log in once and
// leave a readable cache file.
func TestConcurrentClients(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			o := Options{URL: s.URL, Username: "admin", Password: "zerto", CacheDir: dir}
			c, err := New(o)
			if err == nil {
				_, err = c.VMs(t.Context(), "web-01")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if n := f.grantCount("password"); n != 1 {
		t.Errorf("password logins = %d, want 1", n)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "zvm-tokens", "*"))
	if !slices.ContainsFunc(files, func(p string) bool { return strings.HasSuffix(p, ".json") }) {
		t.Fatalf("no cache file written: %v", files)
	}
	var e cacheEntry
	for _, p := range files {
		if strings.HasSuffix(p, ".tmp") {
			t.Errorf("temporary file left behind: %s", p)
		}
		if strings.HasSuffix(p, ".json") {
			b, _ := os.ReadFile(p)
			if err := json.Unmarshal(b, &e); err != nil || e.AccessToken == "" {
				t.Errorf("cache file %s unreadable: %v: %s", p, err, b)
			}
		}
	}
}

func TestLoginFailures(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	tests := []struct {
		name    string
		mod     func(*Options)
		message string
	}{
		{"wrong password", func(o *Options) { o.Password = "s3cret-wrong" }, "Invalid user credentials"},
		{"wrong client secret", func(o *Options) {
			o.Username, o.Password, o.ClientID, o.ClientSecret = "", "", "rewind", "s3cret-wrong"
		}, "Invalid client or Invalid client credentials"},
		{"session, wrong password", func(o *Options) { o.Auth, o.Password = AuthSession, "s3cret-wrong" }, "Invalid credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newTestClient(t, s.URL, tt.mod).VMs(t.Context(), "")
			var e *Error
			if !errors.As(err, &e) || e.Kind != KindUnauthorized || e.Message != tt.message {
				t.Fatalf("err = %v, want KindUnauthorized with %q", err, tt.message)
			}
			if strings.Contains(err.Error(), "s3cret") {
				t.Errorf("error %q shows the secret", err)
			}
		})
	}
}

// TestUnauthorizedAfterRelogin: a server that refuses every token gets one
// fresh login and one resend, then the caller hears KindUnauthorized.
func TestUnauthorizedAfterRelogin(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	f.setOverride(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 401, map[string]string{"Message": "Authorization has been denied for this request."})
	})
	s := f.start()
	c := newTestClient(t, s.URL, nil)
	_, err := c.InsertTaggedCheckpoint(t.Context(), webVPGID, "t")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindUnauthorized || e.Message != "Authorization has been denied for this request." {
		t.Fatalf("err = %v, want KindUnauthorized", err)
	}
	if n := f.callCount("POST /v1/vpgs/" + webVPGID + "/checkpoints"); n != 2 {
		t.Errorf("POST sent %d times, want 2 (one resend after a fresh token)", n)
	}
}

func TestSessionAuth(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	dir := t.TempDir()
	for range 3 {
		c := newTestClient(t, s.URL, func(o *Options) { o.Auth, o.CacheDir = AuthSession, dir })
		if _, err := c.VMs(t.Context(), "web-01"); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.grantCount("session"); n != 1 {
		t.Errorf("session logins = %d, want 1", n)
	}
	f.expireAll()
	c := newTestClient(t, s.URL, func(o *Options) { o.Auth, o.CacheDir = AuthSession, dir })
	if _, err := c.VMs(t.Context(), "web-01"); err != nil {
		t.Fatalf("after the session expired: %v", err)
	}
	if n := f.grantCount("session"); n != 2 {
		t.Errorf("session logins = %d, want 2", n)
	}
}

func TestCacheDisabled(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	for range 2 {
		c := newTestClient(t, s.URL, func(o *Options) { o.CacheDir = "-" })
		if _, err := c.VMs(t.Context(), ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.grantCount("password"); n != 2 {
		t.Errorf("logins = %d, want 2 without a cache", n)
	}
}
