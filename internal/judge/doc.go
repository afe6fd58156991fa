// Package judge runs one PreToolUse event through rewind's data flow:
// decode the host's event (hostio), classify the call (policy), hand a
// protect verdict to the protect step (a Protector), apply the decision
// table, log the decision (audit) and encode the answer for the host
// (hostio). Decide is that flow from a decoded event to the decision and
// its record.
//
// The protect step is handed in rather than called, so that judge links
// no Zerto client: package hook gives it the step that asks Zerto through
// capture, for rewind hook and the MCP server; the light hook front
// (package hookfront) gives it a step that hands the call to rewind hook,
// so that the calls that need no checkpoint, nearly all of them, are
// judged by a program that starts as fast as Go allows, by this same code.
//
// Run never fails: whatever happens — a malformed event, a broken config, a
// panic — it writes at most one protocol answer and returns its exit code
// (0, or the refusal's for the hosts that read exit codes), because a hook
// that crashes lets the call through unguarded on most hosts and says
// nothing about why. A post-tool event goes the same way to the audit log
// as the call's outcome, and is answered with nothing.
package judge
