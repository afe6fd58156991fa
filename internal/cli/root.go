package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Run runs the rewind command line with args (without the program name) and
// returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	if len(args) > 0 && args[0] == "hook" {
		// The hook runs before every tool call: it is spared building
		// the other commands, which it cannot reach.
		root.AddCommand(newHookCmd())
	} else {
		addCommands(root)
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "rewind: %s\n", ee.msg)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "rewind: %v\n", err)
	var he interface{ Hint() string }
	if errors.As(err, &he) && he.Hint() != "" {
		fmt.Fprintf(stderr, "hint: %s\n", he.Hint())
	}
	return 1
}

// exitError ends a command with a given exit code and, optionally, a message
// already formatted for stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "rewind",
		Short: "Zerto checkpoints before an AI agent changes a VM",
		Long: `rewind sits in an agent host's PreToolUse hook. Before a tool call changes a
VM that Zerto protects, it has Zerto write a tagged checkpoint into that VM's
journal, waits until the checkpoint exists, and tells the agent which
checkpoint undoes the change. Calls that change nothing pass silently.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root
}

// addCommands adds every subcommand to root.
func addCommands(root *cobra.Command) {
	root.AddCommand(
		newVersionCmd(),
		newHookCmd(),
		newExplainCmd(),
		newTestCmd(),
		newCatalogCmd(),
		newSimCmd(),
		newLogCmd(),
		newInstallCmd(), newUninstallCmd(), newDoctorCmd(),
		newUndoCmd(),
		newDemoCmd(),
		newTrustCmd(),
		newMCPCmd(),
		newUICmd(),
		// Subcommands are added here, one line each.
	)
}

// hintError is an error with a hint, printed on a line of its own.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }
func (e *hintError) Hint() string  { return e.hint }
