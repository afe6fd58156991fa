package shell

import (
	"reflect"
	"slices"
	"strings"
	"testing"
)

// elideCases are sources with quoted heredocs, and whether their bodies
// are taken out when any size is worth it: where the text only seems to
// hold a heredoc, or the parser reads it otherwise, they must not be.
var elideCases = []struct {
	src    string
	elided bool
}{
	{"git commit -F - <<'EOF'\nline `rm -rf /` and $(reboot)\nEOF", true},
	{"git commit -m \"$(cat <<'EOF'\nfix: do not run rm -rf /\n\nEOF\n)\" && git push", true},
	{"bash <<'EOF'\nrm -rf /\nEOF", true},
	{"python3 <<\"EOF\"\nimport os; os.system('reboot')\nEOF\necho done", true},
	{"cat <<'EOF' > /tmp/s.sh\nrm -rf /\nEOF\nbash /tmp/s.sh", true},
	{"x=$(cat <<'EOF'\nrm -rf /\nEOF\n); bash -c \"$x\"", true},
	{"alias x='rm -rf /'\ncat <<'EOF'\nx\nEOF\nx", true},
	{"cat <<'A' <<'B'\na\nA\nrm -rf /\nB", true},
	{"cat << 'EOF'\nrm -rf /\nEOF\ncat <<'EOF'\nreboot\nEOF", true},
	{"f() { cat <<'EOF'; }\nrm -rf /\nEOF\nf", true},
	{"cat <<'EOF'; rm -rf /tmp/x\nEOF \n EOF\nEOFx\nEOF\nreboot", true},
	{"cat <<'EOF' | bash\nrm -rf /\nEOF", true},
	{"echo $(cat <<'A'\n)\nA\n) $(cat <<'B'\nb\nB\n)", true},
	// Not a heredoc: a string, a comment, a here-string.
	{"echo \"<<'EOF'\"\nrm -rf /\nEOF", false},
	{"echo x # <<'EOF'\nrm -rf /\nEOF", false},
	{"cat <<<'EOF'\nrm -rf /\nEOF", false},
	{"echo '<<'\"'EOF'\"\nrm -rf /\nEOF", false},
	// A heredoc, but not one whose body starts on the next line.
	{"cat <<EOF <<'X'\n$(a)\nEOF\nrm -rf /\nX", false},
	{"cat <<'EOF' \"a\nrm -rf /\"\nEOF\nb", false},
	// Inside backquotes a backquote ends the body.
	{"echo `cat <<'EOF'\nx`rm -rf /`\nEOF\n`", false},
	// Left alone: <<-, an unquoted or escaped delimiter, no end.
	{"cat <<-'EOF'\n\trm -rf /\n\tEOF", false},
	{"cat <<EOF\n$(rm -rf /)\nEOF", false},
	{"cat <<\\EOF\nrm -rf /\nEOF", false},
	{"cat <<'EOF'\nrm -rf /\n", false},
	// A comment's backslash ends no line.
	{"# c \\\ncat <<'EOF'\nrm -rf /\nEOF", true},
	// A line that the analysis mends (the parser joins "ls #\\" to the
	// next line) and reads again, its bodies back.
	{"{ cat <<'EOF'\nbody\nEOF\nls #\\\nrm -rf /\n}", true},
	{"{ cat <<'EOF'\nbody\nEOF\nls #\\\nrm -rf /\ncat <<'X'\nmore\nX\n}", true},
	{"cat <<'EOF'\nx\x00\nEOF\nrm -rf /", false},
}

// elided reports whether the analysis takes the bodies out of src, at
// any size.
func elided(src string) bool {
	a := &analyzer{elideMin: 1}
	c := &code{lang: dBash}
	c.src, c.cr = protectCR(src)
	a.elide(c)
	return c.bodies != nil
}

// checkElided checks that the analysis of src, with its heredoc bodies
// taken out wherever they can be, is the analysis of src read whole.
func checkElided(t *testing.T, src string) {
	t.Helper()
	whole, short := analyze(src, 0, false), analyze(src, 1, false)
	if !reflect.DeepEqual(whole, short) {
		t.Errorf("%q: with its heredoc bodies taken out the analysis is\n%+v\nread whole it is\n%+v", src, short, whole)
	}
}

func TestElide(t *testing.T) {
	for _, tc := range elideCases {
		if got := elided(tc.src); got != tc.elided {
			t.Errorf("%q: bodies taken out: %v, want %v", tc.src, got, tc.elided)
		}
		checkElided(t, tc.src)
	}
}

// TestTextAt checks that the text of the source without its bodies maps
// back to the source, whole and from within a placeholder.
func TestTextAt(t *testing.T) {
	src := "cat <<'A'\nbody a\nA\necho <<'B' x\nbody b\nB\nls"
	a := &analyzer{elideMin: 1}
	c := &code{src: src, lang: dBash}
	a.elide(c)
	if c.bodies == nil {
		t.Fatal("no bodies taken out")
	}
	if got := c.textAt(0, len(c.src)); got != src {
		t.Errorf("textAt(whole) = %q, want %q", got, src)
	}
	inA := strings.IndexByte(c.src, c.bodies.mark) + 1
	afterB := strings.LastIndexByte(c.src, c.bodies.mark) + 2
	for _, tc := range []struct {
		start, end int
		want       string
	}{
		{inA, inA + 1, "body a\n"},
		{inA, afterB, src[strings.Index(src, "body a"):strings.Index(src, "B\nls")]},
		{afterB, len(c.src), "B\nls"},
		{0, 4, "cat "},
	} {
		if got := c.textAt(tc.start, tc.end); got != tc.want {
			t.Errorf("textAt(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
}

// TestElideThreshold checks that the bodies of a long commit message are
// taken out at the analysis's own bounds, and those of a short one not.
func TestElideThreshold(t *testing.T) {
	long := "git commit -F - <<'EOF'\n" + strings.Repeat("do not run `rm -rf /`\n", 400) + "EOF"
	short := "git commit -F - <<'EOF'\ndo not run `rm -rf /`\nEOF"
	for _, tc := range []struct {
		src  string
		want bool
	}{{long, true}, {short, false}, {strings.Repeat("echo x; ", 2000) + long, false}} {
		a := &analyzer{elideMin: minElided, elideRatio: true}
		c := &code{src: tc.src, lang: dBash}
		a.elide(c)
		if got := c.bodies != nil; got != tc.want {
			t.Errorf("%.40q...: bodies taken out: %v, want %v", tc.src, got, tc.want)
		}
	}
	checkElided(t, long)
}

func TestRestoreMends(t *testing.T) {
	b := &bodies{mark: 1, text: []string{"long body\n", "b\n"}}
	rest := "a <<'E' # x\n\x010\x01\nE\nc <<'E'\n\x011\x01\nE\nd"
	got, fix, ok := b.restoreMends(rest, []mend{{off: 8, n: 1, text: " "}, {off: 25, n: 1, text: "z"}})
	if !ok || got != "a <<'E' # x\nlong body\nE\nc <<'E'\nb\nE\nd" {
		t.Fatalf("restoreMends = %q, %v", got, ok)
	}
	if want := []mend{{off: 8, n: 1, text: " "}, {off: 31, n: 1, text: "z"}}; !slices.Equal(fix, want) {
		t.Errorf("mends moved to %v, want %v", fix, want)
	}
	if _, _, ok := b.restoreMends(rest, []mend{{off: 13, n: 1, text: " "}}); ok {
		t.Error("a mend in a placeholder was moved")
	}
}

// FuzzElide holds the analysis with heredoc bodies taken out to the
// analysis of the source read whole.
func FuzzElide(f *testing.F) {
	for _, tc := range elideCases {
		f.Add(tc.src)
	}
	for _, tc := range analyzeCases {
		if strings.Contains(tc.src, "<<") {
			f.Add(tc.src)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkElided(t, src)
	})
}
