package policy

import (
	"strings"

	"github.com/rewind-dev/rewind/powershell"
)

// The options of a command that take their value as the next word are
// listed per command ([value_options]), so that matching and targets skip
// that word. A list names options, and for tools whose options all take a
// value but a few (gcloud, Proxmox's qm and pvesh) it can say so instead of
// naming hundreds: an entry ending in "*" stands for every option it
// begins, and an entry starting with "!" for options that take no value,
// whatever another entry says:
//
//	gcloud = ["--*", "!--async", "!--quiet", "!--no-*"]
//
// An option written with its value ("--zone=us-central1-a") never takes
// the next word.

// takesValue reports whether the options list says word takes the next
// word as its value. PowerShell options compare without regard to case.
func takesValue(list []string, word string, ps bool) bool {
	takes, _ := optionValue(list, word, ps)
	return takes
}

// optionValue is takesValue, and reports whether a pattern ("--*") rather
// than the option's own name said so. The tools such patterns describe
// (argparse, Getopt::Long) never read a word that is an option itself as
// an option's value: see valueAt.
func optionValue(list []string, word string, ps bool) (takes, byPattern bool) {
	for _, o := range list {
		neg := len(o) > 1 && o[0] == '!'
		if neg {
			o = o[1:]
		}
		exact, ok := optionMatches(o, word, ps)
		if !ok {
			continue
		}
		if neg {
			return false, false
		}
		if !takes || byPattern {
			takes, byPattern = true, !exact
		}
	}
	return takes, byPattern
}

// valueAt reports whether the option at args[i] of s takes args[i+1] as
// its value, by the rule's options and the command's: an option named in a
// list takes the next word whatever it is; one a pattern names takes it
// unless it is an option itself.
func (c *commandRule) valueAt(s *subject, i int) bool {
	a := s.args[i]
	for _, list := range [2][]string{c.src.ValueOptions, s.opts} {
		takes, byPattern := optionValue(list, a, s.ps)
		if !takes {
			continue
		}
		if !byPattern || i+1 >= len(s.args) || s.dynamic(i+1) || !isOption(s.args[i+1]) {
			return true
		}
	}
	return false
}

// optionMatches reports whether word is the option o names, and whether
// by its name rather than a pattern.
func optionMatches(o, word string, ps bool) (exact, ok bool) {
	// PowerShell takes any prefix of a parameter's name that is not
	// ambiguous: -Comp for -ComputerName.
	if o == word || ps && (strings.EqualFold(o, word) || powershell.ParamMatches(word, o)) {
		return true, true
	}
	prefix, isPattern := strings.CutSuffix(o, "*")
	if !isPattern || len(word) <= len(prefix) || strings.IndexByte(word, '=') >= 0 {
		return false, false
	}
	return false, word[:len(prefix)] == prefix || ps && strings.EqualFold(word[:len(prefix)], prefix)
}

// wildMatch reports whether s matches pattern, in which "*" stands for any
// run of characters, slashes included (a document ARN ends in
// "document/NAME"), and "?" for any one, without regard to ASCII case:
// cloud CLIs take "--method DELETE" as "--method delete", and a type or
// document name spelt in another case only makes more calls match. A
// pattern of literals between stars is matched by searching for each
// literal in turn, in time linear in the length of s, which an agent
// controls.
func wildMatch(pattern, s string) bool {
	if strings.IndexByte(pattern, '?') >= 0 {
		return wildMatchSlow(pattern, s)
	}
	parts := strings.Split(pattern, "*")
	first, last := parts[0], parts[len(parts)-1]
	if len(parts) == 1 {
		return strings.EqualFold(pattern, s)
	}
	if len(s) < len(first)+len(last) || !strings.EqualFold(s[:len(first)], first) || !strings.EqualFold(s[len(s)-len(last):], last) {
		return false
	}
	rest := s[len(first) : len(s)-len(last)]
	for _, lit := range parts[1 : len(parts)-1] {
		i := indexFold(rest, lit)
		if i < 0 {
			return false
		}
		rest = rest[i+len(lit):]
	}
	return true
}

// indexFold is strings.Index without regard to ASCII case: it looks for
// the literal's first byte in either case, as fast as IndexByte does,
// keeping where each case occurs next so that no byte is scanned twice,
// and compares the rest where it is found.
func indexFold(s, lit string) int {
	if lit == "" {
		return 0
	}
	lo, up := lowerASCII(lit[0]), upperASCII(lit[0])
	nextLo, nextUp := -1, -1 // the next index of each case at or after i, or len(s)
	for i := 0; i+len(lit) <= len(s); {
		if nextLo < i {
			nextLo = nextIndex(s, i, lo)
		}
		if nextUp < i {
			nextUp = nextLo
			if up != lo {
				nextUp = nextIndex(s, i, up)
			}
		}
		i = min(nextLo, nextUp)
		if i+len(lit) > len(s) {
			return -1
		}
		if strings.EqualFold(s[i:i+len(lit)], lit) {
			return i
		}
		i++
	}
	return -1
}

// nextIndex returns the index of the first b in s at or after from, or
// len(s).
func nextIndex(s string, from int, b byte) int {
	if j := strings.IndexByte(s[from:], b); j >= 0 {
		return from + j
	}
	return len(s)
}

func upperASCII(b byte) byte {
	if 'a' <= b && b <= 'z' {
		return b - 'a' + 'A'
	}
	return b
}

// wildMatchSlow is wildMatch for a pattern with "?": it backtracks to the
// last star, which the catalog's patterns with "?" ("?*") never need.
func wildMatchSlow(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || lowerASCII(pattern[p]) == lowerASCII(s[i])):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
