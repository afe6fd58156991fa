package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-dev/rewind/policy"
	"github.com/spf13/cobra"
)

func newTrustCmd() *cobra.Command {
	var revoke bool
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Trust a project config, so that it may loosen your policy",
		Long: `trust records the content of a project config (.rewind.toml; by default the
one found from the current folder upwards) as trusted, by its SHA-256 hash, in
rewind's state folder, as direnv allow does.

An agent can write files in its project, so an untrusted project config can
only tighten your policy: it may add rules and make verdicts stricter, but not
turn a protect or deny of your config or the catalog into none, shorten the
budget below 10s, loosen hook.on_error or hook.pending, or change [zerto] or
[targets]. A trusted one is laid over your config: its rules come first and
the settings it sets replace yours. Editing the file makes it untrusted again.

--revoke forgets the trust of the file.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := trustTarget(args)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if revoke {
				was, err := policy.Revoke(path, os.Getenv)
				if err != nil {
					return err
				}
				if !was {
					fmt.Fprintf(out, "%s was not trusted\n", path)
					return nil
				}
				fmt.Fprintf(out, "%s is no longer trusted: it can only tighten the policy\n", path)
				return nil
			}
			// What the file could not do untrusted, to say what trust
			// changes; a file Find does not reach from its own folder
			// (another user config is named) has nothing to report.
			var ignored []string
			if cfg, err := policy.Find("", filepath.Dir(path), os.Getenv); err == nil {
				_, ignored = cfg.Untrusted()
			}
			canon, hash, err := policy.Trust(path, os.Getenv)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "trusted %s (%s)\nit may now loosen your policy; an edit makes it untrusted again\n", canon, hash)
			for _, s := range ignored {
				s, _, _ = strings.Cut(s, " (")
				fmt.Fprintf(out, "now applies: %s\n", s)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&revoke, "revoke", false, "forget the trust of the file")
	return cmd
}

// trustTarget is the file named, or the project config found from the
// working directory upwards.
func trustTarget(args []string) (string, error) {
	if len(args) == 1 {
		if strings.TrimSpace(args[0]) == "" {
			return "", errors.New("empty file name")
		}
		return args[0], nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	_, projects, err := policy.Discover("", cwd, func(string) string { return "" })
	if err != nil {
		return "", err
	}
	if len(projects) == 0 {
		return "", &hintError{
			err:  fmt.Errorf("no %s in %s or a folder above it", policy.ProjectFile, cwd),
			hint: "name the file: rewind trust path/to/.rewind.toml",
		}
	}
	return projects[0], nil
}
