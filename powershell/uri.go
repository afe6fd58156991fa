package powershell

import "strings"

// URIHost returns the host of an absolute URI such as
// http://web-01:5985/wsman (as -ConnectionUri, winrs -r: and docker -H
// name a host), or "" when s is none that it reads for certain. It reads
// scheme://[user@]host[:port] followed by a path, query or fragment, where
// the host is a name or an IPv4 address: a subset of what net/url parses,
// which it agrees with (a fuzz test holds it to that), without linking
// net/url and net/netip into every hook process. A URI it does not read,
// with escapes in its host or an IPv6 address, gets "": its host is
// unknown.
func URIHost(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || !isScheme(scheme) || !plainURI(s) {
		return ""
	}
	auth := rest
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		auth = rest[:i]
	}
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		if strings.Trim(auth[:i], userinfoChars) != "" {
			return ""
		}
		auth = auth[i+1:]
	}
	host, port := auth, ""
	if i := strings.IndexByte(auth, ':'); i >= 0 {
		host, port = auth[:i], auth[i:]
	}
	if host == "" || strings.Trim(host, nameChars) != "" {
		return ""
	}
	if port != "" && strings.Trim(port[1:], "0123456789") != "" {
		return ""
	}
	return host
}

const (
	nameChars     = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_~"
	userinfoChars = nameChars + "!$&'()*+,;=:%"
)

// isScheme reports whether s is a URI scheme: a letter, then letters,
// digits, "+", "-" or ".".
func isScheme(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !('0' <= c && c <= '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// plainURI reports whether s has no space, control character or byte past
// ASCII, and a "%" only before two hexadecimal digits.
func plainURI(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c <= ' ' || c >= 0x7f:
			return false
		case c == '%':
			if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
				return false
			}
		}
	}
	return true
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
