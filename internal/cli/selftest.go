package cli

import (
	"fmt"

	"github.com/rewind-dev/rewind/policy"
	"github.com/spf13/cobra"
)

func newTestCmd() *cobra.Command {
	var (
		configPath string
		verbose    bool
	)
	cmd := &cobra.Command{
		Use:   "test",
		Short: "Run the policy's self-tests",
		Long: `test runs the [[test]] cases of the config and of the built-in catalog and,
for every deny and protect rule, a generated matrix in both directions: the
rule's command quoted in a commit message, a quoted heredoc and an echo must
not trip it; the command itself, after &&, under sudo and env, inside bash -c
and inside $(...) must.

It prints a line per failing case and a summary "N passed, M failed", and
exits 1 when any case fails.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pol, err := loadPolicy(configPath)
			if err != nil {
				return err
			}
			results := pol.SelfTest()
			out := cmd.OutOrStdout()
			for _, r := range results {
				if verbose || !r.OK {
					fmt.Fprintln(out, r)
				}
			}
			passed, failed := policy.Summary(results)
			fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
			if failed > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print every case, not only the failing ones")
	return cmd
}
