// Package hook is rewind's PreToolUse hook: it runs one event through
// rewind's data flow. It decodes the host's event (hostio), classifies the
// call (policy), hands a protect verdict to the protect step, decides by
// the decision table, logs the decision (audit) and encodes the answer for
// the host (hostio). Run is that flow from stdin to stdout; Decide is the
// same from a decoded event to the decision and its record, for rewind's
// MCP server, so that its advice is the hook's own.
//
// The decision table (docs/decision-table.md) is one function of what the
// run learnt of the call: its verdict, the protect step's Outcome, the
// budget and hook.on_error. decide_test.go holds it row by row, in the
// doc's words.
//
// The protect step is a Protector handed in, never imported, so that this
// package links no Zerto client: package hook/zerto's step asks Zerto
// through capture (rewind hook, the MCP server); Relay hands the call to
// rewind hook instead, so that the calls that need no checkpoint, nearly
// all of them, are judged by a program that starts as fast as Go allows
// (rewind-hook), by this same code.
//
// Run never fails: whatever happens — a malformed event, a broken config, a
// panic, a step that outlasts the budget — it writes at most one protocol
// answer and returns its exit code (0, or the refusal's for the hosts that
// read exit codes), because a hook that crashes lets the call through
// unguarded on most hosts and says nothing about why. A post-tool event
// goes the same way to the audit log as the call's outcome, and is
// answered with nothing.
package hook
