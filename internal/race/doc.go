// Package race tells a test whether the race detector is built in, so that
// tests of huge inputs in one goroutine, where it has nothing to find and
// runs ten times slower, run without it: .ci/run runs those packages once
// more without -race (see docs/development.md).
package race

import "testing"

// SkipHuge skips a test of huge inputs when the race detector is built in.
func SkipHuge(t testing.TB) {
	t.Helper()
	if Enabled {
		t.Skip("a test of huge inputs in one goroutine: run without -race (.ci/run does)")
	}
}
