package jsonscan

import (
	"strings"
	"testing"
)

// FuzzPlainRun holds plainRun's eight bytes at a time to a byte at a time.
func FuzzPlainRun(f *testing.F) {
	for _, s := range []string{"", "plain text", strings.Repeat("a", 17) + `"`, strings.Repeat("b", 9) + "\\n", "é and more plain bytes", "ctl\x1f", "\x7f\x80\xff"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, asciiOnly bool) {
		want := 0
		for want < len(s) {
			if c := s[want]; c < 0x20 || c == '"' || c == '\\' || asciiOnly && c >= 0x80 {
				break
			}
			want++
		}
		if got := plainRun([]byte(s), asciiOnly); got != want {
			t.Fatalf("plainRun(%q, %v) = %d, want %d", s, asciiOnly, got, want)
		}
	})
}
