package zvm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// token is one login's result. Only what a later process needs is kept:
// never the password or the client secret.
type token struct {
	AccessToken   string    `json:"access_token"`
	RefreshToken  string    `json:"refresh_token,omitempty"`
	Issued        time.Time `json:"issued"`
	Expiry        time.Time `json:"expiry"`
	RefreshExpiry time.Time `json:"refresh_expiry,omitzero"`
}

// maxMargin bounds how long before expiry a token is given up, so a request
// started with it does not arrive with an expired one.
const maxMargin = 30 * time.Second

// usable reports whether the token can still be sent at now: it is dropped a
// margin before expiry, a tenth of its lifetime but at most maxMargin.
func (t token) usable(now time.Time) bool {
	if t.AccessToken == "" {
		return false
	}
	margin := min(t.Expiry.Sub(t.Issued)/10, maxMargin)
	return now.Before(t.Expiry.Add(-margin))
}

// refreshable reports whether the refresh token can still be used at now.
func (t token) refreshable(now time.Time) bool {
	if t.RefreshToken == "" {
		return false
	}
	return t.RefreshExpiry.IsZero() || now.Before(t.RefreshExpiry.Add(-time.Second))
}

// cacheEntry is the file format. URL and Identity are stored to tell a hash
// collision from a hit and to help a person reading the folder. The ZVM's
// clock offset, measured at login, travels with the token.
type cacheEntry struct {
	URL      string `json:"url"`
	Identity string `json:"identity"`
	token
	clockEntry
}

// tokenCache is the token cache shared by every rewind process: each hook
// run is a new process, and a login per tool call is slow and loads the
// ZVM's Keycloak. One file per ZVM and identity, written by atomic rename
// under a lock file, so that readers never see half a file and concurrent
// processes log in once. A zero tokenCache (dir "") caches nothing.
//
// The file is keyed by the URL, the identity and a hash of the secret
// (client secret or password), so that a rotated or mistyped secret never
// finds the token the old one got: it logs in, and fails if it is wrong.
type tokenCache struct {
	dir      string
	key      string
	url      string
	identity string
}

// TokenCacheDir is the folder the token cache keeps its files in, for an
// Options.CacheDir of dir: dir/zvm-tokens, or the user's cache folder's
// rewind/zvm-tokens when dir is "". The files are mode 0600, named by a
// hash, one per ZVM and identity.
func TokenCacheDir(dir string) (string, error) {
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "rewind")
	}
	return filepath.Join(dir, "zvm-tokens"), nil
}

func newTokenCache(dir, url, auth, identity, secret string) *tokenCache {
	c := &tokenCache{url: url, identity: auth + ":" + identity}
	if dir == "-" {
		return c
	}
	d, err := TokenCacheDir(dir)
	if err != nil {
		// No cache folder (no $HOME, say): logging in every time is
		// slower but correct.
		return c
	}
	c.dir = d
	// The secret only reaches the file name through SHA-256, beside the
	// URL and identity; the folder is the user's own (0700) and holds
	// bearer tokens already.
	sum := sha256.Sum256([]byte("rewind token cache\x00" + url + "\x00" + c.identity + "\x00" + secret))
	c.key = hex.EncodeToString(sum[:16])
	return c
}

func (c *tokenCache) path() string { return filepath.Join(c.dir, c.key+".json") }

// lock takes the cache's lock file, waiting at most as long as ctx allows.
// The returned function releases it. Without a cache it does nothing.
func (c *tokenCache) lock(ctx context.Context) (unlock func(), err error) {
	if c.dir == "" {
		return func() {}, nil
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(c.dir, c.key+".lock"), flock.SetPermissions(0o600))
	ok, err := fl.TryLockContext(ctx, 5*time.Millisecond)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, errors.New("token cache lock not taken")
	}
	return func() { fl.Unlock() }, nil
}

// load returns the cached token, if there is a readable one for this ZVM
// and identity.
func (c *tokenCache) load() (token, clockEntry, bool) {
	if c.dir == "" {
		return token{}, clockEntry{}, false
	}
	b, err := os.ReadFile(c.path())
	if err != nil {
		return token{}, clockEntry{}, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.URL != c.url || e.Identity != c.identity {
		return token{}, clockEntry{}, false
	}
	return e.token, e.clockEntry, true
}

// store writes t for later processes: to a temporary file, then renamed
// over the old one, so a reader sees the old token or the new one.
func (c *tokenCache) store(t token, clk clockEntry) error {
	if c.dir == "" {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(cacheEntry{URL: c.url, Identity: c.identity, token: t, clockEntry: clk})
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, c.key+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), c.path())
}
