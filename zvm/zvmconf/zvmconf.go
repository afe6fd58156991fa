// Package zvmconf is the [zerto] table of rewind's config file: where the
// ZVM is and how to log in to it. The config (package policy) reads it and
// the client (package zvm) connects with it; neither needs the other for
// that, so the rule engine does not link the REST client, nor the client
// the rule engine.
package zvmconf

import (
	"fmt"
	"strconv"
	"strings"
)

// The authentication schemes a ZVM offers (Settings.Auth).
const (
	// AuthKeycloak is the ZVM appliance (10.x): OAuth tokens from its Keycloak.
	AuthKeycloak = "keycloak"
	// AuthSession is the Windows ZVM: a session from POST /v1/session/add.
	AuthSession = "session"
)

// The ways a Windows ZVM checks a session login's user and password
// (Settings.SessionMethod), as the AuthenticationMethod of POST
// /v1/session/add names them.
const (
	// SessionVCenter has the hypervisor manager (vCenter Server, or SCVMM)
	// check them: AuthenticationMethod 1, what Zerto's own SDK sends.
	SessionVCenter = "vcenter"
	// SessionWindows has Windows on the ZVM's host check them:
	// AuthenticationMethod 0, the ZVM's default when none is sent.
	SessionWindows = "windows"
)

// Settings is the [zerto] table as written in the file. The environment
// (REWIND_ZVM_*) is applied by the client (zvm.FromConfig), so secrets need
// not be in the file: they are best in a file of their own
// (client_secret_file, password_file), readable by the user alone.
type Settings struct {
	URL              string `toml:"url"`
	Auth             string `toml:"auth"` // keycloak or session
	ClientID         string `toml:"client_id"`
	ClientSecret     string `toml:"client_secret"`
	ClientSecretFile string `toml:"client_secret_file"`
	Username         string `toml:"username"`
	Password         string `toml:"password"`
	PasswordFile     string `toml:"password_file"`
	// SessionMethod is how a Windows ZVM checks a session login:
	// SessionVCenter (the default) or SessionWindows.
	SessionMethod      string `toml:"session_method"`
	CAFile             string `toml:"ca_file"`
	InsecureSkipVerify bool   `toml:"insecure_skip_verify"`
}

// field is one key of the table: its name, whether its value is a secret
// (never shown), and the value in a Settings.
type field struct {
	key    string
	secret bool
	str    func(*Settings) *string
	flag   func(*Settings) *bool
}

var fields = []field{
	{key: "url", str: func(s *Settings) *string { return &s.URL }},
	{key: "auth", str: func(s *Settings) *string { return &s.Auth }},
	{key: "client_id", str: func(s *Settings) *string { return &s.ClientID }},
	{key: "client_secret", secret: true, str: func(s *Settings) *string { return &s.ClientSecret }},
	{key: "client_secret_file", str: func(s *Settings) *string { return &s.ClientSecretFile }},
	{key: "username", str: func(s *Settings) *string { return &s.Username }},
	{key: "password", secret: true, str: func(s *Settings) *string { return &s.Password }},
	{key: "password_file", str: func(s *Settings) *string { return &s.PasswordFile }},
	{key: "session_method", str: func(s *Settings) *string { return &s.SessionMethod }},
	{key: "ca_file", str: func(s *Settings) *string { return &s.CAFile }},
	{key: "insecure_skip_verify", flag: func(s *Settings) *bool { return &s.InsecureSkipVerify }},
}

// Default is the table with nothing set: a keycloak ZVM, not configured.
func Default() Settings { return Settings{Auth: AuthKeycloak} }

// Overlay sets in s the keys of p that set reports as written in p's
// file: a trusted project config's [zerto] over the user's.
func (s *Settings) Overlay(p Settings, set func(key string) bool) {
	for _, f := range fields {
		if !set(f.key) {
			continue
		}
		if f.str != nil {
			*f.str(s) = *f.str(&p)
		} else {
			*f.flag(s) = *f.flag(&p)
		}
	}
}

// Difference is a key whose value differs between two tables, with the
// value to show: quoted, or "..." for a secret.
type Difference struct {
	Key, Value string
}

// Differences lists the keys written in p's file (set) whose values differ
// from s's: what an untrusted project config tries to change.
func (s Settings) Differences(p Settings, set func(key string) bool) []Difference {
	var d []Difference
	for _, f := range fields {
		if !set(f.key) {
			continue
		}
		var shown string
		if f.str != nil {
			if *f.str(&s) == *f.str(&p) {
				continue
			}
			shown = fmt.Sprintf("%q", *f.str(&p))
		} else {
			if *f.flag(&s) == *f.flag(&p) {
				continue
			}
			shown = fmt.Sprint(*f.flag(&p))
		}
		if f.secret {
			shown = "..."
		}
		d = append(d, Difference{Key: f.key, Value: shown})
	}
	return d
}

// Problem is a value of the table that cannot work, by its key.
type Problem struct {
	Key, Msg string
}

// Problems checks the values a file gives, one Problem each; the
// combinations that need the environment too (credentials) are the
// client's to check.
func (s Settings) Problems() []Problem {
	var ps []Problem
	switch s.Auth {
	case AuthKeycloak, AuthSession:
	default:
		ps = append(ps, Problem{"auth", fmt.Sprintf("unknown value %q (want %s or %s)", s.Auth, AuthKeycloak, AuthSession)})
	}
	switch s.SessionMethod {
	case "", SessionVCenter, SessionWindows:
	default:
		ps = append(ps, Problem{"session_method", fmt.Sprintf("unknown value %q (want %s or %s)", s.SessionMethod, SessionVCenter, SessionWindows)})
	}
	if s.URL != "" {
		if msg := CheckURL(s.URL); msg != "" {
			ps = append(ps, Problem{"url", msg})
		}
	}
	if s.ClientSecret != "" && s.ClientSecretFile != "" {
		ps = append(ps, Problem{"client_secret_file", "give client_secret or client_secret_file, not both"})
	}
	if s.Password != "" && s.PasswordFile != "" {
		ps = append(ps, Problem{"password_file", "give password or password_file, not both"})
	}
	return ps
}

// CheckURL says what is wrong with a ZVM URL, or "" when it can work. It
// reads the URL itself, not with net/url, which would link net/netip into
// the hook that reads every config: it takes a subset of what net/url
// parses (http or https, a host name, IPv4 or bracketed IPv6 address, an
// optional port of digits, then any path, query and fragment with valid
// escapes), which a fuzz test holds it to.
func CheckURL(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return fmt.Sprintf("%q has no scheme: write it as https://%s", redactUserinfo(s), strings.TrimPrefix(redactUserinfo(s), "//"))
	}
	auth := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		auth = rest[:i]
	}
	user, host, hasUser := strings.Cut(auth, "@")
	if !hasUser {
		host = auth
	}
	scheme = strings.ToLower(scheme)
	if scheme != "https" && scheme != "http" || !validHostPort(host) || !validURIText(s) || hasUser && strings.Trim(user, userinfoChars) != "" {
		return `want an http or https URL such as "https://zvm.lab.local"`
	}
	if hasUser {
		return "the URL must not carry credentials: use username and password_file, or client_id and client_secret_file"
	}
	return ""
}

const (
	hostChars     = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_~"
	userinfoChars = hostChars + "!$&'()*+,;=:%"
)

// validHostPort reports whether s is a host name or IPv4 address, or an
// IPv6 address in brackets, followed by an optional ":" and digits.
func validHostPort(s string) bool {
	host, port := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return false
		}
		host, port = s[1:end], s[end+1:]
		if !isIPv6(host) {
			return false
		}
	} else {
		if i := strings.IndexByte(s, ':'); i >= 0 {
			host, port = s[:i], s[i:]
		}
		if strings.Trim(host, hostChars) != "" {
			return false
		}
	}
	return host != "" && (port == "" || port[0] == ':' && strings.Trim(port[1:], "0123456789") == "")
}

// isIPv6 reports whether s is an IPv6 address without a zone: eight
// groups of up to four hexadecimal digits, the last two of which may be
// an IPv4 address, with "::" standing for one or more groups of zeros.
func isIPv6(s string) bool {
	head, tail, elided := strings.Cut(s, "::")
	groups := 0
	for i, part := range []string{head, tail} {
		if part == "" {
			continue
		}
		words := strings.Split(part, ":")
		for j, w := range words {
			last := i == 1 || !elided
			switch {
			case last && j == len(words)-1 && strings.Contains(w, "."):
				if !isIPv4(w) {
					return false
				}
				groups += 2
			case len(w) < 1 || len(w) > 4 || strings.Trim(w, "0123456789abcdefABCDEF") != "":
				return false
			default:
				groups++
			}
		}
	}
	if elided {
		return groups < 8
	}
	return groups == 8
}

// isIPv4 reports whether s is four decimal numbers up to 255, dotted,
// without leading zeros.
func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || p[0] == '+' || p[0] == '-' || len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return true
}

// validURIText reports whether s has no space, control character or byte
// past ASCII, and a "%" only before two hexadecimal digits.
func validURIText(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c >= 0x7f:
			return false
		case c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2])):
			return false
		}
	}
	return true
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// redactUserinfo drops what stands before an "@" in s, which may be a
// password, for an error text.
func redactUserinfo(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return s[i+1:]
	}
	return s
}
