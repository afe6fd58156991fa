package policy

import (
	"path"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
	"github.com/rewind-dev/rewind/internal/shapes"
	"github.com/rewind-dev/rewind/shell"
)

func TestHostileCommands(t *testing.T) {
	p := newPolicy(t, userConfig)
	tests := []struct {
		name    string
		command string
		want    Effect
	}{
		{"parens in data, then a destroy", "echo '" + strings.Repeat("(", 1001) + "'; g\\ovc vm.destroy web-01", Deny},
		{"ifs in data, then a destroy", "echo '" + strings.Repeat("if ", 10001) + "'; g\\ovc vm.destroy web-01", Deny},
		{"parens in data, then ssh", "echo '" + strings.Repeat("(", 1001) + "'; s''sh web-01 sudo reboot", Protect},
		{"parens and a destroy, all data", "echo '" + strings.Repeat("(", 1001) + " govc vm.destroy web-01'", None},
		{"deep structure", strings.Repeat("( ", 100000) + "ls" + strings.Repeat(" )", 100000), Ask},
		{"deep test negation", "[[ " + strings.Repeat("! ", 1000000) + "x ]]", Ask},
		{"long sudo chain", strings.Repeat("sudo ", 250000) + "ls", Ask},
		{"many distinct words after a syntax error", manyWords(100000) + "; if", Ask},
		{"a few words after a syntax error", "ls x y; if", None},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			race.SkipHugeInput(t, len(tt.command))
			if v := p.ClassifyCommand(tt.command); v.Effect != tt.want {
				t.Errorf("effect %v (%s: %s), want %v", v.Effect, v.Rule, v.Reason, tt.want)
			}
		})
	}
}

func manyWords(n int) string {
	var b strings.Builder
	b.WriteString("echo")
	for i := range n {
		b.WriteString(" w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26%26))
		b.WriteByte(byte('a' + i/676%26))
		b.WriteByte(byte('a' + i/17576%26))
	}
	return b.String()
}

// TestManyTargets checks that a call naming many VMs is judged in linear
// time: targets were deduplicated in quadratic time.
func TestManyTargets(t *testing.T) {
	p := newPolicy(t, userConfig)
	var b strings.Builder
	for i := range 50000 {
		b.WriteString("govc vm.power -off vm")
		b.WriteString(strings.Repeat("x", i%5))
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26%26))
		b.WriteByte(byte('a' + i/676%26))
		b.WriteString("\n")
	}
	race.SkipHugeInput(t, b.Len())
	v := p.ClassifyCommand(b.String())
	if v.Effect != Protect || len(v.Targets) == 0 || len(v.Targets) > 50000 {
		t.Errorf("effect %v with %d targets", v.Effect, len(v.Targets))
	}
}

// TestRuleIndexAgrees judges every command of the catalog's and the test
// config's examples with the rules indexed by name and with all rules in
// order: the index must change nothing.
func TestRuleIndexAgrees(t *testing.T) {
	t.Parallel()
	p, full := newPolicy(t, userConfig), newPolicy(t, userConfig)
	full.index = nil
	n := 0
	for _, set := range p.testSets() {
		for _, tc := range set.cases {
			cmd := tc.Command
			if cmd == "" {
				continue
			}
			n++
			got, want := p.ClassifyCommand(cmd), full.ClassifyCommand(cmd)
			if got.Effect != want.Effect || got.Rule != want.Rule || got.Reason != want.Reason || !slices.Equal(got.Targets, want.Targets) {
				t.Errorf("%q: indexed %v %s %v, in order %v %s %v", cmd, got.Effect, got.Rule, got.Targets, want.Effect, want.Rule, want.Targets)
			}
		}
	}
	if n < 50 {
		t.Fatalf("only %d example commands", n)
	}
}

// FuzzClassifyCommand checks that judging a command as its analysis
// streams in gives the verdict judging the whole analysis gives.
func FuzzClassifyCommand(f *testing.F) {
	p := newPolicy(f, userConfig)
	for _, set := range p.testSets() {
		for _, tc := range set.cases {
			if tc.Command != "" {
				f.Add(tc.Command)
			}
		}
	}
	for _, s := range shapes.All {
		f.Add(s.Make(256))
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		got, want := p.ClassifyCommand(cmd), p.classifyAnalysis(shell.Analyze(cmd), cmd, "")
		if got.Effect != want.Effect || got.Rule != want.Rule || got.Reason != want.Reason || !slices.Equal(got.Targets, want.Targets) {
			t.Errorf("streamed %v %s %v, whole %v %s %v", got.Effect, got.Rule, got.Targets, want.Effect, want.Rule, want.Targets)
		}
	})
}

// TestGlobFastPaths checks glob's shortcuts against path.Match.
func TestGlobFastPaths(t *testing.T) {
	t.Parallel()
	names := []string{"", "vm", "vm.", "vm.destroy", "vm.power/x", "govc", "gov", "v", "*"}
	// "*" alone matches every name, a path too, by design.
	for _, pattern := range []string{"vm", "vm.*", "gov*", "v?", "[gv]ovc", `vm\.destroy`, "*.destroy"} {
		for _, name := range names {
			want, _ := path.Match(pattern, name)
			if got := glob(pattern, name); got != want {
				t.Errorf("glob(%q, %q) = %v, path.Match says %v", pattern, name, got, want)
			}
		}
	}
}

// TestNestedDataIsNotCopiedPerLevel: each level of "echo $(echo $(...
// cat <<'EOF' ...))" has the text of the levels below as its argument.
// Shown in full in each match, that was a copy of the data per level.
func TestNestedDataIsNotCopiedPerLevel(t *testing.T) {
	p := newPolicy(t, userConfig)
	const levels, size = 100, 2 << 20
	cmd := strings.Repeat("echo $(", levels) + "cat <<'EOF'\n" + strings.Repeat("x", size) + "\nEOF\n" + strings.Repeat(")", levels) + "; govc vm.destroy web-01"
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := p.ClassifyCommand(cmd)
	runtime.ReadMemStats(&after)
	if v.Effect != Deny {
		t.Errorf("effect %v, want deny", v.Effect)
	}
	// A copy per level is levels times the data; the analysis itself
	// takes a few times the data.
	if got := after.TotalAlloc - before.TotalAlloc; got > 20*size {
		t.Errorf("judging %d levels around %d bytes allocated %d bytes", levels, size, got)
	}
}
