package audit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestExcerpt(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"Short", "ls -l", 10, "ls -l"},
		{"SingleLine", "  git commit -m \"$(cat <<'EOF'\nfix\n\tthings\r\nEOF\n)\"  ", 100, `git commit -m "$(cat <<'EOF' fix things EOF )"`},
		{"ControlChars", "echo \x1b[31mred\x1b[0m\u202e", 100, "echo [31mred [0m"},
		{"Cut", "abcdefghij", 5, "abcd…"},
		{"CutRunes", "ééééééé", 4, "ééé…"},
		{"CutAtSpace", "abc def", 5, "abc…"},
		{"Exact", "abcde", 5, "abcde"},
		{"RedactedBeforeCut", "sshpass -p hunter2 ssh web-01 reboot", 24, "sshpass -p [redacted] s…"},
		{"DefaultMax", strings.Repeat("a", 300), 0, strings.Repeat("a", DefaultExcerptRunes-1) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Excerpt(tt.in, tt.max)
			if got != tt.want {
				t.Errorf("Excerpt(%q, %d)\n got %q\nwant %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestExcerptHugeInput(t *testing.T) {
	t.Parallel()
	// A secret that straddles the redaction window must not show in part;
	// the window is cut back to a word boundary.
	filler := strings.Repeat("\n", 20000)
	in := "deploy" + filler + "AKIAIOSFODNN7EXAMPLE" + strings.Repeat("x", 1<<20)
	got := Excerpt(in, 50)
	if strings.Contains(got, "AKIA") {
		t.Errorf("Excerpt shows part of a secret cut by its window: %q", got)
	}
	if utf8.RuneCountInString(got) > 50 || !strings.HasPrefix(got, "deploy") {
		t.Errorf("Excerpt = %q", got)
	}
}

func BenchmarkExcerpt(b *testing.B) {
	cmd := `ssh root@web-01 'systemctl restart nginx && REWIND_ZVM_PASSWORD=x curl -H "Authorization: Bearer abc" https://zvm/v1/vms'`
	big := strings.Repeat(cmd+"\n", 100000)
	b.Run("Command", func(b *testing.B) {
		for b.Loop() {
			Excerpt(cmd, DefaultExcerptRunes)
		}
	})
	b.Run("Huge", func(b *testing.B) {
		for b.Loop() {
			Excerpt(big, DefaultExcerptRunes)
		}
	})
}
