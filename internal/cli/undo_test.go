package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/rewind-dev/rewind/zvmsim"
)

// TestUndoCheckBeforeAsking: a restore bound to fail is refused before the
// person is asked to type anything.
func TestUndoCheckBeforeAsking(t *testing.T) {
	sim := zvmsim.NewTestServer(t, nil)
	z, err := zvm.New(zvm.Options{URL: sim.URL, Username: zvmsim.DefaultUser, Password: zvmsim.DefaultPassword, CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	log := audit.Open(t.TempDir())
	cps, _ := sim.Checkpoints("lab-apps")
	cp := cps[len(cps)-1]
	rec := &audit.Record{Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01"},
		Checkpoints: []audit.Checkpoint{{VM: "web-01", VMIdentifier: sim.VMIdentifier("web-01"), VPG: "lab-apps",
			VPGIdentifier: sim.VPGIdentifier("lab-apps"), Identifier: cp.ID, Time: cp.Time}}}
	if err := log.Append(rec); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetVPGStatus("lab-apps", zvmsim.StatusMoving, zvmsim.SubStatusNone); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	u := &undo{id: rec.ID, mode: recovery.ModeRestore, interactive: true, stdin: strings.NewReader("web-01\n"),
		stdout: io.Discard, stderr: &stderr, svc: &recovery.Service{Z: z, Log: log}}
	err = u.run(context.Background())
	var se *recovery.StateError
	if !errors.As(err, &se) || strings.Contains(stderr.String(), "To restore, type") {
		t.Errorf("run = %v, stderr %q: want a StateError before any prompt", err, stderr.String())
	}
}

// TestUndoYesChecksEveryVPGFirst: a call that touched VMs in two VPGs is
// restored in both or in none. With --yes (no prompt), a VPG that cannot
// restore (here, Zerto is moving it) stops the restore before the other
// VPG's VM is sent anywhere: a restore is not undone.
func TestUndoYesChecksEveryVPGFirst(t *testing.T) {
	sim := zvmsim.NewTestServer(t, nil)
	z, err := zvm.New(zvm.Options{URL: sim.URL, Username: zvmsim.DefaultUser, Password: zvmsim.DefaultPassword, CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	log := audit.Open(t.TempDir())
	rec := &audit.Record{Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01", "legacy-01"}}
	for _, c := range []struct{ vm, vpg string }{{"web-01", "lab-apps"}, {"legacy-01", "lab-legacy"}} {
		cps, _ := sim.Checkpoints(c.vpg)
		cp := cps[len(cps)-1]
		rec.Checkpoints = append(rec.Checkpoints, audit.Checkpoint{VM: c.vm, VMIdentifier: sim.VMIdentifier(c.vm),
			VPG: c.vpg, VPGIdentifier: sim.VPGIdentifier(c.vpg), Identifier: cp.ID, Tag: "rewind-x", Time: cp.Time})
	}
	if err := log.Append(rec); err != nil {
		t.Fatal(err)
	}
	if err := sim.SetVPGStatus("lab-legacy", zvmsim.StatusMoving, zvmsim.SubStatusNone); err != nil {
		t.Fatal(err)
	}
	u := &undo{id: rec.ID, mode: recovery.ModeRestore, yes: true, stdin: strings.NewReader(""),
		stdout: io.Discard, stderr: io.Discard, svc: &recovery.Service{Z: z, Log: log, Poll: time.Millisecond}}
	err = u.run(context.Background())
	var se *recovery.StateError
	if !errors.As(err, &se) {
		t.Errorf("run = %v, want the moving VPG's StateError", err)
	}
	if n := sim.Count("restore"); n != 0 {
		t.Errorf("%d restores sent, want none: the other VPG must not be restored alone", n)
	}
}

// TestUndoConfirmation: on a terminal, --restore without --yes restores
// only when the VM names are typed; anything else sends nothing.
func TestUndoConfirmation(t *testing.T) {
	tests := []struct {
		name    string
		vms     []string
		typed   string
		restore bool
	}{
		{"Typed", []string{"web-01"}, "web-01\n", true},
		{"TypedWithSpaces", []string{"web-01"}, "  web-01  \n", true},
		{"BothInAnyOrder", []string{"web-01", "db-01"}, "db-01 web-01\n", true},
		{"OneOfTwo", []string{"web-01", "db-01"}, "web-01\n", false},
		{"Yes", []string{"web-01"}, "yes\n", false},
		{"OtherCase", []string{"web-01"}, "WEB-01\n", false},
		{"Nothing", []string{"web-01"}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := zvmsim.NewTestServer(t, nil)
			sim.SetTaskSteps(0)
			z, err := zvm.New(zvm.Options{URL: sim.URL, Username: zvmsim.DefaultUser, Password: zvmsim.DefaultPassword, CacheDir: "-"})
			if err != nil {
				t.Fatal(err)
			}
			log := audit.Open(t.TempDir())
			cps, _ := sim.Checkpoints("lab-apps")
			cp := cps[len(cps)-1]
			rec := &audit.Record{Tool: "Bash", Decision: audit.DecisionProtected, Targets: tt.vms}
			for _, vm := range tt.vms {
				rec.Checkpoints = append(rec.Checkpoints, audit.Checkpoint{VM: vm, VMIdentifier: sim.VMIdentifier(vm),
					VPG: "lab-apps", VPGIdentifier: sim.VPGIdentifier("lab-apps"), Identifier: cp.ID, Tag: "rewind-x", Time: cp.Time})
			}
			if err := log.Append(rec); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			u := &undo{
				id: rec.ID, mode: recovery.ModeRestore, interactive: true,
				stdin: strings.NewReader(tt.typed), stdout: &stdout, stderr: &stderr,
				svc: &recovery.Service{Z: z, Log: log, Poll: time.Millisecond},
			}
			before := len(sim.Requests())
			err = u.run(context.Background())
			if !strings.Contains(stderr.String(), "To restore, type the VM name") {
				t.Errorf("no prompt: %s", stderr.String())
			}
			if !tt.restore {
				if err == nil || err.Error() != "restore not confirmed: nothing was restored" {
					t.Errorf("run = %v, want a refusal", err)
				}
				for _, r := range sim.Requests()[before:] {
					if r.Method != "GET" && strings.HasPrefix(r.Path, "/v1/") {
						t.Errorf("%s %s sent without a confirmation", r.Method, r.Path)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("run: %v (stderr %s)", err, stderr.String())
			}
			for _, vm := range tt.vms {
				if got, op, ok := sim.VMRecovery(vm); !ok || got.ID != cp.ID || op != "RestoreCommitted" {
					t.Errorf("%s: recovered %v to %s by %q", vm, ok, got.ID, op)
				}
			}
			if !strings.Contains(stdout.String(), "restored to checkpoint") {
				t.Errorf("stdout %q", stdout.String())
			}
		})
	}
}
