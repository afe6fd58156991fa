// Package ui serves `rewind ui`: a local web page over the decision log and
// the way back.
//
// It sits at the end of rewind's data flow, beside `rewind log` and
// `rewind undo`. The timeline reads the audit log, newest first, and stays
// live: a watcher polls the log file's size and identity and streams each
// new record to the open pages as Server-Sent Events, rotation included.
// The VMs view groups the log's checkpoints by VM and asks Zerto for each
// VPG's health and journal cadence. Its actions, a failover test, its stop
// and a journal restore, go through the recovery package, the same code as
// `rewind undo`, which also records each one in the audit log.
//
// The page is meant for the person at the machine and nobody else, so the
// server is safe by default: it listens on loopback, every request needs a
// session cookie that only the random token in the printed URL buys, the
// Host header must name the address it is bound to (a defence against DNS
// rebinding), actions need a POST with the session's CSRF token, and the
// responses forbid framing, inline script and referrers. Nothing secret is
// on the page: the log's excerpts are redacted when they are written, and
// the Zerto credentials never leave the recovery service.
package ui
