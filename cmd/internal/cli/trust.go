package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-dev/rewind/internal/confirm"
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

Since an agent can write such a file and run this command, trust shows the
file and asks you to type "trust" at this machine's terminal (never from
standard input); without a terminal, or run under an agent host (Claude
Code, Codex... among its parent processes, which may have made the
terminal), it trusts nothing.

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
			data, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("reading config: %w", err)
			}
			if _, err := policy.Parse(path, data); err != nil {
				return err
			}
			// An agent can write the file and run this command; a person
			// must see what is trusted, and say so where the agent cannot.
			want := policy.TrustedHash(data)
			if err := personConfirms("trust", trustText(path, want, data, ignored), "trust"); err != nil {
				return err
			}
			// The text the person was shown is trusted: a file changed
			// while they read it does not match it, and stays untrusted.
			canon, hash, err := policy.TrustData(path, data, os.Getenv)
			if err != nil {
				return err
			}
			if cur, err := os.ReadFile(path); err != nil || policy.TrustedHash(cur) != want {
				return fmt.Errorf("%s changed while you were asked: it is not trusted as it is now; run rewind trust again", canon)
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

// agentHost finds an agent host among rewind's ancestors; a test replaces
// it.
var agentHost = confirm.AgentHost

// maxShownLines bounds the lines of a config shown for its trust.
const maxShownLines = 80

// trustText says what trusting the file at path, with content data, does.
func trustText(path, hash string, data []byte, ignored []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trusting %s (%s) lets it loosen your policy: its rules come before yours, and what it sets replaces your settings, [zerto] and [targets] included.\n", path, hash)
	if len(ignored) == 0 {
		b.WriteString("Untrusted, it loses nothing it sets now.\n")
	}
	for _, s := range ignored {
		fmt.Fprintf(&b, "It would then apply: %s\n", s)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	fmt.Fprintf(&b, "Its %d lines:\n", len(lines))
	for i, l := range lines {
		if i == maxShownLines {
			fmt.Fprintf(&b, "  ... and %d more: read the file before you trust it\n", len(lines)-maxShownLines)
			break
		}
		fmt.Fprintf(&b, "  | %s\n", l)
	}
	return b.String()
}

// personConfirms shows text at this machine's terminal and asks the person
// there to type word: the confirmation of what loosens the guard (trust,
// uninstall), which no flag, piped input or agent's command without a
// terminal can give. Under an agent host (see confirm.AgentHost) no
// terminal counts: the agent may have made it (script -qc) and type into
// it. It lives in the code, not in a catalog rule, so a renamed copy of
// the binary asks the same.
func personConfirms(what, text, word string) error {
	if h, ok := agentHost(); ok {
		return &hintError{err: fmt.Errorf("%s runs under %s (process %d, %s): a terminal there may be the agent's, so it confirms nothing: nothing was changed", what, h.Name, h.PID, h.Seen),
			hint: "run rewind " + what + " in a terminal of your own, outside the agent host"}
	}
	tty, err := openTerminal()
	if err != nil {
		return &hintError{err: fmt.Errorf("%s needs a person at this machine's terminal (%v): nothing was changed", what, err),
			hint: "run it in a terminal of your own; no flag or piped input confirms it"}
	}
	defer tty.Close()
	tty.Say(text)
	ok, err := confirm.Word(tty, fmt.Sprintf("To %s, type %s; anything else cancels: ", what, word), word)
	if err != nil || !ok {
		return fmt.Errorf("%s not confirmed: nothing was changed", what)
	}
	return nil
}
