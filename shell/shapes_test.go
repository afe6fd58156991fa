package shell

import (
	"fmt"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
	"github.com/rewind-dev/rewind/internal/shapes"
)

// BenchmarkShapes analyses each shape of package shapes grown to sizes up
// to the hook's 8 MiB limit on an event. The cost must grow linearly with
// the size for every shape: compare ns/op and B/op across sizes.
func BenchmarkShapes(b *testing.B) {
	for _, s := range shapes.All {
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

// TestShapesAreLinear checks, for every shape, that the memory the
// analysis allocates grows at most about linearly with the input. Bytes
// allocated are deterministic where time is not.
func TestShapesAreLinear(t *testing.T) {
	race.SkipHuge(t)
	for _, s := range shapes.All {
		t.Run(s.Name, func(t *testing.T) {
			small, large := allocated(s.Make(16<<10)), allocated(s.Make(64<<10))
			if ratio := float64(large) / float64(small); ratio > 4*1.5 {
				t.Errorf("4 times the input allocated %.1f times the memory (%d -> %d bytes)", ratio, small, large)
			}
		})
	}
}

// FuzzShapes grows fuzzed units into long repetitions and deep nesting,
// as package shapes does, and checks the analysis of the result, and that
// the same text held as data (single quotes, a quoted heredoc, a comment)
// runs nothing.
func FuzzShapes(f *testing.F) {
	for i := range shapes.All {
		f.Add(uint8(i), uint16(2000), "", uint8(i))
	}
	for _, tc := range analyzeCases {
		f.Add(uint8(0), uint16(50), tc.src+"; ", uint8(1))
	}
	f.Fuzz(func(t *testing.T, shape uint8, n uint16, unit string, quoting uint8) {
		s := shapes.All[int(shape)%len(shapes.All)]
		if unit != "" {
			s = s.WithUnit(unit[:min(len(unit), 64)])
		}
		reps := int(n % 4096)
		if race.Enabled {
			// Thousands of repetitions are the huge inputs the race
			// detector runs ten times slower (internal/race).
			reps = min(reps, 32)
		}
		src := s.Repeat(reps)
		checkAnalysis(t, Analyze(src))
		a := Analyze(shapes.Quote(src, shapes.Quoting(quoting)))
		for _, inv := range a.Invocations {
			if inv.Name != "echo" && inv.Name != "cat" {
				t.Fatalf("data ran %s %q", inv.Name, inv.Args)
			}
		}
		if len(a.Dynamic)+len(a.Unparsed) > 0 {
			t.Fatalf("data reported as code: %d dynamic, %d unparsed", len(a.Dynamic), len(a.Unparsed))
		}
	})
}

// checkAnalysis checks the invariants of any analysis.
func checkAnalysis(t *testing.T, a *Analysis) {
	t.Helper()
	for _, inv := range a.Invocations {
		if inv.Name == "" {
			t.Errorf("empty name in %+v", inv)
		}
		if inv.ArgDynamic != nil && len(inv.ArgDynamic) != len(inv.Args) {
			t.Errorf("ArgDynamic %v for args %q", inv.ArgDynamic, inv.Args)
		}
	}
	for _, u := range a.Unparsed {
		if u.Err == "" {
			t.Errorf("unparsed text without a reason")
		}
	}
}

func TestShapeSizes(t *testing.T) {
	race.SkipHuge(t)
	for _, s := range shapes.All {
		if got := len(s.Make(1 << 20)); got > 1<<20 || got < 1<<19 {
			t.Errorf("%s: Make(1 MiB) is %d bytes", s.Name, got)
		}
		if one, many := len(s.Repeat(1)), len(s.Make(64<<10)); many < 8*one {
			t.Errorf("%s: Make(64 KiB) is %d bytes, one unit %d", s.Name, many, one)
		}
	}
}
