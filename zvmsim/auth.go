package zvmsim

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// token is an access token, session or refresh token the server issued.
type token struct {
	expires  time.Time
	subject  string // user name or client id
	clientID string
	scope    string
	roles    []string // nil: every permission
}

// keycloakError writes an error the way Keycloak's token endpoint does.
func (c *call) keycloakError(status int, code, desc string) {
	c.json(status, map[string]string{"error": code, "error_description": desc})
}

// token serves Keycloak's token endpoint for the zerto realm: the password,
// client_credentials and refresh_token grants.
func (c *call) token() {
	if err := c.r.ParseForm(); err != nil {
		c.keycloakError(http.StatusBadRequest, "invalid_request", "Invalid form body")
		return
	}
	form := c.r.PostForm
	clientID, secret := form.Get("client_id"), form.Get("client_secret")
	if id, sec, ok := c.r.BasicAuth(); ok {
		// Keycloak's client_secret_basic: both parts are form-encoded.
		clientID, secret = unescape(id), unescape(sec)
	}
	grant := form.Get("grant_type")
	if grant == "" {
		c.keycloakError(http.StatusBadRequest, "invalid_request", "Missing form parameter: grant_type")
		return
	}
	s := c.s
	client, ok := s.client(clientID)
	if !ok {
		c.keycloakError(http.StatusUnauthorized, "invalid_client", "Invalid client or Invalid client credentials")
		return
	}
	if client.Secret != "" && !equal(client.Secret, secret) {
		c.keycloakError(http.StatusUnauthorized, "unauthorized_client", "Invalid client or Invalid client credentials")
		return
	}
	scope := "openid profile email"
	switch grant {
	case "password":
		user, pass := form.Get("username"), form.Get("password")
		u, ok := s.user(user, pass)
		if !ok {
			c.keycloakError(http.StatusUnauthorized, "invalid_grant", "Invalid user credentials")
			return
		}
		c.issue(token{subject: user, clientID: clientID, scope: scope, roles: u.Roles}, true)
	case "client_credentials":
		if client.Secret == "" {
			c.keycloakError(http.StatusUnauthorized, "unauthorized_client", "Public client not allowed to retrieve service account")
			return
		}
		c.issue(token{subject: "service-account-" + clientID, clientID: clientID, scope: scope, roles: client.Roles}, !c.s.Strict().NoClientCredentialsRefresh)
	case "refresh_token":
		rt := form.Get("refresh_token")
		s.mu.Lock()
		t, found := s.refreshTokens[rt]
		if found {
			delete(s.refreshTokens, rt) // refresh tokens are single use
		}
		s.mu.Unlock()
		switch {
		case !found || t.clientID != clientID:
			c.keycloakError(http.StatusBadRequest, "invalid_grant", "Invalid refresh token")
		case time.Now().After(t.expires):
			c.keycloakError(http.StatusBadRequest, "invalid_grant", "Token is not active")
		default:
			c.issue(t, true)
		}
	default:
		c.keycloakError(http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant_type")
	}
}

// issue answers a token grant with a new access token for t's subject,
// client, scope and roles, and a refresh token when withRefresh is set.
func (c *call) issue(t token, withRefresh bool) {
	s := c.s
	now := time.Now()
	s.mu.Lock()
	ttl, rttl := s.tokenTTL, s.refreshTTL
	s.mu.Unlock()
	access := newAccessToken(baseURL(c.r)+"/auth/realms/zerto", t.subject, t.clientID, t.scope, t.roles, now.Add(ttl))
	refresh := newSecret()
	scope := t.scope
	s.mu.Lock()
	t.expires = now.Add(ttl)
	s.tokens[access] = t
	if withRefresh {
		t.expires = now.Add(rttl)
		s.refreshTokens[refresh] = t
	}
	s.tokensIssued++
	s.mu.Unlock()
	c.w.Header().Set("Cache-Control", "no-store")
	answer := map[string]any{
		"access_token":      access,
		"expires_in":        int(ttl / time.Second),
		"token_type":        "Bearer",
		"id_token":          newSecret(),
		"not-before-policy": 0,
		"session_state":     derivedGUID("session", access),
		"scope":             scope,
	}
	if withRefresh {
		answer["refresh_expires_in"] = int(rttl / time.Second)
		answer["refresh_token"] = refresh
	} else {
		// Keycloak's client_credentials answer without a refresh token.
		answer["refresh_expires_in"] = 0
	}
	c.json(http.StatusOK, answer)
}

// sessionAdd serves the Windows ZVM's session endpoint: Basic credentials in,
// a session id in the x-zerto-session header out. A Windows ZVM
// (FlavorWindows) checks the credentials where the body's
// AuthenticationMethod says, Windows when it says nothing, so a user of
// the hypervisor manager must send 1.
func (c *call) sessionAdd() {
	body, err := io.ReadAll(http.MaxBytesReader(c.w, c.r.Body, 1<<16))
	if err != nil {
		c.message(http.StatusRequestEntityTooLarge, "The request body is too large.")
		return
	}
	method, err := authenticationMethod(body)
	if err != nil {
		c.message(http.StatusBadRequest, "The request is invalid: "+err.Error())
		return
	}
	user, pass, ok := c.r.BasicAuth()
	u, known := c.s.user(user, pass)
	if c.s.sc.Flavor == FlavorWindows {
		if method == "" {
			method = MethodWindows
		}
		known = known && u.Method == method
	}
	if !ok || !known {
		c.w.Header().Set("WWW-Authenticate", `Basic realm="Zerto"`)
		c.message(http.StatusUnauthorized, "Authorization has been denied for this request.")
		return
	}
	s := c.s
	id := newSecret()
	s.mu.Lock()
	s.tokens[id] = token{expires: time.Now().Add(s.tokenTTL), subject: user, roles: u.Roles}
	s.tokensIssued++
	s.mu.Unlock()
	c.w.Header().Set("x-zerto-session", id)
	c.w.WriteHeader(http.StatusOK)
}

// authorize checks a /v1 request's bearer token or session, and applies the
// Unauthorized401AfterN fault.
func (s *Server) authorize(r *http.Request) (t token, ok bool) {
	cred := r.Header.Get("x-zerto-session")
	if h := r.Header.Get("Authorization"); cred == "" && len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		cred = strings.TrimSpace(h[7:])
	}
	if cred == "" {
		return token{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, found := s.tokens[cred]
	if !found || time.Now().After(t.expires) {
		return token{}, false
	}
	if n := s.faults.Unauthorized401AfterN; n > 0 {
		s.authorizedCalls++
		if s.authorizedCalls >= n {
			s.authorizedCalls = 0
			s.revokeLocked(false)
		}
	}
	return t, true
}

// revokeLocked drops every access token and session, and with refresh also
// every refresh token.
func (s *Server) revokeLocked(refresh bool) {
	clear(s.tokens)
	if refresh {
		clear(s.refreshTokens)
	}
}

func (s *Server) client(id string) (Client, bool) {
	for _, cl := range s.sc.Credentials.Clients {
		if cl.ID == id {
			return cl, true
		}
	}
	return Client{}, false
}

// user returns the scenario's user of that name and password.
func (s *Server) user(name, password string) (User, bool) {
	for _, u := range s.sc.Credentials.Users {
		// Keycloak matches user names case-insensitively.
		if strings.EqualFold(u.Name, name) && equal(u.Password, password) {
			return u, true
		}
	}
	return User{}, false
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

func unescape(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

func newSecret() string {
	b := make([]byte, 24)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
