package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/rewind-dev/rewind/cmd/internal/demo"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/ui"
	"github.com/rewind-dev/rewind/zvmsim"
	"github.com/spf13/cobra"
)

func newDemoCmd() *cobra.Command {
	var asJSON, withUI bool
	cmd := &cobra.Command{
		Use:   "demo [--json] [--ui]",
		Short: "Play a scripted agent session against a simulated Zerto",
		Long: `demo shows rewind's main job without any setup. It starts a ZVM simulator
in-process on a free loopback port and hands a scripted agent session to the
same code "rewind hook" runs, one Claude Code PreToolUse event per call, on
the built-in rules. For each call it prints the decision, the reason the
agent host is told and the rewind point: a commit message quoting dangerous
commands and a read-only command pass silently, a change to a protected VM
runs with a checkpoint behind it, a change on a VPG with a slow journal
cadence is pending, a host Zerto does not know is asked, and a destroyed VM
or a checkpoint Zerto refuses is denied. Then it goes back for the protected
call as "rewind undo ID --test" does, through the same recovery code: a
failover test from the call's checkpoint, which it stops again.

Its simulator is set up for least privilege, as a real ZVM should be: the
hook's client may tag checkpoints and read, nothing more, and Zerto refuses
it the test. So the test and its stop run as the simulator's operator, whose
login the demo types itself where "rewind undo" asks you for yours. It does
so for its own in-process simulator only, never another ZVM.

It uses a temporary folder for its state, audit log, config and token
cache, and removes it at the end: your own config, state, log and
REWIND_ZVM_* settings are neither read nor touched. It exits 1 when a call
is not decided as scripted.

With --json it prints one object per step:
  {"step":N,"call":"...","decision":"none|protect|pending|ask|deny","reason":"...","checkpoint":"TAG",...}
where the two rewind steps have the decisions undo-test and undo-stop-test,
as "rewind log" names them.

With --ui it then serves the page of "rewind ui" on the demo's log and
simulator, its URL printed after the session, and keeps both until Ctrl-C;
then it cleans up as ever.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			// Interrupted, the demo still stops its simulator and removes
			// its temporary folder.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			o := demo.Options{
				Out:   out,
				JSON:  asJSON,
				Color: !asJSON && colorTerminal(out),
				Width: min(terminalWidth(out), 120),
			}
			if withUI {
				o.After = func(ctx context.Context, svc *recovery.Service) error {
					svc.Tool = uiTool
					fmt.Fprintln(cmd.ErrOrStderr(), "rewind demo: the page shows the demo's log and simulator; Ctrl-C stops them and removes the demo's folder.")
					fmt.Fprintf(cmd.ErrOrStderr(), "rewind demo: its tests and restores ask for your own Zerto login, as on a ZVM set up for least privilege: the simulator's operator is user %s, password %s (docs/simulator.md).\n",
						zvmsim.DefaultOperator, zvmsim.DefaultOperatorPassword)
					return serveUI(ctx, out, cmd.ErrOrStderr(), "127.0.0.1:0", false, ui.Options{Log: svc.Log, Recovery: svc})
				}
			}
			return demo.Run(ctx, o)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object per call")
	cmd.Flags().BoolVar(&withUI, "ui", false, "then serve the page (rewind ui) on the demo's results, until Ctrl-C")
	return cmd
}
