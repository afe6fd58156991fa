package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rewind-dev/rewind/cmd/internal/hookfront"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/install"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/policy"
	"github.com/spf13/cobra"
)

// installFlags are the flags install and uninstall share.
type installFlags struct {
	scope, host, configPath string
	dryRun, json, failOpen  bool
	// install is set for install, whose config sets the hook's timeout
	// and matcher; uninstall needs none.
	install bool
}

func (f *installFlags) register(cmd *cobra.Command, install bool) {
	cmd.Flags().StringVar(&f.scope, "scope", "", "`project`, user or local (default: project; user for codex)")
	cmd.Flags().StringVar(&f.host, "host", "claude", "the agent host: "+hostList())
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "print the changes as a diff and write nothing")
	cmd.Flags().BoolVar(&f.json, "json", false, "print the plan (and, without --dry-run, what was written) as one JSON object")
	if f.install = install; install {
		cmd.Flags().StringVar(&f.configPath, "config", "", "config `file` whose hook.budget sets the timeout (default: discovered)")
		cmd.Flags().BoolVar(&f.failOpen, "fail-open", false, "let a call through when the hook cannot start, times out or crashes, where the host has that choice (default: the host blocks it)")
	}
}

// options turns the flags into install options for the working directory,
// the home folder and this binary.
func (f *installFlags) options() (install.Options, error) {
	var o install.Options
	h, err := hostio.ParseHost(f.host)
	if err != nil {
		return o, err
	}
	scope := install.DefaultScope(h)
	if f.scope != "" {
		if scope, err = install.ParseScope(f.scope); err != nil {
			return o, err
		}
	}
	cwd, err := os.Getwd()
	if err != nil {
		return o, err
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return o, fmt.Errorf("finding the home folder: %w", err)
	}
	bin, err := selfPath()
	if err != nil {
		return o, err
	}
	var cfg *policy.Config
	if f.install {
		if cfg, err = policy.Find(f.configPath, cwd, os.Getenv); err != nil {
			return o, &hintError{err: err, hint: "fix the config: its hook.budget sets the hook's timeout"}
		}
	}
	// Without a state folder, an uninstall takes out what rewind's
	// entries leave empty, as for an install made elsewhere.
	state, _ := dirs.State(os.Getenv)
	return install.Options{Host: h, Scope: scope, Env: install.Env{Dir: cwd, Home: home}, Binary: bin, HookBinary: hookFront(bin),
		Config: cfg, FailOpen: f.failOpen, StateDir: state}, nil
}

// hookFront is the path of rewind-hook, the light hook front, when it is
// installed beside the rewind binary bin (go install .../cmd/...), else "".
func hookFront(bin string) string {
	name := hookfront.Name
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	p := filepath.Join(filepath.Dir(bin), name)
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 && runtime.GOOS != "windows" {
		return ""
	}
	return p
}

// selfPath is this binary's absolute path, symbolic links resolved, so that
// the host finds it without a change to its PATH.
func selfPath() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the rewind binary: %w", err)
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	return filepath.Abs(exe)
}

func newInstallCmd() *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "install",
		Short: "Add rewind's hook and MCP server to an agent host's settings",
		Long: `install adds rewind to an agent host's settings: the pre-tool hook, with a
timeout above hook.budget and, where the host allows it, asking the host to
block a call when the hook cannot start, times out or crashes (--fail-open
lets such a call through instead); the post-tool hook that logs how each call
ended, where the host has one and rewind-hook is installed; and, where the
host keeps MCP servers in a file rewind edits, the MCP server.

A file the project commits (the project scope) runs rewind by its name,
which every machine finds on its PATH; the user and local scopes run this
binary by its absolute path.

It edits the files in place: every other setting, hook and unknown key
stays as it was written, and only rewind's entries change. Running it again
changes nothing. A settings file that does not parse is refused, and nothing
is written. With --dry-run the changes are printed as a diff instead. It
ends with the next steps for the host.`,
		Example: `  rewind install                     # Claude Code, this project (.claude/settings.json, .mcp.json)
  rewind install --scope user        # Claude Code, every project
  rewind install --host codex --dry-run
  rewind install --host antigravity  # Antigravity CLI, this project (.agents/)`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options()
			if err != nil {
				return err
			}
			res, err := install.Plan(o)
			if err != nil {
				return planError(err)
			}
			return report(cmd.OutOrStdout(), o, res, f, "installed")
		},
	}
	f.register(cmd, true)
	return cmd
}

func newUninstallCmd() *cobra.Command {
	var f installFlags
	cmd := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what rewind install added to an agent host's settings",
		Long: `uninstall takes rewind's hooks and MCP server out of an agent host's settings,
and nothing else. What the install made for them (objects, files, folders)
goes too, so that the settings are as they were before it. It asks you to
type "uninstall" at this machine's terminal first, and refuses under an
agent host (--dry-run asks nothing and writes nothing).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o, err := f.options()
			if err != nil {
				return err
			}
			res, err := install.PlanRemove(o)
			if err != nil {
				return planError(err)
			}
			if !f.dryRun && len(res.Changes) > 0 {
				// Taking the guard out is the person's call, asked where an
				// agent's command cannot answer.
				var files []string
				for _, c := range res.Changes {
					files = append(files, "  "+c.Path)
				}
				text := fmt.Sprintf("Uninstalling takes rewind's hook and MCP server out of %s (%s scope): the agent's calls are no longer guarded, and no checkpoint is taken before they change a VM. It changes:\n%s",
					o.Host, o.Scope, strings.Join(files, "\n"))
				if err := personConfirms("uninstall", text, "uninstall"); err != nil {
					return err
				}
			}
			return report(cmd.OutOrStdout(), o, res, f, "removed")
		},
	}
	f.register(cmd, false)
	return cmd
}

func planError(err error) error {
	var pe *install.ParseError
	if errors.As(err, &pe) {
		return &hintError{err: fmt.Errorf("%w; nothing was written", err), hint: "fix the file, or move it away, and run the command again"}
	}
	return err
}

// report writes the changes (applying them unless --dry-run) and says what
// happened, as text or, with --json, as one object.
func report(w io.Writer, o install.Options, res *install.Result, f installFlags, done string) error {
	dryRun := f.dryRun
	if f.json {
		return reportJSON(w, o, res, dryRun, done)
	}
	where := fmt.Sprintf("%s (%s scope)", o.Host, o.Scope)
	if len(res.Changes) == 0 {
		if done == "installed" {
			fmt.Fprintf(w, "rewind is already installed for %s: nothing to change\n", where)
			notes(w, res)
		} else {
			fmt.Fprintf(w, "rewind is not installed for %s: nothing to change\n", where)
		}
		return nil
	}
	if dryRun {
		for _, c := range res.Changes {
			w.Write(c.Diff())
		}
		return nil
	}
	if err := res.Apply(); err != nil {
		return err
	}
	for _, c := range res.Changes {
		verb := "updated"
		switch {
		case c.Old == nil:
			verb = "created"
		case c.New == nil:
			verb = "removed"
		}
		fmt.Fprintf(w, "%s %s\n", verb, c.Path)
	}
	for _, p := range res.Unchanged {
		fmt.Fprintf(w, "unchanged %s\n", p)
	}
	fmt.Fprintf(w, "rewind %s for %s\n", done, where)
	notes(w, res)
	return nil
}

// notes writes the next steps, the one not to miss last.
func notes(w io.Writer, res *install.Result) {
	for _, n := range res.Notes {
		fmt.Fprintf(w, "next: %s\n", n)
	}
}
