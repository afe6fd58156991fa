package zvm

// InsertRefused reports whether the VPG is in a state in which Zerto
// certainly cannot write a tagged checkpoint: replication paused, failing
// over or moving (before commit), being deleted or removed, recovered,
// still being created, or without VMs. reason says why in words a person
// can act on. In every other state, syncs and errors included, it is for
// Zerto to accept or refuse the insert and to say why: a client that
// judged those itself would refuse checkpoints Zerto can take.
//
// It is the one answer rewind gives to "can this VPG checkpoint?": capture
// refuses by it before an insert, and the MCP server and the page advise
// by it, so that the advice is what the hook enforces.
func (v VPG) InsertRefused() (refused bool, reason string) {
	switch v.Status {
	case StatusFailingOver, StatusMoving, StatusDeleting, StatusRecovered:
		return true, "VPG " + v.Name + " is " + v.Status.String() + ": it writes no checkpoints now"
	}
	switch v.SubStatus {
	case SubStatusReplicationPausedUserInitiated, SubStatusReplicationPausedSystemInitiated:
		return true, "VPG " + v.Name + " is " + v.Status.String() + "/" + v.SubStatus.String() + ": replication is paused, so no checkpoint can be written until it is resumed"
	case SubStatusCreating, SubStatusEmptyProtectionGroup, SubStatusFailingOverCommitting,
		SubStatusFailingOverBeforeCommit, SubStatusFailingOverRollingBack, SubStatusMovingCommitting,
		SubStatusMovingBeforeCommit, SubStatusMovingRollingBack, SubStatusDeleting, SubStatusPendingRemove:
		return true, "VPG " + v.Name + " is " + v.Status.String() + "/" + v.SubStatus.String() + ": it writes no checkpoints now"
	}
	return false, ""
}
