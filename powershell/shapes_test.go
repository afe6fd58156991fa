package powershell

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
	"github.com/rewind-dev/rewind/internal/shapes"
)

// hostileCases are shapes of PowerShell an agent that reads the source
// can write to wear the reader down: data that looks nested, structure
// that is, repetitions as long as the input. Each hides a command, or
// holds the same bytes as data only, or is past a limit.
var hostileCases = []struct {
	name  string
	src   string
	want  string // a command that must be found, "" for none
	limit bool   // the code must be reported past a limit
}{
	{"parens in single quotes", "Write-Output '" + strings.Repeat("(", 100000) + "'; Remove-VM web-01", "Remove-VM", false},
	{"subexpressions in single quotes", "Write-Output '" + strings.Repeat("$(", 100000) + "'; Remove-VM web-01", "Remove-VM", false},
	{"braces in a here-string", "$s = @'\n" + strings.Repeat("{ $( @( \"\n", 50000) + "'@\nRemove-VM web-01", "Remove-VM", false},
	{"keywords in a comment", "# " + strings.Repeat("if foreach try { ", 50000) + "\nRemove-VM web-01", "Remove-VM", false},
	{"a block comment", "<# " + strings.Repeat("Stop-VM x ( { '\n", 50000) + "#> Remove-VM web-01", "Remove-VM", false},
	{"backticks", "Write-Output " + strings.Repeat("a` ", 100000) + "; Remove-VM web-01", "Remove-VM", false},
	{"data only", "Write-Output '" + strings.Repeat("(", 100000) + "; Remove-VM web-01'", "", false},
	{"here-string data only", "@'\n" + strings.Repeat("Remove-VM web-01 $(x)\n", 50000) + "'@", "", false},
	{"shallow structure after deep data", "'" + strings.Repeat("((", 50000) + "'; ((((Remove-VM web-01))))", "Remove-VM", false},
	{"nesting within the bound", strings.Repeat("(", maxNesting-2) + "Remove-VM web-01" + strings.Repeat(")", maxNesting-2), "Remove-VM", false},
	{"deep parens", strings.Repeat("(", 500000) + "Get-VM" + strings.Repeat(")", 500000), "", true},
	{"deep blocks", strings.Repeat("& { ", 200000) + "Get-VM" + strings.Repeat(" }", 200000), "", true},
	{"deep subexpressions", strings.Repeat("$(", 500000) + "Get-VM", "", true},
	{"deep strings", strings.Repeat("\"$(", 300000) + "Get-VM", "", true},
	{"deep hashes", strings.Repeat("@{a=", 300000) + "1", "", true},
	{"deep ifs", strings.Repeat("if ($x) { ", 100000) + "Get-VM", "", true},
	{"a long pipeline", strings.Repeat("Get-VM|", 1<<20) + "Get-VM", "", true},
	{"many statements", strings.Repeat("Get-VM;", 1<<20), "", true},
	{"many arguments", "Write-Output" + strings.Repeat(" x", 1<<20), "", true},
	{"deep code from strings", strings.Repeat("iex '", 1) + "iex ''iex ''''iex ''''''''iex ''''''''''''''''iex ''''''''''''''''''''''''''''''''iex ''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''iex ''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''Get-VM", "", true},
	{"commands before a limit are judged", "Remove-VM web-01\n" + strings.Repeat("(", 500000), "Remove-VM", true},
	{"blank lines and comments before else", "if ($x) { Get-VM }" + strings.Repeat("\n# c\n", 1<<19) + "else { Remove-VM web-01 }", "Remove-VM", false},
	{"a word that contains nal and sal", strings.Repeat("Write-Output personal universal ", 1<<15) + "; Remove-VM web-01", "Remove-VM", false},
}

// TestDeepRemoting checks that the steps a place lists stay few however
// deep Invoke-Command nests, and that the computers are the innermost's.
func TestDeepRemoting(t *testing.T) {
	const depth = 900
	code := strings.Repeat("icm -cn jump { ", depth) + strings.Repeat("Restart-Service x\n", 1000) + "icm -cn web-01 { Stop-Service y }" + strings.Repeat(" }", depth)
	n := 0
	Scan(code, func(f Finding) {
		c := f.Command
		if c == nil {
			return
		}
		n++
		if len(c.Place.Via) > maxVia {
			t.Fatalf("%s lists %d steps", c.Name, len(c.Place.Via))
		}
		if c.Name == "Stop-Service" && (len(c.Place.Hosts) != 1 || c.Place.Hosts[0] != "web-01") {
			t.Errorf("Stop-Service runs on %q", c.Place.Hosts)
		}
	})
	if n < depth+1000 {
		t.Errorf("%d commands", n)
	}
}

func TestHostile(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) {
			race.SkipHugeInput(t, len(tt.src))
			a := Analyze(tt.src)
			found := false
			for _, c := range a.Commands {
				if c.Name == tt.want {
					found = true
				}
				if tt.want == "" && c.Name == "Remove-VM" {
					t.Errorf("data ran %s %v", c.Name, c.Args)
				}
			}
			if tt.want != "" && !found {
				t.Errorf("%s not found; unparsed %v", tt.want, a.Unparsed)
			}
			limit := false
			for _, u := range a.Unparsed {
				limit = limit || u.Limit
			}
			if limit != tt.limit {
				t.Errorf("past a limit: %v, want %v (%d unparsed)", limit, tt.limit, len(a.Unparsed))
			}
		})
	}
}

// BenchmarkShapes reads each PowerShell shape of package shapes grown to
// sizes up to the hook's 8 MiB limit on an event. The cost must grow
// linearly with the size for every shape: compare ns/op and B/op across
// sizes.
func BenchmarkShapes(b *testing.B) {
	for _, s := range shapes.PowerShell {
		for _, size := range []int{64 << 10, 1 << 20, 8 << 20} {
			src := s.Make(size)
			b.Run(fmt.Sprintf("%s/%dKiB", s.Name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					Scan(src, func(Finding) {})
				}
			})
		}
	}
}

// TestShapesAreLinear checks, for every shape, that the memory the reader
// allocates grows at most about linearly with the input, and stays well
// under the hook's ceiling at 8 MiB. Bytes allocated are deterministic
// where time is not.
func TestShapesAreLinear(t *testing.T) {
	for _, s := range shapes.PowerShell {
		t.Run(s.Name, func(t *testing.T) {
			small, large := allocated(s.Make(16<<10)), allocated(s.Make(64<<10))
			if ratio := float64(large) / float64(max(small, 1)); ratio > 4*1.5 {
				t.Errorf("4 times the input allocated %.1f times the memory (%d -> %d bytes)", ratio, small, large)
			}
		})
	}
}

func allocated(src string) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	Scan(src, func(Finding) {})
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// quotings are the ways PowerShell holds code as data. Any of
// PowerShell's single quotation marks ends a verbatim string, and two of
// them stand for one.
var quotings = []func(string) string{
	func(s string) string {
		var b strings.Builder
		for _, r := range s {
			b.WriteRune(r)
			if isSingleQuote(r) {
				b.WriteRune(r)
			}
		}
		return "Write-Output '" + b.String() + "'"
	},
	func(s string) string {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if r, _ := runeAt(l, 0); isSingleQuote(r) {
				lines[i] = " " + l
			}
		}
		return "$d = @'\n" + strings.Join(lines, "\n") + "\n'@"
	},
	func(s string) string { return "<#" + strings.ReplaceAll(s, "#>", "# >") + "#>" },
}

// FuzzShapes grows fuzzed units into long repetitions and deep nesting,
// as package shapes does, and checks the reading of the result, and that
// the same text held as data runs nothing.
func FuzzShapes(f *testing.F) {
	for i := range shapes.PowerShell {
		f.Add(uint8(i), uint16(2000), "", uint8(i))
	}
	for _, tc := range scanCases {
		f.Add(uint8(0), uint16(50), tc.code+"; ", uint8(1))
	}
	f.Fuzz(func(t *testing.T, shape uint8, n uint16, unit string, quoting uint8) {
		s := shapes.PowerShell[int(shape)%len(shapes.PowerShell)]
		if unit != "" {
			s = s.WithUnit(unit[:min(len(unit), 64)])
		}
		src := s.Repeat(int(n % 4096))
		checkScan(t, src)
		data := quotings[int(quoting)%len(quotings)](src)
		Scan(data, func(f Finding) {
			switch {
			case f.Command != nil && f.Command.Name != "Write-Output":
				t.Fatalf("data ran %s %v", f.Command.Name, f.Command.Args)
			case f.Dynamic != nil:
				t.Fatalf("data reported as code: %q", f.Dynamic.Source)
			}
		})
	})
}

// FuzzScan reads any code: it never panics, reports what it finds
// well-formed, and its findings do not outgrow the code.
func FuzzScan(f *testing.F) {
	for _, tc := range scanCases {
		f.Add(tc.code)
	}
	for _, s := range shapes.PowerShell {
		f.Add(s.Make(256))
	}
	f.Fuzz(func(t *testing.T, code string) {
		checkScan(t, code)
	})
}

// checkScan checks the invariants of any reading.
func checkScan(t *testing.T, code string) {
	t.Helper()
	n := 0
	Scan(code, func(f Finding) {
		n++
		switch {
		case f.Command != nil:
			c := f.Command
			if c.Place.Remote == false && len(c.Place.Hosts) > 0 {
				t.Errorf("hosts %q of a command run here", c.Place.Hosts)
			}
			for _, a := range c.Args {
				if a.Kind == Param && !strings.HasPrefix(a.Text, "-") {
					t.Errorf("parameter %q without its dash", a.Text)
				}
			}
		case f.Unparsed != nil:
			if f.Unparsed.Err == "" {
				t.Errorf("unparsed text without a reason")
			}
		}
	})
	// Each finding comes from at least one byte of code, and code built
	// from strings is read again at most maxDepth times.
	if n > (len(code)+1)*maxDepth {
		t.Errorf("%d findings from %d bytes", n, len(code))
	}
}
