// Package recovery is the way back: it turns a logged call (an audit ID, or
// a unique prefix of one) or a bare CheckpointIdentifier into its rewind
// points, says what going back would lose, and runs the rewind in Zerto: a
// failover test from the checkpoint (non-destructive: test copies of the VMs
// come up on the recovery site), the test's stop, or a journal restore of the
// VMs to the checkpoint, followed to its end and committed.
//
// It is the one layer every front end calls: `rewind undo`, the MCP server's
// rewind tool and the local page. None of them talks to Zerto for a rewind
// on its own, so what is tested here holds for all three.
//
// Before anything is sent, a Service checks what Zerto can do: that the
// checkpoint is still in the VPG's journal (checkpoints age out), and that
// the VPG is in a state that allows the operation (no test already running,
// not failing over). Each refusal is a typed error with a one-line message;
// a Zerto failure keeps Zerto's own message (a *zvm.Error). Every operation
// that was attempted, done or failed, is recorded in the audit log, so
// `rewind log` and the page show it beside the call it went back for.
//
// Times compared with checkpoint times are Zerto's own (checkpoint
// timestamps), never this host's clock.
package recovery
