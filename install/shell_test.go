package install

import (
	"slices"
	"testing"
)

func TestShellWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		{"/usr/local/bin/rewind hook", []string{"/usr/local/bin/rewind", "hook"}},
		{"'/Users/a b/rewind' hook --config \"/x y/rw.toml\"", []string{"/Users/a b/rewind", "hook", "--config", "/x y/rw.toml"}},
		{`"C:\Program Files\rewind\rewind.exe" hook`, []string{`C:\Program Files\rewind\rewind.exe`, "hook"}},
		{"a\\ b\tc\nd", []string{"a b", "c", "d"}},
		// A variable is the host's to expand, as it runs the line.
		{"$CLAUDE_PROJECT_DIR/tools/rewind hook", []string{"$CLAUDE_PROJECT_DIR/tools/rewind", "hook"}},
		{`"${HOME}/go/bin/rewind" hook`, []string{"$HOME/go/bin/rewind", "hook"}},
		// What only running the line would tell has no words.
		{"rewind hook --config $(pick)", nil},
		{"rewind 'hook", nil},
	}
	for _, tt := range tests {
		if got := shellWords(tt.line); !slices.Equal(got, tt.want) {
			t.Errorf("shellWords(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"rewind", "/Users/a b/rewind", "it's", "$HOME", "a\nb", ""} {
		if got := shellWords("x " + shellQuote(w)); !slices.Equal(got, []string{"x", w}) {
			t.Errorf("shellQuote(%q) = %s, which reads back as %q", w, shellQuote(w), got)
		}
	}
}
