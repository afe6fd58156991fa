package ui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// tokenBytes is the size of the URL token, the session IDs and the CSRF
// tokens: 128 bits from crypto/rand.
const tokenBytes = 16

// maxSessions bounds the sessions a Server keeps: each visit with the token
// makes one, and the oldest goes first.
const maxSessions = 64

// newToken returns 128 random bits, URL-safe.
func newToken() string {
	b := make([]byte, tokenBytes)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// equalSecret compares two secrets in constant time.
func equalSecret(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// sessions are the browsers that presented the URL token: each got a
// cookie naming its session, and the session holds its CSRF token.
type sessions struct {
	mu    sync.Mutex
	csrf  map[string]string // session ID -> CSRF token
	order []string          // session IDs, oldest first
}

func (s *sessions) add() (id, csrf string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.csrf == nil {
		s.csrf = map[string]string{}
	}
	if len(s.order) >= maxSessions {
		delete(s.csrf, s.order[0])
		s.order = s.order[1:]
	}
	id, csrf = newToken(), newToken()
	s.csrf[id] = csrf
	s.order = append(s.order, id)
	return id, csrf
}

// lookup returns the CSRF token of a session, comparing the ID with each
// known one in constant time: the cookie is a secret too.
func (s *sessions) lookup(id string) (csrf string, ok bool) {
	if id == "" {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for known, c := range s.csrf {
		if equalSecret(known, id) {
			csrf, ok = c, true
		}
	}
	return csrf, ok
}

// hostGuard checks the Host header against the address the server is bound
// to. A DNS rebinding attack points a name the attacker owns at 127.0.0.1,
// so its requests name that host: only IP literals (the bound one, or any
// when bound to all addresses) and "localhost" pass, on the bound port.
type hostGuard struct {
	ip   net.IP // nil or unspecified: any IP literal
	port string
}

func newHostGuard(addr net.Addr) hostGuard {
	g := hostGuard{}
	if tcp, ok := addr.(*net.TCPAddr); ok {
		g.ip, g.port = tcp.IP, strconv.Itoa(tcp.Port)
		return g
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err == nil {
		g.ip, g.port = net.ParseIP(host), port
	}
	return g
}

// allows reports whether a request's Host header names the bound address.
func (g hostGuard) allows(hostHeader string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil || port != g.port {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return g.ip == nil || g.ip.IsLoopback() || g.ip.IsUnspecified()
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return false
	}
	if g.ip == nil || g.ip.IsUnspecified() {
		return true
	}
	return ip.Equal(g.ip)
}

// urlHost is the host:port the printed URL names: the bound address, or
// loopback when bound to every address.
func (g hostGuard) urlHost() string {
	ip := g.ip
	if ip == nil || ip.IsUnspecified() {
		ip = net.IPv4(127, 0, 0, 1)
	}
	return net.JoinHostPort(ip.String(), g.port)
}

// cookieName names the session cookie after the port: browsers share
// cookies between the ports of a host, and two pages must not log each
// other out.
func (g hostGuard) cookieName() string { return "rewind_ui_" + g.port }

// sameOrigin reports whether a request's Origin header, when it has one,
// is this server: browsers send it with every POST, so a form posted from
// another site is refused even before its CSRF token is checked.
func (g hostGuard) sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" {
		return false
	}
	return strings.EqualFold(u.Host, r.Host)
}
