package zvmsim

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
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
		if !s.userOK(user, pass) {
			c.keycloakError(http.StatusUnauthorized, "invalid_grant", "Invalid user credentials")
			return
		}
		c.issue(user, clientID, scope, true)
	case "client_credentials":
		if client.Secret == "" {
			c.keycloakError(http.StatusUnauthorized, "unauthorized_client", "Public client not allowed to retrieve service account")
			return
		}
		c.issue("service-account-"+clientID, clientID, scope, !c.s.Strict().NoClientCredentialsRefresh)
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
			c.issue(t.subject, clientID, t.scope, true)
		}
	default:
		c.keycloakError(http.StatusBadRequest, "unsupported_grant_type", "Unsupported grant_type")
	}
}

// issue answers a token grant with a new access token, and a refresh
// token when withRefresh is set.
func (c *call) issue(subject, clientID, scope string, withRefresh bool) {
	s := c.s
	access, refresh := newSecret(), newSecret()
	now := time.Now()
	s.mu.Lock()
	ttl, rttl := s.tokenTTL, s.refreshTTL
	s.tokens[access] = token{expires: now.Add(ttl), subject: subject, clientID: clientID, scope: scope}
	if withRefresh {
		s.refreshTokens[refresh] = token{expires: now.Add(rttl), subject: subject, clientID: clientID, scope: scope}
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
// a session id in the x-zerto-session header out.
func (c *call) sessionAdd() {
	user, pass, ok := c.r.BasicAuth()
	if !ok || !c.s.userOK(user, pass) {
		c.w.Header().Set("WWW-Authenticate", `Basic realm="Zerto"`)
		c.message(http.StatusUnauthorized, "Authorization has been denied for this request.")
		return
	}
	s := c.s
	id := newSecret()
	s.mu.Lock()
	s.tokens[id] = token{expires: time.Now().Add(s.tokenTTL), subject: user}
	s.tokensIssued++
	s.mu.Unlock()
	c.w.Header().Set("x-zerto-session", id)
	c.w.WriteHeader(http.StatusOK)
}

// authorize checks a /v1 request's bearer token or session, and applies the
// Unauthorized401AfterN fault.
func (s *Server) authorize(r *http.Request) (subject string, ok bool) {
	cred := r.Header.Get("x-zerto-session")
	if h := r.Header.Get("Authorization"); cred == "" && len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		cred = strings.TrimSpace(h[7:])
	}
	if cred == "" {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, found := s.tokens[cred]
	if !found || time.Now().After(t.expires) {
		return "", false
	}
	if n := s.faults.Unauthorized401AfterN; n > 0 {
		s.authorizedCalls++
		if s.authorizedCalls >= n {
			s.authorizedCalls = 0
			s.revokeLocked(false)
		}
	}
	return t.subject, true
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

func (s *Server) userOK(name, password string) bool {
	for _, u := range s.sc.Credentials.Users {
		// Keycloak matches user names case-insensitively.
		if strings.EqualFold(u.Name, name) && equal(u.Password, password) {
			return true
		}
	}
	return false
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
