package zvm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/redact"
)

// Kind classifies an Error by what a caller can do about it.
type Kind int

const (
	// KindNotFound means the object is unknown to Zerto: a 404, or the 400 a
	// ZVM answers when a host name is used where a VM or VPG identifier belongs.
	// It is never a failure of Zerto, only a lookup miss.
	KindNotFound Kind = iota + 1
	// KindBadRequest means Zerto refused the request as invalid (400, 409, 422...).
	KindBadRequest
	// KindUnauthorized means the credentials were refused (401, 403, or a
	// failed login at the token endpoint), even after one fresh login.
	KindUnauthorized
	// KindServer means Zerto failed (5xx, or 429 after the retries).
	KindServer
	// KindTimeout means the caller's context ended, or the network timed out,
	// before Zerto answered.
	KindTimeout
	// KindTransport means the ZVM could not be reached: DNS, refused or reset
	// connections.
	KindTransport
	// KindTLS means the TLS handshake failed, usually because the ZVM's
	// certificate is not trusted: set ca_file.
	KindTLS
	// KindMalformed means Zerto answered 2xx with a body that is not what the
	// API promises.
	KindMalformed
	// KindTaskFailed means a Zerto task ended without completing; Message is
	// its CompleteReason.
	KindTaskFailed
	// KindNotZerto means the answer did not come from a ZVM's API: a 404
	// page of a web server or proxy, or a route the ZVM does not have. The
	// base URL is wrong; it is never a lookup miss.
	KindNotZerto
)

var kindNames = [...]string{
	KindNotFound:     "not found",
	KindBadRequest:   "bad request",
	KindUnauthorized: "unauthorized",
	KindServer:       "server error",
	KindTimeout:      "timeout",
	KindTransport:    "transport error",
	KindTLS:          "tls error",
	KindMalformed:    "malformed response",
	KindTaskFailed:   "task failed",
	KindNotZerto:     "not a ZVM API answer",
}

// String returns the kind's name as it appears in error texts.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Error is the error every Client method returns. Message holds Zerto's own
// text verbatim (the "Message" of a /v1 error, Keycloak's error_description,
// or a task's CompleteReason), so that it can be shown to a person unchanged.
type Error struct {
	Kind    Kind
	Op      string // the request, such as "GET /v1/vms/web-01"
	Status  int    // the HTTP status, 0 when no response arrived
	Message string // Zerto's text, verbatim; empty when Zerto gave none
	Err     error  // the underlying cause, if any
}

// Error returns "zvm: OP: KIND (STATUS): MESSAGE", leaving out absent parts.
func (e *Error) Error() string {
	s := "zvm: "
	if e.Op != "" {
		s += e.Op + ": "
	}
	s += e.Kind.String()
	if e.Status != 0 {
		s += " (" + strconv.Itoa(e.Status) + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.Err != nil && e.Message == "" {
		// A transport error quotes URLs, and a proxy's may carry user info.
		s += ": " + redact.Text(e.Err.Error())
	}
	return s
}

// redactedText replaces a secret in an error text.
const redactedText = redact.Redacted

// maxMessage bounds the Zerto message an Error keeps: a message is a
// sentence, and a body that is more echoes something else.
const maxMessage = 1024

// maxSecretEcho bounds how much longer than maxMessage the window of a
// message is that secrets are scrubbed from before it is cut: a secret
// that begins before the cut is scrubbed whole, however it is encoded.
const maxSecretEcho = 8 << 10

// message makes a message from the ZVM (or whatever answered in its place)
// safe to show a person, a model and the audit log: the values this client
// sent scrubbed in any encoding (redact.Set), the secrets of known shapes
// redacted (redact.Text), and shortened to maxMessage bytes. Scrubbing
// comes first, on a window a little longer than what is kept, so that the
// cut cannot leave a part of a secret that no longer matches.
func (c *Client) message(s string) string {
	if len(s) > maxMessage+maxSecretEcho {
		s = s[:maxMessage+maxSecretEcho]
	}
	s = redact.Text(c.secrets.Scrub(s))
	if len(s) > maxMessage {
		cut := maxMessage
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// redactUserinfo returns s, a URL that may not parse, with everything
// before the last "@" of its authority replaced: a password may hold any
// character, including those that end an authority, so the whole rest of
// the text is searched for the "@".
func redactUserinfo(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		scheme, rest = "", s
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return s
	}
	if scheme != "" {
		scheme += "://"
	}
	return scheme + redactedText + rest[at:]
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// KindOf returns the Kind of the first *Error in err's chain, or 0.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

// IsNotFound reports whether err says the object is unknown to Zerto.
func IsNotFound(err error) bool { return KindOf(err) == KindNotFound }

// IsUnauthorized reports whether err says the credentials were refused.
func IsUnauthorized(err error) bool { return KindOf(err) == KindUnauthorized }

// IsTimeout reports whether err says the deadline passed before Zerto answered.
func IsTimeout(err error) bool { return KindOf(err) == KindTimeout }

// statusKind maps an HTTP error status to a Kind.
func statusKind(status int) Kind {
	switch {
	case status == 404 || status == 410:
		return KindNotFound
	case status == 401 || status == 403:
		return KindUnauthorized
	case status == 429 || status >= 500:
		return KindServer
	default:
		return KindBadRequest
	}
}

// transportError classifies an error from http.Client.Do. ctxErr is the
// request context's error at the time, which wins: a deadline that passed
// mid-dial shows up as many different network errors.
func transportError(op string, err, ctxErr error) *Error {
	if ctxErr != nil {
		return &Error{Kind: KindTimeout, Op: op, Err: ctxErr}
	}
	var (
		verr  *tls.CertificateVerificationError
		uaerr x509.UnknownAuthorityError
		herr  x509.HostnameError
		cierr x509.CertificateInvalidError
		rherr tls.RecordHeaderError
		aerr  tls.AlertError
		nerr  net.Error
	)
	switch {
	case errors.As(err, &verr), errors.As(err, &uaerr), errors.As(err, &herr),
		errors.As(err, &cierr), errors.As(err, &rherr), errors.As(err, &aerr):
		return &Error{Kind: KindTLS, Op: op, Err: err}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return &Error{Kind: KindTimeout, Op: op, Err: err}
	}
	return &Error{Kind: KindTransport, Op: op, Err: err}
}

func malformed(op string, format string, args ...any) *Error {
	return &Error{Kind: KindMalformed, Op: op, Err: fmt.Errorf(format, args...)}
}
