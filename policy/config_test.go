package policy

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

var parseErrorTests = []struct {
	name, src, want string
}{
	{"unknown top key", "bogus = 1\n", "c.toml:1: bogus: unknown key"},
	{"unknown rule key", "[[command]]\nmatch = \"x\"\neffect = \"deny\"\nargs_all = [\"-f\"]\n", "c.toml:4: command.args_all: unknown key"},
	{"bad effect", "[[command]]\nmatch = \"x\"\neffect = \"block\"\n", `c.toml:3: command.effect: unknown effect "block" (want none, protect, ask or deny)`},
	{"bad target", "[[command]]\nmatch = \"x\"\neffect = \"protect\"\ntarget = \"flag:-vm|vm\"\n", `c.toml:4: command.target: unknown target "vm"`},
	{"bad arg target", "[[command]]\nmatch = \"x\"\neffect = \"protect\"\ntarget = \"arg:0\"\n", `c.toml:4: command.target: bad target "arg:0"`},
	{"bad on", "[[command]]\nmatch = \"x\"\non = \"far\"\neffect = \"none\"\n", `c.toml:3: command.on: unknown value "far"`},
	{"bad glob", "[[command]]\nmatch = \"govc [vm\"\neffect = \"none\"\n", `c.toml:2: command.match: bad pattern "[vm"`},
	{"type mismatch", "[[command]]\nmatch = \"x\"\neffect = \"deny\"\nargs_any = \"-f\"\n", "c.toml:4: command.args_any: want a list of strings, got a string"},
	{"missing effect", "[[command]]\nmatch = \"x\"\n\n[[command]]\nmatch = \"y\"\n", "c.toml:1: command: missing key effect"},
	{"second rule missing effect", "[[command]]\nmatch = \"x\"\neffect = \"none\"\n\n[[command]]\nmatch = \"y\"\n", "c.toml:5: command: missing key effect"},
	{"protect without target", "[[command]]\nmatch = \"x\"\neffect = \"protect\"\n", "c.toml:3: command.effect: protect needs a target"},
	{"match and cmdlets", "[[command]]\nmatch = \"x\"\ncmdlets = [\"Stop-VM\"]\neffect = \"none\"\n", "c.toml:3: command.cmdlets: a rule has either match or cmdlets"},
	{"bad duration", "[hook]\nbudget = \"soon\"\n", `c.toml:2: hook.budget: bad duration "soon"`},
	{"duration as number", "[hook]\nbudget = 150\n", "c.toml:2: hook.budget: "},
	{"bad on_error", "[hook]\nbudget = \"10s\"\non_error = \"ignore\"\n", `c.toml:3: hook.on_error: unknown value "ignore" (want allow, ask or deny)`},
	{"bad pending", "[hook]\npending = \"wait\"\n", `c.toml:2: hook.pending: unknown value "wait"`},
	{"bad auth", "[zerto]\nurl = \"https://zvm\"\nauth = \"basic\"\n", `c.toml:3: zerto.auth: unknown value "basic"`},
	{"bad url", "[zerto]\nurl = \"zvm.lab.local\"\n", "c.toml:2: zerto.url: \"zvm.lab.local\" has no scheme: write it as https://zvm.lab.local"},
	{"ftp url", "[zerto]\nurl = \"ftp://zvm.lab.local\"\n", "c.toml:2: zerto.url: want an http or https URL"},
	{"tool protect without vm_arg", "[[tool]]\nname = \"mcp__x__y\"\neffect = \"protect\"\n", "c.toml:3: tool.effect: protect needs vm_arg"},
	{"tool bad path glob", "[[tool]]\nname = \"Write\"\neffect = \"deny\"\npaths = [\"src/[\"]\n", `c.toml:4: tool.paths: bad pattern "src/["`},
	{"tool empty input_equals key", "[[tool]]\nname = \"x\"\neffect = \"none\"\ninput_equals = { \"\" = \"a\" }\n", "c.toml:4: tool.input_equals: empty key"},
	{"tool input_equals not a string", "[[tool]]\nname = \"x\"\neffect = \"none\"\ninput_equals = { mode = true }\n", "c.toml:4: tool.input_equals"},
	{"test without expect", "[[test]]\ncommand = \"ls\"\n", "c.toml:1: test: missing key expect"},
	{"test bad input", "[[test]]\ntool = \"x\"\ninput = \"[1]\"\nexpect = \"none\"\n", "c.toml:3: test.input: want a JSON object"},
	{"syntax error", "[[command]\n", "c.toml:1: "},
	{"server name", "[[server]]\nname = \"a__b\"\n", `c.toml:2: server.name: want the MCP server's name, got "a__b"`},
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.toml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got  %q\nwant %q...", err, tt.want)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.File != "c.toml" {
				t.Errorf("error %T is not a *ConfigError for the file", err)
			}
		})
	}
}

func TestParseDefaultsAndValues(t *testing.T) {
	t.Parallel()
	cfg, err := Parse("c.toml", []byte(`
[zerto]
url = "https://zvm.lab.local"
client_id = "zerto-client"
[hook]
budget = "90s"
[targets]
aliases = { "web1.lab.local" = "web-01" }
strip_domain = true
[value_options]
deploy = ["-C"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Path != "c.toml" || cfg.Zerto.URL != "https://zvm.lab.local" || cfg.Zerto.Auth != "keycloak" {
		t.Errorf("zerto: %+v", cfg.Zerto)
	}
	want := HookConfig{Budget: 90 * time.Second, OnError: "allow", Pending: "deny", TagPrefix: "rewind"}
	if cfg.Hook != want {
		t.Errorf("hook: got %+v, want %+v", cfg.Hook, want)
	}
	if cfg.Capture.ReuseWithin != 30*time.Second {
		t.Errorf("reuse_within: %v", cfg.Capture.ReuseWithin)
	}
	if got := cfg.Targets.Candidates("web1.lab.local"); !slices.Equal(got, []string{"web-01", "web1.lab.local", "web1"}) {
		t.Errorf("candidates: %q", got)
	}
	if got := cfg.Targets.Candidates("10.0.0.1"); !slices.Equal(got, []string{"10.0.0.1"}) {
		t.Errorf("candidates of an address: %q", got)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	cfg, err := Load("")
	if err != nil || cfg.Hook.Budget != DefaultBudget {
		t.Fatalf("defaults: %v, %+v", err, cfg)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	project := filepath.Join(root, "project")
	deep := filepath.Join(project, "a", "b")
	home := filepath.Join(root, "home")
	for _, d := range []string{deep, filepath.Join(home, ".config", "rewind")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	userFile := filepath.Join(home, ".config", "rewind", "config.toml")
	projectFile := filepath.Join(project, ProjectFile)
	write := func(p string) {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	check := func(name, flag, cwd string, getenv func(string) string, wantUser string, wantProjects ...string) {
		t.Helper()
		user, projects, err := Discover(flag, cwd, getenv)
		if err != nil || user != wantUser || !slices.Equal(projects, wantProjects) {
			t.Errorf("%s: got %q, %q, %v, want %q, %q", name, user, projects, err, wantUser, wantProjects)
		}
	}
	check("nothing", "", deep, env("HOME", home), "")
	write(userFile)
	check("user config", "", deep, env("HOME", home), userFile)
	check("XDG_CONFIG_HOME", "", deep, env("HOME", root, "XDG_CONFIG_HOME", filepath.Join(home, ".config")), userFile)
	write(projectFile)
	check("project upwards, with the user config", "", deep, env("HOME", home), userFile, projectFile)
	check("env", "", deep, env("HOME", home, "REWIND_CONFIG", "/etc/rewind.toml"), "/etc/rewind.toml", projectFile)
	check("flag", "/x.toml", deep, env("REWIND_CONFIG", "/etc/rewind.toml"), "/x.toml", projectFile)
	check("flag naming the project file", projectFile, deep, env(), projectFile)
	check("no cwd", "", "", env("HOME", home), userFile)
	// A nearer config does not hide a farther one: both are found,
	// nearest first.
	nearer := filepath.Join(project, "a", ProjectFile)
	write(nearer)
	check("nested project configs", "", deep, env("HOME", home), userFile, nearer, projectFile)
	// At most MaxProjectConfigs, the nearest.
	dir := deep
	var want []string
	for range MaxProjectConfigs + 2 {
		dir = filepath.Join(dir, "n")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(filepath.Join(dir, ProjectFile))
		want = append([]string{filepath.Join(dir, ProjectFile)}, want...)
	}
	check("too many", "", dir, env("HOME", home), userFile, want[:MaxProjectConfigs]...)
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseErrorTests {
		f.Add([]byte(tt.src))
	}
	f.Add(Catalog())
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.toml", data)
		if err != nil {
			return
		}
		if _, err := New(cfg); err != nil {
			t.Fatalf("a parsed config does not compile: %v", err)
		}
	})
}

func TestSubcommandAliases(t *testing.T) {
	t.Parallel()
	if _, err := Parse("c.toml", []byte("[subcommand_aliases]\nmytool = { \"vm rm\" = \"vm destroy now\" }\n")); err == nil ||
		!strings.Contains(err.Error(), "subcommand_aliases.mytool") {
		t.Errorf("words standing for more words: %v", err)
	}
	cfg, err := Parse("c.toml", []byte(`
[subcommand_aliases]
mytool = { "vm rm" = "vm destroy" }
[[command]]
match = "mytool vm destroy"
effect = "deny"
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for cmd, want := range map[string]Effect{
		"mytool vm rm x":      Deny,
		"mytool vm destroy x": Deny,
		"mytool vm ls":        None,
		"echo mytool vm rm":   None,
	} {
		if got := p.ClassifyCommand(cmd).Effect; got != want {
			t.Errorf("%s: got %s, want %s", cmd, got, want)
		}
	}
}
