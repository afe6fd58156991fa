package policy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lab is a user config, a project below it and a state folder, in a
// temporary folder.
type lab struct {
	t       testing.TB
	root    string
	user    string // the user config file
	project string // the project folder
	state   string
}

const labUserConfig = `
[zerto]
url = "https://zvm.lab.local"

[hook]
budget = "60s"
on_error = "ask"

[targets]
aliases = { "web1.lab.local" = "web-01" }

[[command]]
match = "virsh shutdown"
effect = "protect"
target = "arg:1"

[[command]]
match = "virsh undefine"
effect = "deny"
reason = "a VM without a definition cannot be rewound"
`

func newLab(t testing.TB, user string) *lab {
	t.Helper()
	root := t.TempDir()
	l := &lab{t: t, root: root, user: filepath.Join(root, "home", ".config", "rewind", "config.toml"),
		project: filepath.Join(root, "project"), state: filepath.Join(root, "state")}
	for _, d := range []string{filepath.Dir(l.user), filepath.Join(l.project, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if user != "" {
		l.write(l.user, user)
	}
	return l
}

func (l *lab) write(path, text string) {
	l.t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

func (l *lab) getenv(k string) string {
	switch k {
	case "HOME":
		return filepath.Join(l.root, "home")
	case "XDG_CONFIG_HOME":
		return filepath.Join(l.root, "home", ".config")
	case "REWIND_STATE_DIR":
		return l.state
	}
	return ""
}

// projectConfig writes the project's .rewind.toml.
func (l *lab) projectConfig(text string) string {
	p := filepath.Join(l.project, ProjectFile)
	l.write(p, text)
	return p
}

func (l *lab) find() (*Config, *Policy) {
	l.t.Helper()
	cfg, err := Find("", filepath.Join(l.project, "sub"), l.getenv)
	if err != nil {
		l.t.Fatal(err)
	}
	p, err := New(cfg)
	if err != nil {
		l.t.Fatal(err)
	}
	return cfg, p
}

// TestUntrustedProjectOnlyTightens: a .rewind.toml the agent could have
// written neither turns the user's or the catalog's rules off nor changes
// the settings that would let calls through.
func TestUntrustedProjectOnlyTightens(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		project string
		cmd     string
		want    Effect
	}{
		{"none over everything", "[[command]]\nmatch = \"*\"\neffect = \"none\"\n", "virsh shutdown web-01", Protect},
		{"none over the user's deny", "[[command]]\nmatch = \"virsh undefine\"\neffect = \"none\"\n", "virsh undefine web-01", Deny},
		{"none over the catalog's deny", "[[command]]\nmatch = \"govc vm.destroy\"\neffect = \"none\"\n", "govc vm.destroy web-01", Deny},
		{"none over remote commands", "[[command]]\nmatch = \"*\"\non = \"remote\"\neffect = \"none\"\n", "ssh web-01 sudo reboot", Protect},
		{"ask over the user's protect", "[[command]]\nmatch = \"virsh shutdown\"\neffect = \"ask\"\n", "virsh shutdown web-01", Ask},
		{"a rule of its own", "[[command]]\nmatch = \"terraform destroy\"\neffect = \"deny\"\n", "terraform destroy -auto-approve", Deny},
		{"its own none on a command nobody guards", "[[command]]\nmatch = \"make\"\neffect = \"none\"\n", "make test", None},
		{"an alias hiding the user's words", "[subcommand_aliases]\nvirsh = { \"shutdown\" = \"list\" }\n", "virsh shutdown web-01", Protect},
		{"a value option hiding the user's words", "[value_options]\nvirsh = [\"-q\"]\n", "virsh -q shutdown web-01", Protect},
		{"its alias applies to its own rules", "[subcommand_aliases]\nmytool = { \"rm\" = \"destroy\" }\n[[command]]\nmatch = \"mytool destroy\"\neffect = \"deny\"\n", "mytool rm x", Deny},
		{"a write rule that exempts a guarded file", "[[command]]\nmatch = \"*\"\nwrites = [\"**\"]\neffect = \"none\"\n", "echo x > .rewind.toml", Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, labUserConfig)
			l.projectConfig(tt.project)
			_, p := l.find()
			v := p.Classify(Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + quoteJSON(tt.cmd) + `}`), Cwd: l.project})
			if v.Effect != tt.want {
				t.Errorf("%s: got %s (%s: %s), want %s", tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
			}
		})
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestUntrustedProjectTools(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig+"\n[[tool]]\nname = \"mcp__vsphere__get_*\"\neffect = \"none\"\n")
	l.projectConfig(`
[[server]]
name = "vsphere"
[[server]]
name = "lab"
[[tool]]
name = "mcp__lab__status"
effect = "none"
[[tool]]
name = "mcp__vsphere__power_off_vm"
effect = "none"
`)
	_, p := l.find()
	for tool, want := range map[string]Effect{
		// The user lists it: the project's guarded server does not ask.
		"mcp__vsphere__get_vm": None,
		// The project lists it: none.
		"mcp__lab__status": None,
		// Nobody lists it: the project's guarded server asks.
		"mcp__lab__frobnicate": Ask,
		"mcp__vsphere__frob":   Ask,
		// Its words say it changes the VM its input names: a checkpoint
		// first, as on any server.
		"mcp__lab__reset":     Protect,
		"mcp__other__anytool": None,
		// The catalog protects it; the project's none does not count.
		"mcp__vsphere__power_off_vm": Protect,
	} {
		v := p.Classify(Call{Tool: tool, Input: json.RawMessage(`{"vm_name":"web-01"}`)})
		if v.Effect != want {
			t.Errorf("%s: got %s (%s: %s), want %s", tool, v.Effect, v.Rule, v.Reason, want)
		}
	}
}

func TestUntrustedProjectSettings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		project string
		check   func(c *Config) bool
		ignored string // a part of Source.Ignored, "" for none
	}{
		{"budget below the floor", "[hook]\nbudget = \"1ms\"\n", func(c *Config) bool { return c.Hook.Budget == 60*time.Second }, "hook.budget"},
		{"budget longer", "[hook]\nbudget = \"170s\"\n", func(c *Config) bool { return c.Hook.Budget == 60*time.Second }, "longer than the user's"},
		{"budget shorter", "[hook]\nbudget = \"20s\"\n", func(c *Config) bool { return c.Hook.Budget == 20*time.Second }, ""},
		{"budget at the floor", "[hook]\nbudget = \"10s\"\n", func(c *Config) bool { return c.Hook.Budget == MinProjectBudget }, ""},
		{"on_error looser", "[hook]\non_error = \"allow\"\n", func(c *Config) bool { return c.Hook.OnError == "ask" }, "hook.on_error"},
		{"on_error stricter", "[hook]\non_error = \"deny\"\n", func(c *Config) bool { return c.Hook.OnError == "deny" }, ""},
		{"pending ask", "[hook]\npending = \"ask\"\n", func(c *Config) bool { return c.Hook.Pending == "deny" }, "hook.pending"},
		{"tag prefix", "[hook]\ntag_prefix = \"x\"\n", func(c *Config) bool { return c.Hook.TagPrefix == DefaultTagPrefix }, "hook.tag_prefix"},
		{"reuse longer", "[capture]\nreuse_within = \"1h\"\n", func(c *Config) bool { return c.Capture.ReuseWithin == DefaultReuseWithin }, "capture.reuse_within"},
		{"reuse shorter", "[capture]\nreuse_within = \"5s\"\n", func(c *Config) bool { return c.Capture.ReuseWithin == 5*time.Second }, ""},
		{"a ZVM of the agent's", "[zerto]\nurl = \"https://evil.example\"\n", func(c *Config) bool { return c.Zerto.URL == "https://zvm.lab.local" }, "zerto.url"},
		{"a CA of the agent's", "[zerto]\nca_file = \"ca.pem\"\ninsecure_skip_verify = true\n", func(c *Config) bool { return c.Zerto.CAFile == "" && !c.Zerto.InsecureSkipVerify }, "zerto.insecure_skip_verify"},
		{"the user's own ZVM again", "[zerto]\nurl = \"https://zvm.lab.local\"\n", func(c *Config) bool { return c.Zerto.URL == "https://zvm.lab.local" }, ""},
		{"a secret", "[zerto]\nclient_secret = \"hunter22\"\n", func(c *Config) bool { return c.Zerto.ClientSecret == "" }, "zerto.client_secret = ..."},
		{"an alias to another VM", "[targets]\naliases = { \"web-01\" = \"scratch\" }\n", func(c *Config) bool { return c.Targets.Aliases["web-01"] == "" }, "targets.aliases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, labUserConfig)
			l.projectConfig(tt.project)
			cfg, _ := l.find()
			if !tt.check(cfg) {
				t.Errorf("settings %+v %+v %+v %+v", cfg.Zerto, cfg.Hook, cfg.Capture, cfg.Targets)
			}
			path, ignored := cfg.Untrusted()
			got := strings.Join(ignored, "; ")
			switch {
			case tt.ignored == "" && got != "":
				t.Errorf("ignored %q, want nothing", got)
			case tt.ignored != "" && (!strings.Contains(got, tt.ignored) || path != filepath.Join(l.project, ProjectFile)):
				t.Errorf("ignored %q in %q, want %q", got, path, tt.ignored)
			}
		})
	}
}

// TestTrustedProject: a trusted project config may loosen the user's
// policy; an edit, or the same content elsewhere, is untrusted again.
func TestTrustedProject(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	const loosen = "[hook]\nbudget = \"5s\"\n\n[[command]]\nmatch = \"virsh shutdown\"\neffect = \"none\"\n"
	path := l.projectConfig(loosen)
	judge := func() (Effect, *Config) {
		cfg, p := l.find()
		return p.ClassifyCommand("virsh shutdown web-01").Effect, cfg
	}
	if got, cfg := judge(); got != Protect || cfg.Hook.Budget != 60*time.Second {
		t.Fatalf("untrusted: %s, budget %s", got, cfg.Hook.Budget)
	}
	canon, hash, err := Trust(path, l.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if hash != TrustedHash([]byte(loosen)) || !strings.HasSuffix(canon, ProjectFile) {
		t.Errorf("Trust = %q, %q", canon, hash)
	}
	got, cfg := judge()
	if got != None || cfg.Hook.Budget != 5*time.Second || cfg.Zerto.URL != "https://zvm.lab.local" ||
		cfg.Targets.Aliases["web1.lab.local"] != "web-01" || !cfg.Sources[1].Trusted {
		t.Errorf("trusted: %s, %+v %+v", got, cfg.Hook, cfg.Sources)
	}
	// The user's other rules still apply after the project's.
	if _, p := l.find(); p.ClassifyCommand("virsh undefine web-01").Effect != Deny {
		t.Error("a trusted project config dropped the user's deny rule")
	}

	l.write(path, loosen+"# one more line\n")
	if got, _ := judge(); got != Protect {
		t.Errorf("edited after trust: %s, want the user's protect", got)
	}
	l.write(path, loosen)
	if got, _ := judge(); got != None {
		t.Errorf("the trusted content again: %s", got)
	}
	// The same content in another project is another file.
	other := filepath.Join(l.root, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	l.write(filepath.Join(other, ProjectFile), loosen)
	cfg, err = Find("", other, l.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := New(cfg); p.ClassifyCommand("virsh shutdown web-01").Effect != Protect {
		t.Error("trust followed the content to another path")
	}

	if was, err := Revoke(path, l.getenv); !was || err != nil {
		t.Fatalf("Revoke = %v, %v", was, err)
	}
	if got, _ := judge(); got != Protect {
		t.Errorf("after revoke: %s", got)
	}
	l.write(path, "[hook]\nbudget = \"soon\"\n")
	if _, _, err := Trust(path, l.getenv); err == nil || !strings.Contains(err.Error(), "hook.budget") {
		t.Errorf("trusting a broken file: %v", err)
	}
}

// TestUserConfigNotReplaced: a project config used to replace the user's;
// now the user's rules apply beside it.
func TestUserConfigNotReplaced(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	l.projectConfig("[[command]]\nmatch = \"make deploy\"\neffect = \"ask\"\n")
	cfg, p := l.find()
	if p.ClassifyCommand("virsh shutdown web-01").Effect != Protect || p.ClassifyCommand("make deploy").Effect != Ask {
		t.Error("the user's or the project's rule is lost")
	}
	if len(cfg.Sources) != 2 || cfg.Sources[0].Path != l.user || !cfg.Sources[1].Project {
		t.Errorf("Sources = %+v", cfg.Sources)
	}
}

// TestNearerProjectConfigAdds: a nearer .rewind.toml, even an empty one
// the agent created in a subfolder, adds to the farther project configs and
// hides none of their rules; only a trusted one shadows the farther ones.
func TestNearerProjectConfigAdds(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	l.projectConfig("[[command]]\nmatch = \"make deploy\"\neffect = \"deny\"\nreason = \"the team's rule\"\n")
	nearer := filepath.Join(l.project, "sub", ProjectFile)
	l.write(nearer, "")
	cfg, p := l.find()
	if got := p.ClassifyCommand("make deploy").Effect; got != Deny {
		t.Errorf("an empty nearer .rewind.toml hid the farther project's deny rule: %s", got)
	}
	if len(cfg.Sources) != 2 || cfg.Sources[0].Path != nearer || cfg.Sources[1].Path != filepath.Join(l.project, ProjectFile) {
		t.Errorf("Sources = %+v, want the nearer config first, then the farther", cfg.Sources)
	}
	// A nearer config that tries to loosen the farther one's rule cannot.
	l.write(nearer, "[[command]]\nmatch = \"make deploy\"\neffect = \"none\"\n")
	if _, p := l.find(); p.ClassifyCommand("make deploy").Effect != Deny {
		t.Error("an untrusted nearer config loosened the farther one")
	}
	// Once the person trusts the nearer one, it is the project's config:
	// the farther ones do not count.
	if _, _, err := Trust(nearer, l.getenv); err != nil {
		t.Fatal(err)
	}
	cfg, p = l.find()
	if got := p.ClassifyCommand("make deploy").Effect; got != None {
		t.Errorf("trusted nearer config: %s, want its none", got)
	}
	if len(cfg.Sources) != 1 || !cfg.Sources[0].Trusted {
		t.Errorf("Sources = %+v, want the trusted nearer config alone", cfg.Sources)
	}
	// An untrusted config nearer than a trusted one still tightens it.
	deeper := filepath.Join(l.project, "sub", "deeper")
	if err := os.MkdirAll(deeper, 0o755); err != nil {
		t.Fatal(err)
	}
	l.write(filepath.Join(deeper, ProjectFile), "[[command]]\nmatch = \"make deploy\"\neffect = \"ask\"\n")
	cfg, err := Find("", deeper, l.getenv)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := New(cfg); p.ClassifyCommand("make deploy").Effect != Ask {
		t.Error("an untrusted config nearer than a trusted one did not tighten it")
	}
}

// TestBrokenConfigAsksItsRules: with one bad value the user's rules are
// not dropped: every call any of them could match is asked.
func TestBrokenConfigAsksItsRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		config string
		errAt  string
		asked  []string
		passed []string
	}{
		{
			name:   "bad value",
			config: "[hook]\nbudget = \"soon\"\n" + labUserConfig[strings.Index(labUserConfig, "[[command]]"):],
			errAt:  "config.toml:2: hook.budget",
			asked:  []string{"virsh shutdown web-01", "sudo virsh undefine web-02", "echo $(virsh shutdown x)"},
			passed: []string{"ls -la", "virsh list", "git commit -m 'virsh shutdown web-01'"},
		},
		{
			name:   "bad effect",
			config: "[[command]]\nmatch = \"virsh shutdown\"\neffect = \"maybe\"\n[[command]]\nmatch = \"make\"\neffect = \"none\"\n",
			errAt:  "command.effect",
			asked:  []string{"virsh shutdown web-01", "make test"},
			passed: []string{"ls"},
		},
		{
			name:   "bad glob",
			config: "[[command]]\nmatch = \"virsh [shutdown\"\neffect = \"protect\"\ntarget = \"arg:1\"\n",
			errAt:  "command.match",
			asked:  []string{"virsh shutdown web-01", "virsh anything"},
			passed: []string{"ls"},
		},
		{
			name:   "rule without match",
			config: "[[command]]\neffect = \"deny\"\nargs_any = [\"--force\"]\n",
			errAt:  "missing key match",
			asked:  []string{"ls", "anything at all"},
		},
		{
			name:   "unterminated string",
			config: "[[command]]\nmatch = \"virsh shutdown\neffect = \"protect\"\ntarget = \"arg:1\"\n[[command]]\nmatch = 'kubectl delete'\neffect = \"deny\"\n",
			errAt:  "config.toml:2",
			asked:  []string{"virsh shutdown web-01", "kubectl -n prod delete pod x"},
			passed: []string{"ls", "kubectl get pods"},
		},
		{
			name:   "bare match",
			config: "[[command]]\nmatch = virsh shutdown   # oops\neffect = \"protect\"\n",
			errAt:  "config.toml:2",
			asked:  []string{"virsh shutdown web-01"},
			passed: []string{"ls"},
		},
		{
			name:   "header with a mangled match",
			config: "[[command]]\nmatcch == virsh\neffect = \"protect\"\n",
			errAt:  "config.toml",
			asked:  []string{"ls", "virsh shutdown web-01"},
		},
		{
			name:   "tools and servers",
			config: "[[server]]\nname = \"lab\"\n[[tool]]\nname = \"mcp__x__power\"\neffect = \"protect\"\nvm_arg = \"\"\n",
			errAt:  "tool",
			asked:  []string{"tool:mcp__x__power", "tool:mcp__lab__reset"},
			passed: []string{"tool:mcp__x__status", "tool:Read", "ls"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, tt.config)
			_, err := Find("", l.project, l.getenv)
			var le *LoadError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.errAt) {
				t.Fatalf("Find error %v, want a *LoadError at %q", err, tt.errAt)
			}
			p, err := New(Fallback(err))
			if err != nil {
				t.Fatal(err)
			}
			judge := func(c string) Verdict {
				if tool, ok := strings.CutPrefix(c, "tool:"); ok {
					return p.Classify(Call{Tool: tool, Input: json.RawMessage(`{}`)})
				}
				return p.ClassifyCommand(c)
			}
			for _, c := range tt.asked {
				if v := judge(c); v.Effect < Ask {
					t.Errorf("%s: got %s (%s), want ask", c, v.Effect, v.Rule)
				}
			}
			for _, c := range tt.passed {
				if v := judge(c); v.Effect != None {
					t.Errorf("%s: got %s (%s: %s), want none", c, v.Effect, v.Rule, v.Reason)
				}
			}
		})
	}
}

// TestBrokenProjectKeepsUserRules: a broken project config leaves the
// user's config in force and asks what its own rules could match.
func TestBrokenProjectKeepsUserRules(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	l.projectConfig("[[command]]\nmatch = \"make deploy\"\neffect = \"protec\"\n")
	_, err := Find("", l.project, l.getenv)
	if err == nil || !strings.Contains(err.Error(), ProjectFile+":3: command.effect") {
		t.Fatalf("err = %v", err)
	}
	cfg := Fallback(err)
	if cfg.Zerto.URL != "https://zvm.lab.local" || cfg.Hook.Budget != 60*time.Second {
		t.Errorf("the user's settings are lost: %+v", cfg.Hook)
	}
	p, _ := New(cfg)
	for cmd, want := range map[string]Effect{"virsh shutdown web-01": Protect, "make deploy prod": Ask, "make test": None} {
		if got := p.ClassifyCommand(cmd).Effect; got != want {
			t.Errorf("%s: got %s, want %s", cmd, got, want)
		}
	}
}

func TestFallbackWithoutLoadError(t *testing.T) {
	t.Parallel()
	if cfg := Fallback(errors.New("x")); cfg.Hook.Budget != DefaultBudget || len(cfg.Tighten) != 0 {
		t.Errorf("Fallback of another error = %+v", cfg)
	}
}

func FuzzLooseRules(f *testing.F) {
	for _, tt := range parseErrorTests {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte(labUserConfig))
	f.Add([]byte("[[command]]\nmatch = \"virsh shutdown\neffect = 'x'\n[[tool]]\nname = [\"a\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := looseRules("f.toml", data)
		p, err := New(&Config{Hook: Default().Hook, Tighten: []*Config{cfg}})
		if err != nil {
			t.Fatalf("loose rules do not compile: %v", err)
		}
		// Every rule read is an ask: none loosens.
		for _, r := range p.Rules() {
			if r.Origin != catalogOrigin && r.Effect != Ask {
				t.Fatalf("loose rule %+v", r)
			}
		}
		_ = p.ClassifyCommand("virsh shutdown web-01")
	})
}

func TestOwnFilesAsked(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	named := filepath.Join(l.root, "etc", "custom-rewind.toml")
	getenv := func(k string) string {
		if k == "REWIND_CONFIG" {
			return named
		}
		return l.getenv(k)
	}
	if err := os.MkdirAll(filepath.Dir(named), 0o755); err != nil {
		t.Fatal(err)
	}
	l.write(named, labUserConfig)
	cfg, err := Find("", l.project, getenv)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := New(cfg)
	for cmd, want := range map[string]Effect{
		"tee " + named + " < /tmp/x":                        Ask,
		"echo x >> " + filepath.Join(l.state, "trusted"):    Ask,
		"rm -rf " + l.state:                                 Ask,
		"cp /tmp/x " + filepath.Join(l.state, "audit.log"):  Ask,
		"cat " + named:                                      None,
		"echo x > " + filepath.Join(l.root, "etc", "other"): None,
	} {
		if v := p.ClassifyCommand(cmd); v.Effect != want {
			t.Errorf("%s: got %s (%s: %s), want %s", cmd, v.Effect, v.Rule, v.Reason, want)
		}
	}
	v := p.Classify(Call{Tool: "Write", Input: json.RawMessage(`{"file_path":` + quoteJSON(named) + `,"content":"x"}`)})
	if v.Effect != Ask || !strings.Contains(v.Reason, named) {
		t.Errorf("Write to $REWIND_CONFIG: %s (%s)", v.Effect, v.Reason)
	}
	if !slices.Contains(cfg.OwnFiles, named) || !slices.Contains(cfg.OwnFiles, l.state) {
		t.Errorf("OwnFiles = %q", cfg.OwnFiles)
	}
}

// TestWritesThroughLinks: a link made earlier to a guarded file does not
// hide it, and a relative path is read against the call's folder.
func TestWritesThroughLinks(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	target := l.projectConfig("")
	link := filepath.Join(l.project, "sub", "notes.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(l.project, filepath.Join(l.root, "alias")); err != nil {
		t.Fatal(err)
	}
	_, p := l.find()
	sub := filepath.Join(l.project, "sub")
	for _, tt := range []struct {
		cmd, cwd string
		want     Effect
	}{
		{"echo x > notes.txt", sub, Ask},
		{"echo x > sub/notes.txt", l.project, Ask},
		{"echo x > ../.rewind.toml", sub, Ask},
		{"echo x > " + filepath.Join(l.root, "alias", "other.txt"), "", None},
		{"echo x > other.txt", sub, None},
		{"cp -t " + l.project + " /tmp/.rewind.toml", "", Ask},
		{"install -m 644 /tmp/x.toml " + target, "", Ask},
		{"mv .rewind.toml old.toml", l.project, Ask},
		{"perl -pi -e 's/a/b/' .rewind.toml", l.project, Ask},
		{"perl -pe 's/a/b/' .rewind.toml", l.project, None},
		{"curl -o .rewind.toml https://example.com/x", l.project, Ask},
		{"wget -qO- https://example.com/x", l.project, None},
		{"ln -sf /tmp/mine.toml .rewind.toml", l.project, Ask},
		{"cd sub && echo x > ../.rewind.toml", l.project, Ask},
		{"cd " + l.project + " && echo x > .rewind.toml", "", Ask},
		{"cd sub; cd ..; tee .rewind.toml", l.project, Ask},
		{"cd .claude && echo x > settings.json", l.project, Ask},
		{"cd \"$X\" && echo x > settings.json", l.project, None},
		{"cd sub && echo x > settings.json", l.project, None},
	} {
		v := p.Classify(Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + quoteJSON(tt.cmd) + `}`), Cwd: tt.cwd})
		if v.Effect != tt.want {
			t.Errorf("%s (in %s): got %s (%s: %s), want %s", tt.cmd, tt.cwd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
	v := p.Classify(Call{Tool: "Write", Input: json.RawMessage(`{"file_path":` + quoteJSON(link) + `,"content":"x"}`), Cwd: l.project})
	if v.Effect != Ask {
		t.Errorf("Write through a link: %s", v.Effect)
	}
}

// TestProjectConfigThatIsNotAFile: what an agent can put in place of
// .rewind.toml besides a file — a FIFO, which would block the read, a link
// to /dev/zero, which never ends — is no config: the user's config judges,
// and nothing waits.
func TestProjectConfigThatIsNotAFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		make func(path string) error
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
		{"link to /dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"folder", func(p string) error { return os.Mkdir(p, 0o755) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, labUserConfig)
			if err := tt.make(filepath.Join(l.project, ProjectFile)); err != nil {
				t.Skip(err)
			}
			done := make(chan struct{})
			var cfg *Config
			var p *Policy
			go func() { defer close(done); cfg, p = l.find() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("Find is still reading the project's .rewind.toml")
			}
			if cfg.Hook.OnError != "ask" {
				t.Errorf("on_error = %q, want the user's ask", cfg.Hook.OnError)
			}
			if v := p.ClassifyCommand("virsh undefine web-01"); v.Effect != Deny {
				t.Errorf("the user's deny rule gives %v", v.Effect)
			}
		})
	}
}

// TestProjectFolderThatCannotBeSearched: a working folder whose path is
// too long, or under a parent that became a file, holds no project config,
// and the user's config still applies.
func TestProjectFolderThatCannotBeSearched(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	file := filepath.Join(l.project, "afile")
	l.write(file, "x")
	for _, cwd := range []string{filepath.Join(file, "sub"), filepath.Join(l.project, strings.Repeat("d", 300), strings.Repeat("e", 5000))} {
		cfg, err := Find("", cwd, l.getenv)
		if err != nil {
			t.Fatalf("Find(%.60s…) = %v", cwd, err)
		}
		if cfg.Hook.OnError != "ask" || len(cfg.Commands) == 0 {
			t.Errorf("Find(%.60s…) lost the user's config: %+v", cwd, cfg.Hook)
		}
	}
}

// TestWritesThroughDanglingLinks: a link to a guarded file that does not
// exist yet (no .rewind.toml in the project so far) creates it when written
// through, so the write is asked all the same; a loop of links ends.
func TestWritesThroughDanglingLinks(t *testing.T) {
	t.Parallel()
	l := newLab(t, "")
	link := filepath.Join(l.project, "notes.txt")
	if err := os.Symlink(filepath.Join(l.project, ProjectFile), link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	relative := filepath.Join(l.project, "sub", "todo.md")
	if err := os.Symlink("../.claude/settings.json", relative); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(l.project, "loop")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	_, p := l.find()
	for _, tt := range []struct {
		path string
		want Effect
	}{
		{link, Ask},
		{relative, Ask},
		{loop, None},
	} {
		v := p.Classify(Call{Tool: "Write", Input: json.RawMessage(`{"file_path":` + quoteJSON(tt.path) + `,"content":"x"}`), Cwd: l.project})
		if v.Effect != tt.want {
			t.Errorf("Write to %s: %s (%s), want %s", filepath.Base(tt.path), v.Effect, v.Reason, tt.want)
		}
		v = p.Classify(Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + quoteJSON("echo x > "+tt.path) + `}`), Cwd: l.project})
		if v.Effect != tt.want {
			t.Errorf("echo > %s: %s (%s), want %s", filepath.Base(tt.path), v.Effect, v.Reason, tt.want)
		}
	}
}

// TestTrustDataTrustsWhatWasShown: the text a person was shown is what is
// trusted; a file changed since stays untrusted.
func TestTrustDataTrustsWhatWasShown(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	const shown = "[[command]]\nmatch = \"virsh shutdown\"\neffect = \"ask\"\n"
	const swapped = "[[command]]\nmatch = \"virsh shutdown\"\neffect = \"none\"\n"
	path := l.projectConfig(swapped)
	if _, _, err := TrustData(path, []byte(shown), l.getenv); err != nil {
		t.Fatal(err)
	}
	if IsTrusted(path, []byte(swapped), l.getenv) {
		t.Error("the file as it is now is trusted; only the text shown should be")
	}
	if !IsTrusted(path, []byte(shown), l.getenv) {
		t.Error("the text shown is not trusted")
	}
}
