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
// Zerto usually writes a tagged checkpoint at the VPG's next journal tick,
// so the wait is planned from the cadence seen in the VPG's recent
// checkpoints: a tag expected after the deadline is answered pending at
// once, and one expected before it is polled for from just after the
// expected tick. The insert's task is the second witness: asked at once
// when the tick is far (a ZVM may write the tag immediately), and whenever
// a tick passes without the tag; its CompleteReason is the reason of a
// failure.
//
// The ZVM has a clock of its own. Every comparison with a Zerto timestamp
// is made in ZVM time, this machine's clock plus the offset the zvm client
// measured; sleeps and the deadline stay on this machine's clock.
//
// A caller whose own deadline may pass before Capture returns (the hook's
// budget) follows it with a Progress, whose Overrun gives the answer from
// what was achieved: a protect call is never let through unchecked for
// want of time.
package capture
