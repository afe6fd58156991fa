package cli

import (
	"context"
	"errors"
	"github.com/rewind-dev/rewind/internal/logline"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/internal/version"
	"github.com/rewind-dev/rewind/mcpserver"
	"github.com/spf13/cobra"
)

func newMCPCmd() *cobra.Command {
	var configPath string
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve rewind's MCP tools on stdio",
		Long: `mcp serves rewind's tools to an agent over the Model Context Protocol, on
stdin and stdout: check a call the way the hook will judge it (and take its
checkpoint), list VPGs, VMs, checkpoints and rewind points, take a checkpoint
now, start or stop a failover test, restore a VM to a checkpoint, and follow a
Zerto task. The effective rules are served as the resource rewind://catalog.

Register it with the agent host, for Claude Code:
  claude mcp add rewind -- rewind mcp

Nothing but the protocol is written on stdout; diagnostics go to stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			wd, err := os.Getwd()
			if err != nil {
				return err
			}
			srv := mcpserver.New(mcpserver.Options{
				ConfigPath: configPath,
				Dir:        wd,
				Logger:     logline.New(cmd.ErrOrStderr(), "rewind mcp"),
				Version:    version.String(),
			})
			err = srv.Run(cmd.Context(), mcpserver.Transport(cmd.InOrStdin(), cmd.OutOrStdout()))
			if errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	return cmd
}
