package redact

import (
	"encoding/base64"
	"regexp"
	"strings"
	"sync"
)

// Redacted replaces every secret this package finds.
const Redacted = "[redacted]"

// value matches a shell or JSON value in quotes, or a bare word up to what
// ends it in a shell command, a URL query or a JSON object.
const value = `("(?:[^"\\]|\\.)*"|'[^']*'|[^\s'"&;|<>)}]+)`

// rule is one pattern of secret and what to put in its place: a fixed
// replacement, or fn deciding on each match (a shape that a regular
// expression alone cannot tell from a word).
type rule struct {
	re   *regexp.Regexp
	repl string
	fn   func(m []string) string
}

func (r rule) apply(s string) string {
	if r.fn == nil {
		return r.re.ReplaceAllString(s, r.repl)
	}
	return r.re.ReplaceAllStringFunc(s, func(m string) string {
		return r.fn(r.re.FindStringSubmatch(m))
	})
}

func mustRule(expr, repl string) rule { return rule{re: regexp.MustCompile(expr), repl: repl} }

// shapes are the secrets that look like secrets wherever they stand: keys
// and tokens with a recognisable form, credentials in an Authorization
// header, and the password of a URL's user info. They are compiled on
// first use: most rewind commands never redact anything.
var shapes = sync.OnceValue(func() []rule {
	return []rule{
		// A private key block, also when a text cuts it short.
		mustRule(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`, Redacted),
		// AWS access key IDs; GitHub, GitLab, Slack, Anthropic and OpenAI
		// tokens; JWTs (Keycloak's access and refresh tokens among them).
		mustRule(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, Redacted),
		mustRule(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,})`, Redacted),
		mustRule(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`, Redacted),
		// HTTP credentials: a bearer token, and Basic credentials (base64
		// of user:password). The words after "Bearer" or "Basic" are kept
		// unless they have a credential's shape, so that "bearer
		// authentication required" reads as it was written.
		{re: regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/=-]{8,})`), fn: func(m []string) string {
			if strings.ContainsAny(m[2], "0123456789._~+/=-") {
				return m[1] + Redacted
			}
			return m[0]
		}},
		{re: regexp.MustCompile(`(?i)\b(basic\s+)([A-Za-z0-9+/]{4,}={0,2})`), fn: func(m []string) string {
			if b, err := base64.StdEncoding.DecodeString(m[2]); err == nil && strings.ContainsRune(string(b), ':') {
				return m[1] + Redacted
			}
			return m[0]
		}},
		// The password in user:password@host, with or without a scheme, as
		// in URLs and govc -u.
		mustRule(`(^|[\s='"(,])((?:[A-Za-z][A-Za-z0-9+.-]*://)?[^\s:/@'"=]+):[^\s@/'"]+@`, "${1}${2}:"+Redacted+"@"),
	}
})

// assignments are the secrets a command gives by name: the value of a
// variable, flag, option or key whose name says it is a secret. They apply
// to what an agent wrote (see Command), never to the texts of errors, where
// the word after "token:" is whatever the error says next.
var assignments = sync.OnceValue(func() []rule {
	secretWords := `password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?`
	return []rule{
		// sshpass -p SECRET, and mysql -pSECRET, whose password is glued to
		// the flag. -p means other things to other commands, so only a
		// quoted value glued to it is taken as a password elsewhere.
		mustRule(`(\bsshpass\s+(?:[^|;&\n]*?\s)?-p)(\s*)`+value, "${1}${2}"+Redacted),
		mustRule(`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump)\s+(?:[^|;&\n]*?\s)?-p)`+value, "${1}"+Redacted),
		mustRule(`(\s-p)("(?:[^"\\]|\\.)*"|'[^']*')`, "${1}"+Redacted),
		// --password SECRET and the like: a flag naming a secret, then its
		// value as the next word.
		mustRule(`(?i)((?:^|\s)--?[a-z0-9_-]*(?:`+secretWords+`)[a-z0-9_-]*)(\s+)`+value, "${1}${2}"+Redacted),
		// KEY=VALUE, "key": "value" and key: value where the key names a
		// secret, such as REWIND_ZVM_PASSWORD=..., client_secret=...,
		// --token=..., x-zerto-session: ... The key starts a word (after
		// space, a quote, a bracket or a query's ? or &), so that a URL
		// path ending in /token, quoted before a colon in a Go error, is
		// no key.
		mustRule(`(?i)((?:^|[\s"'{(\[,;?&])[a-z0-9_.-]*(?:`+secretWords+`|pwd|x-zerto-session|cookie)[a-z0-9_.-]*["']?\s*[=:]\s*)`+value, "${1}"+Redacted),
		// An Authorization header, whatever its scheme and value.
		mustRule(`(?i)(authorization["']?\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate)\s+)?)`+value, "${1}"+Redacted),
	}
})

// Text returns s with the secrets of a recognisable shape replaced by
// Redacted: private key blocks, AWS access key IDs, well-known API token
// shapes, JWTs, bearer tokens, Basic credentials and the password of a
// URL's user info. It is for texts rewind did not write, such as an error
// from the network or a message from a ZVM: a word is never hidden for
// the label in front of it. The secrets a program knows by value are
// Set's to scrub. Applying Text again changes nothing.
func Text(s string) string {
	for _, r := range shapes() {
		s = r.apply(s)
	}
	return s
}

// Command returns s, a command or tool input as an agent wrote it, with
// Text's shapes redacted and the values it gives to secrets by name:
// KEY=VALUE, "key": value, --flag VALUE or --flag=VALUE where the name
// says password, secret, token, key or credentials; Authorization headers;
// sshpass -p and mysql -p values. It errs on the side of hiding too much.
// Applying it again changes nothing.
func Command(s string) string {
	// Whole shapes first: the key/value rules would otherwise mask only a
	// part of, say, an Authorization header.
	s = Text(s)
	for _, r := range assignments() {
		s = r.apply(s)
	}
	return s
}
