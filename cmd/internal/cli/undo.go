package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rewind-dev/rewind/internal/logline"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"

	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/internal/confirm"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

func newUndoCmd() *cobra.Command {
	var (
		configPath                  string
		stopTest, restore, rollback bool
		commit, checkpoint, passed  bool
		yes, asJSON                 bool
		vpgs                        []string
	)
	cmd := &cobra.Command{
		Use:   "undo ID",
		Short: "Go back for a logged call: a failover test from its checkpoint, or a restore to it",
		Long: `undo goes back for a call the hook protected. ID is the call's audit id from
"rewind log" (a unique prefix of at least 6 characters will do), or a bare
CheckpointIdentifier (with --checkpoint when it could be read as either).

  --test       (the default) starts a Zerto failover test from the call's
               checkpoint, for the VMs the call touched: test copies come up
               on the recovery site beside the live VMs, which are untouched.
               Where Zerto does not let rewind's own client test (a ZVM set
               up for least privilege), undo asks you at this machine's
               terminal for your own Zerto user and password and runs the
               test with them.
  --stop-test  stops that test; the test copies go away. It asks for your
               own credentials as --test does; a test rewind did not start
               is stopped only when you confirm at the terminal.
  --restore    restores the VMs the call touched to the checkpoint (a journal
               VM restore) and commits it. Every change made to them after
               the checkpoint is lost: undo says which, takes a checkpoint of
               the VMs as they are now (the restore's own way back), and asks
               you at this machine's terminal to type the VM name and your
               own Zerto user and password. Nothing else confirms a restore.
  --rollback   rolls back a restore that waits in Zerto for its commit.
  --commit     commits a restore that waits in Zerto for its commit.

A VM the hook protected in several VPGs goes back in one of them: name it
with --vpg. Zerto is reached for reading and checkpoints as the hook reaches
it (the config's [zerto] table and the REWIND_ZVM_* variables), and for tests
too where Zerto lets the hook's client test; a restore, its commit and its
rollback always run with your own credentials, typed at the terminal and
never kept. Every rewind is recorded in the audit log.`,
		Example: `  rewind undo 7k3m9qz2xw4t
  rewind undo 7k3m9q --stop-test
  rewind undo 7k3m9q --restore
  rewind undo 7k3m9q --restore --vpg lab-apps
  rewind undo --checkpoint 1000123 --test --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &hintError{err: errors.New("undo takes one ID"), hint: "rewind log lists the calls with their ids"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if yes {
				return &hintError{err: errors.New("--yes does not confirm a rewind: nothing was sent to Zerto"),
					hint: "run rewind undo in a terminal of your own: a restore asks you there for the VM name and your own Zerto credentials"}
			}
			mode := recovery.ModeTest
			switch {
			case stopTest:
				mode = recovery.ModeStopTest
			case restore:
				mode = recovery.ModeRestore
			case rollback:
				mode = recovery.ModeRollback
			case commit:
				mode = recovery.ModeCommit
			}
			if passed && mode != recovery.ModeStopTest {
				return errors.New("--passed goes with --stop-test")
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			u := &undo{
				req:    recovery.Request{ID: args[0], Checkpoint: checkpoint, Mode: mode, VPGs: vpgs},
				json:   asJSON,
				config: configPath, stdout: cmd.OutOrStdout(), stderr: cmd.ErrOrStderr(),
				getenv: os.Getenv, terminal: openTerminal,
			}
			if passed {
				u.req.Passed = &passed
			}
			u.progressTTY = isTerminal(u.stderr)
			return u.run(ctx)
		},
	}
	f := cmd.Flags()
	f.Bool("test", false, "start a failover test from the checkpoint (the default)")
	f.BoolVar(&stopTest, "stop-test", false, "stop the failover test")
	f.BoolVar(&restore, "restore", false, "restore the VMs to the checkpoint and commit; loses every later change")
	f.BoolVar(&rollback, "rollback", false, "roll back a restore that waits for its commit")
	f.BoolVar(&commit, "commit", false, "commit a restore that waits for its commit")
	f.StringArrayVar(&vpgs, "vpg", nil, "the `VPG` to go back in, for a VM protected in several (repeatable)")
	f.BoolVar(&checkpoint, "checkpoint", false, "ID is a CheckpointIdentifier, not an audit id")
	f.BoolVar(&passed, "passed", false, "with --stop-test: record in Zerto's test report that the test passed")
	f.BoolVar(&asJSON, "json", false, "print the outcome as JSON, one object per VPG")
	f.StringVar(&configPath, "config", "", "config `file` (default: discovered, as the hook does)")
	f.BoolVar(&yes, "yes", false, "no longer confirms anything")
	f.MarkHidden("yes")
	cmd.MarkFlagsMutuallyExclusive("test", "stop-test", "restore", "rollback", "commit")
	return cmd
}

// openTerminal opens the person's terminal; a test replaces it.
func openTerminal() (terminal, error) { return confirm.Open() }

// terminal is the controlling terminal, as undo uses it.
type terminal interface {
	confirm.Asker
	Close() error
}

// undo is one run of `rewind undo`.
type undo struct {
	req    recovery.Request
	json   bool
	config string
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// terminal opens the person's terminal: the controlling terminal,
	// never standard input.
	terminal func() (terminal, error)
	// progressTTY says stderr is a terminal, for a progress line.
	progressTTY bool
	// svc is set by run from the config, or beforehand by a test.
	svc *recovery.Service
}

// logger writes rewind's diagnostics to the command's stderr.
func (u *undo) logger() *slog.Logger { return logline.New(u.stderr, "rewind") }

func (u *undo) run(ctx context.Context) error {
	if u.svc == nil {
		svc, err := u.service()
		if err != nil {
			return err
		}
		u.svc = svc
	}
	req := u.req
	pr := u.progress()
	req.Progress = pr.show
	if recovery.NeedsOperator(req.Mode) {
		tty, err := u.terminal()
		if err != nil {
			return u.noTerminal(ctx, err)
		}
		defer tty.Close()
		req.Confirm = u.asOperator(tty)
	} else {
		// A test or a stop asks only when its plan needs it: Zerto refuses
		// the hook's own client, or the test to stop is someone else's.
		req.Confirm = u.confirm
	}
	results, err := u.svc.Run(ctx, req)
	pr.end()
	for _, res := range results {
		if res.State == "" && res.Task == "" {
			continue // refused before anything was sent
		}
		if perr := u.print(res); perr != nil {
			return perr
		}
	}
	if err != nil {
		return u.hint(err)
	}
	return nil
}

// noTerminal refuses a rewind that needs a person when there is nobody to
// ask: it says what the rewind would do, from reads only, and sends
// nothing that changes anything.
func (u *undo) noTerminal(ctx context.Context, cause error) error {
	plan, err := u.svc.Plan(ctx, u.req)
	if err != nil {
		return u.hint(err)
	}
	fmt.Fprintln(u.stderr, plan.Text())
	return &hintError{err: fmt.Errorf("--%s needs a person at this machine's terminal (%v): nothing was sent to Zerto", u.req.Mode, cause),
		hint: "run it in a terminal of your own: it asks for the VM name and your own Zerto user and password, which rewind does not keep"}
}

// asOperator is the confirmation of a restore, a commit or a rollback:
// the plan shown on the terminal, the VM names typed, then the person's
// own Zerto credentials.
func (u *undo) asOperator(tty terminal) func(context.Context, *recovery.Plan) (*recovery.Operator, error) {
	return func(ctx context.Context, plan *recovery.Plan) (*recovery.Operator, error) {
		tty.Say(plan.Text())
		var names []string
		for _, p := range plan.Points {
			names = append(names, p.VMNames()...)
		}
		what := "the VM name (" + names[0] + ")"
		if len(names) > 1 {
			what = "the VM names, separated by commas (" + strings.Join(names, ", ") + ")"
		}
		verb := map[string]string{recovery.ModeRestore: "restore", recovery.ModeRollback: "roll back", recovery.ModeCommit: "commit"}[plan.Mode]
		line, err := tty.Line(fmt.Sprintf("To %s, type %s; anything else cancels: ", verb, what))
		if err != nil || !recovery.NamesTyped(line, names) {
			return nil, &recovery.ConfirmError{Mode: plan.Mode, Reason: fmt.Sprintf("%s not confirmed: nothing was %s", plan.Mode, pastTense(plan.Mode))}
		}
		tty.Say("This runs with your own Zerto credentials, not rewind's; they are used for it and not kept.")
		return u.credentials(tty, plan)
	}
}

// credentials asks for the person's own Zerto user and password, and
// returns their Operator.
func (u *undo) credentials(tty terminal, plan *recovery.Plan) (*recovery.Operator, error) {
	user, err := tty.Line("Zerto user: ")
	if err != nil {
		return nil, &recovery.ConfirmError{Mode: plan.Mode, Reason: "no Zerto user typed: nothing was " + pastTense(plan.Mode)}
	}
	password, err := tty.Secret("Password: ")
	if err != nil {
		return nil, &recovery.ConfirmError{Mode: plan.Mode, Reason: "no password typed: nothing was " + pastTense(plan.Mode)}
	}
	return u.svc.NewOperator(user, password)
}

// confirm is the confirmation of a test or a stop that needs one, at the
// terminal: the person's own Zerto credentials where Zerto refuses the
// hook's client (the plan says why, and typing them is the confirmation),
// else, for a test rewind did not start, the word stop.
func (u *undo) confirm(ctx context.Context, plan *recovery.Plan) (*recovery.Operator, error) {
	if h, ok := agentHost(); ok && !plan.AsPerson {
		// The word alone confirms the stop: under an agent host, the
		// terminal may be one the agent made (script -qc) and types into.
		fmt.Fprintln(u.stderr, plan.Text())
		reason := fmt.Sprintf("the failover test was not started by rewind, and stopping it needs a person; this runs under %s (process %d), whose terminal may be the agent's: nothing was stopped", h.Name, h.PID)
		return nil, &recovery.ConfirmError{Mode: plan.Mode, Reason: reason, Refused: plan.Refused}
	}
	tty, err := u.terminal()
	if err != nil {
		fmt.Fprintln(u.stderr, plan.Text())
		reason := fmt.Sprintf("the failover test was not started by rewind, and stopping it needs a person at this machine's terminal (%v): nothing was stopped", err)
		switch {
		case plan.AsPerson && plan.Foreign():
			reason = fmt.Sprintf("the failover test was not started by rewind, and stopping it runs with your own Zerto credentials here, which needs a person at this machine's terminal (%v): nothing was stopped", err)
		case plan.AsPerson:
			reason = fmt.Sprintf("--%s runs with your own Zerto credentials here, and asking for them needs a person at this machine's terminal (%v): nothing was %s",
				plan.Mode, err, pastTense(plan.Mode))
		}
		return nil, &recovery.ConfirmError{Mode: plan.Mode, Reason: reason, Refused: plan.Refused}
	}
	defer tty.Close()
	tty.Say(plan.Text())
	if plan.AsPerson {
		return u.credentials(tty, plan)
	}
	ok, err := confirm.Word(tty, "To stop it, type stop; anything else cancels: ", "stop")
	if err != nil || !ok {
		return nil, &recovery.ConfirmError{Mode: plan.Mode, Reason: "stop not confirmed: nothing was stopped"}
	}
	return nil, nil
}

func pastTense(mode string) string {
	switch mode {
	case recovery.ModeRestore:
		return "restored"
	case recovery.ModeRollback:
		return "rolled back"
	case recovery.ModeCommit:
		return "committed"
	case recovery.ModeStopTest:
		return "stopped"
	case recovery.ModeTest:
		return "started"
	}
	return "done"
}

// service builds the Service from the config and environment, the way the
// hook reaches Zerto.
func (u *undo) service() (*recovery.Service, error) {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = ""
	}
	cfg, err := policy.Find(u.config, cwd, u.getenv)
	if err != nil {
		return nil, err
	}
	zo, err := zvm.ConfigOptions(cfg.Zerto, zvm.Setup{Getenv: u.getenv, Logger: u.logger()})
	var z *zvm.Client
	if err == nil {
		z, err = zvm.New(zo)
	}
	switch {
	case errors.Is(err, zvm.ErrNotConfigured):
		return nil, &hintError{err: errors.New("no Zerto configured: nothing to go back with"), hint: zvm.Hint(err)}
	case err != nil:
		return nil, u.hint(err)
	}
	dir, err := dirs.State(u.getenv)
	if err != nil {
		return nil, err
	}
	svc := recovery.NewService(cfg, z, zo, dir)
	svc.Logger = u.logger()
	return svc, nil
}

// print writes the outcome of a rewind in one VPG.
func (u *undo) print(res recovery.Result) error {
	p := res.Point
	id := p.AuditID
	if id == "" {
		id = p.Checkpoint
	}
	if u.json {
		type before struct {
			ID         string `json:"id"`
			Checkpoint string `json:"checkpoint"`
			Tag        string `json:"tag"`
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
			Committed    []string `json:"committed,omitempty"`
			Before       *before  `json:"before,omitempty"`
			As           string   `json:"as,omitempty"`
		}{ID: id, Mode: res.Mode, VPG: p.VPG, VMs: p.VMNames(), Checkpoint: p.Checkpoint, Tag: p.Tag, Task: res.Task, State: res.State,
			TestVMs: res.TestVMs, RecoverySite: res.RecoverySite, Committed: res.Committed, As: res.As}
		if b := res.Before; b.AuditID != "" {
			out.Before = &before{ID: b.AuditID, Checkpoint: b.Checkpoint, Tag: b.Tag}
		}
		enc := json.NewEncoder(u.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(out)
	}
	cp := describe(p)
	vms := strings.Join(p.VMNames(), ", ")
	w := u.stdout
	as := ""
	if res.As != "" {
		as = ", as Zerto user " + res.As
	}
	switch res.Mode {
	case recovery.ModeTest:
		fmt.Fprintf(w, "Failover test of VPG %s from %s%s: task %s.\n", p.VPG, cp, as, res.State)
		fmt.Fprintf(w, "Test copies on recovery site %s: %s\n", res.RecoverySite, strings.Join(res.TestVMs, ", "))
		fmt.Fprintf(w, "The live VM%s (%s) %s untouched. When you have checked the copies, stop the test:\n  rewind undo %s --stop-test%s\n",
			plural(len(p.VMs)), vms, isAre(len(p.VMs)), u.req.ID, u.vpgFlag(p))
	case recovery.ModeStopTest:
		fmt.Fprintf(w, "Failover test of VPG %s stopped%s: task %s. Its test copies are gone.\n", p.VPG, as, res.State)
	case recovery.ModeRollback:
		fmt.Fprintf(w, "The journal restore of %s (VPG %s) is rolled back: task %s.\n", vms, p.VPG, res.State)
	case recovery.ModeCommit:
		fmt.Fprintf(w, "The journal restore of %s (VPG %s) is committed: task %s.\n", vms, p.VPG, res.State)
	default:
		if len(res.Committed) == 0 {
			return nil
		}
		fmt.Fprintf(w, "%s (VPG %s) restored to %s and committed: Zerto's commit task %s.\n", strings.Join(res.Committed, ", "), p.VPG, cp, res.State)
		if b := res.Before; b.AuditID != "" {
			fmt.Fprintf(w, "%s as %s just before the restore: %s. To undo the restore:\n  rewind undo %s --restore\n", vms, wasWere(len(p.VMs)), describe(b), b.AuditID)
		}
	}
	return nil
}

// vpgFlag repeats the person's choice of VPG in a command to run next.
func (u *undo) vpgFlag(p recovery.Point) string {
	if len(u.req.VPGs) == 0 {
		return ""
	}
	return " --vpg " + p.VPG
}

// describe names a rewind point's checkpoint for a person.
func describe(p recovery.Point) string {
	cp := "checkpoint " + p.Checkpoint
	if p.Tag != "" {
		cp = fmt.Sprintf("checkpoint %q (CheckpointIdentifier %s)", p.Tag, p.Checkpoint)
	}
	if !p.Time.IsZero() {
		cp += " of " + p.Time.UTC().Format("2006-01-02T15:04:05Z")
	}
	return cp
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func wasWere(n int) string {
	if n == 1 {
		return "it was"
	}
	return "they were"
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
		nf   *recovery.NotFoundError
		amb  *audit.AmbiguousError
		pe   *recovery.PrefixError
		ce   *recovery.ChoiceError
		np   *recovery.NotProtectedError
		ao   *recovery.AgedOutError
		se   *recovery.StateError
		he   *recovery.HookCredentialsError
		le   *recovery.LoginError
		conf *recovery.ConfirmError
	)
	id := u.req.ID
	h := ""
	switch {
	case errors.As(err, &nf):
		h = "rewind log lists the calls with their ids"
	case errors.As(err, &pe) && pe.Digits:
		h = "type the whole audit id from rewind log, or name the checkpoint: rewind undo --checkpoint " + id
	case errors.As(err, &pe):
		h = "rewind log lists the calls with their ids"
	case errors.As(err, &amb):
		h = "type more of the id"
	case errors.As(err, &ce) && len(ce.VPGs) > 0:
		h = fmt.Sprintf("choose with --vpg: rewind undo %s --%s --vpg %s", id, u.req.Mode, ce.VPGs[0])
	case errors.As(err, &np):
		h = "only a call logged as protected has a checkpoint to go back to; rewind log shows each call's decision"
	case errors.As(err, &ao) && ao.Emptied:
		h = "the checkpoints from before the re-sync are gone: go back to a later call in rewind log"
	case errors.As(err, &ao):
		h = "Zerto keeps checkpoints for the VPG's journal history: go back to a later call in rewind log, or lengthen the VPG's journal history"
	case errors.As(err, &se) && se.TestRunning:
		h = "stop the test first: rewind undo " + id + " --stop-test"
	case errors.As(err, &se) && u.req.Mode == recovery.ModeStopTest:
		h = "start one with: rewind undo " + id + " --test"
	case errors.As(err, &se):
		h = "wait until Zerto's operation on the VPG has ended"
	case errors.As(err, &conf) && conf.Refused != nil:
		h = "run it in a terminal of your own: it asks for your own Zerto user and password, which rewind does not keep (rewind's own client may tag checkpoints and read, nothing more: docs/zvm-setup.md)"
	case errors.As(err, &conf):
	case errors.As(err, &he):
		h = "type your own Zerto user and password: rewind's own credentials never go back (docs/undo.md)"
	case errors.As(err, &le):
		h = "check your Zerto user name and password, and run the command again"
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

// progressLine shows a rewind's progress on stderr: one line rewritten in
// place on a terminal, else a plain line at each change.
type progressLine struct {
	u    *undo
	last string
	open bool
}

func (u *undo) progress() *progressLine { return &progressLine{u: u} }

func (p *progressLine) show(pr recovery.Progress) {
	if p.u.json && !p.u.progressTTY {
		// Scripts that asked for JSON get no chatter.
		return
	}
	if pr.Text != "" {
		p.end()
		fmt.Fprintln(p.u.stderr, strings.ToUpper(pr.Text[:1])+pr.Text[1:])
		return
	}
	t := pr.Task
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

// restoreEndpoints is doctor's check that the ZVM offers the journal VM
// restore `rewind undo --restore` needs, asked without restoring anything
// (see recovery.RestoreEndpoints).
func (d *doctor) restoreEndpoints(ctx context.Context, c *zvm.Client) {
	missing, err := recovery.RestoreEndpoints(ctx, c)
	switch {
	case err != nil:
		d.line(checkWarn, "restore endpoints", "cannot tell: "+err.Error(), "check with Zerto's API documentation for your ZVM version (docs/undo.md)")
	case len(missing) > 0:
		d.line(checkWarn, "restore endpoints", recovery.RestoreEndpointsText(missing), "use rewind undo --test, or a ZVM version with journal VM restore")
	default:
		d.line(checkOK, "restore endpoints", recovery.RestoreEndpointsText(nil), "")
	}
}
