package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/rewind-dev/rewind/cmd/internal/statusline"
)

func newStatuslineCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "statusline",
		Short: "Print rewind's status line for Claude Code",
		Long: `statusline reads the JSON Claude Code gives a status line on stdin (the
session's ID and folders) and prints one line: whether a rewind hook guards
the session (installed in the project's or your settings, and its program
there), whether a ZVM is configured, how many rewind points the session has,
and its last decision. Colours unless NO_COLOR is set.

Claude Code runs it after each message, so it is as light as the hook: it
reads only the newest part of the decision log and never asks Zerto.
rewind-hook, installed beside rewind, serves it faster still. In Claude
Code's settings.json:

  "statusLine": {"type": "command", "command": "/path/to/rewind-hook statusline"}`,
		Example: `  echo '{"session_id":"s1","workspace":{"project_dir":"'"$PWD"'"}}' | rewind statusline`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			statusline.Run(cmd.InOrStdin(), cmd.OutOrStdout(), statusline.Options{Getenv: os.Getenv, Color: os.Getenv("NO_COLOR") == ""})
			return nil
		},
	}
}
