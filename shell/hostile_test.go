package shell

import (
	"fmt"
	"github.com/rewind-dev/rewind/internal/race"
	"strings"
	"testing"
)

// hostileCases are the shapes an agent that reads the source can write to
// wear the analysis down: data that looks deeply nested, structure that
// is, and wrapper chains as long as the input. Each hides a command, or
// holds the same bytes as data only.
var hostileCases = []struct {
	name string
	src  string
	// want is a command that must be found; empty for data only.
	want string
	// limit says the text is past a limit and must be reported so.
	limit bool
}{
	// Brackets and keywords in quoted data are not structure.
	{"parens in single quotes", "echo '" + strings.Repeat("(", 5000) + "'; s''sh web-01 sudo reboot", "ssh", false},
	{"ifs in single quotes", "echo '" + strings.Repeat("if ", 20000) + "'; g\\ovc vm.destroy web-01", "govc", false},
	{"braces in double quotes", `echo "` + strings.Repeat("{", 5000) + `"; govc vm.destroy web-01`, "govc", false},
	{"parens in a quoted heredoc", "cat <<'EOF'\n" + strings.Repeat("$(", 5000) + "\nEOF\ngovc vm.destroy web-01", "govc", false},
	{"keywords in a comment", "# " + strings.Repeat("case ", 20000) + "\ngovc vm.destroy web-01", "govc", false},
	{"parens in single quotes, data only", "echo '" + strings.Repeat("(", 5000) + "; govc vm.destroy web-01'", "", false},
	{"ifs in a quoted heredoc, data only", "cat <<'EOF'\n" + strings.Repeat("if ", 20000) + "govc vm.destroy web-01\nEOF", "", false},
	// Real structure past the depth bound is reported, never a crash.
	{"deep subshells", strings.Repeat("( ", 100000) + "ls" + strings.Repeat(" )", 100000), "", true},
	{"deep test negation", "[[ " + strings.Repeat("! ", 1000000) + "x ]]", "", true},
	{"deep arithmetic", "echo $((" + strings.Repeat("2**", 500000) + "1))", "", true},
	{"deep case items", strings.Repeat("echo $(case x in a) ", 50000), "", true},
	{"shallow structure after a deep data string", "echo '" + strings.Repeat("((", 50000) + "'; ( ( ( govc vm.destroy web-01 ) ) )", "govc", false},
	// Wrapper chains: unwrapped in a loop, and reported past a bound.
	{"sudo chain within the bound", strings.Repeat("sudo ", maxSteps-1) + "govc vm.destroy web-01", "govc", false},
	{"sudo chain past the bound", strings.Repeat("sudo ", 250000) + "govc vm.destroy web-01", "", true},
	{"env chain", strings.Repeat("env ", 100000) + "ls", "", true},
	{"mixed wrapper chain", strings.Repeat("nice nohup command exec doas nsenter ", 20000) + "ls", "", true},
	{"xargs chain", strings.Repeat("xargs ", 300000) + "ls", "", true},
	{"find -exec chain", strings.Repeat("find . -exec ", 4000) + "ls", "", true},
	{"wrapper chain as data", "echo '" + strings.Repeat("sudo ", 250000) + "govc vm.destroy web-01'", "", false},
	// Lines of millions of commands are past the memory a line may take;
	// the same bytes as data, and the same commands on lines of their
	// own, are analysed in full.
	{"long pipeline", strings.Repeat("a|", 1<<20) + "govc vm.destroy web-01", "", true},
	{"long list on one line", strings.Repeat("ls;", 1<<20) + "govc vm.destroy web-01", "", true},
	{"long pipeline as data", "cat <<'EOF'\n" + strings.Repeat("a|", 1<<20) + "govc vm.destroy web-01\nEOF", "", false},
	{"many lines", strings.Repeat("ls\n", 1<<17) + "govc vm.destroy web-01", "govc", false},
	// The text after a line past the limit is left unanalysed too: where
	// that line ends is only known by parsing it.
	{"many arguments", "ls" + strings.Repeat(" x", 1<<20) + "\ngovc vm.destroy web-01", "", true},
	// Code handed on is parsed a bounded number of times; the lines
	// after it are still analysed.
	{"many pieces of code handed on", strings.Repeat("eval ls\n", maxReparses+10) + "govc vm.destroy web-01", "govc", true},
	{"code handed on past the bound in code that does not run", strings.Repeat("eval ls\n", maxReparses-1) + "eval 'eval ls; if'\neval ls\n", "", true},
	// Code read again is bounded by its bytes, not only by its pieces:
	// each run parses the whole script again.
	{"a written script run on every line", "cat > r <<'E'\n" + strings.Repeat("true\n", 40000) + "E\n" + strings.Repeat("bash r\n", 4000) + "govc vm.destroy web-01", "govc", true},
	{"a descriptor sourced on every line", "exec 3<<'E'\n" + strings.Repeat("true\n", 40000) + "E\n" + strings.Repeat(". /dev/fd/3\n", 4000) + "govc vm.destroy web-01", "govc", true},
	// Makefiles whose variables expand to their power, whose lines a
	// backslash continues, or that append to a variable on every line.
	{"makefile variables of variables", "make -f - <<'EOF'\nV0 :=\nV1 = " + strings.Repeat("$(V0) ", 300) + "\nV2 = " + strings.Repeat("$(V1) ", 300) + "\nV3 = " + strings.Repeat("$(V2) ", 300) + "\nt:\n\t$(V3)\nEOF\ngovc vm.destroy web-01", "govc", true},
	{"makefile lines continued", "make -f - <<'EOF'\nX = " + strings.Repeat("x\\\n", 60000) + "\nt:\n\techo " + strings.Repeat("x\\\n", 60000) + "\nEOF\ngovc vm.destroy web-01", "govc", true},
	{"makefile appends", "make -f - <<'EOF'\n" + strings.Repeat("X+=y\n", 80000) + "t:\n\techo\nEOF\ngovc vm.destroy web-01", "govc", false},
	// A define sets the variable anew: what += appends to is its body.
	{"makefile define between appends", "make -f - <<'EOF'\nX += true\ndefine X\ngovc vm.destroy web-01\nendef\nX += -n\nt:\n\t$(X)\nEOF", "govc", false},
	// A define takes the operators an assignment takes: != runs its body.
	{"makefile define run as a command", "make -f - <<'EOF'\ndefine X !=\ngovc vm.destroy web-01\nendef\nt:\n\techo\nEOF", "govc", false},
	{"makefile define appended to", "make -f - <<'EOF'\nX = govc vm.destroy\ndefine X +=\nweb-01\nendef\nt:\n\t$(X)\nEOF", "govc", false},
	{"makefile define run as a command as data", "cat <<'EOF'\ndefine X !=\ngovc vm.destroy web-01\nendef\nEOF", "", false},
	{"makefile define between appends as data", "cat <<'EOF'\nX += true\ndefine X\ngovc vm.destroy web-01\nendef\nX += -n\nt:\n\t$(X)\nEOF", "", false},
	// The line is read again (the cat's delimiter is mended): the
	// budget the first reading spent stays spent, and its report is made
	// again.
	{"makefile past the budget on a line read again", "make -f - <<'M'; cat <<$'E\\x4fF'\nX = " + strings.Repeat("a", 1000) + "\n" + strings.Repeat("Z := $(X)\n", 2000) + "Y := $(shell govc vm.destroy web-01)\nM\nx\nEOF\nE\\x4fF\n", "", true},
	{"a written script run within the bound", "cat > r <<'E'\n" + strings.Repeat("true\n", 10000) + "E\n" + strings.Repeat("bash r\n", 4) + "govc vm.destroy web-01", "govc", false},
	// Lines mended because the parser reads them otherwise than bash
	// are parsed again a bounded number of times.
	{"comments ending in a backslash within the bound", strings.Repeat("ls #\\\nls\n", maxMends) + "govc vm.destroy web-01", "govc", false},
	{"comments ending in a backslash past the bound", strings.Repeat("ls #\\\nls\n", 100000) + "govc vm.destroy web-01", "", true},
	{"heredoc delimiters past the bound", strings.Repeat("cat <<$'E\\x4fF'\nx\nEOF\n", 100000) + "govc vm.destroy web-01", "", true},
	{"a comment joining every line", strings.Repeat("ls #\\\n", 1<<20) + "govc vm.destroy web-01", "", true},
	{"a script appended to on every line", strings.Repeat("echo ls >> f\n", 20000) + "bash f\ngovc vm.destroy web-01", "govc", false},
	// Text that seems to hold quoted heredocs, whose bodies the analysis
	// takes out of the source before it parses it (see elide.go).
	{"a heredoc in a string on every line", numbered("echo \"<<'E%d'\"\n", 100000) + "govc vm.destroy web-01", "govc", false},
	{"a heredoc in a string around a command", "echo x \"<<'E'\"\n" + strings.Repeat("true\n", 20000) + "govc vm.destroy web-01\nE\n", "govc", false},
	{"heredocs on one line", "cat " + strings.Repeat("<<'E' ", 50000) + "\n" + strings.Repeat("x\nE\n", 50000) + "govc vm.destroy web-01", "govc", false},
	{"a heredoc in backquotes", "echo `cat <<'E'\n" + strings.Repeat("x\n", 20000) + "E\n`; govc vm.destroy web-01", "govc", false},
	{"a commit message quoting a command", "git commit -F - <<'EOF'\n" + strings.Repeat("do not run `govc vm.destroy web-01`\n", 20000) + "EOF", "", false},
}

// numbered repeats format, which holds one %d, n times, numbering each.
func numbered(format string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format, i)
	}
	return b.String()
}

func TestHostile(t *testing.T) {
	race.SkipHuge(t)
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.src)
			if tt.want != "" {
				if _, ok := find(a, tt.want); !ok {
					t.Errorf("%s not found; unparsed %d", tt.want, len(a.Unparsed))
				}
			} else if _, ok := find(a, "govc"); ok {
				t.Errorf("govc in data reported as a command")
			}
			limited := false
			for _, u := range a.Unparsed {
				limited = limited || u.Limit
			}
			if limited != tt.limit {
				t.Errorf("past a limit = %v, want %v (unparsed %d)", limited, tt.limit, len(a.Unparsed))
			}
			if !tt.limit && len(a.Unparsed) > 0 {
				t.Errorf("unparsed: %.200s", a.Unparsed[0].Err)
			}
		})
	}
}

// TestMakefilesShareOneBudget runs a written makefile whose variables
// expand to their power many times: the expansions of all the make
// commands of a call share one budget, so that their cost is that of one.
func TestMakefilesShareOneBudget(t *testing.T) {
	race.SkipHuge(t)
	mk := "V0 := x\n"
	for i := 1; i <= 5; i++ {
		mk += fmt.Sprintf("V%d = %s\n", i, strings.Repeat(fmt.Sprintf("$(V%d) ", i-1), 16))
	}
	src := "cat > Makefile <<'E'\n" + mk + "t:\n\t$(V5)\nE\n" + strings.Repeat("make\n", 300) + "govc vm.destroy web-01"
	var a *Analysis
	if n := allocatedBy(func() { a = Analyze(src) }); n > 256<<20 {
		t.Errorf("%d make commands allocated %d MiB", 300, n>>20)
	}
	if _, ok := find(a, "govc"); !ok {
		t.Errorf("govc not found after the make commands")
	}
}

// TestMakefileAppendsAreLinear: a ?= that changes nothing between +=s
// leaves what += appends to as it is, so that appending stays linear.
func TestMakefileAppendsAreLinear(t *testing.T) {
	race.SkipHuge(t)
	src := "make -f - <<'EOF'\n" + strings.Repeat("X?=a\nX+=y\n", 20000) + "t:\n\techo\nEOF\ngovc vm.destroy web-01"
	var a *Analysis
	if n := allocatedBy(func() { a = Analyze(src) }); n > 64<<20 {
		t.Errorf("20,000 appends allocated %d MiB", n>>20)
	}
	if _, ok := find(a, "govc"); !ok {
		t.Errorf("govc not found after the makefile")
	}
}

// TestDeepPartKeepsLinesBefore checks that structure past the depth bound
// leaves the complete lines before it analysed exactly.
func TestDeepPartKeepsLinesBefore(t *testing.T) {
	a := Analyze("govc vm.destroy web-01\n" + strings.Repeat("( ", 100000))
	if _, ok := find(a, "govc"); !ok {
		t.Errorf("the line before the deep part was not analysed")
	}
	if len(a.Unparsed) != 1 || !a.Unparsed[0].Limit || strings.Contains(a.Unparsed[0].Text, "govc") {
		t.Errorf("unparsed = %d parts", len(a.Unparsed))
	}
}

// TestWrapperChainCostIsLinear doubles wrapper chains and checks that the
// memory allocated at most about doubles: chains were quadratic.
func TestWrapperChainCostIsLinear(t *testing.T) {
	race.SkipHuge(t)
	shapes := map[string]func(n int) string{
		"xargs": func(n int) string { return "xargs " + strings.Repeat("sudo ", maxSteps-2) + strings.Repeat("x ", n) },
		"sudo":  func(n int) string { return strings.Repeat("sudo ", n) + "ls" },
		"find":  func(n int) string { return strings.Repeat("find . -exec ", 6) + strings.Repeat("x ", n) },
		"env":   func(n int) string { return strings.Repeat("env A=1 ", n) + "ls" },
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			small, large := allocated(shape(20000)), allocated(shape(40000))
			if ratio := float64(large) / float64(small); ratio > 2.6 {
				t.Errorf("doubling the input multiplied the memory by %.1f (%d -> %d bytes)", ratio, small, large)
			}
		})
	}
}

// TestErrorOnTheLastLine: a syntax error on the line of the last statement,
// or a heredoc body without its terminator, leaves that line unanalysed, as
// parsing the whole text at once did; the lines before it stand.
func TestErrorOnTheLastLine(t *testing.T) {
	tests := []struct {
		src  string
		want string // a command found, or ""
	}{
		{"A<<EOF $(rm x)000", ""},
		{"ls\nA <<E & rm x\nbody", "ls"},
		{"ls\ncat <<EOF\nbody\nEOF\nrm x; if", "cat"},
		{"ls; rm x; (", ""},
	}
	for _, tt := range tests {
		a := Analyze(tt.src)
		if _, ok := find(a, "rm"); ok {
			t.Errorf("%q: rm reported from the failing line", tt.src)
		}
		if _, ok := find(a, tt.want); tt.want != "" && !ok {
			t.Errorf("%q: %s not found", tt.src, tt.want)
		}
		if len(a.Unparsed) != 1 || a.Unparsed[0].Text == "" {
			t.Errorf("%q: unparsed %+v", tt.src, a.Unparsed)
		}
	}
}
