package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/spf13/cobra"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/install"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// statusZVMTimeout bounds status's one request to the ZVM: status says
// whether it answers now, and must not hang on one that does not.
const statusZVMTimeout = 3 * time.Second

// status is what rewind status reports, as --json prints it.
type status struct {
	// Dir is the project folder status looked from.
	Dir string `json:"dir"`
	// Guarding is true when at least one host's rewind hook resolves to
	// a program.
	Guarding bool `json:"guarding"`
	// Hooks are the rewind hooks installed in the hosts' settings, at
	// the project's scope and the user's.
	Hooks []hookStatus `json:"hooks"`
	// SettingsErrors are settings files that could not be read.
	SettingsErrors []string `json:"settings_errors,omitempty"`
	// Configs are the config files in force, the user's first.
	Configs []configStatus `json:"configs"`
	// ConfigError is why a config cannot be used, when one cannot.
	ConfigError string    `json:"config_error,omitempty"`
	ZVM         zvmStatus `json:"zvm"`
	// Decisions are the last decisions logged, oldest first, as rewind
	// log --json prints them.
	Decisions []audit.Record `json:"decisions"`
	// Log is the decision log's file.
	Log string `json:"log"`
}

type hookStatus struct {
	Host  string `json:"host"`
	Scope string `json:"scope"` // "project" (also its local settings) or "user"
	// Path is the settings file, Event the hook event.
	Path    string `json:"path"`
	Event   string `json:"event"`
	Command string `json:"command"`
	// Binary is the program the hook runs; Resolved its path when it
	// exists and is executable, else Problem says why the host cannot
	// run it.
	Binary   string `json:"binary"`
	Resolves bool   `json:"resolves"`
	Resolved string `json:"resolved,omitempty"`
	Problem  string `json:"problem,omitempty"`
	// TimeoutSeconds is how long the host lets the hook run, 0 when the
	// host's own default is not known.
	TimeoutSeconds float64 `json:"timeout_s"`
}

type configStatus struct {
	Path  string `json:"path"`
	Scope string `json:"scope"` // "user" (or --config, $REWIND_CONFIG) or "project"
	// Trusted is whether a project config was trusted with rewind trust;
	// a user config is always in force.
	Trusted bool `json:"trusted"`
	// Ignored are the settings of an untrusted project config that would
	// loosen the policy.
	Ignored []string `json:"ignored,omitempty"`
}

type zvmStatus struct {
	Configured bool   `json:"configured"`
	URL        string `json:"url,omitempty"`
	Reachable  bool   `json:"reachable"`
	Site       string `json:"site,omitempty"`
	Version    string `json:"version,omitempty"`
	// OffsetMS is how far the ZVM's clock is ahead of this machine's
	// (negative: behind), as measured at login and kept with the token.
	OffsetMS *int64 `json:"offset_ms,omitempty"`
	Error    string `json:"error,omitempty"`
	Fix      string `json:"fix,omitempty"`
}

func newStatusCmd() *cobra.Command {
	var (
		configPath string
		asJSON     bool
		last       int
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show what rewind enforces here now",
		Long: `status shows, for the project in the working folder, what is enforced now:
the agent hosts whose settings run rewind's hook (the project's and your
own) and whether each hook's program is there to run; the config files in
force, and which project config is trusted (an untrusted one can only
tighten the policy); the ZVM, whether it answers (within 3 s) and how far
its clock is from this machine's; and the last decisions of the log.

It changes nothing, and asks Zerto one question. rewind doctor checks more,
with a fix for each thing wrong. --json prints one object.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if last < 0 {
				return flagError(cmd, "last", fmt.Sprint(last), "a whole number, 0 or more")
			}
			st, err := collectStatus(cmd.Context(), configPath, last, os.Getenv)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			return st.write(out, terminalWidth(out), colorAuto.enabled(out, os.Getenv))
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, as the hook does)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print one JSON object")
	cmd.Flags().IntVarP(&last, "last", "n", 5, "show the last `N` decisions")
	return cmd
}

// collectStatus gathers the status of the project in the working folder.
func collectStatus(ctx context.Context, configPath string, last int, getenv func(string) string) (*status, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, &hintError{err: err, hint: "run rewind status from a folder that exists"}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("finding the home folder: %w", err)
	}
	st := &status{Dir: cwd, Hooks: []hookStatus{}, Configs: []configStatus{}, Decisions: []audit.Record{}}

	found, errs := install.Find(install.Env{Dir: cwd, Home: home})
	for _, e := range errs {
		st.SettingsErrors = append(st.SettingsErrors, e.Error())
	}
	seen := map[string]bool{}
	for _, in := range found {
		// A host with several events (Cursor) holds the same hook twice.
		key := in.Path + "\x00" + in.Command
		if seen[key] {
			continue
		}
		seen[key] = true
		h := hookStatus{Host: string(in.Host), Scope: scopeOf(in.Path, cwd, home), Path: in.Path, Event: in.Event,
			Command: in.Command, Binary: in.Binary, TimeoutSeconds: in.Timeout.Seconds()}
		if p, err := exec.LookPath(in.Binary); err == nil {
			h.Resolves, h.Resolved = true, p
			st.Guarding = true
		} else {
			h.Problem = hookProblem(in.Binary, err)
		}
		st.Hooks = append(st.Hooks, h)
	}

	cfg, err := policy.Find(configPath, cwd, getenv)
	if err != nil {
		st.ConfigError = err.Error()
		var le *policy.LoadError
		if !errors.As(err, &le) {
			return nil, configError(configPath, err)
		}
		cfg = le.Fallback
	}
	for _, src := range cfg.Sources {
		c := configStatus{Path: src.Path, Scope: "user", Trusted: !src.Project || src.Trusted, Ignored: src.Ignored}
		if src.Project {
			c.Scope = "project"
		}
		st.Configs = append(st.Configs, c)
	}
	st.ZVM = zvmState(ctx, cfg, getenv)

	dir, err := dirs.State(getenv)
	if err != nil {
		return nil, err
	}
	l := audit.Open(dir)
	st.Log = l.Path()
	if last > 0 {
		recs, err := l.Read(audit.Filter{Limit: last})
		if err != nil {
			return nil, err
		}
		st.Decisions = append(st.Decisions, recs...)
	}
	return st, nil
}

// scopeOf says whose settings file path is: the project's (its shared or
// local settings) when it lies in dir, the user's when it lies in home;
// in both (a project that holds the home folder, or the home folder
// itself), the nearer folder's.
func scopeOf(path, dir, home string) string {
	if within(dir, path) && (!within(home, path) || len(dir) > len(home)) {
		return "project"
	}
	return "user"
}

// within reports whether path lies in the folder dir.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// hookProblem says why a host cannot run the hook's program.
func hookProblem(bin string, err error) string {
	switch {
	case bin == "":
		return "the hook names no program"
	case errors.Is(err, exec.ErrNotFound):
		return bin + " is not on PATH"
	case errors.Is(err, os.ErrNotExist):
		return bin + " does not exist"
	}
	return err.Error()
}

// zvmState asks the ZVM, through the token cache as the hook does, for
// its site, which says it is reachable and the credentials work; the
// clock offset comes with the token.
func zvmState(ctx context.Context, cfg *policy.Config, getenv func(string) string) zvmStatus {
	var zs zvmStatus
	zo, err := zvm.ConfigOptions(cfg.Zerto, zvm.Setup{Getenv: getenv})
	switch {
	case errors.Is(err, zvm.ErrNotConfigured):
		zs.Fix = zvm.Hint(err) + "; meanwhile a change to a VM is asked"
		return zs
	case err != nil:
		zs.Error, zs.Fix = err.Error(), zvm.Hint(err)
		return zs
	}
	zs.Configured, zs.URL = true, redactedHost(zo.URL)
	c, err := zvm.New(zo)
	if err != nil {
		zs.Error, zs.Fix = err.Error(), zvm.Hint(err)
		return zs
	}
	zs.URL = c.URL()
	ctx, cancel := context.WithTimeout(ctx, statusZVMTimeout)
	defer cancel()
	site, err := c.LocalSite(ctx)
	if off, ok := c.Offset(); ok {
		ms := off.Milliseconds()
		zs.OffsetMS = &ms
	}
	if err != nil {
		zs.Error, zs.Fix = err.Error(), zvm.Hint(err)
		// Zerto answered, if only to refuse: it is there.
		zs.Reachable = zvm.KindOf(err) != zvm.KindTransport && zvm.KindOf(err) != zvm.KindTimeout && zvm.KindOf(err) != 0
		return zs
	}
	zs.Reachable, zs.Site, zs.Version = true, site.Name, site.Version
	return zs
}

// write prints the status for a person, in sections.
func (st *status) write(w io.Writer, width int, color bool) error {
	mark := func(ok bool, good, bad string) string {
		s, sgr := bad, "\x1b[1;31m"
		if ok {
			s, sgr = good, "\x1b[1;32m"
		}
		if color {
			return sgr + s + "\x1b[0m"
		}
		return s
	}
	verdict := "not guarding: no agent host here runs a rewind hook it can find (rewind install)"
	if st.Guarding {
		verdict = "guarding"
	}
	fmt.Fprintf(w, "rewind %s in %s\n", mark(st.Guarding, "is "+verdict, "is "+verdict), st.Dir)

	fmt.Fprintln(w, "\nhooks")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(st.Hooks) == 0 {
		fmt.Fprintln(tw, "  none\tno host's settings in this project or yours run rewind")
	}
	for _, h := range st.Hooks {
		what := h.Resolved
		if !h.Resolves {
			what = h.Problem
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", mark(h.Resolves, "ok", "FAIL"), h.Host, h.Scope, h.Path, what)
	}
	for _, e := range st.SettingsErrors {
		fmt.Fprintf(tw, "  %s\t%s\n", mark(false, "", "FAIL"), e)
	}
	tw.Flush()

	fmt.Fprintln(w, "\nconfig")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(st.Configs) == 0 {
		fmt.Fprintln(tw, "  none\tthe built-in defaults apply")
	}
	for _, c := range st.Configs {
		trust := "in force"
		switch {
		case c.Scope == "project" && c.Trusted:
			trust = "trusted"
		case c.Scope == "project" && len(c.Ignored) > 0:
			trust = "untrusted: it can only tighten; ignored: " + strings.Join(c.Ignored, "; ")
		case c.Scope == "project":
			trust = "untrusted: it can only tighten (rewind trust to let it loosen)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Scope, c.Path, trust)
	}
	if st.ConfigError != "" {
		fmt.Fprintf(tw, "  %s\t%s\n", mark(false, "", "FAIL"), oneLine(st.ConfigError))
	}
	tw.Flush()

	fmt.Fprintln(w, "\nzvm")
	z := st.ZVM
	switch {
	case !z.Configured && z.Error == "":
		fmt.Fprintf(w, "  none configured: %s\n", z.Fix)
	case z.Reachable && z.Error == "":
		fmt.Fprintf(w, "  %s  %s answers (site %q, version %s)%s\n", mark(true, "ok", ""), z.URL, z.Site, z.Version, offsetText(z.OffsetMS))
	default:
		fmt.Fprintf(w, "  %s  %s: %s%s\n", mark(false, "", "FAIL"), orNone(z.URL), oneLine(z.Error), offsetText(z.OffsetMS))
		if z.Fix != "" {
			fmt.Fprintf(w, "        fix: %s\n", z.Fix)
		}
	}

	fmt.Fprintln(w, "\nlast decisions")
	if len(st.Decisions) == 0 {
		fmt.Fprintf(w, "  none logged yet (log: %s)\n", st.Log)
		return nil
	}
	return audit.WriteTableOptions(w, st.Decisions, audit.TableOptions{Width: width, Color: color})
}

// offsetText says the ZVM's clock offset in words, when measured.
func offsetText(ms *int64) string {
	if ms == nil {
		return ""
	}
	return "; its clock is " + describeOffset(time.Duration(*ms)*time.Millisecond) + " this machine's"
}

func orNone(s string) string {
	if s == "" {
		return "the ZVM"
	}
	return s
}
