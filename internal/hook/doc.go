// Package hook is rewind's PreToolUse hook with Zerto behind it: package
// judge's flow (decode, classify, decide, log, answer) with the protect
// step that takes a checkpoint for a protect verdict through capture and
// applies the decision table's protect rows to its outcome. Decide is that
// flow from a decoded event to the decision and its record; rewind's MCP
// server checks calls through it, so its advice is the hook's own.
//
// Run never fails: whatever happens — a malformed event, a broken config, a
// panic — it writes at most one protocol object on stdout and returns exit
// code 0, because a hook that crashes lets the call through unguarded and
// says nothing about why.
package hook
