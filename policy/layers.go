package policy

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/rewind-dev/rewind/internal/dirs"
)

// MinProjectBudget is the shortest hook.budget an untrusted project config
// may set. A budget the hook cannot keep makes every call an internal
// error, which hook.on_error (allow by default) lets through: a shorter
// budget is a way to switch the guard off.
const MinProjectBudget = 10 * time.Second

// Source is one file a Config was made of.
type Source struct {
	Path string
	// Project is set for a .rewind.toml found from the call's folder.
	Project bool
	// Trusted is set for a project config whose content `rewind trust`
	// recorded: it may loosen the user's policy.
	Trusted bool
	// Ignored lists the settings of an untrusted project config that
	// would loosen the user's policy, and are not applied.
	Ignored []string
}

// Find builds the configuration for a call made in cwd, from the user's
// config, the project's configs and the built-in catalog:
//
//   - the user's config: flagPath (--config), else $REWIND_CONFIG, else
//     rewind/config.toml in the user config folder, else the defaults;
//   - the project's configs: every .rewind.toml from cwd upwards (but the
//     user's config file itself), up to the first one that is trusted.
//
// A project config that `rewind trust` recorded (see Trusted) is laid over
// the user's: its rules come first and the settings it sets replace the
// user's; the configs farther up than it do not count. An untrusted one can
// only tighten: its rules judge every call beside the user's and the
// catalog's, and the stricter verdict wins (see Config.Tighten); of its
// settings only those that tighten apply (see tightenSettings), and the
// others are listed in Source.Ignored. So a nearer config the agent
// created, even an empty one, adds to the farther ones and hides none.
//
// When a file cannot be read or parsed, Find returns a *LoadError whose
// Fallback is the configuration made of what did load, with the broken
// file's rules read leniently as rules that ask (see looseRules).
func Find(flagPath, cwd string, getenv func(string) string) (*Config, error) {
	userPath, projects, err := Discover(flagPath, cwd, getenv)
	if err != nil {
		return nil, err
	}
	var broken []error
	cfg := Default()
	if userPath != "" {
		data, err := readConfig(userPath)
		if err == nil {
			var c *Config
			if c, err = Parse(userPath, data); err == nil {
				cfg = c
			}
		} else {
			err = fmt.Errorf("reading config: %w", err)
		}
		if err != nil {
			broken = append(broken, err)
			cfg.Tighten = append(cfg.Tighten, looseRules(userPath, data))
		}
		cfg.Sources = append(cfg.Sources, Source{Path: userPath})
	}
	cfg.Home = homeDir(getenv)
	cfg.PathEnv = getenv("PATH")
	cfg.SecretFiles = secretFiles(getenv)
	cfg.OwnFiles = ownFiles(flagPath, userPath, getenv)
	pathEnv := cfg.PathEnv
	cfg.binaries = sync.OnceValue(func() []string { return rewindBinaries(getenv, pathEnv) })
	// A trusted config is laid over the user's before the untrusted ones
	// nearer than it tighten the result, so they are read first and
	// applied after it.
	type untrusted struct {
		src  int
		proj *Config
		set  map[string]bool
	}
	var nearer []untrusted
	for _, projectPath := range projects {
		src := Source{Path: projectPath, Project: true}
		data, err := readConfig(projectPath)
		var proj *Config
		if err == nil {
			proj, err = Parse(projectPath, data)
		} else {
			err = fmt.Errorf("reading config: %w", err)
		}
		trusted := false
		switch {
		case err != nil:
			broken = append(broken, err)
			cfg.Tighten = append(cfg.Tighten, looseRules(projectPath, data))
		case IsTrusted(projectPath, data, getenv):
			src.Trusted, trusted = true, true
			overlay(cfg, proj, setKeys(data))
		default:
			nearer = append(nearer, untrusted{len(cfg.Sources), proj, setKeys(data)})
		}
		cfg.Sources = append(cfg.Sources, src)
		if trusted {
			break
		}
	}
	for _, u := range nearer {
		cfg.Sources[u.src].Ignored = tightenSettings(cfg, u.proj, u.set)
		cfg.Tighten = append(cfg.Tighten, u.proj)
	}
	// The secret files the config in force names (the user's, or a
	// trusted project's: an untrusted one's [zerto] is ignored) are
	// rewind's own: reading one is asked, and so is writing one.
	for _, f := range []string{cfg.Zerto.ClientSecretFile, cfg.Zerto.PasswordFile} {
		if f = expandTilde(f, cfg.Home); f != "" && filepath.IsAbs(f) {
			cfg.SecretFiles = append(cfg.SecretFiles, filepath.Clean(f))
			cfg.OwnFiles = append(cfg.OwnFiles, filepath.Clean(f))
		}
	}
	if len(broken) > 0 {
		return nil, &LoadError{Err: errors.Join(broken...), Fallback: cfg}
	}
	return cfg, nil
}

// expandTilde expands a leading ~/ to home.
func expandTilde(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

// LoadError is a config file that cannot be used: unreadable, or with an
// error in it. Fallback is the configuration to judge calls by meanwhile:
// the files that did load, and the broken file's rules as rules that ask
// every call they could have matched.
type LoadError struct {
	Err      error
	Fallback *Config
}

func (e *LoadError) Error() string { return e.Err.Error() }
func (e *LoadError) Unwrap() error { return e.Err }

// Fallback returns the configuration to judge calls by when Find failed
// with err: a *LoadError's Fallback, else the defaults.
func Fallback(err error) *Config {
	var le *LoadError
	if errors.As(err, &le) && le.Fallback != nil {
		return le.Fallback
	}
	return Default()
}

// Discover returns the config files Find reads: the user's (flagPath,
// else $REWIND_CONFIG, else rewind/config.toml in the user's config
// folder when it exists) and the project's: every .rewind.toml from cwd
// upwards, nearest first, but the user's file, and at most
// MaxProjectConfigs of them. The user's is "" when there is none. An
// explicitly named file is returned even when it does not exist, so that
// loading it reports the mistake. getenv is os.Getenv outside tests.
//
// Find stops at the first trusted one; Discover cannot tell which that is
// without reading them, so it returns them all.
func Discover(flagPath, cwd string, getenv func(string) string) (user string, projects []string, err error) {
	user = flagPath
	if user == "" {
		user = getenv("REWIND_CONFIG")
	}
	if user == "" {
		if p := userConfigFile(getenv); p != "" {
			ok, err := isFile(p)
			if err != nil {
				return "", nil, err
			}
			if ok {
				user = p
			}
		}
	}
	if cwd == "" {
		return user, nil, nil
	}
	dir, err := filepath.Abs(cwd)
	if err != nil {
		return "", nil, fmt.Errorf("finding config: %w", err)
	}
	for len(projects) < MaxProjectConfigs {
		p := filepath.Join(dir, ProjectFile)
		ok, err := isFile(p)
		if err != nil {
			// A folder that cannot be looked into (a path too long, a
			// parent that became a file) holds no project config of
			// ours, nor do the folders above it as far as this call
			// can tell; the user's config still applies.
			break
		}
		if ok && !sameFile(p, user) {
			projects = append(projects, p)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return user, projects, nil
}

// MaxProjectConfigs bounds the project configs a call reads, from its
// folder upwards: each is read and judges the call, so an agent that
// nests thousands of them must not cost the hook its budget. The nearest
// count.
const MaxProjectConfigs = 16

// userConfigFile is rewind/config.toml in the user's config folder, or "".
func userConfigFile(getenv func(string) string) string {
	dir := userConfigDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "rewind", "config.toml")
}

func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func homeDir(getenv func(string) string) string {
	if runtime.GOOS == "windows" {
		return getenv("USERPROFILE")
	}
	return getenv("HOME")
}

// ownFiles are rewind's own files where it runs: the config files named
// by --config and $REWIND_CONFIG, the user config (also before it exists)
// and the state folder, which holds the audit log and the trusted
// configs.
func ownFiles(flagPath, userPath string, getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		for _, x := range out {
			if x == p {
				return
			}
		}
		out = append(out, p)
	}
	add(flagPath)
	add(getenv("REWIND_CONFIG"))
	add(userPath)
	add(userConfigFile(getenv))
	if dir, err := dirs.State(getenv); err == nil {
		add(dir)
	}
	return out
}

// setKeys returns the settings a config file sets, as "table.key". The
// file has parsed, so it is valid TOML.
func setKeys(data []byte) map[string]bool {
	var m map[string]any
	if toml.Unmarshal(data, &m) != nil {
		return nil
	}
	keys := map[string]bool{}
	for table, v := range m {
		keys[table] = true
		if sub, ok := v.(map[string]any); ok {
			for k := range sub {
				keys[table+"."+k] = true
			}
		}
	}
	return keys
}

// overlay lays a trusted project config over the user's: its rules come
// first, the settings it sets replace the user's, and its value options,
// subcommand aliases and target aliases add to the user's.
func overlay(cfg, proj *Config, set map[string]bool) {
	cfg.Zerto.Overlay(proj.Zerto, func(key string) bool { return set["zerto."+key] })
	for key, apply := range map[string]func(){
		"hook.budget":          func() { cfg.Hook.Budget = proj.Hook.Budget },
		"hook.on_error":        func() { cfg.Hook.OnError = proj.Hook.OnError },
		"hook.pending":         func() { cfg.Hook.Pending = proj.Hook.Pending },
		"hook.tag_prefix":      func() { cfg.Hook.TagPrefix = proj.Hook.TagPrefix },
		"capture.reuse_within": func() { cfg.Capture.ReuseWithin = proj.Capture.ReuseWithin },
		"targets.strip_domain": func() { cfg.Targets.StripDomain = proj.Targets.StripDomain },
	} {
		if set[key] {
			apply()
		}
	}
	if len(proj.Targets.Aliases) > 0 {
		aliases := make(map[string]string, len(cfg.Targets.Aliases)+len(proj.Targets.Aliases))
		for _, m := range []map[string]string{cfg.Targets.Aliases, proj.Targets.Aliases} {
			for k, v := range m {
				aliases[k] = v
			}
		}
		cfg.Targets.Aliases = aliases
	}
	cfg.ValueOptions = mergeLists(cfg.ValueOptions, proj.ValueOptions)
	cfg.MCP.layOver(&proj.MCP)
	if len(proj.SubcommandAliases) > 0 {
		m := make(map[string]map[string]string)
		for _, src := range []map[string]map[string]string{cfg.SubcommandAliases, proj.SubcommandAliases} {
			for cmd, list := range src {
				if m[cmd] == nil {
					m[cmd] = make(map[string]string)
				}
				for k, v := range list {
					m[cmd][k] = v
				}
			}
		}
		cfg.SubcommandAliases = m
	}
	for _, f := range proj.Catalog.Disable {
		if !slices.Contains(cfg.Catalog.Disable, f) {
			cfg.Catalog.Disable = append(cfg.Catalog.Disable, f)
		}
	}
	cfg.Commands = append(append([]CommandRule(nil), proj.Commands...), cfg.Commands...)
	cfg.Tools = append(append([]ToolRule(nil), proj.Tools...), cfg.Tools...)
	cfg.Servers = append(append([]ServerRule(nil), proj.Servers...), cfg.Servers...)
	cfg.Tests = append(cfg.Tests, proj.Tests...)
	if cfg.Path == "" {
		cfg.Path = proj.Path
	}
}

// onErrorRank orders hook.on_error from the loosest to the strictest.
var onErrorRank = sync.OnceValue(func() map[string]int {
	return map[string]int{"allow": 0, "ask": 1, "deny": 2}
})

func mergeLists(a, b map[string][]string) map[string][]string {
	if len(b) == 0 {
		return a
	}
	m := make(map[string][]string, len(a)+len(b))
	for _, src := range []map[string][]string{a, b} {
		for k, v := range src {
			m[k] = append(m[k], v...)
		}
	}
	return m
}

// tightenSettings applies the settings of an untrusted project config that
// make the user's policy stricter, and returns the others, which are not
// applied:
//
//   - [zerto]: none. An agent that can point rewind at a ZVM of its own
//     (url), trust a certificate of its own (ca_file, insecure_skip_verify)
//     or other credentials gets checkpoints that protect nothing.
//   - hook.budget: shorter, down to MinProjectBudget; never longer (past the
//     host's hook timeout the host cancels the hook and the call runs).
//   - hook.on_error: stricter only (allow < ask < deny); hook.pending:
//     "deny" only; hook.tag_prefix: none (reuse finds rewind's checkpoints
//     by their tag).
//   - capture.reuse_within: shorter only.
//   - [targets]: none. An alias decides which VM gets the checkpoint.
//
// Value options and subcommand aliases apply to the project's own rules
// only (see Policy.compileTighten), and its rules to its own judgement.
func tightenSettings(cfg, proj *Config, set map[string]bool) (ignored []string) {
	ignore := func(key, value, why string) {
		ignored = append(ignored, fmt.Sprintf("%s = %s (%s)", key, value, why))
	}
	for _, d := range cfg.Zerto.Differences(proj.Zerto, func(key string) bool { return set["zerto."+key] }) {
		ignore("zerto."+d.Key, d.Value, "only the user's config or a trusted project config sets where Zerto is and how to reach it")
	}
	if set["hook.budget"] {
		switch b := proj.Hook.Budget; {
		case b == cfg.Hook.Budget:
		case b < MinProjectBudget:
			ignore("hook.budget", fmt.Sprintf("%q", b), fmt.Sprintf("below the %s an untrusted project config may set", MinProjectBudget))
		case b > cfg.Hook.Budget:
			ignore("hook.budget", fmt.Sprintf("%q", b), fmt.Sprintf("longer than the user's %s", cfg.Hook.Budget))
		default:
			cfg.Hook.Budget = b
		}
	}
	if set["hook.on_error"] && proj.Hook.OnError != cfg.Hook.OnError {
		if onErrorRank()[proj.Hook.OnError] > onErrorRank()[cfg.Hook.OnError] {
			cfg.Hook.OnError = proj.Hook.OnError
		} else {
			ignore("hook.on_error", fmt.Sprintf("%q", proj.Hook.OnError), fmt.Sprintf("looser than the user's %q", cfg.Hook.OnError))
		}
	}
	if set["hook.pending"] && proj.Hook.Pending != cfg.Hook.Pending {
		if proj.Hook.Pending == "deny" {
			cfg.Hook.Pending = "deny"
		} else {
			ignore("hook.pending", fmt.Sprintf("%q", proj.Hook.Pending), "would let a call run before its checkpoint exists")
		}
	}
	if set["hook.tag_prefix"] && proj.Hook.TagPrefix != cfg.Hook.TagPrefix {
		ignore("hook.tag_prefix", fmt.Sprintf("%q", proj.Hook.TagPrefix), "rewind finds its checkpoints by their tag")
	}
	if set["capture.reuse_within"] {
		if r := proj.Capture.ReuseWithin; r <= cfg.Capture.ReuseWithin {
			cfg.Capture.ReuseWithin = r
		} else {
			ignore("capture.reuse_within", fmt.Sprintf("%q", r), fmt.Sprintf("longer than the user's %s", cfg.Capture.ReuseWithin))
		}
	}
	if set["targets.aliases"] && !maps.Equal(proj.Targets.Aliases, cfg.Targets.Aliases) {
		ignore("targets.aliases", "...", "an alias decides which VM gets the checkpoint")
	}
	if set["targets.strip_domain"] && proj.Targets.StripDomain != cfg.Targets.StripDomain {
		ignore("targets.strip_domain", fmt.Sprint(proj.Targets.StripDomain), "it decides which VM gets the checkpoint")
	}
	var off []string
	for _, f := range proj.Catalog.Disable {
		if !slices.Contains(cfg.Catalog.Disable, f) {
			off = append(off, f)
		}
	}
	if len(off) > 0 {
		ignore("catalog.disable", list(off), "turning a catalog family off loosens the guard")
	}
	return ignored
}

// Untrusted returns the project config of cfg that is not trusted and
// the settings of it that are ignored, for a hint to run `rewind trust`.
func (c *Config) Untrusted() (path string, ignored []string) {
	for _, s := range c.Sources {
		if s.Project && !s.Trusted && len(s.Ignored) > 0 {
			return s.Path, s.Ignored
		}
	}
	return "", nil
}
