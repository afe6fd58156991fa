package zvm

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// TestTokenCacheLockHeldForever: a process stopped while holding the token
// cache's lock costs a login of this process's own, not the request.
func TestTokenCacheLockHeldForever(t *testing.T) {
	inBubble(t, func(t *testing.T) {
		f := newFakeZVM(t, "")
		dir := t.TempDir()
		c := f.client(func(o *Options) { o.CacheDir = dir })
		c.cacheLockWait = 100 * time.Millisecond
		if err := os.MkdirAll(c.cache.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		fl := flock.New(filepath.Join(c.cache.dir, c.cache.key+".lock"))
		if err := fl.Lock(); err != nil {
			t.Fatal(err)
		}
		defer fl.Unlock()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		start := time.Now()
		if _, err := c.VMs(ctx, ""); err != nil {
			t.Fatalf("with the cache lock held elsewhere: %v", err)
		}
		// The lock is given up after cacheLockWait (100 ms), not waited
		// for until the 10 s deadline, on the bubble's clock.
		if el := time.Since(start); el > time.Second {
			t.Errorf("took %v", el)
		}
	})
}

// TestDamagedTokenCache: a truncated or foreign cache file is no token.
func TestDamagedTokenCache(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	dir := t.TempDir()
	for i, content := range []string{`{"url":"`, `{"url":"x","identity":"y","access_token":"stale","expiry":"2999-01-01T00:00:00Z"}`, ""} {
		c := newTestClient(t, s.URL, func(o *Options) { o.CacheDir = dir })
		if err := os.MkdirAll(c.cache.dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(c.cache.path(), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := c.VMs(t.Context(), ""); err != nil {
			t.Fatalf("cache file %d: %v", i, err)
		}
		if tok, _, ok := c.cache.load(); !ok || tok.AccessToken == "" {
			t.Errorf("cache file %d not replaced by a good token", i)
		}
	}
}

// TestGarbageCachedToken: a cached token the ZVM refuses, though not
// expired by its own account, is replaced transparently.
func TestGarbageCachedToken(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	dir := t.TempDir()
	c := newTestClient(t, s.URL, func(o *Options) { o.CacheDir = dir })
	now := time.Now()
	if err := c.cache.store(token{AccessToken: "garbage", RefreshToken: "garbage", Issued: now, Expiry: now.Add(time.Hour)}, clockEntry{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatalf("with a refused cached token: %v", err)
	}
}
