// Package zvmconf is the [zerto] table of rewind's config file: where the
// ZVM is and how to log in to it. The config (package policy) reads it and
// the client (package zvm) connects with it; neither needs the other for
// that, so the rule engine does not link the REST client, nor the client
// the rule engine.
package zvmconf

import (
	"fmt"
	"net/url"
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

// CheckURL says what is wrong with a ZVM URL, or "" when it can work.
func CheckURL(s string) string {
	u, err := url.Parse(s)
	switch {
	case !strings.Contains(s, "://"):
		return fmt.Sprintf("%q has no scheme: write it as https://%s", redactUserinfo(s), strings.TrimPrefix(redactUserinfo(s), "//"))
	case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
		return `want an http or https URL such as "https://zvm.lab.local"`
	case u.User != nil:
		return "the URL must not carry credentials: use username and password_file, or client_id and client_secret_file"
	}
	return ""
}

// redactUserinfo drops what stands before an "@" in s, which may be a
// password, for an error text.
func redactUserinfo(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		return s[i+1:]
	}
	return s
}
