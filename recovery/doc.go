// Package recovery is the way back: it turns a logged call (an audit ID, or
// a prefix of one of at least MinPrefix characters) or a bare
// CheckpointIdentifier into its rewind points, says what going back would
// lose, and runs the rewind in Zerto: a failover test from the checkpoint
// (non-destructive: test copies of the VMs come up on the recovery site),
// the test's stop, a journal restore of the VMs to the checkpoint, and the
// commit or rollback of a restore that waits for one.
//
// It is the one layer every front end calls, through one operation:
// `rewind undo`, the MCP server's rewind tools and the local page run
// Service.Run (or show Service.Plan), so the checks, the all-or-none rule
// across a call's VPGs, the person's choice of VPG for a VM in several,
// and the refusals have one home, and what is tested here holds for all
// three.
//
// Before anything is sent, a Service checks what Zerto can do: that the
// checkpoint is still in the VPG's journal (checkpoints age out, and a
// re-sync empties the journal), and that the VPG is in a state that allows
// the operation. Each refusal is a typed error with a one-line message; a
// Zerto failure keeps Zerto's own message (a *zvm.Error). Every operation
// that was sent, done or failed, is recorded in the audit log, so `rewind
// log` and the page show it beside the call it went back for.
//
// What changes a VM's disks (a restore, its commit, its rollback) runs
// only through an Operator: a session made from the credentials a person
// typed for that rewind, never the hook's, which the agent's environment
// may hold. A failover test and its stop run with the hook's own client
// where Zerto lets it, and through an Operator where it does not, as on a
// ZVM set up for least privilege: Plan asks Zerto which, without doing
// anything, and says so in Plan.AsPerson. Before a restore, the VMs are checkpointed as they are, with
// the hook's own capture, so that the restore itself can be undone; and a
// restore is reported committed only once Zerto's commit completed,
// whatever the restore's task said.
//
// Times compared with checkpoint times are Zerto's own (checkpoint
// timestamps and the ZVM's clock), never this host's.
package recovery
