package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"
	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

// Config is a parsed rewind configuration file. Its zero value is not
// useful; Parse and Load fill in the defaults for every key the file omits.
type Config struct {
	// Path is the file the config was read from; it is empty for defaults.
	Path    string
	Zerto   ZertoConfig
	Hook    HookConfig
	Capture CaptureConfig
	Targets TargetsConfig
	// ValueOptions lists, per command name, the options that take their
	// value as the next word, so that matching and target extraction skip
	// that word. They add to the catalog's.
	ValueOptions map[string][]string
	// SubcommandAliases maps, per command name, subcommand words to the
	// words they stand for ("issue new" = "issue create" for gh), so that
	// a rule naming the one matches the other. They add to the catalog's.
	SubcommandAliases map[string]map[string]string
	// Catalog holds the [catalog] table: the built-in families turned off.
	Catalog CatalogConfig
	// MCP holds the [mcp] table: the words and input keys by which a tool
	// of an MCP server that no rule lists is judged. They add to the
	// catalog's.
	MCP      MCPConfig
	Servers  []ServerRule
	Tools    []ToolRule
	Commands []CommandRule
	Tests    []TestCase

	// Sources are the files the config was made of, the user's first;
	// Find fills it in.
	Sources []Source
	// OwnFiles are the files and folders that are rewind's own where this
	// config was found: the config files in use, the user config, the
	// state folder. A write to one of them is asked, whatever the rules
	// say (see Find).
	OwnFiles []string
	// Home is the user's home folder, which ~ and $HOME stand for in the
	// files a command writes; Find fills it in.
	Home string
	// SecretFiles are the files and folders that hold rewind's Zerto
	// secrets and tokens where it runs; a call that reads one is asked.
	// Find fills it in.
	SecretFiles []string
	// binaries finds rewind's own binaries where it runs (see Binaries);
	// Find sets it.
	binaries func() []string
	// PathEnv is $PATH where rewind runs, in which a command's name is
	// looked up to tell whether it runs rewind under another name; Find
	// fills it in.
	PathEnv string
	// Tighten are configs whose rules may only make a call's verdict
	// stricter: untrusted project configs, and the ask-everything-it-could
	// rules of a config that failed to load.
	Tighten []*Config
	// loose marks the rules of a config that failed to load, read
	// leniently (see looseRules).
	loose bool
}

// Binaries returns rewind's own binaries where it runs: the running
// executable and the one beside it (rewind, rewind-hook), those the
// installed hooks run (recorded in the state folder's installs.json), and
// rewind and rewind-hook in every folder of $PATH, where a new one would
// shadow the installed one. A write to one is asked as a write to
// rewind's own files. They are looked for on first use: most calls copy
// and write no file, and never ask.
func (c *Config) Binaries() []string {
	if c.binaries == nil {
		return nil
	}
	return c.binaries()
}

// ZertoConfig holds the [zerto] table as written in the file; it is the
// client's own type (see package zvmconf), so that neither package needs
// the other for it.
type ZertoConfig = zvmconf.Settings

// HookConfig holds the [hook] table.
type HookConfig struct {
	// Budget is how long the hook may take to answer.
	Budget time.Duration
	// OnError is the decision when rewind itself fails: allow, ask or deny.
	OnError string
	// Pending is the decision when a checkpoint is on its way: deny or ask.
	Pending string
	// TagPrefix starts every checkpoint tag rewind writes.
	TagPrefix string
}

// CaptureConfig holds the [capture] table.
type CaptureConfig struct {
	// ReuseWithin is how old a rewind tag may be and still protect a call.
	ReuseWithin time.Duration
}

// TargetsConfig holds the [targets] table, which maps host names written in
// commands to Zerto VM names.
type TargetsConfig struct {
	Aliases     map[string]string `toml:"aliases"`
	StripDomain bool              `toml:"strip_domain"`
}

// CatalogConfig holds the [catalog] table.
type CatalogConfig struct {
	// Disable names the built-in catalog's families whose rules and tests
	// are left out, such as "gcloud" for a site without Google Cloud.
	Disable []string `toml:"disable"`
}

// ServerRule names an MCP server whose tools that no rule lists get "ask".
type ServerRule struct {
	Name string `toml:"name"`
}

// ToolRule judges a non-shell tool call.
type ToolRule struct {
	// Name is a glob on the host's tool name, alternatives joined by "|".
	Name   string
	Effect Effect
	// VMArg names the VM in the tool input: a key or a JSON pointer
	// ("/spec/vm"), alternatives joined by "|".
	VMArg string
	// RequireTarget makes the rule apply only when VMArg finds a VM, so
	// that generic tool names do not catch other servers' tools.
	RequireTarget bool
	// Paths are globs ("**" spans folders) on the file the tool writes,
	// relative to the call's directory; any must match.
	Paths []string
	// PayloadContains are phrases, any of which must occur in the text the
	// tool writes, case-insensitively.
	PayloadContains []string
	// Writes are globs on the files the call writes ("**" spans folders),
	// matched ignoring case, also after following symbolic links. A rule
	// with Writes is judged in a pass of its own, after the rules without:
	// no rule that lets a tool or command through hides a write to a
	// guarded file. Only a rule of the same pass, before it, can.
	Writes []string
	Reason string
	// InputEquals are values the input must hold for the rule to apply:
	// key (or JSON pointer) to value, compared exactly with a string, or
	// with the JSON text of a number or boolean.
	InputEquals map[string]string
	// Family names the way of reaching a VM the rule belongs to, such as
	// "govc" or "azure"; [catalog] disable turns a catalog family off.
	Family string
}

// CommandRule judges a shell invocation, or a PowerShell cmdlet when
// Cmdlets is set.
type CommandRule struct {
	// Match is the command's words in order: the name first, "*" for any
	// one word, glob patterns allowed. Options between the words are
	// skipped.
	Match string
	// Cmdlets are PowerShell cmdlet names (globs, case-insensitive) run by
	// pwsh or powershell; a rule has either Match or Cmdlets.
	Cmdlets []string
	// On restricts the rule to local commands, to remote commands (run on
	// a host through ssh), or allows any (the default).
	On              string
	ArgsAny         []string
	ArgsNone        []string
	PayloadContains []string
	ValueOptions    []string
	// Exact makes the rule match only when no positional word follows
	// the matched words.
	Exact bool
	// Analysed makes the rule match only an invocation whose code was
	// analysed on its own: ssh with a remote command, -o RemoteCommand or
	// a script on its stdin; pwsh -Command; the command of winrs, psexec,
	// gcloud compute ssh, az vm run-command or aws ssm send-command; a
	// cmdlet whose script block runs on other computers (Invoke-Command).
	Analysed bool
	Effect   Effect
	// Target says where the VM names are: "flag:NAME", "arg:N", "args" or
	// "host", alternatives joined by "|".
	Target string
	// TargetSplit lists the characters that separate several targets in
	// one word; the default is ",".
	TargetSplit string
	// RequireTarget makes the rule apply only when Target finds a target
	// (or a word that is decided at run time).
	RequireTarget bool
	// Writes are globs on the files the command writes: by an output
	// redirection, or as the output of a command known to write files
	// (tee, cp, mv, sed -i, dd of=...). See ToolRule.Writes.
	Writes []string
	Reason string
	// Sample is the command the self-test matrix uses for the rule; when
	// empty one is built from the rule.
	Sample string
	// ResourceIDs makes a target written as a cloud resource ID or URI
	// stand for the name at its end: an Azure ID's virtualMachines/NAME,
	// a Compute Engine URL's instances/NAME, an EC2 ARN's instance/ID.
	ResourceIDs bool
	// Family names the way of reaching a VM the rule belongs to.
	Family string
}

// TestCase is a policy self-test: a command or a tool call and the effect
// the policy must give it.
type TestCase struct {
	Name    string
	Command string
	Tool    string
	// Input is the tool input, as JSON.
	Input string
	Cwd   string
	// Expect is the effect the call must get.
	Expect Effect
	// Targets, when set, are the targets the call must get, in order.
	Targets []string
	// Family names the families whose rules decide the case, separated
	// by spaces ("ssh govc"); the case is left out when any of them is
	// disabled.
	Family string
}

// ConfigError is a problem in a configuration file, at a line and key.
type ConfigError struct {
	File string
	Line int // 0 when unknown
	Key  string
	Err  error
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": ")
		b.WriteString(e.Key)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *ConfigError) Unwrap() error { return e.Err }

// Defaults of the keys a file may omit.
const (
	DefaultBudget      = 150 * time.Second
	DefaultReuseWithin = 30 * time.Second
	DefaultTagPrefix   = "rewind"
)

// Default returns the configuration used when there is no file.
func Default() *Config {
	return &Config{
		Zerto:   zvmconf.Default(),
		Hook:    HookConfig{Budget: DefaultBudget, OnError: "allow", Pending: "deny", TagPrefix: DefaultTagPrefix},
		Capture: CaptureConfig{ReuseWithin: DefaultReuseWithin},
	}
}

// Load reads and parses the config file at path. An empty path gives the
// defaults.
func Load(path string) (*Config, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := readConfig(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	return Parse(path, data)
}

// Parse parses a config file's contents; name is used in errors and kept
// as Config.Path. Parsing is strict: an unknown key or a bad value is a
// *ConfigError (or several, joined) naming the file, line and key.
func Parse(name string, data []byte) (*Config, error) {
	var f fileConfig
	def := Default()
	f.Zerto = def.Zerto
	f.Hook = fileHook{Budget: duration{def.Hook.Budget}, OnError: def.Hook.OnError, Pending: def.Hook.Pending, TagPrefix: def.Hook.TagPrefix}
	f.Capture.ReuseWithin = duration{def.Capture.ReuseWithin}

	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(name, data, err)
	}
	v := validator{name: name, data: data}
	cfg := v.config(&f)
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	cfg.Path = name
	return cfg, nil
}

// decodeError turns go-toml's errors into ConfigErrors.
func decodeError(name string, data []byte, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]error, len(strict.Errors))
		for i := range strict.Errors {
			de := &strict.Errors[i]
			line, _ := de.Position()
			errs[i] = &ConfigError{File: name, Line: line, Key: strings.Join(de.Key(), "."), Err: errors.New("unknown key")}
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &ConfigError{File: name, Line: line, Key: strings.Join(de.Key(), "."), Err: errors.New(decodeMessage(de.Error()))}
	}
	var bad *durationError
	if errors.As(err, &bad) {
		// go-toml gives no position for an error of an integer's
		// UnmarshalText: find the duration key that holds this value.
		for _, k := range [][2]string{{"hook", "budget"}, {"capture", "reuse_within"}} {
			line := keyLine(data, k[0], -1, k[1])
			if line > 0 && lineValue(data, line) == bad.text {
				return &ConfigError{File: name, Line: line, Key: k[0] + "." + k[1], Err: err}
			}
		}
	}
	return &ConfigError{File: name, Err: err}
}

// lineValue returns what follows the "=" on a line of data.
func lineValue(data []byte, line int) string {
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return ""
	}
	_, v, _ := strings.Cut(lines[line-1], "=")
	v, _, _ = strings.Cut(v, "#")
	return strings.TrimSpace(v)
}

// durationError is a bad duration value.
type durationError struct{ text, problem string }

func (e *durationError) Error() string { return e.problem }

// decodeMessage rewrites go-toml's type mismatch messages, which name Go
// types, into the config's terms.
func decodeMessage(msg string) string {
	msg = strings.TrimPrefix(msg, "toml: ")
	got, rest, ok := strings.Cut(strings.TrimPrefix(msg, "cannot decode TOML "), " into ")
	if !ok || !strings.HasPrefix(msg, "cannot decode TOML ") {
		return msg
	}
	typ := rest
	if i := strings.LastIndex(rest, " of type "); i >= 0 {
		typ = rest[i+len(" of type "):]
	}
	var want string
	switch {
	case typ == "string" || strings.HasSuffix(typ, "Text") || strings.HasSuffix(typ, "duration") || strings.HasSuffix(typ, "Effect"):
		want = "a string"
	case strings.HasPrefix(typ, "[]"):
		want = "a list of strings"
	case typ == "bool":
		want = "true or false"
	case strings.HasPrefix(typ, "map["):
		want = "a table of strings"
	case strings.HasPrefix(typ, "struct") || strings.Contains(typ, "."):
		want = "a table"
	default:
		want = "a " + typ
	}
	article := "a"
	if strings.IndexByte("aeiou", got[0]) >= 0 {
		article = "an"
	}
	return fmt.Sprintf("want %s, got %s %s", want, article, got)
}

// The file* types mirror the file's layout; values that need checking are
// of types whose UnmarshalText checks them, so that go-toml reports the
// problem at the value's line.
type fileConfig struct {
	Zerto        ZertoConfig                  `toml:"zerto"`
	Hook         fileHook                     `toml:"hook"`
	Capture      fileCapture                  `toml:"capture"`
	Targets      TargetsConfig                `toml:"targets"`
	ValueOptions map[string][]string          `toml:"value_options"`
	Aliases      map[string]map[string]string `toml:"subcommand_aliases"`
	Catalog      CatalogConfig                `toml:"catalog"`
	MCP          MCPConfig                    `toml:"mcp"`
	Servers      []ServerRule                 `toml:"server"`
	Tools        []fileTool                   `toml:"tool"`
	Commands     []fileCommand                `toml:"command"`
	Tests        []fileTest                   `toml:"test"`
}

type fileHook struct {
	Budget    duration `toml:"budget"`
	OnError   string   `toml:"on_error"`
	Pending   string   `toml:"pending"`
	TagPrefix string   `toml:"tag_prefix"`
}

type fileCapture struct {
	ReuseWithin duration `toml:"reuse_within"`
}

type fileTool struct {
	Name            *globText  `toml:"name"`
	Effect          *Effect    `toml:"effect"`
	VMArg           vmArgText  `toml:"vm_arg"`
	RequireTarget   bool       `toml:"require_target"`
	Paths           []globText `toml:"paths"`
	PayloadContains []string   `toml:"payload_contains"`
	Writes          []globText `toml:"writes"`
	Reason          string     `toml:"reason"`
	Family          string     `toml:"family"`

	InputEquals map[string]string `toml:"input_equals"`
}

type fileCommand struct {
	Match           matchText  `toml:"match"`
	Cmdlets         []globText `toml:"cmdlets"`
	On              onText     `toml:"on"`
	ArgsAny         []string   `toml:"args_any"`
	ArgsNone        []string   `toml:"args_none"`
	PayloadContains []string   `toml:"payload_contains"`
	ValueOptions    []string   `toml:"value_options"`
	Exact           bool       `toml:"exact"`
	Analysed        bool       `toml:"analysed"`
	Effect          *Effect    `toml:"effect"`
	Target          targetText `toml:"target"`
	TargetSplit     string     `toml:"target_split"`
	RequireTarget   bool       `toml:"require_target"`
	Writes          []globText `toml:"writes"`
	Reason          string     `toml:"reason"`
	Sample          string     `toml:"sample"`
	ResourceIDs     bool       `toml:"resource_ids"`
	Family          string     `toml:"family"`
}

type fileTest struct {
	Name    string   `toml:"name"`
	Command string   `toml:"command"`
	Tool    string   `toml:"tool"`
	Input   string   `toml:"input"`
	Cwd     string   `toml:"cwd"`
	Expect  *Effect  `toml:"expect"`
	Targets []string `toml:"targets"`
	Family  string   `toml:"family"`
}

// The value types below are structs, not named strings or integers,
// because go-toml assigns strings and integers to such types directly
// without calling their UnmarshalText.

// duration is a time.Duration written as a string such as "150s".
type duration struct{ v time.Duration }

func (d *duration) UnmarshalText(text []byte) error {
	v, err := time.ParseDuration(string(text))
	if err != nil {
		return &durationError{string(text), fmt.Sprintf("bad duration %q (want a number with a unit, such as \"150s\")", text)}
	}
	if v < 0 {
		return fmt.Errorf("negative duration %q", text)
	}
	d.v = v
	return nil
}

// globText is a glob pattern with path.Match syntax.
type globText struct{ v string }

func (g *globText) UnmarshalText(text []byte) error {
	if err := checkGlob(string(text)); err != nil {
		return err
	}
	g.v = string(text)
	return nil
}

func checkGlob(p string) error {
	if p == "" {
		return errors.New("empty pattern")
	}
	if _, err := path.Match(p, ""); err != nil {
		return fmt.Errorf("bad pattern %q", p)
	}
	return nil
}

// matchText is a command rule's match: words, each a glob.
type matchText struct{ v string }

func (m *matchText) UnmarshalText(text []byte) error {
	words := strings.Fields(string(text))
	if len(words) == 0 {
		return errors.New("empty match")
	}
	for _, w := range words {
		if err := checkGlob(w); err != nil {
			return err
		}
	}
	m.v = string(text)
	return nil
}

// onText is where a command rule applies.
type onText struct{ v string }

func (o *onText) UnmarshalText(text []byte) error {
	switch string(text) {
	case "any", "local", "remote":
		o.v = string(text)
		return nil
	}
	return fmt.Errorf("unknown value %q (want local, remote or any)", text)
}

// targetText is a command rule's target spec.
type targetText struct{ v string }

func (t *targetText) UnmarshalText(text []byte) error {
	if _, err := parseTargets(string(text)); err != nil {
		return err
	}
	t.v = string(text)
	return nil
}

// vmArgText is a tool rule's vm_arg: keys or JSON pointers, joined by "|".
type vmArgText struct{ v string }

func (v *vmArgText) UnmarshalText(text []byte) error {
	for alt := range strings.SplitSeq(string(text), "|") {
		if alt == "" || alt == "/" {
			return fmt.Errorf("bad vm_arg %q (want keys or JSON pointers joined by |)", text)
		}
	}
	v.v = string(text)
	return nil
}

// validator checks what the decoder cannot: required keys, choices and
// combinations of keys. It finds lines only when there is a problem, so
// that a valid file is decoded once.
type validator struct {
	name string
	data []byte
	errs []error
}

func (v *validator) fail(table string, index int, key, format string, args ...any) {
	line := keyLine(v.data, table, index, key)
	full := key
	if table != "" {
		full = table + "." + key
		if key == "" {
			full = table
		}
	}
	v.errs = append(v.errs, &ConfigError{File: v.name, Line: line, Key: full, Err: fmt.Errorf(format, args...)})
}

func (v *validator) config(f *fileConfig) *Config {
	cfg := &Config{
		Zerto:             f.Zerto,
		Targets:           f.Targets,
		ValueOptions:      f.ValueOptions,
		SubcommandAliases: f.Aliases,
		Catalog:           f.Catalog,
		MCP:               f.MCP,
		Servers:           f.Servers,
		Hook: HookConfig{
			Budget:    f.Hook.Budget.v,
			OnError:   f.Hook.OnError,
			Pending:   f.Hook.Pending,
			TagPrefix: f.Hook.TagPrefix,
		},
		Capture: CaptureConfig{ReuseWithin: f.Capture.ReuseWithin.v},
	}
	for _, p := range f.Zerto.Problems() {
		v.fail("zerto", -1, p.Key, "%s", p.Msg)
	}
	if cfg.Hook.Budget <= 0 {
		v.fail("hook", -1, "budget", "must be positive")
	}
	switch cfg.Hook.OnError {
	case "allow", "ask", "deny":
	default:
		v.fail("hook", -1, "on_error", "unknown value %q (want allow, ask or deny)", cfg.Hook.OnError)
	}
	switch cfg.Hook.Pending {
	case "deny", "ask":
	default:
		v.fail("hook", -1, "pending", "unknown value %q (want deny or ask)", cfg.Hook.Pending)
	}
	if !validTagPrefix(cfg.Hook.TagPrefix) {
		v.fail("hook", -1, "tag_prefix", "want letters, digits, '.', '_' or '-', got %q", cfg.Hook.TagPrefix)
	}
	for k, val := range cfg.Targets.Aliases {
		if k == "" || val == "" {
			v.fail("targets", -1, "aliases", "aliases need a non-empty name and VM name")
		}
	}
	for cmd, opts := range cfg.ValueOptions {
		for _, o := range opts {
			if o = strings.TrimPrefix(o, "!"); !strings.HasPrefix(o, "-") || o == "-" {
				v.fail("value_options", -1, cmd, "%q is not an option", o)
			}
		}
	}
	for cmd, m := range cfg.SubcommandAliases {
		for from, to := range m {
			if len(strings.Fields(from)) == 0 || len(strings.Fields(from)) != len(strings.Fields(to)) {
				v.fail("subcommand_aliases", -1, cmd, "%q = %q: want words standing for as many words", from, to)
			}
		}
	}
	v.disable(cfg.Catalog.Disable)
	v.mcp(&cfg.MCP)
	for i, s := range f.Servers {
		if s.Name == "" || strings.Contains(s.Name, "__") {
			v.fail("server", i, "name", "want the MCP server's name, got %q", s.Name)
		}
	}
	for i := range f.Tools {
		cfg.Tools = append(cfg.Tools, v.tool(i, &f.Tools[i]))
	}
	for i := range f.Commands {
		cfg.Commands = append(cfg.Commands, v.command(i, &f.Commands[i]))
	}
	for i := range f.Tests {
		cfg.Tests = append(cfg.Tests, v.test(i, &f.Tests[i]))
	}
	return cfg
}

func validTagPrefix(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func (v *validator) tool(i int, t *fileTool) ToolRule {
	r := ToolRule{
		VMArg:           t.VMArg.v,
		RequireTarget:   t.RequireTarget,
		PayloadContains: t.PayloadContains,
		InputEquals:     t.InputEquals,
		Reason:          t.Reason,
		Family:          t.Family,
	}
	for k := range t.InputEquals {
		if k == "" || k == "/" {
			v.fail("tool", i, "input_equals", "empty key (want an input key or a JSON pointer such as /spec/mode)")
		}
	}
	for _, p := range t.Paths {
		r.Paths = append(r.Paths, p.v)
	}
	for _, p := range t.Writes {
		r.Writes = append(r.Writes, p.v)
	}
	if len(r.Writes) > 0 && t.Effect != nil && *t.Effect == Protect {
		v.fail("tool", i, "writes", "a rule on written files cannot protect: a file is not a VM")
	}
	if t.Name == nil {
		v.fail("tool", i, "", "missing key name (a glob on the tool name)")
	} else {
		r.Name = t.Name.v
	}
	if t.Effect == nil {
		v.fail("tool", i, "", "missing key effect")
	} else {
		r.Effect = *t.Effect
	}
	if r.Effect == Protect && r.VMArg == "" {
		v.fail("tool", i, "effect", "protect needs vm_arg to name the VM")
	}
	if r.RequireTarget && r.VMArg == "" {
		v.fail("tool", i, "require_target", "needs vm_arg")
	}
	v.phrases("tool", i, "payload_contains", r.PayloadContains)
	return r
}

func (v *validator) command(i int, c *fileCommand) CommandRule {
	r := CommandRule{
		Match:           c.Match.v,
		On:              c.On.v,
		ArgsAny:         c.ArgsAny,
		ArgsNone:        c.ArgsNone,
		PayloadContains: c.PayloadContains,
		ValueOptions:    c.ValueOptions,
		Exact:           c.Exact,
		Analysed:        c.Analysed,
		Target:          c.Target.v,
		TargetSplit:     c.TargetSplit,
		RequireTarget:   c.RequireTarget,
		Reason:          c.Reason,
		Sample:          c.Sample,
		ResourceIDs:     c.ResourceIDs,
		Family:          c.Family,
	}
	for _, p := range c.Cmdlets {
		r.Cmdlets = append(r.Cmdlets, p.v)
	}
	for _, p := range c.Writes {
		r.Writes = append(r.Writes, p.v)
	}
	if len(r.Writes) > 0 && len(c.Cmdlets) > 0 {
		v.fail("command", i, "writes", "applies to match, not cmdlets")
	}
	if len(r.Writes) > 0 && c.Effect != nil && *c.Effect == Protect {
		v.fail("command", i, "writes", "a rule on written files cannot protect: a file is not a VM")
	}
	switch {
	case r.Match == "" && len(r.Cmdlets) == 0:
		v.fail("command", i, "", "missing key match (or cmdlets)")
	case r.Match != "" && len(r.Cmdlets) > 0:
		v.fail("command", i, "cmdlets", "a rule has either match or cmdlets, not both")
	}
	if c.Effect == nil {
		v.fail("command", i, "", "missing key effect")
	} else {
		r.Effect = *c.Effect
	}
	if r.Effect == Protect && r.Target == "" {
		v.fail("command", i, "effect", "protect needs a target (flag:NAME, arg:N, args or host)")
	}
	if r.RequireTarget && r.Target == "" {
		v.fail("command", i, "require_target", "needs a target")
	}
	if r.Exact && len(r.Cmdlets) > 0 {
		v.fail("command", i, "exact", "applies to match, not cmdlets")
	}
	for _, list := range []struct {
		key   string
		words []string
	}{{"args_any", r.ArgsAny}, {"args_none", r.ArgsNone}} {
		for _, w := range list.words {
			if strings.TrimSpace(w) == "" {
				v.fail("command", i, list.key, "empty argument")
			}
		}
	}
	for _, o := range r.ValueOptions {
		if o = strings.TrimPrefix(o, "!"); !strings.HasPrefix(o, "-") || o == "-" {
			v.fail("command", i, "value_options", "%q is not an option", o)
		}
	}
	v.phrases("command", i, "payload_contains", r.PayloadContains)
	return r
}

func (v *validator) phrases(table string, i int, key string, list []string) {
	for _, p := range list {
		if strings.TrimSpace(p) == "" {
			v.fail(table, i, key, "empty phrase")
		}
	}
}

func (v *validator) test(i int, t *fileTest) TestCase {
	tc := TestCase{Name: t.Name, Command: t.Command, Tool: t.Tool, Input: t.Input, Cwd: t.Cwd, Targets: t.Targets, Family: t.Family}
	switch {
	case t.Command == "" && t.Tool == "":
		v.fail("test", i, "", "missing key command (or tool)")
	case t.Command != "" && t.Tool != "":
		v.fail("test", i, "tool", "a test has either command or tool, not both")
	}
	if t.Input != "" {
		if t.Tool == "" {
			v.fail("test", i, "input", "input belongs to a tool test")
		} else if !json.Valid([]byte(t.Input)) || !strings.HasPrefix(strings.TrimSpace(t.Input), "{") {
			v.fail("test", i, "input", "want a JSON object")
		}
	}
	if t.Expect == nil {
		v.fail("test", i, "", "missing key expect")
	} else {
		tc.Expect = *t.Expect
	}
	return tc
}
