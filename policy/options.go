package policy

import "strings"

// The options of a command that take their value as the next word are
// listed per command ([value_options]), so that matching and targets skip
// that word. A list names options, and for tools whose options all take a
// value but a few (gcloud, virsh, Proxmox's qm) it can say so instead of
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
	found := false
	for _, o := range list {
		neg := len(o) > 1 && o[0] == '!'
		if neg {
			o = o[1:]
		}
		if !optionMatches(o, word, ps) {
			continue
		}
		if neg {
			return false
		}
		found = true
	}
	return found
}

// optionMatches reports whether word is the option o names.
func optionMatches(o, word string, ps bool) bool {
	if o == word || ps && strings.EqualFold(o, word) {
		return true
	}
	prefix, ok := strings.CutSuffix(o, "*")
	if !ok || len(word) <= len(prefix) || strings.IndexByte(word, '=') >= 0 {
		return false
	}
	return word[:len(prefix)] == prefix || ps && strings.EqualFold(word[:len(prefix)], prefix)
}

// wildMatch reports whether s matches pattern, in which "*" stands for any
// run of characters, slashes included (a document ARN ends in
// "document/NAME"), and "?" for any one, without regard to ASCII case:
// cloud CLIs take "--method DELETE" as "--method delete", and a type or
// document name spelt in another case only makes more calls match. It backtracks only to the last
// star, so its cost is linear in practice and at worst the product of the
// lengths.
func wildMatch(pattern, s string) bool {
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
