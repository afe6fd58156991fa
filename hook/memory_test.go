package hook

import (
	"math"
	"runtime/debug"
	"testing"
)

// TestLimitMemory checks that LimitMemory sets MemoryLimit, and leaves a
// limit the environment sets alone.
func TestLimitMemory(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(before) })

	debug.SetMemoryLimit(math.MaxInt64)
	LimitMemory(func(string) string { return "" })
	if got := debug.SetMemoryLimit(-1); got != MemoryLimit {
		t.Errorf("limit %d after LimitMemory, want %d", got, MemoryLimit)
	}

	debug.SetMemoryLimit(math.MaxInt64)
	LimitMemory(func(k string) string {
		if k == "GOMEMLIMIT" {
			return "1GiB"
		}
		return ""
	})
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d with GOMEMLIMIT set, want it left alone", got)
	}
}
