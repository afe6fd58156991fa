package zvm

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

// The authentication schemes a ZVM offers.
const (
	// AuthKeycloak is the ZVM appliance (10.x): OAuth tokens from its Keycloak.
	AuthKeycloak = zvmconf.AuthKeycloak
	// AuthSession is the Windows ZVM: a session from POST /v1/session/add.
	AuthSession = zvmconf.AuthSession
)

// DefaultClientID is the Keycloak client a ZVM appliance ships for the
// password grant.
const DefaultClientID = "zerto-client"

// Options configures a Client. Secrets (ClientSecret, Password) are only
// sent to the ZVM; they never appear in errors, logs or the token cache.
type Options struct {
	URL          string // the ZVM's base URL, such as "https://zvm.lab.local"; a path prefix is kept
	Auth         string // AuthKeycloak (the default) or AuthSession
	ClientID     string // Keycloak client; DefaultClientID when empty
	ClientSecret string // with no Username: the client_credentials grant
	Username     string // with Password: the password grant (Keycloak) or Basic auth (session)
	Password     string
	// SessionMethod is how a Windows ZVM checks Username and Password:
	// zvmconf.SessionVCenter (the default) or zvmconf.SessionWindows.
	SessionMethod string
	CAFile        string // PEM file of CAs to trust, beside the system's
	// InsecureSkipVerify turns off certificate checks; New warns through Logger.
	InsecureSkipVerify bool
	// CacheDir holds the shared token cache. "" means os.UserCacheDir()/rewind;
	// "-" keeps tokens in memory only.
	CacheDir string
	// HTTPClient, if set, sends every request; CAFile and InsecureSkipVerify
	// must then be empty, since its transport decides about TLS.
	HTTPClient *http.Client
	// Logger receives warnings (an insecure connection); nil discards them.
	Logger *slog.Logger
}

// ApplyEnv overrides o with the REWIND_ZVM_* variables that are set to a
// non-empty value: URL, AUTH, CLIENT_ID, CLIENT_SECRET, USERNAME, PASSWORD,
// SESSION_METHOD, CA_FILE and INSECURE_SKIP_VERIFY (a strconv.ParseBool
// value). The secrets' _FILE variables are FromConfig's to read.
func (o *Options) ApplyEnv(getenv func(string) string) error {
	for _, v := range []struct {
		name string
		dst  *string
	}{
		{"REWIND_ZVM_URL", &o.URL},
		{"REWIND_ZVM_AUTH", &o.Auth},
		{"REWIND_ZVM_CLIENT_ID", &o.ClientID},
		{"REWIND_ZVM_CLIENT_SECRET", &o.ClientSecret},
		{"REWIND_ZVM_USERNAME", &o.Username},
		{"REWIND_ZVM_PASSWORD", &o.Password},
		{"REWIND_ZVM_CA_FILE", &o.CAFile},
		{"REWIND_ZVM_SESSION_METHOD", &o.SessionMethod},
	} {
		if s := getenv(v.name); s != "" {
			*v.dst = s
		}
	}
	if s := getenv("REWIND_ZVM_INSECURE_SKIP_VERIFY"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("REWIND_ZVM_INSECURE_SKIP_VERIFY=%q: not a boolean", s)
		}
		o.InsecureSkipVerify = b
	}
	return nil
}

// validate checks o and returns the parsed base URL with its defaults filled in.
func (o *Options) validate() (*url.URL, error) {
	if o.URL == "" {
		return nil, fmt.Errorf("zvm: %w: set zerto.url or REWIND_ZVM_URL", ErrNotConfigured)
	}
	if msg := zvmconf.CheckURL(o.URL); msg != "" {
		return nil, &SettingsError{Key: "url", Err: errors.New(msg)}
	}
	u, err := url.Parse(o.URL)
	if err != nil {
		return nil, &SettingsError{Key: "url", Err: fmt.Errorf("%q: want http(s)://host[:port][/path]", redactURL(o.URL))}
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	switch o.Auth {
	case "":
		o.Auth = AuthKeycloak
	case AuthKeycloak, AuthSession:
	default:
		return nil, &SettingsError{Key: "auth", Err: fmt.Errorf("%q: want %q or %q", o.Auth, AuthKeycloak, AuthSession)}
	}
	switch o.SessionMethod {
	case "":
		o.SessionMethod = zvmconf.SessionVCenter
	case zvmconf.SessionVCenter, zvmconf.SessionWindows:
	default:
		return nil, &SettingsError{Key: "session_method", Err: fmt.Errorf("%q: want %q or %q", o.SessionMethod, zvmconf.SessionVCenter, zvmconf.SessionWindows)}
	}
	if o.ClientID == "" {
		o.ClientID = DefaultClientID
	}
	hasUser := o.Username != "" && o.Password != ""
	switch {
	case o.Auth == AuthSession && !hasUser:
		return nil, &SettingsError{Key: "username", Err: errors.New("session auth needs username and password (or password_file)")}
	case o.Auth == AuthKeycloak && !hasUser && o.ClientSecret == "":
		return nil, &SettingsError{Key: "client_secret", Err: errors.New("keycloak auth needs client_id and client_secret (or client_secret_file), or username and password")}
	}
	if o.HTTPClient != nil && (o.CAFile != "" || o.InsecureSkipVerify) {
		return nil, &SettingsError{Key: "ca_file", Err: errors.New("ca_file and insecure_skip_verify cannot apply to a caller's HTTPClient")}
	}
	return u, nil
}

// redactURL returns s without any user info, for error texts.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return redactUserinfo(s)
}

// httpClient builds the client for o: the system's roots plus CAFile, and
// connection-level timeouts so that a dead ZVM fails fast. The total time of
// a request is the caller's context, never a client timeout.
func (o *Options) httpClient() (*http.Client, error) {
	if o.HTTPClient != nil {
		return o.HTTPClient, nil
	}
	tlsConf := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(expandHome(o.CAFile))
		if err != nil {
			return nil, &SettingsError{Key: "ca_file", Err: err}
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, &SettingsError{Key: "ca_file", Err: fmt.Errorf("%s: no PEM certificates in it", o.CAFile)}
		}
		tlsConf.RootCAs = pool
	}
	if o.InsecureSkipVerify {
		tlsConf.InsecureSkipVerify = true
		if o.Logger != nil {
			o.Logger.Warn("zvm: insecure_skip_verify is set: the certificate of " + redactURL(o.URL) + " is not checked, so anyone on the path can read the credentials")
		}
	}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsConf,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConns:          4,
		IdleConnTimeout:       60 * time.Second,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{Transport: tr}, nil
}

// expandHome expands a leading "~/", as people write paths in config files.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}
