// Package audit keeps rewind's decision log: one JSON line per hook decision
// in the user's state folder, and the reading side behind `rewind log` and,
// through [Log.Find], `rewind undo`.
//
// It is the last step of the hook's data flow before the answer goes back to
// the host: every decision but a plain pass (most calls, which say nothing)
// appends a [Record] to audit.jsonl. Many hook processes run at once when an
// agent makes parallel calls, so appends are serialised by a file lock in
// the same folder, and the file is rotated by size under that lock. Every
// record gets a short ID of its own (see [NewID]), which is how a person
// names a call to undo. The rewinds themselves (tests, restores) are logged
// too, beside the calls they went back for.
//
// A call is logged before it runs; how it ended comes later, from the
// host's post-tool hook, as an outcome line ([Log.AppendOutcome]) that
// names the call by its host, session and tool-use id. The log stays
// append-only: [Log.Read] and [Log.Find] join each outcome to its call's
// record, and mark a call the host went past as not run (see
// [Record.NotRun]).
//
// Nothing secret reaches the log: the excerpt of the call and the free-text
// fields pass through [Redact] on their way in, whatever the caller did.
package audit
