package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// fakeTerminal is a person at a terminal, answering from a script: lines
// in order, then end-of-file.
type fakeTerminal struct {
	answers []string
	said    strings.Builder
	prompts []string
}

func (f *fakeTerminal) Say(text string) { f.said.WriteString(text + "\n") }

func (f *fakeTerminal) Line(prompt string) (string, error) { return f.answer(prompt) }

func (f *fakeTerminal) Secret(prompt string) (string, error) { return f.answer(prompt) }

func (f *fakeTerminal) answer(prompt string) (string, error) {
	f.prompts = append(f.prompts, prompt)
	if len(f.answers) == 0 {
		return "", io.EOF
	}
	a := f.answers[0]
	f.answers = f.answers[1:]
	return a, nil
}

func (f *fakeTerminal) Close() error { return nil }

// undoLab is a simulator with the default scenario, set up for least
// privilege: a Service whose own credentials are the hook's client
// rewind-hook's (builder: it tags and reads), and the user operator, a
// person's own, who goes back.
type undoLab struct {
	sim *zvmsim.TestServer
	log *audit.Log
	svc *recovery.Service
}

func newUndoLab(t *testing.T) *undoLab { return newUndoLabOf(t, nil) }

// widerHook is the default scenario at a site that gave the hook's client
// Zerto's admin role: it tests and stops tests itself.
func widerHook() *zvmsim.Scenario {
	sc := zvmsim.DefaultScenario()
	for i, c := range sc.Credentials.Clients {
		if c.ID == zvmsim.DefaultHookClient {
			sc.Credentials.Clients[i].Roles = []string{zvmsim.RoleAdmin}
		}
	}
	return sc
}

func newUndoLabOf(t *testing.T, sc *zvmsim.Scenario) *undoLab {
	t.Helper()
	sim := zvmsim.NewTestServer(t, sc)
	sim.SetTaskSteps(0)
	// The default scenario ticks every 5 s; the checkpoint of now need
	// not wait for it.
	sim.SetStrict(zvmsim.Strict{TagsAtOnce: true})
	zo := zvm.Options{URL: sim.URL, ClientID: zvmsim.DefaultHookClient, ClientSecret: zvmsim.DefaultHookClientSecret, CacheDir: "-"}
	z, err := zvm.New(zo)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := audit.Open(dir)
	svc := &recovery.Service{Z: z, ZertoOptions: zo, Log: log, Poll: time.Millisecond,
		Capture: capture.New(z, capture.Options{StateDir: filepath.Join(dir, "state")})}
	return &undoLab{sim: sim, log: log, svc: svc}
}

// protected logs a protected call on vms of VPG vpg, at its latest
// checkpoint.
func (l *undoLab) protected(t *testing.T, vpg string, vms ...string) *audit.Record {
	t.Helper()
	cps, _ := l.sim.Checkpoints(vpg)
	cp := cps[len(cps)-1]
	rec := &audit.Record{Tool: "Bash", Decision: audit.DecisionProtected, Targets: vms}
	for _, vm := range vms {
		rec.Checkpoints = append(rec.Checkpoints, audit.Checkpoint{VM: vm, VMIdentifier: l.sim.VMIdentifier(vm),
			VPG: vpg, VPGIdentifier: l.sim.VPGIdentifier(vpg), Identifier: cp.ID, Tag: "rewind-x", Time: cp.Time})
	}
	if err := l.log.Append(rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

func (l *undoLab) undo(id, mode string, tty *fakeTerminal, stdout, stderr io.Writer) *undo {
	return &undo{
		req: recovery.Request{ID: id, Mode: mode}, stdout: stdout, stderr: stderr, svc: l.svc,
		terminal: func() (terminal, error) {
			if tty == nil {
				return nil, errors.New("open /dev/tty: no such device or address")
			}
			return tty, nil
		},
	}
}

// writes lists the requests that would change something in Zerto.
func writes(reqs []zvmsim.Request) []string {
	var w []string
	for _, r := range reqs {
		if r.Method != "GET" && strings.HasPrefix(r.Path, "/v1/") {
			w = append(w, r.Method+" "+r.Path)
		}
	}
	return w
}

// TestUndoCheckBeforeAsking: a restore bound to fail is refused before the
// person is asked anything, and before the checkpoint of now.
func TestUndoCheckBeforeAsking(t *testing.T) {
	t.Parallel()
	l := newUndoLab(t)
	rec := l.protected(t, "lab-apps", "web-01")
	if err := l.sim.SetVPGStatus("lab-apps", zvmsim.StatusMoving, zvmsim.SubStatusNone); err != nil {
		t.Fatal(err)
	}
	tty := &fakeTerminal{answers: []string{"web-01", zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}}
	err := l.undo(rec.ID, recovery.ModeRestore, tty, io.Discard, io.Discard).run(context.Background())
	var se *recovery.StateError
	if !errors.As(err, &se) || len(tty.prompts) != 0 || l.sim.Count("insert") != 0 {
		t.Errorf("run = %v, prompts %q, %d inserts: want a StateError before anything", err, tty.prompts, l.sim.Count("insert"))
	}
}

// TestUndoChecksEveryVPGFirst: a call that touched VMs in two VPGs is
// restored in both or in none: a VPG that cannot restore (here, Zerto is
// moving it) stops the restore before the other VPG's VM is sent anywhere.
func TestUndoChecksEveryVPGFirst(t *testing.T) {
	t.Parallel()
	l := newUndoLab(t)
	rec := l.protected(t, "lab-apps", "web-01")
	cps, _ := l.sim.Checkpoints("lab-legacy")
	rec2 := *rec
	rec2.ID = ""
	rec2.Checkpoints = append(rec2.Checkpoints, audit.Checkpoint{VM: "legacy-01", VMIdentifier: l.sim.VMIdentifier("legacy-01"),
		VPG: "lab-legacy", VPGIdentifier: l.sim.VPGIdentifier("lab-legacy"), Identifier: cps[len(cps)-1].ID, Time: cps[len(cps)-1].Time})
	if err := l.log.Append(&rec2); err != nil {
		t.Fatal(err)
	}
	if err := l.sim.SetVPGStatus("lab-legacy", zvmsim.StatusMoving, zvmsim.SubStatusNone); err != nil {
		t.Fatal(err)
	}
	tty := &fakeTerminal{answers: []string{"web-01, legacy-01", zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}}
	err := l.undo(rec2.ID, recovery.ModeRestore, tty, io.Discard, io.Discard).run(context.Background())
	var se *recovery.StateError
	if !errors.As(err, &se) {
		t.Errorf("run = %v, want the moving VPG's StateError", err)
	}
	if n := l.sim.Count("restore"); n != 0 {
		t.Errorf("%d restores sent, want none: the other VPG must not be restored alone", n)
	}
}

// TestUndoConfirmation: a restore runs only when the person at the
// terminal typed the VM names and their own Zerto credentials; the hook's
// credentials are refused, and a refusal sends nothing that restores.
func TestUndoConfirmation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		vms     []string
		answers []string
		restore bool
		want    string
	}{
		{"Typed", []string{"web-01"}, []string{"web-01", zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}, true, ""},
		{"TypedWithSpaces", []string{"web-01"}, []string{"  web-01  ", zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}, true, ""},
		{"BothInAnyOrder", []string{"web-01", "db-01"}, []string{"db-01 web-01", zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}, true, ""},
		{"OneOfTwo", []string{"web-01", "db-01"}, []string{"web-01"}, false, "restore not confirmed: nothing was restored"},
		{"Yes", []string{"web-01"}, []string{"yes"}, false, "restore not confirmed: nothing was restored"},
		{"OtherCase", []string{"web-01"}, []string{"WEB-01"}, false, "restore not confirmed: nothing was restored"},
		{"Nothing", []string{"web-01"}, nil, false, "restore not confirmed: nothing was restored"},
		{"NoPassword", []string{"web-01"}, []string{"web-01", zvmsim.DefaultOperator}, false, "no password typed: nothing was restored"},
		{"WrongPassword", []string{"web-01"}, []string{"web-01", zvmsim.DefaultOperator, "guess"}, false, "Zerto refused the credentials of operator"},
		{"HooksSecret", []string{"web-01"}, []string{"web-01", zvmsim.DefaultOperator, zvmsim.DefaultHookClientSecret}, false, "rewind's own Zerto credentials"},
		{"HooksAccount", []string{"web-01"}, []string{"web-01", "service-account-" + zvmsim.DefaultHookClient, "x"}, false, "rewind's own Zerto credentials"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l := newUndoLab(t)
			rec := l.protected(t, "lab-apps", tt.vms...)
			tty := &fakeTerminal{answers: tt.answers}
			var stdout, stderr bytes.Buffer
			err := l.undo(rec.ID, recovery.ModeRestore, tty, &stdout, &stderr).run(context.Background())
			if len(tty.prompts) == 0 || !strings.HasPrefix(tty.prompts[0], "To restore, type the VM name") ||
				!strings.Contains(tty.said.String(), "loses every change made to") || !strings.Contains(tty.said.String(), "Before restoring, rewind takes a checkpoint") {
				t.Errorf("the terminal showed %q and asked %q", tty.said.String(), tty.prompts)
			}
			if !tt.restore {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("run = %v, want %q", err, tt.want)
				}
				if n := l.sim.Count("restore"); n != 0 {
					t.Errorf("%d restores sent without a confirmation", n)
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v (stderr %s)", err, stderr.String())
			}
			if tty.prompts[1] != "Zerto user: " || tty.prompts[2] != "Password: " {
				t.Errorf("prompts %q", tty.prompts)
			}
			for _, vm := range tt.vms {
				if _, op, ok := l.sim.VMRecovery(vm); !ok || op != "RestoreCommitted" {
					t.Errorf("%s: recovered %v by %q", vm, ok, op)
				}
			}
			if out := stdout.String(); !strings.Contains(out, "restored to checkpoint") || !strings.Contains(out, "To undo the restore:\n  rewind undo ") {
				t.Errorf("stdout %q", out)
			}
			if !strings.Contains(stderr.String(), "as it is now is") {
				t.Errorf("stderr %q does not name the checkpoint of now before the restore", stderr.String())
			}
		})
	}
}

// TestUndoNoTerminal: without a terminal a restore says what it would lose
// and refuses, sending nothing that changes anything; standard input is
// never read.
func TestUndoNoTerminal(t *testing.T) {
	t.Parallel()
	l := newUndoLab(t)
	rec := l.protected(t, "lab-apps", "web-01")
	before := len(l.sim.Requests())
	var stderr bytes.Buffer
	err := l.undo(rec.ID, recovery.ModeRestore, nil, io.Discard, &stderr).run(context.Background())
	var he interface{ Hint() string }
	if err == nil || !strings.Contains(err.Error(), "--restore needs a person at this machine's terminal") || !errors.As(err, &he) {
		t.Errorf("run = %v", err)
	}
	if !strings.Contains(stderr.String(), "loses every change made to web-01") {
		t.Errorf("stderr %q", stderr.String())
	}
	if w := writes(l.sim.Requests()[before:]); len(w) != 0 {
		t.Errorf("sent %q without a terminal", w)
	}
}

// TestUndoStopSomeoneElses: where the hook's client may stop tests, the
// stop of a test rewind did not start is asked at the terminal, and
// refused without one.
func TestUndoStopSomeoneElses(t *testing.T) {
	t.Parallel()
	l := newUndoLabOf(t, widerHook())
	rec := l.protected(t, "lab-apps", "web-01")
	if _, err := l.sim.StartTest("lab-apps", "", zvmsim.DefaultUser); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := l.undo(rec.ID, recovery.ModeStopTest, nil, io.Discard, &stderr).run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not started by rewind") || !strings.Contains(stderr.String(), "admin started it") {
		t.Errorf("no terminal: %v, stderr %q", err, stderr.String())
	}
	tty := &fakeTerminal{answers: []string{"yes"}}
	if err := l.undo(rec.ID, recovery.ModeStopTest, tty, io.Discard, io.Discard).run(context.Background()); err == nil {
		t.Error("a stop confirmed with yes ran")
	}
	if _, _, running := l.sim.RunningTest("lab-apps"); !running {
		t.Fatal("someone else's test stopped unconfirmed")
	}
	tty = &fakeTerminal{answers: []string{"stop"}}
	var stdout bytes.Buffer
	if err := l.undo(rec.ID, recovery.ModeStopTest, tty, &stdout, io.Discard).run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, running := l.sim.RunningTest("lab-apps"); running || !strings.Contains(stdout.String(), "stopped") {
		t.Errorf("after the confirmed stop: running %v, stdout %q", running, stdout.String())
	}
}

// TestUndoTestAsPerson: where Zerto refuses the hook's client a failover
// test (least privilege), undo asks the person at the terminal for their
// own Zerto credentials, once, and runs the test and its stop with them;
// without a terminal, or with the hook's credentials, nothing is started.
func TestUndoTestAsPerson(t *testing.T) {
	t.Parallel()
	l := newUndoLab(t)
	rec := l.protected(t, "lab-apps", "web-01")

	var stderr bytes.Buffer
	err := l.undo(rec.ID, recovery.ModeTest, nil, io.Discard, &stderr).run(context.Background())
	var he interface{ Hint() string }
	if err == nil || !strings.Contains(err.Error(), "--test runs with your own Zerto credentials here, and asking for them needs a person at this machine's terminal") ||
		!errors.As(err, &he) || !strings.Contains(he.Hint(), "run it in a terminal of your own") {
		t.Errorf("no terminal: %v", err)
	}
	if !strings.Contains(stderr.String(), "Zerto does not let rewind's own client start a failover test (Zerto: \"User service-account-rewind-hook is not authorized") {
		t.Errorf("stderr %q does not say why", stderr.String())
	}
	for _, answers := range [][]string{nil, {"service-account-" + zvmsim.DefaultHookClient, "x"}, {zvmsim.DefaultOperator, zvmsim.DefaultHookClientSecret}, {zvmsim.DefaultOperator, "guess"}} {
		if err := l.undo(rec.ID, recovery.ModeTest, &fakeTerminal{answers: answers}, io.Discard, io.Discard).run(context.Background()); err == nil {
			t.Errorf("answers %q started a test", answers)
		}
	}
	if n := l.sim.CountAccepted("failoverTest"); n != 0 {
		t.Fatalf("%d tests started without the person's credentials", n)
	}

	tty := &fakeTerminal{answers: []string{zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}}
	var stdout bytes.Buffer
	if err := l.undo(rec.ID, recovery.ModeTest, tty, &stdout, io.Discard).run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(tty.prompts) != 2 || tty.prompts[0] != "Zerto user: " || tty.prompts[1] != "Password: " ||
		!strings.Contains(tty.said.String(), "A failover test of VPG lab-apps from checkpoint") {
		t.Errorf("the terminal showed %q and asked %q", tty.said.String(), tty.prompts)
	}
	if out := stdout.String(); !strings.Contains(out, ", as Zerto user operator: task Completed.") {
		t.Errorf("stdout %q", out)
	}
	if _, _, running := l.sim.RunningTest("lab-apps"); !running || l.sim.CountAccepted("failoverTest") != 1 {
		t.Fatal("the operator's test is not running")
	}

	// Its stop: rewind's own test, so the credentials are all it asks.
	tty = &fakeTerminal{answers: []string{zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}}
	stdout.Reset()
	if err := l.undo(rec.ID, recovery.ModeStopTest, tty, &stdout, io.Discard).run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(tty.prompts) != 2 || !strings.Contains(stdout.String(), "stopped, as Zerto user operator: task Completed.") {
		t.Errorf("stop: asked %q, stdout %q", tty.prompts, stdout.String())
	}
}

// TestUndoTestWiderHook: where the hook's client may test, a test and its
// stop run with it and ask nobody, as before least privilege.
func TestUndoTestWiderHook(t *testing.T) {
	t.Parallel()
	l := newUndoLabOf(t, widerHook())
	rec := l.protected(t, "lab-apps", "web-01")
	var stdout bytes.Buffer
	for _, mode := range []string{recovery.ModeTest, recovery.ModeStopTest} {
		if err := l.undo(rec.ID, mode, nil, &stdout, io.Discard).run(context.Background()); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
	}
	if out := stdout.String(); strings.Contains(out, "as Zerto user") || !strings.Contains(out, "Its test copies are gone.") {
		t.Errorf("stdout %q", out)
	}
}

// TestUndoStopSomeoneElsesAsPerson: at least privilege, the stop of a test
// rewind did not start says whose test it ends and asks for the person's
// credentials, which confirm it.
func TestUndoStopSomeoneElsesAsPerson(t *testing.T) {
	t.Parallel()
	l := newUndoLab(t)
	rec := l.protected(t, "lab-apps", "web-01")
	if _, err := l.sim.StartTest("lab-apps", "", zvmsim.DefaultUser); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := l.undo(rec.ID, recovery.ModeStopTest, nil, io.Discard, &stderr).run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "not started by rewind, and stopping it runs with your own Zerto credentials here") ||
		!strings.Contains(stderr.String(), "admin started it") {
		t.Errorf("no terminal: %v, stderr %q", err, stderr.String())
	}
	tty := &fakeTerminal{answers: []string{zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword}}
	if err := l.undo(rec.ID, recovery.ModeStopTest, tty, io.Discard, io.Discard).run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, running := l.sim.RunningTest("lab-apps"); running || !strings.Contains(tty.said.String(), "admin started it") {
		t.Errorf("after the operator's stop: running %v, the terminal showed %q", running, tty.said.String())
	}
}
