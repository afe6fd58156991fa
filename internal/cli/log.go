package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/rewind-dev/rewind/audit"
)

func newLogCmd() *cobra.Command {
	var (
		asJSON  bool
		session string
		limit   int
	)
	cmd := &cobra.Command{
		Use:   "log",
		Short: "Print the decision log, newest last",
		Long: `Print the hook's decisions from the audit log in rewind's state folder
($REWIND_STATE_DIR, else $XDG_STATE_HOME/rewind, else ~/.local/state/rewind),
oldest first so that the newest is last. Each line starts with the
decision's ID, which "rewind undo" takes (a unique prefix will do).

The table has the columns ID, TIME (local), DECISION, TARGETS (each as
written, "→" the Zerto VM the config maps it to), CALL and REASON (the
checkpoint of a protected or pending call or of a rewind, else what the
agent host was told). It fits the terminal, or 100 columns when the output is not a
terminal, cutting long cells with "…"; --json prints the records whole.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if limit < 0 {
				return errors.New("--limit must not be negative")
			}
			dir, err := audit.StateDir(os.Getenv)
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
			if !asJSON {
				return audit.WriteTableWidth(cmd.OutOrStdout(), recs, terminalWidth(cmd.OutOrStdout()))
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
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
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON lines, as stored")
	cmd.Flags().StringVar(&session, "session", "", "only the decisions of agent session `S`")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "only the last `N` decisions")
	return cmd
}
