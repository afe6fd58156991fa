package policy

import (
	"strings"
	"testing"
)

var globDotsCases = []struct {
	code string
	want bool
}{
	{"shopt -s dotglob; rm -rf *", true},
	{"GLOBIGNORE=.; cp x *", true},
	{"BASHOPTS=dotglob bash -c 'cp x *'", true},
	{"setopt globdots; cp x *", true},
	{"setopt GLOB_DOTS", true},
	{"zsh -o G_L_O_B_D_O_T_S -c 'cp x *'", true},
	{"unsetopt CASE_GLOB", true},
	{"shopt -s nocaseglob", true},
	{"set -o Glob_Dots", true},
	{"ls -la && git status --short | head -n 20", false},
	{"git commit -m 'the glob of dots is not an option'", false},
	{"echo globe dotted options", false},
	{"optimize the bash script", false},
	{"", false},
	{"b", false},
	{"p", false},
	{"____p____", false},
}

func TestMentionsGlobDots(t *testing.T) {
	for _, tc := range globDotsCases {
		if got := mentionsGlobDots(tc.code); got != tc.want {
			t.Errorf("mentionsGlobDots(%q) = %v, want %v", tc.code, got, tc.want)
		}
	}
}

// globDotsWords are the words mentionsGlobDots finds, in lower case and
// without underscores.
var globDotsWords = []string{"dotglob", "globignore", "bashopts", "globdots", "setopt", "caseglob"}

// globDotsFolded is mentionsGlobDots written plainly: the text in lower
// case without underscores holds one of the words.
func globDotsFolded(code string) bool {
	folded := strings.ReplaceAll(strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, code), "_", "")
	for _, w := range globDotsWords {
		if strings.Contains(folded, w) {
			return true
		}
	}
	return false
}

// FuzzMentionsGlobDots holds mentionsGlobDots to globDotsFolded.
func FuzzMentionsGlobDots(f *testing.F) {
	for _, tc := range globDotsCases {
		f.Add(tc.code)
	}
	f.Fuzz(func(t *testing.T, code string) {
		if got, want := mentionsGlobDots(code), globDotsFolded(code); got != want {
			t.Errorf("mentionsGlobDots(%q) = %v, the folded text says %v", code, got, want)
		}
	})
}
