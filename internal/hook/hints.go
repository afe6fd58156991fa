package hook

import (
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/zvm"
)

// noZertoHint says how to have checkpoints taken when no ZVM is set up.
const noZertoHint = "set REWIND_ZVM_URL (or url in [zerto]) and the ZVM's credentials to have checkpoints taken"

// ZertoHint says what fixes a failure to reach or use Zerto, or "" when
// there is nothing the person can set: Zerto's own refusals and failures
// are answered in Zerto's words alone.
func ZertoHint(err error) string {
	switch zvm.KindOf(err) {
	case zvm.KindTLS:
		return "trust the ZVM's certificate with ca_file in [zerto] (or REWIND_ZVM_CA_FILE), a PEM file of the CA that signed it"
	case zvm.KindUnauthorized:
		return "check the ZVM credentials: REWIND_ZVM_CLIENT_ID and REWIND_ZVM_CLIENT_SECRET, or REWIND_ZVM_USERNAME and REWIND_ZVM_PASSWORD"
	case zvm.KindTransport:
		return "check that REWIND_ZVM_URL (or url in [zerto]) is the ZVM's address and that it is reachable"
	}
	return ""
}

// failureHints lists, once each, the hints for failures.
func failureHints(failures []capture.Failure) string {
	var hints []string
	for i := range failures {
		if h := ZertoHint(failures[i].Err); h != "" && !slices.Contains(hints, h) {
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
