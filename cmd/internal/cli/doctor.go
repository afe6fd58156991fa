package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/install"
	"github.com/rewind-dev/rewind/internal/version"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
	"github.com/spf13/cobra"
)

// doctorTimeout bounds each of doctor's calls to the ZVM and to an
// installed binary.
const doctorTimeout = 15 * time.Second

// checkState is a check's outcome.
type checkState string

const (
	checkOK   checkState = "ok"
	checkWarn checkState = "warn"
	checkFail checkState = "FAIL"
)

// doctor runs the checks and writes one line each, or, for --json,
// collects them.
type doctor struct {
	w      io.Writer
	failed int
	// cwd is the project doctor runs in.
	cwd string
	// json collects the checks in checks instead of writing lines.
	json   bool
	checks []doctorCheck
}

// doctorCheck is one check as doctor --json prints it.
type doctorCheck struct {
	State   string `json:"state"` // ok, warn or fail
	Check   string `json:"check"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// line writes one check: its state, what was found and, when it is not ok,
// the fix.
func (d *doctor) line(s checkState, what, msg, fix string) {
	if s == checkFail {
		d.failed++
	}
	if d.json {
		d.checks = append(d.checks, doctorCheck{State: strings.ToLower(string(s)), Check: what, Message: msg, Fix: fix})
		return
	}
	text := fmt.Sprintf("%-4s  %s: %s", s, what, msg)
	if fix != "" {
		text += "; fix: " + fix
	}
	fmt.Fprintln(d.w, text)
}

// writeJSON prints the checks as one object: whether all passed, the
// counts, and each check.
func (d *doctor) writeJSON() error {
	warned := 0
	for _, c := range d.checks {
		if c.State == "warn" {
			warned++
		}
	}
	checks := d.checks
	if checks == nil {
		checks = []doctorCheck{}
	}
	enc := json.NewEncoder(d.w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		OK       bool          `json:"ok"`
		Failed   int           `json:"failed"`
		Warnings int           `json:"warnings"`
		Checks   []doctorCheck `json:"checks"`
	}{d.failed == 0, d.failed, warned, checks})
}

func newDoctorCmd() *cobra.Command {
	var (
		configPath string
		asJSON     bool
	)
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the config, Zerto and the installed hooks",
		Long: `doctor checks, one line each, with the fix for what is wrong: the config is
found and valid; the ZVM is reachable, its TLS certificate trusted and the
credentials accepted; the token cache is private and writable; every
installed hook's timeout (or the host's default) is above hook.budget, its
matcher covers what the policy judges, and the host refuses a call whose
hook never answered (a warning where it cannot); the command each hook runs
resolves, outside the project, to this version; Codex has trusted its hook.
It exits 1 when a check fails.

--json prints one object: {"ok", "failed", "warnings", "checks": [{"state":
"ok"|"warn"|"fail", "check", "message", "fix"}]}, the checks in the order
of the lines.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d := &doctor{w: cmd.OutOrStdout(), json: asJSON}
			d.run(cmd.Context(), configPath)
			if asJSON {
				if err := d.writeJSON(); err != nil {
					return err
				}
			}
			if d.failed > 0 {
				return &exitError{code: 1, msg: fmt.Sprintf("%d check(s) failed", d.failed)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the checks as one JSON object")
	return cmd
}

func (d *doctor) run(ctx context.Context, configPath string) {
	if ctx == nil {
		ctx = context.Background()
	}
	cwd, err := os.Getwd()
	if err != nil {
		d.line(checkFail, "config", err.Error(), "run rewind doctor from a folder that exists")
		return
	}
	d.cwd = cwd
	cfg := d.config(configPath, cwd)
	d.zerto(ctx, cfg)
	d.tokenCache()
	d.hooks(ctx, cfg, cwd)
}

// config checks that the config files are found and valid, says which
// project config is not trusted and what of it is ignored, and returns the
// configuration (what did load, when a file is broken).
func (d *doctor) config(configPath, cwd string) *policy.Config {
	cfg, err := policy.Find(configPath, cwd, os.Getenv)
	if err != nil {
		var le *policy.LoadError
		if !errors.As(err, &le) {
			d.line(checkFail, "config", err.Error(), "make the config's folder readable")
			return policy.Default()
		}
		d.line(checkFail, "config", err.Error(), "correct the file; rewind explain and rewind test read it the same way")
		return le.Fallback
	}
	if _, err := policy.New(cfg); err != nil {
		d.line(checkFail, "config", err.Error(), "correct the rule")
		return cfg
	}
	if len(cfg.Sources) == 0 {
		d.line(checkOK, "config", "none found, the built-in defaults apply", "")
	}
	for _, src := range cfg.Sources {
		switch {
		case !src.Project:
			d.line(checkOK, "config", src.Path+" is valid", "")
		case src.Trusted:
			d.line(checkOK, "config", src.Path+" is valid (trusted)", "")
		case len(src.Ignored) > 0:
			d.line(checkWarn, "config", src.Path+" is not trusted, so it can only tighten your policy; ignored: "+strings.Join(src.Ignored, "; "),
				"rewind trust "+src.Path+", if you wrote it")
		default:
			d.line(checkOK, "config", src.Path+" is valid (untrusted: it can only tighten your policy)", "")
		}
	}
	return cfg
}

// zerto checks the ZVM: reachable, TLS trusted, credentials accepted. One
// authenticated request answers all three. Then what the hook's
// credentials may do (least privilege), the ZVM's clock, and where its
// secrets come from.
func (d *doctor) zerto(ctx context.Context, cfg *policy.Config) {
	d.secretsInEnv(os.Getenv)
	// A fresh login, not a cached token, is what proves the credentials.
	c, err := zvm.FromConfig(cfg.Zerto, zvm.Setup{Getenv: os.Getenv, CacheDir: "-"})
	switch {
	case errors.Is(err, zvm.ErrNotConfigured):
		d.line(checkFail, "zvm", "no ZVM configured, so every change to a VM is put to you instead of protected", zvm.Hint(err))
		return
	case err != nil:
		d.line(checkFail, "zvm", err.Error(), zvm.Hint(err))
		return
	}
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	site, err := c.LocalSite(ctx)
	host := redactedHost(c.URL())
	https := strings.HasPrefix(strings.ToLower(c.URL()), "https://")
	switch zvm.KindOf(err) {
	case 0:
		if err != nil {
			d.line(checkFail, "zvm reachable", err.Error(), "check the URL")
			return
		}
		d.line(checkOK, "zvm reachable", fmt.Sprintf("%s answers (site %q, version %s)", host, site.Name, site.Version), "")
	case zvm.KindTransport, zvm.KindTimeout, zvm.KindNotZerto:
		d.line(checkFail, "zvm reachable", err.Error(), zvm.Hint(err))
		return
	case zvm.KindTLS:
		d.line(checkOK, "zvm reachable", host+" answers", "")
		d.line(checkFail, "tls trusted", err.Error(), zvm.Hint(err))
		return
	case zvm.KindUnauthorized:
		d.line(checkOK, "zvm reachable", host+" answers", "")
		d.tls(https, c)
		d.line(checkFail, "credentials accepted", err.Error(), zvm.Hint(err)+", and the client's roles in Zerto's Keycloak")
		return
	default:
		d.line(checkWarn, "zvm reachable", err.Error(), "see Zerto's message")
	}
	d.tls(https, c)
	d.line(checkOK, "credentials accepted", "logged in as "+c.Identity(), "")
	d.privileges(ctx, c)
	d.clock(ctx, c)
	d.restoreEndpoints(ctx, c)
}

// privileges checks that the hook's credentials can tag checkpoints and
// can neither test, fail over nor restore: the agent runs with them, and
// a restore is a person's, with the person's own credentials. Each
// operation is sent for a VPG or VM that does not exist, which the ZVM
// refuses with 403 before looking when the role lacks it, and otherwise
// answers "not found": nothing is done either way (see zvm.Privileges).
func (d *doctor) privileges(ctx context.Context, c *zvm.Client) {
	if roles, ok, err := c.TokenRoles(ctx); err == nil && ok {
		shown := "none"
		if len(roles) > 0 {
			shown = strings.Join(roles, ", ")
		}
		d.line(checkOK, "zvm roles", "the token of "+c.Identity()+" carries the roles: "+shown, "")
	}
	var can, unknown []string
	for _, p := range c.Privileges(ctx) {
		switch {
		case p.Op == zvm.OpCheckpoint && p.Allowed == zvm.AllowedNo:
			d.line(checkFail, "zvm privileges", c.Identity()+" may not tag a checkpoint (Zerto answered 403), so no call can be protected", "give it Zerto's builder role, as docs/zvm-setup.md shows")
		case p.Op == zvm.OpCheckpoint:
		case p.Allowed == zvm.AllowedYes:
			can = append(can, string(p.Op))
		case p.Allowed == zvm.AllowedUnknown:
			unknown = append(unknown, fmt.Sprintf("%s (%v)", p.Op, p.Err))
		}
	}
	switch {
	case len(can) > 0:
		d.line(checkWarn, "zvm privileges", c.Identity()+" may also "+strings.Join(can, ", ")+": the agent's commands run with these credentials, and with them could go back without a person",
			"give the hook a Keycloak client with the builder role only, and keep an operator's login for restores (docs/zvm-setup.md)")
	case len(unknown) > 0:
		d.line(checkWarn, "zvm privileges", "the ZVM's answers do not say whether "+c.Identity()+" may "+strings.Join(unknown, "; "), "see docs/zvm-setup.md")
	default:
		d.line(checkOK, "zvm privileges", c.Identity()+" may tag checkpoints and read, and may not test, fail over or restore", "")
	}
}

// secretsInEnv warns of a ZVM secret exported into the environment: every
// command the agent runs inherits it, and with it could call the ZVM
// itself. doctor sees its own environment, which is the one a host started
// from the same shell passes on, and the places a user exports variables
// from: shell start-up files and Claude Code's settings (its "env").
func (d *doctor) secretsInEnv(getenv func(string) string) {
	vars := []string{"REWIND_ZVM_CLIENT_SECRET", "REWIND_ZVM_PASSWORD"}
	var found []string
	for _, v := range vars {
		if getenv(v) != "" {
			found = append(found, v+" is set in this environment")
		}
	}
	home, _ := os.UserHomeDir()
	for _, f := range secretExportFiles(home, d.cwd) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, v := range vars {
			if exportsVar(string(b), v) {
				found = append(found, f+" sets "+v)
			}
		}
	}
	if len(found) == 0 {
		d.line(checkOK, "zvm secrets", "no ZVM secret is exported to the agent's environment", "")
		return
	}
	d.line(checkWarn, "zvm secrets", strings.Join(found, "; ")+": every command the agent runs inherits it",
		"put the secret in a file of mode 0600 and name it in client_secret_file (or REWIND_ZVM_CLIENT_SECRET_FILE), then unset the variable")
}

// secretExportFiles are the files a user sets environment variables in
// that an agent host's commands inherit.
func secretExportFiles(home, cwd string) []string {
	var files []string
	if home != "" {
		for _, f := range []string{".profile", ".bashrc", ".bash_profile", ".zshrc", ".zshenv", ".zprofile", ".config/fish/config.fish", ".claude/settings.json"} {
			files = append(files, filepath.Join(home, f))
		}
	}
	if cwd != "" {
		files = append(files, filepath.Join(cwd, ".claude", "settings.json"), filepath.Join(cwd, ".claude", "settings.local.json"), filepath.Join(cwd, ".envrc"))
	}
	return files
}

// exportsVar reports whether a shell file or settings file gives name a
// value: NAME=, export NAME=, set -x NAME (fish), or "NAME": in JSON.
func exportsVar(text, name string) bool {
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, "#") {
			continue
		}
		l = strings.TrimPrefix(l, "export ")
		if strings.HasPrefix(l, name+"=") || strings.HasPrefix(l, "set -gx "+name+" ") || strings.HasPrefix(l, "set -x "+name+" ") ||
			strings.Contains(l, `"`+name+`":`) || strings.Contains(l, `"`+name+`" :`) {
			return true
		}
	}
	return false
}

// clockSkewWarn is the offset past which doctor warns: rewind works in
// ZVM time whatever the offset, but a clock this far off on either side
// makes Zerto's console and rewind's log hard to read side by side.
const clockSkewWarn = 5 * time.Minute

// dateDisagrees is how far the Date header may be from the ZVM's clock
// before doctor says so: the header has whole seconds.
const dateDisagrees = 2 * time.Second

// clock reports how far the ZVM's clock is from this machine's. rewind
// compares Zerto's timestamps in ZVM time, so an offset is not an error.
// It says too when the HTTP Date header disagrees with the ZVM's clock (a
// reverse proxy with a clock of its own): rewind goes by the ZVM's.
func (d *doctor) clock(ctx context.Context, c *zvm.Client) {
	zt, err := c.ServerTime(ctx)
	if err != nil {
		d.line(checkWarn, "zvm clock", "cannot read the ZVM's time: "+err.Error(), "rewind then reads it from the HTTP Date header")
		return
	}
	off, _ := c.Offset()
	msg := fmt.Sprintf("ZVM time %s, %s this machine's clock (rewind works in ZVM time)",
		zt.UTC().Format(time.RFC3339), describeOffset(off))
	if off.Abs() > clockSkewWarn {
		d.line(checkWarn, "zvm clock", msg, "keep the ZVM and this machine on NTP so that times in rewind log and Zerto's console agree")
	} else {
		d.line(checkOK, "zvm clock", msg, "")
	}
	if date, ok := c.DateOffset(); ok && (date-off).Abs() > dateDisagrees {
		d.line(checkWarn, "zvm clock", fmt.Sprintf("the HTTP Date header is %s the ZVM's clock (%s this machine's): a proxy in front of the ZVM keeps a clock of its own; rewind goes by the ZVM's serverDateTimeUtc",
			describeOffset(date-off), describeOffset(date)), "keep the proxy on NTP too")
	}
}

// describeOffset says an offset in words: "2m0s ahead of", "in step with".
func describeOffset(off time.Duration) string {
	off = off.Round(time.Second)
	switch {
	case off > 0:
		return off.String() + " ahead of"
	case off < 0:
		return (-off).String() + " behind"
	}
	return "in step with"
}

func (d *doctor) tls(https bool, c *zvm.Client) {
	switch {
	case !https:
		d.line(checkWarn, "tls trusted", "the ZVM URL is http://: credentials and tokens cross the network unencrypted", "use the ZVM's https:// URL")
	case c.Insecure():
		d.line(checkWarn, "tls trusted", "certificate checks are off (insecure_skip_verify)", "set ca_file to the ZVM's CA and turn insecure_skip_verify off")
	default:
		d.line(checkOK, "tls trusted", "the ZVM's certificate is trusted", "")
	}
}

// redactedHost is the URL's host, for a line that may be shared.
func redactedHost(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Host
	}
	return "the ZVM"
}

// tokenCache checks that the token cache folder is writable and its files
// private: tokens there log in to Zerto. A cached token is the hook's
// (tag-and-read with least privilege); a person's login never is cached.
func (d *doctor) tokenCache() {
	dir, err := zvm.TokenCacheDir("")
	if err != nil {
		d.line(checkWarn, "token cache", "no cache folder, so every hook run logs in anew", "set HOME or XDG_CACHE_HOME")
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		d.line(checkFail, "token cache", err.Error(), "make "+filepath.Dir(dir)+" writable")
		return
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		d.line(checkFail, "token cache", dir+" is not writable: "+err.Error(), "chmod u+w "+dir)
		return
	}
	f.Close()
	os.Remove(f.Name())
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.line(checkFail, "token cache", err.Error(), "chmod 700 "+dir)
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if info.Mode().Perm()&0o077 != 0 {
			p := filepath.Join(dir, e.Name())
			d.line(checkFail, "token cache", fmt.Sprintf("%s has mode %04o: other users can read a Zerto token", p, info.Mode().Perm()), "chmod 600 "+p)
			return
		}
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		d.line(checkWarn, "token cache", fmt.Sprintf("%s has mode %04o", dir, fi.Mode().Perm()), "chmod 700 "+dir)
		return
	}
	d.line(checkOK, "token cache", dir+" is writable, its files mode 0600", "")
}

// hooks checks every installed hook: its timeout against hook.budget,
// its matcher against the policy, what the host does when it never
// answers, whether Codex trusts it, and the binary it runs.
func (d *doctor) hooks(ctx context.Context, cfg *policy.Config, cwd string) {
	home, _ := os.UserHomeDir()
	found, errs := install.Find(install.Env{Dir: cwd, Home: home})
	for _, err := range errs {
		var pe *install.ParseError
		fix := "make it readable"
		if errors.As(err, &pe) {
			fix = "correct the file"
		}
		d.line(checkFail, "hook settings", err.Error(), fix)
	}
	if len(found) == 0 {
		d.line(checkFail, "hook", "no rewind hook is installed in this project's or your settings", "rewind install (see rewind install --help for other hosts and scopes)")
		return
	}
	budget := cfg.Hook.Budget
	want := install.HookTimeout(budget)
	binaries := map[string]bool{}
	seen := map[string]bool{}
	for _, in := range found {
		binaries[in.Binary] = true
		where := fmt.Sprintf("%s (%s)", in.Path, in.Host)
		if in.Host == hostio.Codex {
			d.codexTrust(in, home)
		}
		// A host with several pre-tool events (Windsurf) holds the same
		// hook more than once: one line each for the file is enough.
		key := fmt.Sprint(in.Path, in.Post, in.Timeout, in.TimeoutSet, in.Matcher, in.Binary, in.Failure)
		if in.Post || seen[key] {
			continue
		}
		seen[key] = true
		if hostio.Retired(in.Host) {
			d.line(checkWarn, "hook host", where+": "+in.Host.Name()+" was retired on 2026-06-18", "rewind install --host antigravity, for Antigravity CLI, which replaced it; rewind uninstall --host gemini")
		}
		what := "hook timeout"
		switch {
		case in.Timeout == 0:
			d.line(checkWarn, what, where+": the host's hook timeout is its own and not in this file", fmt.Sprintf("make sure %s lets hooks run longer than hook.budget = %s", in.Host.Name(), budget))
		case in.Timeout <= budget:
			how := fmt.Sprintf("the timeout of %s", in.Timeout)
			if !in.TimeoutSet {
				how = fmt.Sprintf("no timeout, so the host's default of %s", in.Timeout)
			}
			d.line(checkFail, what, fmt.Sprintf("%s: %s is not above hook.budget = %s: the host would stop the hook before it answers", where, how, budget),
				fmt.Sprintf("rewind install --host %s again (writes %s), or lower hook.budget", in.Host, want))
		default:
			how := in.Timeout.String()
			if !in.TimeoutSet {
				how = fmt.Sprintf("no timeout, so the host's default of %s", in.Timeout)
			}
			d.line(checkOK, what, fmt.Sprintf("%s: %s, above hook.budget = %s", where, how, budget), "")
		}
		d.failure(in, where)
		if missed := in.Uncovered(cfg); len(missed) > 0 {
			d.line(checkFail, "hook matcher", fmt.Sprintf("%s: the matcher %q lets %s past the hook unjudged", where, in.Matcher, strings.Join(missed, ", ")),
				fmt.Sprintf("rewind install --host %s again, which writes a matcher for the config's rules", in.Host))
		}
	}
	for _, bin := range slices.Sorted(maps.Keys(binaries)) {
		d.binary(ctx, bin)
	}
}

// failure says what the host does with a call whose hook never answered:
// one that could not start (rewind not on the PATH), was stopped at its
// timeout or crashed.
func (d *doctor) failure(in install.Installed, where string) {
	name := in.Host.Name()
	switch in.Failure {
	case install.FailsClosed:
		d.line(checkOK, "hook failure", fmt.Sprintf("%s: %s refuses a call whose hook cannot start, times out or crashes", where, name), "")
	case install.FailsClosedButTimeout:
		d.line(checkOK, "hook failure", fmt.Sprintf("%s: %s refuses a call whose hook cannot start or crashes, but runs it when the hook times out", where, name), "")
	case install.FailsOpenBySetting:
		d.line(checkWarn, "hook failure", fmt.Sprintf("%s: installed to fail open: a call whose hook cannot start, times out or crashes runs unguarded", where),
			fmt.Sprintf("rewind install --host %s again, without --fail-open", in.Host))
	default:
		d.line(checkWarn, "hook failure", fmt.Sprintf("%s: %s has no setting to refuse a call whose hook cannot start, times out or crashes: such a call runs unguarded", where, name),
			"keep rewind-hook on the PATH the host starts with and the timeout above hook.budget, and run rewind doctor after changing either")
	}
}

// codexTrust says whether Codex runs the hook: it skips a hook no person
// trusted in /hooks, or one that changed since.
func (d *doctor) codexTrust(in install.Installed, home string) {
	where := fmt.Sprintf("%s (%s, %s)", in.Path, in.Host, in.Event)
	const fix = "open /hooks in Codex and trust rewind's hook"
	state, detail := install.CodexTrust(in, install.CodexHome(os.Getenv, home))
	switch state {
	case install.Trusted:
		d.line(checkOK, "codex trust", where+": Codex trusts this hook as it is", "")
	case install.Untrusted:
		d.line(checkFail, "codex trust", where+": Codex has not trusted this hook, so it never runs it", fix)
	case install.Modified:
		d.line(checkFail, "codex trust", where+": the hook changed since Codex trusted it (a reinstall, a new budget), so Codex skips it", fix+" again")
	case install.Disabled:
		d.line(checkFail, "codex trust", where+": the hook is turned off in Codex's /hooks", "turn it on in /hooks")
	default:
		d.line(checkWarn, "codex trust", where+": cannot tell whether Codex trusts this hook: "+detail, "check /hooks in Codex")
	}
}

// binary checks that the binary a hook runs resolves (on the PATH, for a
// name, as the host's shell finds it), is no program of the project's, and
// is this version.
func (d *doctor) binary(ctx context.Context, bin string) {
	// A hook may name a program relative to the project, as hosts expand.
	path := os.Expand(bin, func(k string) string {
		switch k {
		case "CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR":
			return d.cwd
		}
		return "${" + k + "}"
	})
	if !filepath.IsAbs(path) {
		if !strings.ContainsAny(path, `/\`) {
			p, err := exec.LookPath(path)
			if err != nil {
				d.line(checkFail, "hook binary", fmt.Sprintf("%s is not on PATH: the host cannot start the hook", bin),
					"put the folder go install writes to on PATH ($(go env GOBIN), or $(go env GOPATH)/bin), in the environment the host starts from")
				return
			}
			path = p
		} else {
			// As a shell runs it: relative to the host's folder, the
			// project.
			path = filepath.Join(d.cwd, path)
		}
	}
	// A project's settings, which come with a cloned repository, may name
	// a program of that repository: doctor checks things, it does not run
	// what a repository ships, and a hook should not run it either.
	if inside(d.cwd, path) {
		d.line(checkFail, "hook binary", fmt.Sprintf("%s resolves to %s, inside this project: a program the repository ships, which doctor does not run", bin, path),
			"install rewind (go install github.com/rewind-dev/rewind/cmd/...@latest) and run rewind install again")
		return
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.line(checkFail, "hook binary", path+" does not exist: the host cannot start the hook", "rewind install again from the rewind you want the host to run")
		return
	case err != nil:
		d.line(checkFail, "hook binary", err.Error(), "make it readable")
		return
	case fi.Mode().Perm()&0o111 == 0:
		d.line(checkFail, "hook binary", path+" is not executable", "chmod +x "+path)
		return
	}
	self, err := selfPath()
	if err == nil {
		if sfi, err := os.Stat(self); err == nil && os.SameFile(fi, sfi) {
			d.line(checkOK, "hook binary", path+" is this binary", "")
			return
		}
	}
	mine := versionOutput()
	ctx, cancel := context.WithTimeout(ctx, doctorTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		d.line(checkFail, "hook binary", fmt.Sprintf("%s version: %v", path, err), "rewind install again from the rewind you want the host to run")
		return
	}
	theirs := strings.TrimSpace(string(out))
	if theirs != mine {
		d.line(checkFail, "hook binary", fmt.Sprintf("%s is %q, this is %q", path, theirs, mine), "rewind install again from the rewind you want the host to run, or install the same version there")
		return
	}
	d.line(checkOK, "hook binary", fmt.Sprintf("%s exists and is %s", path, theirs), "")
}

// inside reports whether path, symbolic links resolved, lies in the folder
// dir or below it.
func inside(dir, path string) bool {
	if dir == "" {
		return false
	}
	if !filepath.IsAbs(path) {
		// As exec.LookPath found it: relative to the working folder.
		path = filepath.Join(dir, path)
	}
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// versionOutput is what `rewind version` (and `rewind-hook version`)
// prints.
func versionOutput() string { return "rewind " + version.String() }
