package redact

import (
	"encoding/base64"
	"regexp"
	"slices"
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
// expression alone cannot tell from a word). hints are words, in lower
// case (see fold), one of which every text the expression matches holds:
// a text without any is left alone, and the expression is compiled only
// when a text has one. The hook logs every call it denies, most of which
// hold no secret at all, from a process it starts for the call.
type rule struct {
	expr  string
	hints []string
	repl  string
	fn    func(m []string) string
	once  sync.Once
	re    *regexp.Regexp
}

// compiled returns the rule's expression, compiled on first use.
func (r *rule) compiled() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

// apply returns s with the rule applied; folded is fold(s).
func (r *rule) apply(s, folded string) string {
	if !slices.ContainsFunc(r.hints, func(h string) bool { return strings.Contains(folded, h) }) {
		return s
	}
	return r.replace(s)
}

// replace returns s with every match of the rule's expression replaced.
func (r *rule) replace(s string) string {
	re := r.compiled()
	if r.fn == nil {
		return re.ReplaceAllString(s, r.repl)
	}
	return re.ReplaceAllStringFunc(s, func(m string) string {
		return r.fn(re.FindStringSubmatch(m))
	})
}

// applyAll applies rules to s in order.
func applyAll(s string, rules []*rule) string {
	folded := fold(s)
	for _, r := range rules {
		if out := r.apply(s, folded); out != s {
			s, folded = out, fold(out)
		}
	}
	return s
}

// fold returns s in lower case, with the letters that the expressions'
// (?i) matches as an ASCII letter of a hint turned into that letter: the
// long s (U+017F) matches s, the Kelvin sign (which strings.ToLower folds
// already) k.
func fold(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "\u017f", "s"))
}

// shapes are the secrets that look like secrets wherever they stand: keys
// and tokens with a recognisable form, credentials in an Authorization
// header, and the password of a URL's user info.
var shapes = []*rule{
	// A private key block, also when a text cuts it short.
	{expr: `(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`, hints: []string{"-----begin "}, repl: Redacted},
	// AWS access key IDs; GitHub, GitLab, Slack, Anthropic and OpenAI
	// tokens; JWTs (Keycloak's access and refresh tokens among them).
	{expr: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, hints: []string{"akia", "asia"}, repl: Redacted},
	{expr: `\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,})`,
		hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "sk-"}, repl: Redacted},
	{expr: `\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`, hints: []string{"eyj"}, repl: Redacted},
	// HTTP credentials: a bearer token, and Basic credentials (base64
	// of user:password). The words after "Bearer" or "Basic" are kept
	// unless they have a credential's shape, so that "bearer
	// authentication required" reads as it was written.
	{expr: `(?i)\b(bearer\s+)([A-Za-z0-9._~+/=-]{8,})`, hints: []string{"bearer"}, fn: func(m []string) string {
		if strings.ContainsAny(m[2], "0123456789._~+/=-") {
			return m[1] + Redacted
		}
		return m[0]
	}},
	{expr: `(?i)\b(basic\s+)([A-Za-z0-9+/]{4,}={0,2})`, hints: []string{"basic"}, fn: func(m []string) string {
		if b, err := base64.StdEncoding.DecodeString(m[2]); err == nil && strings.ContainsRune(string(b), ':') {
			return m[1] + Redacted
		}
		return m[0]
	}},
	// The password in user:password@host, with or without a scheme, as
	// in URLs and govc -u.
	{expr: `(^|[\s='"(,])((?:[A-Za-z][A-Za-z0-9+.-]*://)?[^\s:/@'"=]+):[^\s@/'"]+@`, hints: []string{"@"}, repl: "${1}${2}:" + Redacted + "@"},
}

// secretWords are the words that name a secret (the expression's
// alternatives); the hints of the rules that read them hold a word of
// each.
const secretWords = `password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?`

// assignments are the secrets a command gives by name: the value of a
// variable, flag, option or key whose name says it is a secret. They apply
// to what an agent wrote (see Command), never to the texts of errors, where
// the word after "token:" is whatever the error says next.
var assignments = []*rule{
	// sshpass -p SECRET, and mysql -pSECRET, whose password is glued to
	// the flag. -p means other things to other commands, so only a
	// quoted value glued to it is taken as a password elsewhere.
	{expr: `(\bsshpass\s+(?:[^|;&\n]*?\s)?-p)(\s*)` + value, hints: []string{"sshpass"}, repl: "${1}${2}" + Redacted},
	{expr: `(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump)\s+(?:[^|;&\n]*?\s)?-p)` + value, hints: []string{"mysql", "mariadb"}, repl: "${1}" + Redacted},
	{expr: `(\s-p)("(?:[^"\\]|\\.)*"|'[^']*')`, hints: []string{"-p"}, repl: "${1}" + Redacted},
	// --password SECRET and the like: a flag naming a secret, then its
	// value as the next word.
	{expr: `(?i)((?:^|\s)--?[a-z0-9_-]*(?:` + secretWords + `)[a-z0-9_-]*)(\s+)` + value,
		hints: []string{"pass", "secret", "token", "api", "access", "private", "credential"}, repl: "${1}${2}" + Redacted},
	// KEY=VALUE, "key": "value" and key: value where the key names a
	// secret, such as REWIND_ZVM_PASSWORD=..., client_secret=...,
	// --token=..., x-zerto-session: ... The key starts a word (after
	// space, a quote, a bracket or a query's ? or &), so that a URL
	// path ending in /token, quoted before a colon in a Go error, is
	// no key.
	{expr: `(?i)((?:^|[\s"'{(\[,;?&])[a-z0-9_.-]*(?:` + secretWords + `|pwd|x-zerto-session|cookie)[a-z0-9_.-]*["']?\s*[=:]\s*)` + value,
		hints: []string{"pass", "secret", "token", "api", "access", "private", "credential", "pwd", "x-zerto-session", "cookie"}, repl: "${1}" + Redacted},
	// An Authorization header, whatever its scheme and value.
	{expr: `(?i)(authorization["']?\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate)\s+)?)` + value, hints: []string{"authorization"}, repl: "${1}" + Redacted},
}

// Text returns s with the secrets of a recognisable shape replaced by
// Redacted: private key blocks, AWS access key IDs, well-known API token
// shapes, JWTs, bearer tokens, Basic credentials and the password of a
// URL's user info. It is for texts rewind did not write, such as an error
// from the network or a message from a ZVM: a word is never hidden for
// the label in front of it. The secrets a program knows by value are
// Set's to scrub. Applying Text again changes nothing.
func Text(s string) string { return applyAll(s, shapes) }

// Command returns s, a command or tool input as an agent wrote it, with
// Text's shapes redacted and the values it gives to secrets by name:
// KEY=VALUE, "key": value, --flag VALUE or --flag=VALUE where the name
// says password, secret, token, key or credentials; Authorization headers;
// sshpass -p and mysql -p values. It errs on the side of hiding too much.
// Applying it again changes nothing.
func Command(s string) string {
	// Whole shapes first: the key/value rules would otherwise mask only a
	// part of, say, an Authorization header.
	return applyAll(Text(s), assignments)
}
