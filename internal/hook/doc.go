// Package hook runs one PreToolUse event through rewind's data flow: decode
// the host's event (hostio), classify the call (policy), take a checkpoint
// for a protect verdict (capture), apply the decision table, log the
// decision (audit) and encode the answer for the host (hostio). Decide is
// that flow from a decoded event to the decision and its record; rewind's
// MCP server checks calls through it, so its advice is the hook's own.
//
// Run never fails: whatever happens — a malformed event, a broken config, a
// panic — it writes at most one protocol object on stdout and returns exit
// code 0, because a hook that crashes lets the call through unguarded and
// says nothing about why.
package hook
