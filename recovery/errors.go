package recovery

import (
	"fmt"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// NotFoundError is returned by Find for an ID that is neither a record of
// the audit log nor a checkpoint in any VPG's journal. It wraps
// audit.ErrNotFound.
type NotFoundError struct {
	ID string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("%q is neither an audit id in the log nor a checkpoint in a VPG's journal", e.ID)
}

// Unwrap returns audit.ErrNotFound.
func (e *NotFoundError) Unwrap() error { return audit.ErrNotFound }

// NotProtectedError is returned by Find for a logged call that has no
// checkpoint to go back to: one the hook did not protect (denied, asked, or
// let through on an error), or one whose tag Zerto had not written when the
// hook answered and whose journal does not hold it.
type NotProtectedError struct {
	ID       string
	Decision string // the record's decision, such as "deny"
	Tool     string
	// Pending names the tags Zerto had accepted but not written.
	Pending []string
}

func (e *NotProtectedError) Error() string {
	if len(e.Pending) > 0 {
		return fmt.Sprintf("call %s has no checkpoint: Zerto had not written its tag %q when the hook answered (decision %s), and the journal does not hold it",
			e.ID, e.Pending[0], e.Decision)
	}
	return fmt.Sprintf("call %s (%s) was not protected: the hook took no checkpoint for it (decision %s), so there is nothing to go back to",
		e.ID, e.Tool, e.Decision)
}

// AgedOutError says a rewind point's checkpoint is no longer in its VPG's
// journal: Zerto keeps checkpoints only as long as the VPG's journal
// history. Both times are Zerto's.
type AgedOutError struct {
	Point Point
	// Earliest is the time of the journal's earliest checkpoint; zero when
	// the journal holds none.
	Earliest time.Time
}

func (e *AgedOutError) Error() string {
	p := e.Point
	what := fmt.Sprintf("checkpoint %s", p.Checkpoint)
	if p.Tag != "" {
		what = fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s)", p.Tag, p.Checkpoint)
	}
	if !p.Time.IsZero() {
		what += " of " + zTime(p.Time)
	}
	if e.Earliest.IsZero() {
		return fmt.Sprintf("%s is no longer in VPG %s's journal, which holds no checkpoints now", what, p.VPG)
	}
	return fmt.Sprintf("%s is no longer in VPG %s's journal: it aged out, the journal's earliest checkpoint is of %s",
		what, p.VPG, zTime(e.Earliest))
}

// StateError says a VPG's state does not allow the operation now: a
// failover test already running, none running to stop, a failover or move
// under way.
type StateError struct {
	VPG string
	// State is the VPG's state as Zerto reports it, such as
	// "FailingOver/FailingOverBeforeCommit" or "in a failover test".
	State string
	// TestRunning says the VPG is in a failover test.
	TestRunning bool
	Reason      string
}

func (e *StateError) Error() string { return e.Reason }

// zTime writes a Zerto time for a person: UTC, to the second.
func zTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
