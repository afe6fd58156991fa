// Package capture takes the checkpoint that lets a protected tool call run.
//
// In rewind's data flow it sits between the policy and the decision table:
// for a verdict of effect protect, the hook hands Capture the call's
// targets, and Capture resolves each to a Zerto VM and its VPG, checks that
// the VPG can write checkpoints, finds or inserts a rewind-tagged checkpoint
// and waits, cadence-aware, until the tag is in the VPG's journal. The
// Outcome says which of the decision table's rows applies: protected (with
// the checkpoints that undo the call), pending (Zerto accepted the tag but
// writes it after the hook's budget), failed (with Zerto's own message) or
// unknown target (a VM Zerto does not know: nothing to rewind to, which is
// never a failure).
//
// A hook run is a short-lived process, and an agent may run several at
// once. What must outlive one run lives in the state folder, one JSON file
// per VPG guarded by a lock file beside it: the tags in flight, so that a
// retry or a concurrent call waits for the same tag instead of inserting
// another, and the times rewind let calls through, which decide whether an
// existing tag still protects a new call. The lock is held while deciding
// and inserting, never while waiting for the journal.
//
// Zerto writes a tagged checkpoint at the VPG's next journal tick, so the
// wait is planned from the cadence seen in the VPG's recent checkpoints: a
// tag expected after the deadline is answered pending at once, and one
// expected before it is polled for from just after the expected tick.
package capture
