package policy

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/shell"
)

// pastLimit judges text the shell analysis left alone because it is past
// one of its limits (nesting too deep to follow). Unlike a syntax error,
// such text may well run, and any command could hide in it: like a command
// decided at run time it gets ask wherever a deny, ask or protect rule
// applies, unless a rule it matches as written asks for more.
func (p *Policy) pastLimit(u *shell.Unparsed, at place) Match {
	remote := at.remote
	m := p.unknown(KindUnparsed, u.Text, u.Err, at, false)
	if m.Effect >= Ask {
		return m
	}
	for _, r := range p.commands {
		if r.src.Effect != None && r.at(remote) {
			m.Effect, m.Rule = Ask, r.label
			m.Reason = fmt.Sprintf("part of the command is past a limit of the analysis (%s) and could hold any command, which a deny, ask or protect rule could match", u.Err)
			return m
		}
	}
	return m
}

// maxUnparsedWords bounds the distinct words of unparsed text that are
// looked up among the rules' command names; text with more is taken to
// name any of them.
const maxUnparsedWords = 1 << 16

// wordSet is the distinct words of unparsed text that could be command
// names, for looking up the rules in time linear in the text.
type wordSet struct {
	words map[string]struct{}
	// order holds the words in the order of the text.
	order []string
	// tooMany is set when the text has more than maxUnparsedWords.
	tooMany bool
}

func newWordSet(text string) *wordSet {
	s := &wordSet{words: make(map[string]struct{})}
	for w := range strings.FieldsFuncSeq(text, notNameChar) {
		if j := strings.LastIndexByte(w, '/'); j >= 0 {
			w = w[j+1:]
		}
		if _, ok := s.words[w]; ok {
			continue
		}
		if len(s.words) == maxUnparsedWords {
			s.tooMany = true
			break
		}
		s.words[w] = struct{}{}
		s.order = append(s.order, w)
	}
	return s
}

func notNameChar(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		strings.ContainsRune("._-/+@", r))
}

// names returns a word of the set that could be the command r names.
func (s *wordSet) names(r *commandRule) (string, bool) {
	if s == nil {
		return "", false
	}
	if s.tooMany && (len(r.words) > 0 && r.words[0] != "*" || slices.ContainsFunc(r.cmdlets, func(c string) bool { return c != "*" })) {
		return "(one of too many words to look up)", true
	}
	if len(r.words) > 0 && r.words[0] != "*" {
		pattern := r.words[0]
		if !strings.ContainsAny(pattern, `*?[\`) {
			if _, ok := s.words[pattern]; ok {
				return pattern, true
			}
		} else {
			for _, w := range s.order {
				if glob(pattern, w) {
					return w, true
				}
			}
		}
	}
	if len(r.cmdlets) > 0 {
		for _, w := range s.order {
			if namesCmdlet(r.cmdlets, strings.ToLower(w)) {
				return w, true
			}
		}
	}
	return "", false
}

// maxShownWord bounds each word of a command as a Match shows it. A word
// known only at run time is shown as its source, which for
// "echo $(echo $(... cat <<EOF ...))" holds all the nesting inside it: in
// full, each level would copy the text of all the levels below.
const maxShownWord = 256

// clipWord cuts w to maxShownWord bytes, at a character boundary, marking
// the cut with "…".
func clipWord(w string) string {
	if len(w) <= maxShownWord {
		return w
	}
	i := maxShownWord
	for i > 0 && !utf8.RuneStart(w[i]) {
		i--
	}
	return w[:i] + "…"
}
