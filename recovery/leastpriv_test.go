package recovery

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook/testlab"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// probes counts the requests of a kind sent for the VPG of zeros, which no
// ZVM has: the question whether the hook's client may.
func probes(sim *zvmsim.TestServer, kind string) int {
	n := 0
	for _, r := range sim.Requests() {
		if r.Kind == kind && strings.Contains(r.Path, "/00000000-0000-0000-0000-000000000000/") {
			n++
		}
	}
	return n
}

// TestWhoRunsATest: a failover test and its stop run with the hook's own
// client where Zerto lets it (a site that gave it a wider role), and as a
// person where it does not (least privilege): Zerto says which, asked
// without doing anything, once per Service.
func TestWhoRunsATest(t *testing.T) {
	for _, tt := range []struct {
		scenario string
		asPerson bool
	}{
		{"testdata/lab.toml", false},
		{"testdata/leastpriv.toml", true},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			l := newLabOf(t, tt.scenario)
			rec := l.protected(t, "web-01")
			for range 2 {
				plan, err := l.svc.Plan(t.Context(), Request{ID: rec.ID, Mode: ModeTest})
				if err != nil {
					t.Fatal(err)
				}
				if plan.AsPerson != tt.asPerson || plan.NeedsConfirm() != tt.asPerson || (plan.Refused != nil) != tt.asPerson {
					t.Errorf("plan as person %v, confirm %v, refused %v; want %v", plan.AsPerson, plan.NeedsConfirm(), plan.Refused, tt.asPerson)
				}
				said := strings.Contains(plan.Text(), "Zerto does not let rewind's own client start a failover test (Zerto: \"User service-account-rewind is not authorized")
				if said != tt.asPerson {
					t.Errorf("plan text %q", plan.Text())
				}
			}
			if n := probes(l.Sim, "failoverTest"); n != 1 {
				t.Errorf("Zerto was asked %d times whether the hook may test, want once", n)
			}
			if tt.asPerson {
				return
			}
			res := l.one(t, Request{ID: rec.ID, Mode: ModeTest})
			if res.As != "" {
				t.Errorf("the hook's test ran as %q", res.As)
			}
		})
	}
}

// TestTestAsPerson: where the hook's client may not test, a failover test
// and its stop run only with a person's own Zerto credentials; without
// them, or with the hook's, nothing is started.
func TestTestAsPerson(t *testing.T) {
	l := newLabOf(t, "testdata/leastpriv.toml")
	rec := l.protected(t, "web-01")

	_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeTest})
	var ce *ConfirmError
	var ze *zvm.Error
	if !errors.As(err, &ce) || ce.Refused == nil || !errors.As(err, &ze) || ze.Status != http.StatusForbidden ||
		!strings.Contains(err.Error(), "runs with a person's own Zerto credentials here, since Zerto refuses rewind's own client (User service-account-rewind is not authorized") {
		t.Fatalf("a test with nobody to ask: %v", err)
	}
	// Confirmed where no credentials can be typed: Zerto's refusal says why
	// they are needed.
	_, err = l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeTest, Confirm: func(context.Context, *Plan) (*Operator, error) { return nil, nil }})
	if !errors.As(err, &ce) || ce.Refused == nil || !strings.Contains(err.Error(), "refuses rewind's own client (User service-account-rewind is not authorized") ||
		!strings.Contains(err.Error(), "and none were given: nothing was changed") {
		t.Fatalf("a test confirmed without credentials: %v", err)
	}
	for _, confirm := range []func(context.Context, *Plan) (*Operator, error){
		func(context.Context, *Plan) (*Operator, error) {
			return l.svc.NewOperator("service-account-rewind", "x")
		},
		func(context.Context, *Plan) (*Operator, error) {
			return l.svc.NewOperator(operatorUser, testlab.ClientSecret)
		},
		func(context.Context, *Plan) (*Operator, error) { return l.svc.NewOperator(operatorUser, "guess") },
	} {
		if _, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeTest, Confirm: confirm}); err == nil {
			t.Error("a test ran without the person's own credentials")
		}
	}
	if n := l.Sim.CountAccepted("failoverTest"); n != 0 {
		t.Fatalf("%d failover tests started without the person", n)
	}

	var shown *Plan
	res := l.one(t, Request{ID: rec.ID, Mode: ModeTest, Confirm: func(ctx context.Context, p *Plan) (*Operator, error) {
		shown = p
		return l.asOperator()(ctx, p)
	}})
	if shown == nil || !shown.AsPerson || res.As != operatorUser || res.State != "Completed" {
		t.Fatalf("test as the operator: %+v, plan %+v", res, shown)
	}
	if _, _, running := l.Sim.RunningTest("fast"); !running {
		t.Fatal("no test running")
	}
	tasks, err := l.svc.Z.Tasks(t.Context(), zvm.TaskFilter{Type: failoverTestTask})
	if err != nil || len(tasks) != 1 || tasks[0].InitiatedBy != operatorUser {
		t.Errorf("Zerto's test tasks %+v (%v): want one, started by the operator", tasks, err)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoTest || !strings.HasSuffix(r.Reason, "; run as Zerto user operator") {
		t.Errorf("record %+v", r)
	}

	// The test is rewind's: its stop needs the person's credentials again,
	// and nothing else.
	plan, err := l.svc.Plan(t.Context(), Request{ID: rec.ID, Mode: ModeStopTest})
	if err != nil || !plan.AsPerson || plan.Foreign() || !strings.Contains(plan.Text(), "own client stop a failover test") {
		t.Fatalf("stop plan %+v, %v", plan, err)
	}
	if _, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeStopTest}); !errors.As(err, &ce) {
		t.Fatalf("a stop with nobody to ask: %v", err)
	}
	if l.Sim.CountAccepted("failoverTestStop") != 0 {
		t.Fatal("the test was stopped without the person")
	}
	res = l.one(t, Request{ID: rec.ID, Mode: ModeStopTest, Confirm: l.asOperator()})
	if res.As != operatorUser {
		t.Errorf("stop ran as %q", res.As)
	}
	if _, _, running := l.Sim.RunningTest("fast"); running {
		t.Error("the test still runs")
	}
}

// TestHookRefusedAfterAll: a ZVM whose answer to the question let the
// hook's client test (one that looks the VPG up before the role) still
// refuses the test itself with 403; nothing is done, and the test runs
// as a person from then on, asked then.
func TestHookRefusedAfterAll(t *testing.T) {
	l := newLabOf(t, "testdata/leastpriv.toml")
	rec := l.protected(t, "web-01")
	l.svc.rememberHook(ModeTest, nil) // the probe's "not found"

	_, err := l.svc.Run(t.Context(), Request{ID: rec.ID, Mode: ModeTest})
	var ce *ConfirmError
	if !errors.As(err, &ce) || ce.Refused == nil {
		t.Fatalf("refused with nobody to ask: %v", err)
	}
	if r := l.lastRecord(t); r.Decision != audit.DecisionUndoFailed || !strings.Contains(r.ZertoError, "is not authorized") {
		t.Errorf("the refused test's record: %+v", r)
	}

	l.svc.rememberHook(ModeTest, nil)
	var asked []*Plan
	res := l.one(t, Request{ID: rec.ID, Mode: ModeTest, Confirm: func(ctx context.Context, p *Plan) (*Operator, error) {
		asked = append(asked, p)
		return l.asOperator()(ctx, p)
	}})
	if len(asked) != 1 || !asked[0].AsPerson || asked[0].Refused == nil || res.As != operatorUser {
		t.Fatalf("asked %d times, %+v", len(asked), res)
	}
	if n := l.Sim.CountAccepted("failoverTest"); n != 1 {
		t.Errorf("%d tests started, want 1", n)
	}
	l.svc.hookMu.Lock()
	_, known := l.svc.hookAnswers[ModeTest]
	refused := l.svc.hookAnswers[ModeTest] != nil
	l.svc.hookMu.Unlock()
	if !known || !refused {
		t.Error("the refusal was not remembered")
	}
}
