package zvm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

// tokenPath is Keycloak's token endpoint on a ZVM appliance.
const tokenPath = "/auth/realms/zerto/protocol/openid-connect/token"

// sessionPath is the Windows ZVM's login.
const sessionPath = "/v1/session/add"

// sessionHeader carries a Windows ZVM session.
const sessionHeader = "x-zerto-session"

// sessionLifetime is how long a Windows ZVM session is reused. The ZVM does
// not say; sessions end after idle time, and a 401 brings a new login anyway.
const sessionLifetime = 20 * time.Minute

// errNoRefresh says that an authenticator cannot refresh a token.
var errNoRefresh = errors.New("no refresh")

// authenticator obtains tokens for one scheme and says how to send them.
type authenticator interface {
	login(ctx context.Context) (token, error)
	refresh(ctx context.Context, old token) (token, error)
	authorize(req *http.Request, t token)
	// identity names who logs in, for the token cache key.
	identity() string
}

// keycloak is the ZVM appliance's OAuth: the password grant when a user is
// configured, else client_credentials; refresh_token when a refresh token
// is still valid.
type keycloak struct {
	c                      *Client
	clientID, clientSecret string
	username, password     string
}

func (k *keycloak) identity() string { return k.clientID + ":" + k.username }

func (k *keycloak) authorize(req *http.Request, t token) {
	req.Header.Set("Authorization", "Bearer "+t.AccessToken)
}

func (k *keycloak) form(grant string) url.Values {
	f := url.Values{"grant_type": {grant}, "client_id": {k.clientID}, "scope": {"openid"}}
	if k.clientSecret != "" {
		f.Set("client_secret", k.clientSecret)
	}
	return f
}

func (k *keycloak) login(ctx context.Context) (token, error) {
	f := k.form("client_credentials")
	if k.username != "" {
		f = k.form("password")
		f.Set("username", k.username)
		f.Set("password", k.password)
	}
	return k.post(ctx, f)
}

func (k *keycloak) refresh(ctx context.Context, old token) (token, error) {
	f := k.form("refresh_token")
	f.Set("refresh_token", old.RefreshToken)
	return k.post(ctx, f)
}

func (k *keycloak) post(ctx context.Context, form url.Values) (token, error) {
	const op = "POST " + tokenPath
	body := []byte(form.Encode())
	issued := time.Now()
	resp, err := k.c.send(ctx, op, true, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.c.base+tokenPath, strings.NewReader(string(body)))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return req, err
	})
	if err != nil {
		return token{}, err
	}
	if resp.status/100 != 2 {
		e := k.c.apiError(op, resp.status, resp.body)
		if resp.status == http.StatusNotFound {
			// Keycloak answers every realm and grant; a 404 is a server
			// that is not it.
			return token{}, notZerto(e, errNoKeycloak)
		}
		if resp.status == 400 || resp.status == 401 {
			// Keycloak says 400 invalid_grant and 401 invalid_client: both
			// mean the configured credentials do not log in.
			e.Kind = KindUnauthorized
		}
		return token{}, e
	}
	var tr struct {
		AccessToken      string `json:"access_token"`
		RefreshToken     string `json:"refresh_token"`
		ExpiresIn        int    `json:"expires_in"`
		RefreshExpiresIn int    `json:"refresh_expires_in"`
	}
	if err := json.Unmarshal(resp.body, &tr); err != nil || tr.AccessToken == "" {
		return token{}, malformed(op, "no access_token in the answer")
	}
	t := token{AccessToken: tr.AccessToken, RefreshToken: tr.RefreshToken, Issued: issued}
	// Keycloak's default lifetime is five minutes; assume it if none is given.
	lifetime := 300 * time.Second
	if tr.ExpiresIn > 0 {
		lifetime = time.Duration(tr.ExpiresIn) * time.Second
	}
	t.Expiry = issued.Add(lifetime)
	if tr.RefreshExpiresIn > 0 {
		t.RefreshExpiry = issued.Add(time.Duration(tr.RefreshExpiresIn) * time.Second)
	}
	return t, nil
}

// session is the Windows ZVM's login: Basic auth to /v1/session/add, which
// answers the session in the x-zerto-session header.
type session struct {
	c                  *Client
	username, password string
	method             string // zvmconf.SessionVCenter or zvmconf.SessionWindows
}

// authenticationMethod is the body of a session login: who checks the
// user and password, as Zerto's documentation and its SDK write it (a
// number in a JSON string): 0 Windows on the ZVM's host, 1 the hypervisor
// manager (vCenter Server or SCVMM).
func (s *session) authenticationMethod() []byte {
	if s.method == zvmconf.SessionWindows {
		return []byte(`{"AuthenticationMethod": "0"}`)
	}
	return []byte(`{"AuthenticationMethod": "1"}`)
}

func (s *session) identity() string { return s.method + ":" + s.username }

func (s *session) authorize(req *http.Request, t token) {
	req.Header.Set(sessionHeader, t.AccessToken)
}

func (s *session) refresh(context.Context, token) (token, error) { return token{}, errNoRefresh }

func (s *session) login(ctx context.Context) (token, error) {
	const op = "POST " + sessionPath
	issued := time.Now()
	body := s.authenticationMethod()
	resp, err := s.c.send(ctx, op, true, func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.c.base+sessionPath, bytes.NewReader(body))
		if err == nil {
			req.SetBasicAuth(s.username, s.password)
			req.Header.Set("Accept", "application/json")
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	})
	if err != nil {
		return token{}, err
	}
	if resp.status/100 != 2 {
		e := s.c.apiError(op, resp.status, resp.body)
		if resp.status == http.StatusNotFound {
			// A ZVM appliance has no Windows login.
			return token{}, notZerto(e, errNoSessionLogin)
		}
		if resp.status == 400 || resp.status == 401 || resp.status == 403 {
			e.Kind = KindUnauthorized
		}
		return token{}, e
	}
	id := resp.header.Get(sessionHeader)
	if id == "" {
		return token{}, malformed(op, "no %s header in the answer", sessionHeader)
	}
	return token{AccessToken: id, Issued: issued, Expiry: issued.Add(sessionLifetime)}, nil
}
