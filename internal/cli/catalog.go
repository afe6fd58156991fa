package cli

import (
	"github.com/rewind-dev/rewind/policy"
	"github.com/spf13/cobra"
)

func newCatalogCmd() *cobra.Command {
	var (
		configPath string
		asTOML     bool
	)
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "Print the effective rules",
		Long: `catalog prints the rules in the order they are tried: the config's rules
first, then the built-in catalog's; within a list the first matching rule
wins. Each rule shows its effect, its kind, its family (the way of
reaching a VM it belongs to; [catalog] disable = ["gcloud", ...] in the
config turns a catalog family off), the name verdicts give it, the
conditions it needs besides its name (in the config's own keys: on,
args_any, args_none, payload_contains, target, paths, vm_arg...) and its
reason. With --toml it prints the built-in catalog itself, a config file
that can be copied and edited.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			if asTOML {
				_, err := out.Write(policy.Catalog())
				return err
			}
			pol, err := loadPolicy(configPath)
			if err != nil {
				return err
			}
			return pol.WriteRules(out)
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().BoolVar(&asTOML, "toml", false, "print the built-in catalog as TOML")
	return cmd
}
