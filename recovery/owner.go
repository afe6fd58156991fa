package recovery

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/zvm"
)

// TestOwner says who started the failover test running on a VPG: rewind
// (its audit log holds the test's task) or someone else, a drill rewind
// must not end on its own.
type TestOwner struct {
	// Rewind says rewind started the test: the audit log records its task
	// as the newest failover test Zerto lists for the VPG.
	Rewind bool
	// Task, By and Started are the running test's task as Zerto lists it,
	// when Known.
	Task    string
	By      string
	Started time.Time
	Known   bool
}

// text says who started the test on vpg, for a person.
func (o TestOwner) text(vpg string) string {
	vpg = oneLine(vpg)
	switch {
	case o.Rewind:
		return fmt.Sprintf("Stopping the failover test rewind started on VPG %s: its test copies go away; the live VMs are untouched.", vpg)
	case o.Known && o.By != "":
		return fmt.Sprintf("The failover test running on VPG %s was not started by rewind: %s started it at %s (task %s). Stopping it ends their test.",
			vpg, oneLine(o.By), zTime(o.Started), oneLine(o.Task))
	case o.Known:
		return fmt.Sprintf("The failover test running on VPG %s was not started by rewind (task %s of %s). Stopping it ends someone else's test.",
			vpg, oneLine(o.Task), zTime(o.Started))
	}
	return fmt.Sprintf("rewind cannot tell who started the failover test running on VPG %s: Zerto lists no failover test of it in the last %s. Stopping it may end someone else's test.",
		vpg, approx(maxTestAge))
}

// maxTestAge bounds the tasks asked for when looking for the running
// test's: a test older than that is not known as rewind's, so its stop is
// asked.
const maxTestAge = 7 * 24 * time.Hour

// failoverTestTask is the type of a failover test's task on a ZVM.
const failoverTestTask = "FailOverTest"

// testOwner finds who started the test running on p's VPG: the newest
// failover test task Zerto lists for the VPG, matched with the tests the
// audit log says rewind started. Whatever cannot be read makes the test
// someone else's, so that its stop is asked.
func (s *Service) testOwner(ctx context.Context, p Point) TestOwner {
	tasks, err := s.Z.Tasks(ctx, zvm.TaskFilter{Type: failoverTestTask, StartedAfter: s.Z.Now().Add(-maxTestAge)})
	if err != nil {
		return TestOwner{}
	}
	var o TestOwner
	for _, t := range tasks {
		if !hasFold(t.VPGs, p.VPGIdentifier) || (o.Known && !t.Started.After(o.Started)) {
			continue
		}
		o = TestOwner{Task: t.Identifier, By: t.InitiatedBy, Started: t.Started, Known: true}
	}
	if !o.Known || s.Log == nil {
		return o
	}
	recs, err := s.Log.Read(audit.Filter{})
	if err != nil {
		return o
	}
	for _, r := range recs {
		if r.Decision == audit.DecisionUndoTest && strings.EqualFold(r.Task, o.Task) && recordOnVPG(&r, p.VPGIdentifier) {
			o.Rewind = true
		}
	}
	return o
}

func recordOnVPG(r *audit.Record, vpgID string) bool {
	for _, cp := range r.Checkpoints {
		if strings.EqualFold(cp.VPGIdentifier, vpgID) {
			return true
		}
	}
	return false
}

func hasFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
