package cli

import (
	"fmt"

	"github.com/rewind-dev/rewind/internal/version"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print rewind's version",
		Long: `version prints the release version, else the module version, else the
commit the binary was built from (with its time, and "modified" when the
tree had uncommitted changes), then the Go toolchain.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "rewind %s\n", version.String())
			return err
		},
	}
}
