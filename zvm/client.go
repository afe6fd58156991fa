package zvm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/redact"
)

// maxBody bounds what is read of an answer; a ZVM's largest lists stay far
// below it.
const maxBody = 32 << 20

// defaultCacheLockWait bounds the wait for another process's login: one
// login through Keycloak takes well under a second.
const defaultCacheLockWait = 3 * time.Second

// maxAttempts bounds the tries of an idempotent request; the caller's
// deadline usually ends retrying first.
const maxAttempts = 5

// Client talks to one ZVM. It is safe for concurrent use. Every method obeys
// its context: a ZVM that hangs costs the caller its deadline, no more.
type Client struct {
	base  string // scheme://host[:port][/prefix], no trailing slash
	http  *http.Client
	auth  authenticator
	cache *tokenCache

	// retryBase is the first backoff delay; tests shorten it.
	retryBase time.Duration
	// cacheLockWait bounds the wait for the token cache's lock; tests
	// shorten it.
	cacheLockWait time.Duration

	mu  sync.Mutex // guards tok, and serialises logins within the process
	tok token

	// secrets are the values an error must never show: the configured
	// client secret and password, and the tokens this client has held.
	secrets *redact.Set

	clk clock // the ZVM's clock; see clock.go

	// who says who logs in, and insecure that certificates go unchecked:
	// for doctor to show.
	who      string
	insecure bool
}

// New returns a Client for the ZVM that o describes. It does not contact the
// ZVM: the first request logs in, or reuses a token another process cached.
func New(o Options) (*Client, error) {
	u, err := o.validate()
	if err != nil {
		return nil, err
	}
	hc, err := o.httpClient()
	if err != nil {
		return nil, err
	}
	c := &Client{base: u.String(), http: noRedirects(hc), retryBase: 200 * time.Millisecond, cacheLockWait: defaultCacheLockWait}
	c.secrets = &redact.Set{}
	c.secrets.Add(o.ClientSecret, o.Password)
	switch o.Auth {
	case AuthSession:
		c.auth = &session{c: c, username: o.Username, password: o.Password, method: o.SessionMethod}
	default:
		k := &keycloak{c: c, clientID: o.ClientID, clientSecret: o.ClientSecret}
		if o.Username != "" && o.Password != "" {
			k.username, k.password = o.Username, o.Password
		}
		c.auth = k
	}
	c.cache = newTokenCache(o.CacheDir, c.base, o.Auth, c.auth.identity(), o.ClientSecret+"\x00"+o.Password)
	c.who, c.insecure = "client "+o.ClientID, o.InsecureSkipVerify
	if o.Username != "" {
		c.who = "user " + o.Username
	}
	return c, nil
}

// Identity names who the Client logs in as, never a secret: "client
// rewind-hook", "user admin".
func (c *Client) Identity() string { return c.who }

// Insecure reports whether the Client leaves the ZVM's certificate
// unchecked (insecure_skip_verify).
func (c *Client) Insecure() bool { return c.insecure }

// response is an answer read in full.
type response struct {
	status int
	header http.Header
	body   []byte
}

// send makes the request that build returns, and for an idempotent one
// retries transport failures, 429, 502, 503 and 504 with exponential
// backoff and jitter, as long as the next try can start before ctx's
// deadline. Any HTTP answer that is not retried is returned as is.
func (c *Client) send(ctx context.Context, op string, idempotent bool, build func() (*http.Request, error)) (*response, error) {
	for attempt := 0; ; attempt++ {
		req, err := build()
		if err != nil {
			return nil, &Error{Kind: KindTransport, Op: op, Err: err}
		}
		sent := time.Now()
		resp, err := c.http.Do(req)
		if err != nil {
			e := transportError(op, err, ctx.Err())
			retriable := ctx.Err() == nil && (e.Kind == KindTransport || e.Kind == KindTimeout)
			if idempotent && retriable && c.backoff(ctx, attempt, 0) {
				continue
			}
			return nil, e
		}
		c.clk.observe(resp.Header, sent, time.Now())
		if isRedirect(resp.StatusCode) {
			resp.Body.Close()
			return nil, c.redirectError(op, resp)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
		resp.Body.Close()
		if err != nil {
			e := transportError(op, err, ctx.Err())
			if idempotent && ctx.Err() == nil && c.backoff(ctx, attempt, 0) {
				continue
			}
			return nil, e
		}
		switch resp.StatusCode {
		case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			if idempotent && c.backoff(ctx, attempt, retryAfter(resp.Header)) {
				continue
			}
		}
		return &response{status: resp.StatusCode, header: resp.Header, body: body}, nil
	}
}

// backoff waits before try attempt+1 and reports whether to make it: not
// after maxAttempts, and not when the wait would end past ctx's deadline,
// since a try that cannot finish in time only delays the caller's answer.
func (c *Client) backoff(ctx context.Context, attempt int, hint time.Duration) bool {
	if attempt+1 >= maxAttempts {
		return false
	}
	d := c.retryBase << attempt
	d = d/2 + rand.N(d/2+1)
	d = max(d, hint)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// retryAfter reads a Retry-After header, given in seconds or as an
// HTTP-date; 0 when absent or past. A date is on the server's clock, so
// it is counted from the answer's Date header when there is one.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(n, 0)) * time.Second
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0
	}
	now := time.Now()
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		now = d
	}
	return max(at.Sub(now), 0)
}

// apiError builds the Error for a non-2xx answer, keeping Zerto's text:
// {"Message"} on /v1, {"error_description"} from Keycloak, a bare JSON
// string, or a short plain-text body. An error body may echo the request
// (a proxy's debug page, a ZVM quoting the form it refused): the secrets
// this client sent are scrubbed from the message, in whatever encoding it
// carries them (see redact.Set), before anything can quote it.
func (c *Client) apiError(op string, status int, body []byte) *Error {
	return &Error{Kind: statusKind(status), Op: op, Status: status, Message: c.message(errorMessage(body))}
}

// errorMessage is the text of an error body, as Zerto wrote it.
func errorMessage(body []byte) string {
	body = bytes.TrimSpace(body)
	if len(body) == 0 {
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) == nil {
		for _, k := range []string{"Message", "error_description", "error"} {
			if raw, ok := lookupFold(m, k); ok {
				var s string
				if json.Unmarshal(raw, &s) == nil && s != "" {
					return s
				}
			}
		}
		return ""
	}
	var s string
	if json.Unmarshal(body, &s) == nil {
		return s
	}
	// Plain text from the ZVM's web server is kept; an HTML error page is not
	// a message anyone should read in a terminal.
	if body[0] != '<' && len(body) <= 1024 {
		return string(body)
	}
	return ""
}

// request describes one call of the ZVM's API.
type request struct {
	method string
	path   string // escaped, starting with /v1
	query  url.Values
	body   any
	// unknownOn400 turns a 400 into KindNotFound: a ZVM answers 400, not 404,
	// for a path identifier it cannot parse, such as a host name used as a
	// VM identifier, and for the caller that is a lookup miss.
	unknownOn400 bool
	// noReauth answers a 401 as it is, without a new login (see TaskState).
	noReauth bool
	// size, when set, receives the length of the answer's body.
	size *int
}

// do sends r with the current token and decodes a 2xx answer into out
// (unless out is nil). GETs are retried (see send); other methods are sent
// once, except that a 401 brings one fresh login and one resend, which is
// safe because the ZVM rejected the request without acting on it.
func (c *Client) do(ctx context.Context, r request, out any) error {
	op := r.method + " " + r.path
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var body []byte
	if r.body != nil {
		var err error
		if body, err = json.Marshal(r.body); err != nil {
			return &Error{Kind: KindBadRequest, Op: op, Err: err}
		}
	}
	idempotent := r.method == http.MethodGet
	reauthed := false
	for {
		tok, err := c.credential(ctx, "")
		if err != nil {
			return err
		}
		resp, err := c.send(ctx, op, idempotent, func() (*http.Request, error) {
			var rd io.Reader
			if body != nil {
				rd = bytes.NewReader(body)
			}
			req, err := http.NewRequestWithContext(ctx, r.method, target, rd)
			if err != nil {
				return nil, err
			}
			req.Header.Set("Accept", "application/json")
			if body != nil {
				req.Header.Set("Content-Type", "application/json")
			}
			c.auth.authorize(req, tok)
			return req, nil
		})
		if err != nil {
			return err
		}
		if resp.status == http.StatusUnauthorized && !reauthed && !r.noReauth {
			reauthed = true
			if _, err := c.credential(ctx, tok.AccessToken); err != nil {
				return err
			}
			continue
		}
		if resp.status/100 != 2 {
			e := c.apiError(op, resp.status, resp.body)
			if r.unknownOn400 && resp.status == http.StatusBadRequest {
				e.Kind = KindNotFound
			}
			classifyNotZerto(e, resp)
			return e
		}
		if r.size != nil {
			*r.size = len(resp.body)
		}
		if out == nil {
			return nil
		}
		if err := decodeBody(resp, out); err != nil {
			return &Error{Kind: KindMalformed, Op: op, Status: resp.status, Err: err}
		}
		return nil
	}
}

// decodeBody decodes a JSON answer. A ZVM may answer XML when a proxy drops
// the Accept header; that is reported rather than misread.
func decodeBody(resp *response, out any) error {
	if ct := resp.header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil && strings.Contains(mt, "xml") {
			return errors.New("answer is " + mt + ", not JSON")
		}
	}
	return json.Unmarshal(resp.body, out)
}

// credential returns a token to send. rejected is the access token the ZVM
// just refused with a 401, or "": a token equal to it is not used again.
//
// In order: the token in memory; the one in the shared cache (another
// process may have logged in); a refresh; a new login. The cache's lock is
// held from reading it to writing the new token, so processes that start
// together log in once.
func (c *Client) credential(ctx context.Context, rejected string) (token, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if c.tok.AccessToken != rejected && c.tok.usable(now) {
		return c.tok, nil
	}
	// The lock only spares the ZVM concurrent logins. A holder that does
	// not let go (a process stopped mid-login), or a cache folder that
	// cannot be written, costs this process a login of its own, not the
	// request.
	lockCtx, cancel := context.WithTimeout(ctx, c.cacheLockWait)
	unlock, err := c.cache.lock(lockCtx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return token{}, &Error{Kind: KindTimeout, Op: "token cache", Err: ctx.Err()}
		}
		unlock = func() {}
	}
	defer unlock()
	old := c.tok
	if t, clk, ok := c.cache.load(); ok {
		c.secrets.AddToken(t.AccessToken, t.RefreshToken)
		if t.AccessToken != rejected && t.usable(now) {
			c.tok = t
			c.clk.load(clk)
			return t, nil
		}
		old = t
	}
	var t token
	err = errNoRefresh
	if old.refreshable(now) {
		t, err = c.auth.refresh(ctx, old)
	}
	if err != nil {
		if k := KindOf(err); k == KindTimeout {
			return token{}, err
		}
		// A refused or failed refresh is answered by a login.
		if t, err = c.auth.login(ctx); err != nil {
			return token{}, err
		}
	}
	c.tok = t
	c.secrets.AddToken(t.AccessToken, t.RefreshToken)
	c.measureClock(ctx, t)
	// A cache that cannot be written costs the next process a login; the
	// request still goes on.
	_ = c.cache.store(t, c.clk.entry())
	return t, nil
}

// noRedirects returns a copy of hc that follows no redirect. A token request
// carries the client secret or password in its body, and an API request its
// bearer token or session; net/http re-sends a 307 or 308's body to wherever
// it points, across hosts and from https to plain http. A ZVM's API does not
// redirect, so a redirect means a wrong zerto.url or someone on the path, and
// either way the answer is an error (see redirectError), not a second request.
func noRedirects(hc *http.Client) *http.Client {
	c := *hc
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

// isRedirect reports whether status is a redirect net/http would follow.
func isRedirect(status int) bool {
	switch status {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusMultipleChoices:
		return true
	}
	return false
}

// redirectError reports a redirect that was not followed, naming where it
// pointed (scheme, host and path only: no user info, no query).
func (c *Client) redirectError(op string, resp *http.Response) *Error {
	where := "another address"
	if loc, err := resp.Location(); err == nil {
		// The path is the server's to write, and may carry what this
		// client sent it.
		where = c.message((&url.URL{Scheme: loc.Scheme, Host: loc.Host, Path: loc.Path}).String())
	}
	return &Error{Kind: KindTransport, Op: op, Status: resp.StatusCode,
		Err: fmt.Errorf("the ZVM redirected to %s, and rewind follows no redirect so that credentials go nowhere else: set zerto.url to the address it answers at", where)}
}
