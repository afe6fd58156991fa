package cli

import "testing"

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain",
		"unknown command \"lgo\"\n\nDid you mean this?\n\tlog\n": `unknown command "lgo" Did you mean this? log`,
		`value "a  b" kept`: `value "a  b" kept`,
		"":                  "",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
