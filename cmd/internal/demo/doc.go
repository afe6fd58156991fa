// Package demo plays a scripted agent session against a simulated Zerto, for
// `rewind demo`.
//
// It shows rewind's main job on the built-in rules without any setup: a ZVM
// simulator runs in-process on a free loopback port, and each call of the
// script is handed to the very code `rewind hook` runs (hook.Run), as a
// Claude Code PreToolUse event on an in-memory stdin. The decision is read
// back from the hook's stdout and its audit record, so what the demo shows
// is what a host would be told. It then goes back for the protected call
// through the recovery package, as `rewind undo ID --test` does, and stops
// the failover test so that nothing is left running. State, audit log, token cache and config
// live in a temporary folder that is removed at the end; the user's own
// config, state and REWIND_ZVM_* settings are never read.
package demo
