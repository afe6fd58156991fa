package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

func newUndoCmd() *cobra.Command {
	var (
		configPath        string
		stopTest, restore bool
		yes, asJSON       bool
	)
	cmd := &cobra.Command{
		Use:   "undo ID",
		Short: "Go back for a logged call: a failover test from its checkpoint, or a restore to it",
		Long: `undo goes back for a call the hook protected. ID is the call's audit id from
"rewind log" (a unique prefix will do), or a bare CheckpointIdentifier.

  --test       (the default) starts a Zerto failover test from the call's
               checkpoint, for the VMs the call touched: test copies come up
               on the recovery site beside the live VMs, which are untouched.
  --stop-test  stops that test; the test copies go away.
  --restore    restores the VMs the call touched to the checkpoint (a journal
               VM restore) and commits it. Every change made to them after
               the checkpoint is lost: undo says which, and asks you to type
               the VM name, or takes --yes. Without either it sends nothing.

Zerto is reached as the hook reaches it: the config's [zerto] table and the
REWIND_ZVM_* variables. Every test, stop and restore is recorded in the
audit log.`,
		Example: `  rewind undo 7k3m9qz2xw4t
  rewind undo 7k3m --stop-test
  rewind undo 7k3m --restore
  rewind undo 1000123 --restore --yes --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &hintError{err: errors.New("undo takes one ID"), hint: "rewind log lists the calls with their ids"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			mode := recovery.ModeTest
			switch {
			case stopTest:
				mode = recovery.ModeStopTest
			case restore:
				mode = recovery.ModeRestore
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			u := &undo{
				id: args[0], mode: mode, yes: yes, json: asJSON, configPath: configPath,
				stdin: cmd.InOrStdin(), stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(),
				getenv: os.Getenv,
			}
			u.progressTTY = isTerminal(u.stderr)
			u.interactive = u.progressTTY && isTerminal(u.stdin)
			return u.run(ctx)
		},
	}
	f := cmd.Flags()
	f.Bool("test", false, "start a failover test from the checkpoint (the default)")
	f.BoolVar(&stopTest, "stop-test", false, "stop the failover test")
	f.BoolVar(&restore, "restore", false, "restore the VMs to the checkpoint and commit; loses every later change")
	f.BoolVar(&yes, "yes", false, "with --restore: restore without asking")
	f.BoolVar(&asJSON, "json", false, "print the outcome as JSON, one object per VPG")
	f.StringVar(&configPath, "config", "", "config `file` (default: discovered, as the hook does)")
	cmd.MarkFlagsMutuallyExclusive("test", "stop-test", "restore")
	return cmd
}

// undo is one run of `rewind undo`.
type undo struct {
	id, mode   string
	yes, json  bool
	configPath string
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	getenv     func(string) string
	// interactive says a person can be asked: stdin and stderr are a
	// terminal. progressTTY says stderr is one, for a progress line.
	interactive, progressTTY bool
	// svc is set by run from the config, or beforehand by a test.
	svc *recovery.Service
}

func (u *undo) warnf(format string, args ...any) {
	fmt.Fprintf(u.stderr, "rewind: "+format+"\n", args...)
}

func (u *undo) run(ctx context.Context) error {
	if u.svc == nil {
		svc, err := u.service()
		if err != nil {
			return err
		}
		u.svc = svc
	}
	points, err := u.svc.Find(ctx, u.id)
	if err != nil {
		return u.hint(err)
	}
	if u.mode == recovery.ModeRestore {
		if err := u.confirm(ctx, points); err != nil {
			return err
		}
	}
	for _, p := range points {
		var (
			res recovery.Result
			err error
		)
		pr := u.progress()
		switch u.mode {
		case recovery.ModeTest:
			res, err = u.svc.Test(ctx, p, pr.show)
		case recovery.ModeStopTest:
			res, err = u.svc.StopTest(ctx, p, pr.show)
		default:
			res, err = u.svc.Restore(ctx, p, pr.show)
		}
		pr.end()
		if err != nil {
			return u.hint(err)
		}
		if err := u.print(res); err != nil {
			return err
		}
	}
	return nil
}

// service builds the Service from the config and environment, the way the
// hook reaches Zerto.
func (u *undo) service() (*recovery.Service, error) {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	cfg, err := policy.Find(u.configPath, cwd, u.getenv)
	if err != nil {
		return nil, err
	}
	z, err := zvm.FromConfig(cfg.Zerto, zvm.Setup{Getenv: u.getenv, Warnf: u.warnf})
	switch {
	case errors.Is(err, zvm.ErrNotConfigured):
		return nil, &hintError{err: errors.New("no Zerto configured: nothing to go back with"), hint: zvm.Hint(err)}
	case err != nil:
		return nil, u.hint(err)
	}
	dir, err := audit.StateDir(u.getenv)
	if err != nil {
		return nil, err
	}
	return &recovery.Service{Z: z, Log: audit.Open(dir), Warnf: u.warnf}, nil
}

// confirm states what a restore loses and asks for it to be confirmed:
// --yes, or the VM names typed on a terminal. Nothing is sent to Zerto
// before the answer.
func (u *undo) confirm(ctx context.Context, points []recovery.Point) error {
	var names []string
	for _, p := range points {
		loss, err := u.svc.Loss(ctx, p)
		if err != nil {
			return err
		}
		fmt.Fprintln(u.stderr, loss.Text)
		names = append(names, p.VMNames()...)
	}
	if !u.yes && !u.interactive {
		return &hintError{err: errors.New("--restore needs a confirmation: nothing was sent to Zerto"),
			hint: fmt.Sprintf("run it on a terminal to confirm by typing the VM name, or add --yes: rewind undo %s --restore --yes", u.id)}
	}
	// A restore bound to fail (aged out, a test running) is said before
	// the person is asked to confirm it, and, for a call that touched
	// several VPGs, before any of them is restored: a restore is not
	// undone, so it is all of them or none.
	for _, p := range points {
		if err := u.svc.Check(ctx, p, recovery.ModeRestore); err != nil {
			return u.hint(err)
		}
	}
	if u.yes {
		return nil
	}
	what := "the VM name (" + names[0] + ")"
	if len(names) > 1 {
		what = "the VM names, separated by commas (" + strings.Join(names, ", ") + ")"
	}
	fmt.Fprintf(u.stderr, "To restore, type %s; anything else cancels: ", what)
	line, err := bufio.NewReader(u.stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(u.stderr)
	}
	if !recovery.NamesTyped(line, names) {
		return errors.New("restore not confirmed: nothing was restored")
	}
	return nil
}

// print writes the outcome of a rewind.
func (u *undo) print(res recovery.Result) error {
	p := res.Point
	if u.json {
		id := p.AuditID
		if id == "" {
			id = p.Checkpoint
		}
		out := struct {
			ID           string   `json:"id"`
			Mode         string   `json:"mode"`
			VPG          string   `json:"vpg"`
			VMs          []string `json:"vms"`
			Checkpoint   string   `json:"checkpoint"`
			Tag          string   `json:"tag"`
			Task         string   `json:"task"`
			State        string   `json:"state"`
			TestVMs      []string `json:"test_vms,omitempty"`
			RecoverySite string   `json:"recovery_site,omitempty"`
		}{id, res.Mode, p.VPG, p.VMNames(), p.Checkpoint, p.Tag, res.Task, res.State, res.TestVMs, res.RecoverySite}
		enc := json.NewEncoder(u.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	cp := "checkpoint " + p.Checkpoint
	if p.Tag != "" {
		cp = fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s)", p.Tag, p.Checkpoint)
	}
	if !p.Time.IsZero() {
		cp += " of " + p.Time.UTC().Format("2006-01-02T15:04:05Z")
	}
	vms := strings.Join(p.VMNames(), ", ")
	w := u.stdout
	switch res.Mode {
	case recovery.ModeTest:
		fmt.Fprintf(w, "Failover test of VPG %s from %s: task %s.\n", p.VPG, cp, res.State)
		fmt.Fprintf(w, "Test copies on recovery site %s: %s\n", res.RecoverySite, strings.Join(res.TestVMs, ", "))
		fmt.Fprintf(w, "The live VM%s (%s) %s untouched. When you have checked the copies, stop the test:\n  rewind undo %s --stop-test\n",
			plural(len(p.VMs)), vms, isAre(len(p.VMs)), u.id)
	case recovery.ModeStopTest:
		fmt.Fprintf(w, "Failover test of VPG %s stopped: task %s. Its test copies are gone.\n", p.VPG, res.State)
	default:
		fmt.Fprintf(w, "%s (VPG %s) restored to %s and committed: task %s.\n", vms, p.VPG, cp, res.State)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// hint adds to err the fix a person can make, when there is one.
func (u *undo) hint(err error) error {
	var (
		nf  *recovery.NotFoundError
		amb *audit.AmbiguousError
		np  *recovery.NotProtectedError
		ao  *recovery.AgedOutError
		se  *recovery.StateError
	)
	h := ""
	switch {
	case errors.As(err, &nf):
		h = "rewind log lists the calls with their ids"
	case errors.As(err, &amb):
		h = "type more of the id"
	case errors.As(err, &np):
		h = "only a call logged as protected has a checkpoint to go back to; rewind log shows each call's decision"
	case errors.As(err, &ao):
		h = "Zerto keeps checkpoints for the VPG's journal history: go back to a later call in rewind log, or lengthen the VPG's journal history"
	case errors.As(err, &se) && se.TestRunning:
		h = "stop the test first: rewind undo " + u.id + " --stop-test"
	case errors.As(err, &se) && u.mode == recovery.ModeStopTest:
		h = "start one with: rewind undo " + u.id + " --test"
	case errors.As(err, &se):
		h = "wait until Zerto's operation on the VPG has ended"
	case errors.Is(err, context.Canceled):
		h = "a Zerto task already started goes on without rewind: follow it in Zerto's console"
	default:
		h = zvm.Hint(err)
	}
	if h == "" {
		return err
	}
	return &hintError{err: err, hint: h}
}

// progressLine shows a task's progress on stderr: one line rewritten in
// place on a terminal, else a plain line at each change.
type progressLine struct {
	u    *undo
	last string
	open bool
}

func (u *undo) progress() *progressLine { return &progressLine{u: u} }

func (p *progressLine) show(t zvm.Task) {
	if p.u.json && !p.u.progressTTY {
		// Scripts that asked for JSON get no chatter.
		return
	}
	line := fmt.Sprintf("%s: %s %d%%", t.Type, t.State, t.Progress)
	if t.Type == "" {
		line = fmt.Sprintf("task %s: %s %d%%", t.Identifier, t.State, t.Progress)
	}
	if line == p.last {
		return
	}
	p.last = line
	if p.u.progressTTY {
		fmt.Fprintf(p.u.stderr, "\r\033[K%s", line)
		p.open = true
		return
	}
	fmt.Fprintln(p.u.stderr, line)
}

func (p *progressLine) end() {
	if p.open {
		fmt.Fprintln(p.u.stderr)
		p.open = false
	}
}

// isTerminal reports whether f is a terminal; /dev/null, a character
// device too, is not one.
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	return ok && term.IsTerminal(int(file.Fd()))
}
