package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rewind-dev/rewind/policy"
	"github.com/spf13/cobra"
)

func newTestCmd() *cobra.Command {
	var (
		configPath string
		verbose    bool
		asJSON     bool
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
exits 1 when any case fails. --json prints one object instead: {"passed",
"failed", "cases": [...]}, every case with its rule, variant, origin,
command, the effect wanted and got, and, for a failure, what went wrong.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			pol, err := loadPolicy(configPath)
			if err != nil {
				return err
			}
			results := pol.SelfTest()
			out := cmd.OutOrStdout()
			passed, failed := policy.Summary(results)
			if asJSON {
				if err := writeSelfTestJSON(out, results, passed, failed); err != nil {
					return err
				}
				if failed > 0 {
					return &exitError{code: 1}
				}
				return nil
			}
			for _, r := range results {
				if verbose || !r.OK {
					fmt.Fprintln(out, r)
				}
			}
			fmt.Fprintf(out, "%d passed, %d failed\n", passed, failed)
			if failed > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "print every case, not only the failing ones")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print every case and the counts as one JSON object")
	return cmd
}

// selfTestCase is one case as rewind test --json prints it.
type selfTestCase struct {
	Name    string        `json:"name"`
	Rule    string        `json:"rule,omitempty"`
	Variant string        `json:"variant,omitempty"`
	Origin  string        `json:"origin"`
	Command string        `json:"command"`
	Want    policy.Effect `json:"want"`
	// Trip is false for a case that must stay below Want: the rule's
	// command quoted as data.
	Trip    bool          `json:"trip"`
	Got     policy.Effect `json:"got"`
	Targets []string      `json:"targets,omitempty"`
	OK      bool          `json:"ok"`
	Detail  string        `json:"detail,omitempty"`
}

func writeSelfTestJSON(w io.Writer, results []policy.TestResult, passed, failed int) error {
	cases := make([]selfTestCase, len(results))
	for i, r := range results {
		cases[i] = selfTestCase{Name: r.Name, Rule: r.Rule, Variant: r.Variant, Origin: r.Origin, Command: r.Command,
			Want: r.Want, Trip: r.Trip, Got: r.Got, Targets: r.Targets, OK: r.OK, Detail: r.Detail}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(struct {
		Passed int            `json:"passed"`
		Failed int            `json:"failed"`
		Cases  []selfTestCase `json:"cases"`
	}{passed, failed, cases})
}
