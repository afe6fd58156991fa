package cli

import (
	"strings"

	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/hook/zerto"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/logline"
	"github.com/spf13/cobra"
)

func newHookCmd() *cobra.Command {
	var (
		configPath string
		host       string
	)
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Run as the agent host's PreToolUse hook",
		Long: `hook reads one PreToolUse event on stdin and writes rewind's decision on
stdout, as the host's hook protocol says, then exits 0 (or, for the hosts
that read a refusal from the exit code, 2, with the reason on stderr). A
post-tool event is logged as the outcome of the call it follows, silently.

A call that changes nothing gets no output at all, so the host's own
permission flow goes on. A call that would change a protected VM runs only
with a Zerto checkpoint behind it; a denied or questionable call gets a
reason the person and the model can act on. Errors never crash the hook:
they follow hook.on_error (default: allow, with a warning to the user).`,
		Example: `  echo '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"uptime"}}' | rewind hook`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := hostio.ParseHost(host)
			if err != nil {
				return err
			}
			code := hook.Run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), hook.Options{
				Host:       h,
				ConfigPath: configPath,
				Stderr:     cmd.ErrOrStderr(),
				Logger:     logline.New(cmd.ErrOrStderr(), "rewind"),
				Protect:    zerto.Step{},
			})
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().StringVar(&host, "host", "claude", "the agent host whose protocol to speak: "+hostList())
	return cmd
}

// hostList names the hosts --host takes, for help texts.
func hostList() string {
	names := make([]string, len(hostio.Hosts))
	for i, h := range hostio.Hosts {
		names[i] = string(h)
	}
	return strings.Join(names, ", ")
}
