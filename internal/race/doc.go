// Package race tells a test whether the race detector is built in, so that
// tests of huge inputs in one goroutine, where it has nothing to find and
// runs ten times slower, run without it: .ci/run runs those packages once
// more without -race (see docs/development.md).
package race

import "testing"

// HugeInput is the size from which SkipHugeInput skips a test's input.
const HugeInput = 64 << 10

// SkipHuge skips a test of huge inputs when the race detector is built in.
func SkipHuge(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("a test of huge inputs in one goroutine: run without -race (.ci/run does)")
	}
}

// SkipHugeInput skips a test whose input is n bytes when n is at least
// HugeInput and the race detector is built in, so that the small cases of a
// table still run under it.
func SkipHugeInput(t testing.TB, n int) {
	t.Helper()
	if n >= HugeInput {
		SkipHuge(t)
	}
}
