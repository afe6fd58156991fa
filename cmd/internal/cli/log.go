package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/spf13/cobra"

	"github.com/rewind-dev/rewind/audit"
)

// minLogWidth is the narrowest table rewind log lays out: its fixed
// columns take 42, and each other keeps a few characters.
const minLogWidth = 60

func newLogCmd() *cobra.Command {
	var (
		asJSON  bool
		session string
		limit   int
		width   int
		utc     bool
		color   = colorAuto
	)
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print the decision log, newest last",
		Long: `Print the hook's decisions from the audit log in rewind's state folder
($REWIND_STATE_DIR, else $XDG_STATE_HOME/rewind, else ~/.local/state/rewind),
oldest first so that the newest is last. Each line starts with the
decision's ID, which "rewind undo" takes (a unique prefix will do).

The columns: ID; TIME, in this machine's time zone (UTC with --utc), which
its header names; DECISION, coloured on a terminal; OUTCOME, how the call
ended as the host's post-tool hook reported it: "ran", "exit N" (a
command's non-zero status), "error", "stopped" (interrupted), "not run"
(the host never ran it: a person declined it, or another hook refused it),
"-" while unknown (a host with no post-tool hook reports nothing);
TARGETS, each as written, "→" the Zerto VM the config maps it to; CALL,
the command, or the tool and its input; REASON, the checkpoint tag of a
protected call, of a rewind or of a checkpoint taken on its own, the tag
and retry time of a pending call, why a rewind failed, else what the
agent host was told.

The table fits the terminal, or 100 columns when the output is not a
terminal (--width sets it), one line per decision: no row wraps. CALL gets
the room first, then REASON, then TARGETS. OUTCOME is shown when the
outcome of a call listed is known and the terminal leaves the other
columns room beside it (from about 90 columns). A long cell is shortened
with "…": a command keeps its start, a tag its start and end, a reason the
part that says why. --json prints the records whole, one JSON line each,
as the log stores them, with each call's outcome joined in ("outcome").
An outcome is never a line of the table, and -n counts decisions only.`,
		Example: `  rewind log -n 20                 # the last 20 decisions
  rewind log --session "$ID" --utc
  rewind log --width 200 | less -S
  rewind log --json | jq 'select(.decision == "deny")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return flagError(cmd, "limit", fmt.Sprint(limit), "a whole number, 0 or more")
			}
			if cmd.Flags().Changed("width") && width < minLogWidth {
				return flagError(cmd, "width", fmt.Sprint(width), fmt.Sprintf("a number of columns, %d or more", minLogWidth))
			}
			dir, err := dirs.State(os.Getenv)
			if err != nil {
				return err
			}
			l := audit.Open(dir)
			recs, err := l.Read(audit.Filter{Session: session, Limit: limit})
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				if session != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "no decisions logged for session %q (log: %s)\n", session, l.Path())
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "no decisions logged yet (log: %s)\n", l.Path())
				}
				return nil
			}
			out := cmd.OutOrStdout()
			if !asJSON {
				o := audit.TableOptions{Width: width, Color: color.enabled(out, os.Getenv), Outcome: audit.OutcomeText}
				if o.Width == 0 {
					o.Width = terminalWidth(out)
				}
				if utc {
					o.Location = time.UTC
				}
				return audit.WriteTableOptions(out, recs, o)
			}
			w := bufio.NewWriter(out)
			enc := json.NewEncoder(w)
			// The same encoding as the log file, so lines read as stored.
			enc.SetEscapeHTML(false)
			for i := range recs {
				if err := enc.Encode(&recs[i]); err != nil {
					return err
				}
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the records whole, one JSON line each, as stored, with their outcome")
	cmd.Flags().StringVar(&session, "session", "", "only the decisions of agent session `S`")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "only the last `N` decisions")
	cmd.Flags().IntVar(&width, "width", 0, "fit the table in `COLUMNS` (default: the terminal's, 100 when not a terminal)")
	cmd.Flags().BoolVar(&utc, "utc", false, "show times in UTC rather than this machine's time zone")
	cmd.Flags().Var(&color, "color", "`when` to colour the decisions: auto (on a terminal, unless NO_COLOR is set), always or never")
	return cmd
}
