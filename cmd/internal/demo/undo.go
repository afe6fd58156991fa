package demo

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// The steps that go back, as the audit log names them.
const (
	// UndoTest: a failover test from the call's checkpoint is running.
	UndoTest Decision = audit.DecisionUndoTest
	// UndoStopTest: the failover test was stopped.
	UndoStopTest Decision = audit.DecisionUndoStopTest
)

// rewindBudget bounds the demo's rewind steps: the simulator's tasks end
// within a few polls.
const rewindBudget = 30 * time.Second

// rewindPoll is how often the demo polls a Zerto task: the simulator's
// tasks move on at each poll, so a short interval keeps the demo short.
const rewindPoll = 50 * time.Millisecond

// rewind goes back for the protected call whose audit ID is id, as `rewind
// undo ID --test` does, through the recovery package: a failover test
// brings up a copy of the VM from the call's checkpoint. It then stops the
// test, as `rewind undo ID --stop-test` does, so that nothing is left
// running. The results are steps n and n+1. Zerto refuses the hook's
// client both, so they run as the simulator's operator, whose credentials
// the demo types itself (see asOperator).
func (l *lab) rewind(ctx context.Context, n int, id string) ([]*Result, error) {
	ctx, cancel := context.WithTimeout(ctx, rewindBudget)
	defer cancel()
	svc, err := l.recoveryService()
	if err != nil {
		return nil, err
	}
	test := &Result{Step: n, Call: "rewind undo " + id + " --test",
		about: "going back: a failover test brings up a copy of the VM from the checkpoint of the protected call, beside the running VM. " +
			"Zerto refuses the hook's client a test, so it runs as the simulator's operator, whose login the demo types itself " +
			"where rewind undo asks you for yours; it types it for no ZVM but its own simulator, " + l.url}
	stop := &Result{Step: n + 1, Call: "rewind undo " + id + " --stop-test",
		about: "the test is stopped, as the simulator's operator again, so nothing is left running"}
	var tested, stopped []string
	began := time.Now()
	// The one operation every front end runs; Confirm is asked because
	// Zerto refuses the hook's client, and types the operator's login.
	results, err := svc.Run(ctx, recovery.Request{ID: id, Mode: recovery.ModeTest, Confirm: l.asOperator(svc)})
	if err != nil {
		return nil, err
	}
	for _, res := range results {
		p := res.Point
		tested = append(tested, fmt.Sprintf("failover test of VPG %s from checkpoint %q (CheckpointIdentifier %s) for %s, as Zerto user %s: Zerto's task %s; the test copy %s runs on %s",
			p.VPG, p.Tag, p.Checkpoint, strings.Join(p.VMNames(), ", "), res.As, res.State, quoteAll(res.TestVMs), res.RecoverySite))
		test.point(p)
		test.As = res.As
	}
	test.elapsed, began = time.Since(began), time.Now()
	results, err = svc.Run(ctx, recovery.Request{ID: id, Mode: recovery.ModeStopTest, Confirm: l.asOperator(svc)})
	if err != nil {
		return nil, err
	}
	for _, res := range results {
		p := res.Point
		// Zerto itself must say that no test runs any more.
		v, err := svc.Z.VPG(ctx, p.VPGIdentifier)
		if err != nil {
			return nil, err
		}
		if v.TestRunning {
			return nil, fmt.Errorf("VPG %s still runs a failover test after its stop", p.VPG)
		}
		stopped = append(stopped, fmt.Sprintf("failover test of VPG %s stopped as Zerto user %s (Zerto's task %s): VPG %s runs no test", p.VPG, res.As, res.State, p.VPG))
		stop.point(p)
		stop.As = res.As
	}
	stop.elapsed = time.Since(began)
	test.Decision, test.Reason = UndoTest, strings.Join(tested, "; ")
	stop.Decision, stop.Reason = UndoStopTest, strings.Join(stopped, "; ")
	if err := l.rewindIDs(id, test, stop); err != nil {
		return nil, err
	}
	return []*Result{test, stop}, nil
}

// asOperator is the confirmation of the demo's rewinds: the simulator's
// operator, whose login the demo types itself where a person would type
// theirs. It does so for the demo's own in-process simulator only: a
// service that reaches any other address, a real ZVM above all, gets a
// refusal, and nothing is sent there with these credentials.
func (l *lab) asOperator(svc *recovery.Service) func(context.Context, *recovery.Plan) (*recovery.Operator, error) {
	return func(_ context.Context, plan *recovery.Plan) (*recovery.Operator, error) {
		if svc.ZertoOptions.URL != l.url {
			mode := ""
			if plan != nil {
				mode = plan.Mode
			}
			return nil, &recovery.ConfirmError{Mode: mode, Reason: fmt.Sprintf(
				"the demo types the operator's login for its own simulator at %s only, not for %s: nothing was sent", l.url, svc.ZertoOptions.URL)}
		}
		return svc.NewOperator(zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword)
	}
}

// point sets r's rewind point: the first one, when a call had several.
func (r *Result) point(p recovery.Point) {
	if r.Checkpoint != "" {
		return
	}
	r.Checkpoint, r.CheckpointIdentifier, r.VPG, r.Time = p.Tag, p.Checkpoint, p.VPG, p.Time.UTC()
}

// recoveryService is what `rewind undo` uses, on the demo's ZVM, state and
// token cache.
func (l *lab) recoveryService() (*recovery.Service, error) {
	cfg, err := policy.Load(l.config)
	if err != nil {
		return nil, err
	}
	zo, err := zvm.ConfigOptions(cfg.Zerto, zvm.Setup{Getenv: l.getenv, CacheDir: l.cacheDir})
	if err != nil {
		return nil, err
	}
	z, err := zvm.New(zo)
	if err != nil {
		return nil, err
	}
	svc := recovery.NewService(cfg, z, zo, l.stateDir)
	svc.Poll = rewindPoll
	return svc, nil
}

// rewindIDs sets the audit IDs of the rewinds' records, which the recovery
// service logged beside the call they went back for.
func (l *lab) rewindIDs(id string, results ...*Result) error {
	recs, err := audit.Open(l.stateDir).Read(audit.Filter{})
	if err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	for _, r := range results {
		for i := len(recs) - 1; i >= 0; i-- {
			if recs[i].Rewinds == id && recs[i].Decision == string(r.Decision) {
				r.AuditID = recs[i].ID
				break
			}
		}
		if r.AuditID == "" {
			return fmt.Errorf("%s: no %s record in the audit log", r.Call, r.Decision)
		}
	}
	return nil
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
