package policy

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/rewind-dev/rewind/shell"
)

func TestRemoteHost(t *testing.T) {
	t.Parallel()
	tests := []struct {
		word, host string
		ok         bool
	}{
		{"web-01:/tmp", "web-01", true},
		{"admin@web-01:", "web-01", true},
		{"web-01::module", "web-01", true},
		{"rsync://u@web-02:873/m", "web-02", true},
		{"[fe80::1]:/tmp", "fe80::1", true},
		{"./a:b", "", false},
		{"/tmp/x", "", false},
		{":x", "", false},
	}
	for _, tt := range tests {
		if h, ok := remoteHost(tt.word); h != tt.host || ok != tt.ok {
			t.Errorf("remoteHost(%q) = %q, %v; want %q, %v", tt.word, h, ok, tt.host, tt.ok)
		}
	}
}

func TestMatchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"src/**", "src/a/b.go", true},
		{"src/**", "src", true},
		{"src/**/*.go", "src/a/b.go", true},
		{"src/**/*.go", "src/b.go", true},
		{"src/**/*.go", "src/b.md", false},
		{"**/secret*", "a/b/secret.txt", true},
		{"src/*", "src/a/b.go", false},
		{"/etc/**", "/etc/hosts", true},
	}
	for _, tt := range tests {
		if got := matchPath(tt.pattern, tt.name); got != tt.want {
			t.Errorf("matchPath(%q, %q) = %v", tt.pattern, tt.name, got)
		}
	}
}

func TestPowerShell(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	enc := func(s string) string {
		u := utf16.Encode([]rune(s))
		b := make([]byte, 2*len(u))
		for i, c := range u {
			b[2*i], b[2*i+1] = byte(c), byte(c>>8)
		}
		return base64.StdEncoding.EncodeToString(b)
	}
	tests := []struct {
		cmd     string
		want    Effect
		targets []string
	}{
		{"pwsh -EncodedCommand " + enc("Stop-VM -VM web-07"), Protect, []string{"web-07"}},
		{"pwsh -c 'stop-vm web-01 # Stop-VM web-09'", Protect, []string{"web-01"}},
		{"pwsh -c 'Stop-VM -Confirm:$false web-02'", Protect, []string{"web-02"}},
		{"pwsh -c 'foreach ($v in $vms) { Stop-VM $v }'", Ask, nil},
		{"pwsh -Command - <<'EOF'\nSet-VM -VM web-03 -NumCpu 4\nEOF", Protect, []string{"web-03"}},
		{"pwsh ./deploy.ps1 -VM web-01", None, nil},
		{"pwsh -c 'Write-Host \"Stop-VM web-01\"'", None, nil},
		{"pwsh -c 'Get-VM web-01, web-02 | Restart-VM'", Protect, []string{"web-01", "web-02"}},
		{"ssh admin@win-01 pwsh -c 'Get-Service'", None, nil},
		{"ssh admin@win-01 pwsh -c 'Restart-Service W3SVC'", Protect, []string{"win-01"}},
		{"ssh admin@win-01 pwsh ./deploy.ps1", Protect, []string{"win-01"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			v := p.ClassifyCommand(tt.cmd)
			if v.Effect != tt.want || !slices.Equal(v.Targets, tt.targets) {
				t.Errorf("got %s %q (%s: %s), want %s %q", v.Effect, v.Targets, v.Rule, v.Reason, tt.want, tt.targets)
			}
		})
	}
}

func TestSampleAndQuote(t *testing.T) {
	t.Parallel()
	tests := []struct{ glob, want string }{
		{"vm.disk.*", "vm.disk.x"},
		{"snap[sh]ot", "snapsot"},
		{"a\\*b", "a*b"},
	}
	for _, tt := range tests {
		if got := sampleWord(tt.glob, "x"); got != tt.want {
			t.Errorf("sampleWord(%q) = %q, want %q", tt.glob, got, tt.want)
		}
	}
	// A quoted word is the one argument the shell analysis reads back,
	// whatever it holds; a NUL, which bash drops, is dropped.
	for _, word := range []string{"web-01", "it's", "a b", "", "$(reboot)", "`reboot`", "x; reboot", "a\nb", "\x01", "é", "a\x00b"} {
		a := shell.Analyze("echo " + shellQuote(word))
		want := strings.ReplaceAll(word, "\x00", "")
		if len(a.Invocations) != 1 || len(a.Invocations[0].Args) != 1 || a.Invocations[0].Args[0] != want || len(a.Dynamic)+len(a.Unparsed) > 0 {
			t.Errorf("echo %s: %+v, want the one argument %q", shellQuote(word), a, want)
		}
	}
	if got := shellQuote("web-01"); got != "web-01" {
		t.Errorf("shellQuote quotes a word that needs none: %s", got)
	}
}

func TestSelfTestReportsFailures(t *testing.T) {
	t.Parallel()
	// A rule that its own test contradicts, and one whose sample cannot
	// trip it, must both show up as failures.
	p := newPolicy(t, `
[[command]]
match = "frob"
effect = "deny"
sample = "echo frob"
[[test]]
command = "frob"
expect = "none"
`)
	_, failed := Summary(p.SelfTest())
	if failed != 7 { // the [[test]] and the six trip variants
		t.Errorf("%d failures, want 7", failed)
	}
}

// TestMatchPathIsBounded: a pattern of many "**" parts, such as a
// .gitignore the agent writes may hold, costs the product of the parts,
// not their combinations.
func TestMatchPathIsBounded(t *testing.T) {
	t.Parallel()
	pattern := strings.Repeat("**/a/", 40) + "b"
	name := strings.Repeat("a/", 80) + "c"
	if matchPath(pattern, name) {
		t.Errorf("matched a name that does not end in b")
	}
	if !matchPath(pattern, strings.Repeat("a/", 80)+"b") {
		t.Errorf("did not match a name that does")
	}
}
