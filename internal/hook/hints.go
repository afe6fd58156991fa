package hook

import (
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/zvm"
)

// failureHints lists, once each, the hints for failures (see zvm.Hint).
func failureHints(failures []capture.Failure) string {
	var hints []string
	for i := range failures {
		if h := zvm.Hint(failures[i].Err); h != "" && !slices.Contains(hints, h) {
			hints = append(hints, h)
		}
	}
	return strings.Join(hints, "; ")
}

// withHint appends a hint to a reason, as its own sentence.
func withHint(reason, hint string) string {
	if hint == "" {
		return reason
	}
	return reason + ". Fix: " + hint + "."
}
