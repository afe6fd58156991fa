package audit

import (
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultExcerptRunes is the length of the excerpts Append keeps.
const DefaultExcerptRunes = 200

// redacted replaces every secret Redact finds.
const redacted = "[redacted]"

// value matches a shell or JSON value in quotes, or a bare word up to what
// ends it in a shell command, a URL query or a JSON object.
const value = `("(?:[^"\\]|\\.)*"|'[^']*'|[^\s'"&;|<>)}]+)`

// redaction is one pattern of secret and what to put in its place.
type redaction struct {
	re   *regexp.Regexp
	repl string
}

// redactions are compiled on first use: most rewind commands never log.
// Their order matters: whole secrets first, then the key/value shapes, which
// would otherwise mask only a part of, say, an Authorization header.
var redactions = sync.OnceValue(func() []redaction {
	r := func(expr, repl string) redaction { return redaction{regexp.MustCompile(expr), repl} }
	secretWords := `password|passwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?`
	return []redaction{
		// A private key block, also when the excerpt cuts it short.
		r(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)`, redacted),
		// Secrets with a recognisable shape: AWS access key IDs, GitHub,
		// GitLab, Slack, Anthropic and OpenAI tokens, JWTs.
		r(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`, redacted),
		r(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-[A-Za-z0-9_-]{20,})`, redacted),
		r(`\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`, redacted),
		// HTTP credentials: Authorization headers and bare bearer tokens.
		r(`(?i)(authorization["']?\s*[:=]\s*(?:(?:bearer|basic|token|digest|negotiate)\s+)?)`+value, "${1}"+redacted),
		r(`(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+`, "${1}"+redacted),
		// The password in user:password@host, with or without a scheme, as
		// in URLs and govc -u.
		r(`(^|[\s='"(,])((?:[A-Za-z][A-Za-z0-9+.-]*://)?[^\s:/@'"=]+):[^\s@/'"]+@`, "${1}${2}:"+redacted+"@"),
		// sshpass -p SECRET, and mysql -pSECRET, whose password is glued to
		// the flag. -p means other things to other commands, so only a
		// quoted value glued to it is taken as a password elsewhere.
		r(`(\bsshpass\s+(?:[^|;&\n]*?\s)?-p)(\s*)`+value, "${1}${2}"+redacted),
		r(`(\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mariadb|mariadb-dump)\s+(?:[^|;&\n]*?\s)?-p)`+value, "${1}"+redacted),
		r(`(\s-p)("(?:[^"\\]|\\.)*"|'[^']*')`, "${1}"+redacted),
		// --password SECRET and the like: a flag naming a secret, then its
		// value as the next word.
		r(`(?i)((?:^|\s)--?[a-z0-9_-]*(?:`+secretWords+`)[a-z0-9_-]*)(\s+)`+value, "${1}${2}"+redacted),
		// KEY=VALUE and "key": "value" where the key names a secret, such
		// as REWIND_ZVM_PASSWORD=..., client_secret=..., --token=...
		r(`(?i)([a-z0-9_.-]*(?:`+secretWords+`|pwd|x-zerto-session|cookie)[a-z0-9_.-]*["']?\s*[=:]\s*)`+value, "${1}"+redacted),
	}
})

// Redact returns s with the secrets it can recognise replaced by
// "[redacted]": passwords, tokens and keys given as KEY=VALUE, "key": value,
// --flag VALUE or --flag=VALUE; Authorization headers and bearer tokens;
// passwords in user:password@host; sshpass -p and mysql -p values; AWS
// access key IDs, well-known API token shapes, JWTs and private key blocks.
// It errs on the side of hiding too much. Applying it again changes nothing.
func Redact(s string) string {
	for _, r := range redactions() {
		s = r.re.ReplaceAllString(s, r.repl)
	}
	return s
}

// Excerpt returns a bounded, single-line, redacted excerpt of s, at most max
// runes long (DefaultExcerptRunes when max <= 0), ending in "…" when cut.
// Runs of white space and control characters become one space.
//
// Only a window at the start of s, a few times max, is redacted, so a
// megabyte of tool input costs no more than a short one; the window ends at
// a word boundary, so a secret it cuts in half is dropped rather than shown.
func Excerpt(s string, max int) string {
	if max <= 0 {
		max = DefaultExcerptRunes
	}
	window := 8*max + 1024
	cut := false
	if len(s) > window {
		s, cut = clipWord(s, window), true
	}
	s = singleLine(Redact(s))
	if cut {
		s += " …"
	}
	return truncate(s, max)
}

// clipWord returns a prefix of s of at most n bytes, ending before the
// last white space in it when there is one in its second half.
func clipWord(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	if i := strings.LastIndexFunc(s, unicode.IsSpace); i >= n/2 {
		s = s[:i]
	}
	return s
}

// singleLine replaces every run of white space, control and format
// characters (which could move a terminal's cursor or reorder text) with one
// space, and trims the ends.
func singleLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// truncate cuts s to at most max runes, the last of them "…" when cut.
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	i, n := 0, 0
	for i = range s {
		if n == max-1 {
			break
		}
		n++
	}
	return strings.TrimRight(s[:i], " ") + "…"
}
