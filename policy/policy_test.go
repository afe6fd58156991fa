package policy

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rewind-dev/rewind/shell"
)

const userConfig = `
[[server]]
name = "vsphere"

[[tool]]
name = "mcp__vsphere__get_*"
effect = "none"
[[tool]]
name = "Write"
effect = "deny"
paths = ["src/**"]
payload_contains = ["do not revisit"]
reason = "no closing of topics in code"
[[tool]]
name = "mcp__lab__power"
effect = "protect"
vm_arg = "/spec/vms|vm"
[[tool]]
name = "mcp__lab__apply"
input_equals = { mode = "dry-run", "/opts/force" = "false", retries = "0" }
effect = "none"
[[tool]]
name = "mcp__lab__apply"
effect = "ask"

[[command]]
match = "gh issue create"
effect = "deny"
payload_contains = ["do not revisit"]
reason = "issue texts must not close a topic"
[[command]]
match = "git push"
args_any = ["--force", "-f"]
args_none = ["--force-with-lease"]
effect = "deny"
reason = "no force push"
[[command]]
match = "git reset"
args_any = ["--hard"]
effect = "ask"
[[command]]
match = "deploy"
value_options = ["-C"]
effect = "protect"
target = "arg:1"
[[command]]
match = "mytool"
on = "local"
effect = "protect"
target = "flag:--node"
[[command]]
match = "virsh destroy"
effect = "deny"
[[command]]
match = "kubectl delete"
effect = "deny"
`

func newPolicy(t testing.TB, config string) *Policy {
	t.Helper()
	cfg, err := Parse("test.toml", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClassifyCommand(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, userConfig)
	tests := []struct {
		cmd     string
		want    Effect
		targets []string
	}{
		// The DESIGN regression: a commit message that quotes the rule's
		// command and phrase is data; the issue body is payload.
		{"git commit -F- <<'EOF'\nfix: gh issue create with \"do not revisit\"\nEOF", None, nil},
		{"gh issue create --title x --body-file - <<'EOF'\nwe do not revisit this\nEOF", Deny, nil},
		{"gh issue create --body 'we DO NOT REVISIT this'", Deny, nil},
		{"gh issue create --body 'we may revisit this'", None, nil},
		{"gh -R org/repo issue create --body 'do not revisit'", Deny, nil},
		{"gh repo create issue --body 'do not revisit'", None, nil},

		{"git push -f origin main", Deny, nil},
		{"git push -fu origin main", Deny, nil},
		{"git -c core.x=y push --force", Deny, nil},
		{"git push --force --force-with-lease", None, nil},
		{"git push origin main", None, nil},
		{"git -C repo reset --hard", Ask, nil},
		{"git log reset --hard", None, nil},
		{"git reset --soft HEAD~1", None, nil},

		{"deploy -C conf web-03", Protect, []string{"web-03"}},
		{"deploy -C conf", Ask, nil},
		{"deploy \"$HOST\"", Ask, nil},
		{"mytool --node=web-04", Protect, []string{"web-04"}},
		{"mytool --node web-04,web-05", Protect, []string{"web-04", "web-05"}},
		{"ssh web-01 mytool --node web-04", Protect, []string{"web-01"}},

		{"virsh destroy web-01 && govc vm.power -off web-02", Deny, []string{"web-02"}},
		{"govc vm.power -off web-01; ssh db-01 systemctl restart pg", Protect, []string{"web-01", "db-01"}},
		{"echo \"$(virsh destroy web-01)\"", Deny, nil},

		// Payload phrases survive other white space and attached values.
		{"gh issue create --body 'we do  not\nrevisit this'", Deny, nil},
		{"gh issue create -b'do not revisit'", Deny, nil},

		// Options the rule does not know may take a value.
		{"kubectl -n prod delete pod web", Deny, nil},
		{"kubectl --context lab delete pod web", Deny, nil},
		{"kubectl get -o wide pods", None, nil},
		{"kubectl logs delete", None, nil},

		// Wrappers, aliases and shells reached in other ways.
		{"setsid -f virsh destroy web-01", Deny, nil},
		{"flock /tmp/l -c 'virsh destroy web-01'", Deny, nil},
		{"alias v='virsh destroy'\nv web-01", Deny, nil},
		{"sudo -s <<'EOF'\nvirsh destroy web-01\nEOF", Deny, nil},

		// Dynamic names and unparsed text.
		{"$CMD web-01", Ask, nil},
		{"ssh web-01 'if then'", Protect, []string{"web-01"}},
		{"echo ok\nif (", None, nil},
		{"echo ok\nvirsh destroy x; if (", Ask, nil},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			v := p.ClassifyCommand(tt.cmd)
			if v.Effect != tt.want || !slices.Equal(v.Targets, tt.targets) {
				t.Errorf("got %s %q (%s: %s), want %s %q", v.Effect, v.Targets, v.Rule, v.Reason, tt.want, tt.targets)
			}
		})
	}
}

func TestClassifyTool(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, userConfig)
	tests := []struct {
		tool, input, cwd string
		want             Effect
		targets          []string
	}{
		{"Write", `{"file_path":"/p/src/a/b.go","content":"// We do NOT revisit this"}`, "/p", Deny, nil},
		{"Write", `{"file_path":"src/b.go","content":"// We do not revisit"}`, "/p", Deny, nil},
		{"Write", `{"file_path":"/p/docs/b.md","content":"do not revisit"}`, "/p", None, nil},
		{"Write", `{"file_path":"/p/src/b.go","content":"fine"}`, "/p", None, nil},
		{"Edit", `{"file_path":"/p/src/b.go","new_string":"do not revisit"}`, "/p", None, nil},
		{"mcp__vsphere__get_vm", `{"vm_name":"web-01"}`, "", None, nil},
		{"mcp__vsphere__power_off_vm", `{"vm_name":"web-01"}`, "", Protect, []string{"web-01"}},
		{"mcp__vsphere__frobnicate", `{}`, "", Ask, nil},
		{"mcp__other__frobnicate", `{}`, "", None, nil},
		{"mcp__lab__power", `{"spec":{"vms":["a","b"]}}`, "", Protect, []string{"a", "b"}},
		{"mcp__lab__power", `{"vm":"c"}`, "", Protect, []string{"c"}},
		{"mcp__lab__power", `{"spec":{}}`, "", Ask, nil},
		{"Bash", `{"command":"govc vm.power -off web-01"}`, "", Protect, []string{"web-01"}},
		{"Bash", `{"command":["govc","vm.destroy","web-01"]}`, "", Deny, []string{"web-01"}},
		{"Bash", `not json`, "", Ask, nil},
		{"Read", `{"file_path":"/etc/passwd"}`, "", None, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{"force":false},"retries":0}`, "", None, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{"force":false},"retries":0,"other":1}`, "", None, nil},
		{"mcp__lab__apply", `{"mode":"apply","opts":{"force":false},"retries":0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":"Dry-Run","opts":{"force":false},"retries":0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":"dry-run ","opts":{"force":false},"retries":0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{"force":true},"retries":0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{"force":"false"},"retries":0}`, "", None, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{},"retries":0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{"force":false},"retries":0.0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":["dry-run"],"opts":{"force":false},"retries":0}`, "", Ask, nil},
		{"mcp__lab__apply", `{"mode":"dry-run","opts":{"force":false}}`, "", Ask, nil},
		{"mcp__lab__apply", `not json`, "", Ask, nil},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.input, func(t *testing.T) {
			v := p.Classify(Call{Tool: tt.tool, Input: json.RawMessage(tt.input), Cwd: tt.cwd})
			if v.Effect != tt.want || !slices.Equal(v.Targets, tt.targets) {
				t.Errorf("got %s %q (%s: %s), want %s %q", v.Effect, v.Targets, v.Rule, v.Reason, tt.want, tt.targets)
			}
		})
	}
}

// TestHandBuilt judges analyses built by hand, pinning the conventions of
// the shell analysis the policy relies on.
func TestHandBuilt(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	tests := []struct {
		name string
		a    shell.Analysis
		want Effect
	}{
		{"ssh itself with a remote command", shell.Analysis{Invocations: []shell.Invocation{
			{Name: "ssh", Args: []string{"web-01", "uptime"}, Host: "web-01"},
			{Name: "uptime", Host: "web-01", Via: []string{"ssh web-01"}},
		}}, None},
		{"remote dynamic command", shell.Analysis{
			Invocations: []shell.Invocation{{Name: "ssh", Args: []string{"web-01", "$X"}, ArgDynamic: []bool{false, true}, Host: "web-01"}},
			Dynamic:     []shell.Dynamic{{Source: "$X", Host: "web-01", Via: []string{"ssh web-01"}}},
		}, Protect},
		{"unparsed text without a rule's command", shell.Analysis{Unparsed: []shell.Unparsed{{Text: "echo (", Err: "1:6: bad"}}}, None},
		{"unparsed text with a rule's command", shell.Analysis{Unparsed: []shell.Unparsed{{Text: "/usr/bin/govc vm.power -off x (", Err: "1:6: bad"}}}, Ask},
		{"unparsed cmdlet", shell.Analysis{Unparsed: []shell.Unparsed{{Text: "stop-vm x (", Err: "bad"}}}, Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := p.classifyAnalysis(&tt.a, "", "")
			if v.Effect != tt.want {
				t.Errorf("got %s (%s: %s), want %s", v.Effect, v.Rule, v.Reason, tt.want)
			}
			if len(v.Matches) == 0 {
				t.Error("no matches to explain the verdict")
			}
		})
	}
}

func TestVerdictExplains(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	v := p.ClassifyCommand("ssh web-01 'uptime; reboot' && govc vm.info x")
	if v.Effect != Protect || v.Rule != "catalog:*" {
		t.Fatalf("got %s by %q", v.Effect, v.Rule)
	}
	var kinds []string
	for _, m := range v.Matches {
		kinds = append(kinds, m.Source+"="+m.Effect.String())
	}
	got := strings.Join(kinds, ", ")
	want := "ssh web-01 'uptime; reboot'=none, uptime=none, reboot=protect, govc vm.info x=none"
	if got != want {
		t.Errorf("matches:\n got %s\nwant %s", got, want)
	}
}

func TestEffectText(t *testing.T) {
	t.Parallel()
	for e := None; e <= Deny; e++ {
		b, err := e.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Effect
		if err := back.UnmarshalText(b); err != nil || back != e {
			t.Errorf("%s: round trip gave %s, %v", e, back, err)
		}
	}
	var e Effect
	if err := e.UnmarshalText([]byte("allow")); err == nil {
		t.Error("allow is not an effect")
	}
	if _, err := Effect(9).MarshalText(); err == nil {
		t.Error("Effect(9) marshalled")
	}
}

func TestRules(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, userConfig)
	rules := p.Rules()
	if rules[0].Name != "gh issue create" || rules[0].Origin != "test.toml" {
		t.Errorf("first rule is %+v, want the config's first command rule", rules[0])
	}
	var catalog int
	for _, r := range rules {
		if r.Origin == catalogOrigin {
			catalog++
		}
	}
	if catalog == 0 {
		t.Error("no catalog rules")
	}
}

func TestCatalogIsConfig(t *testing.T) {
	t.Parallel()
	// rewind catalog --toml prints one file the user can start a config
	// from, with the very rules of the catalog's files.
	cfg, err := Parse("catalog.toml", Catalog())
	if err != nil {
		t.Fatal(err)
	}
	want, err := ParseCatalog()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.ValueOptions, want.ValueOptions) || !reflect.DeepEqual(cfg.SubcommandAliases, want.SubcommandAliases) ||
		!reflect.DeepEqual(cfg.Servers, want.Servers) || !reflect.DeepEqual(cfg.Tools, want.Tools) ||
		!reflect.DeepEqual(cfg.Commands, want.Commands) || !reflect.DeepEqual(cfg.Tests, want.Tests) ||
		!reflect.DeepEqual(cfg.MCP, want.MCP) {
		t.Fatal("Catalog() does not hold the rules of the catalog's files")
	}
}

func TestCatalogFamilies(t *testing.T) {
	t.Parallel()
	fams := CatalogFamilies()
	if len(fams) < 2 || fams[0].Name != commonFamily {
		t.Fatalf("families %v: want common first", fams)
	}
	seen := map[string]bool{}
	for _, f := range fams {
		if seen[f.Name] {
			t.Errorf("family %q listed twice in catalog/index.toml", f.Name)
		}
		seen[f.Name] = true
		data, _ := CatalogFile(f.Name)
		if !strings.HasPrefix(string(data), "# "+f.Name+": ") || f.Summary == "" {
			t.Errorf("catalog file of %q: its first line should be a comment starting %q", f.Name, "# "+f.Name+": ")
		}
		if _, ok := CatalogFile(f.Name); !ok {
			t.Errorf("no file for family %q", f.Name)
		}
	}
	// Every file in the folder is in the index, so none is left out.
	files, err := catalogFiles.ReadDir("catalog")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range files {
		name := strings.TrimSuffix(e.Name(), ".toml")
		if name != "index" && !seen[name] {
			t.Errorf("catalog/%s is not listed in catalog/index.toml", e.Name())
		}
	}
	if _, ok := CatalogFile("nope"); ok {
		t.Error("CatalogFile found a family that does not exist")
	}
}

func TestParseCatalogFamilyOfFile(t *testing.T) {
	t.Parallel()
	index := &fstest.MapFile{Data: []byte(`families = ["common", "govc"]`)}
	fsys := fstest.MapFS{
		"catalog/index.toml":  index,
		"catalog/common.toml": {Data: []byte("[[test]]\ncommand = \"ls\"\nexpect = \"none\"\n")},
		"catalog/govc.toml": {Data: []byte(`[[command]]
match = "govc vm.destroy"
effect = "deny"
[[test]]
family = "ssh govc"
command = "ssh jump govc vm.destroy a"
expect = "deny"
`)},
	}
	cfg, err := parseCatalog(fsys)
	if err != nil {
		t.Fatal(err)
	}
	// A rule gets its file's family; a test may name several.
	if got := cfg.Commands[0].Family; got != "govc" {
		t.Errorf("rule family %q, want govc", got)
	}
	if got := []string{cfg.Tests[0].Family, cfg.Tests[1].Family}; got[0] != "" || got[1] != "ssh govc" {
		t.Errorf("test families %q", got)
	}
	// A rule of another family than its file's is an error.
	fsys["catalog/govc.toml"] = &fstest.MapFile{Data: []byte("[[command]]\nfamily = \"ssh\"\nmatch = \"govc vm.destroy\"\neffect = \"deny\"\n")}
	if _, err := parseCatalog(fsys); err == nil || !strings.Contains(err.Error(), `family "ssh" is not the file's ("govc")`) {
		t.Errorf("err = %v, want a family mismatch", err)
	}
	// A family in the index without its file is an error.
	index.Data = []byte(`families = ["common", "govc", "virsh"]`)
	if _, err := parseCatalog(fsys); err == nil || !strings.Contains(err.Error(), `family "virsh"`) {
		t.Errorf("err = %v, want the missing file named", err)
	}
}

func BenchmarkNew(b *testing.B) {
	cfg := Default()
	for b.Loop() {
		if _, err := New(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompileCatalog compiles the catalog with its indexes, which go
// generate does once for every process (catalog_gen.go).
func BenchmarkCompileCatalog(b *testing.B) {
	cfg := catalogConfig()
	for b.Loop() {
		if cat, err := compileCatalog(cfg); err != nil || len(cat.commands) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkClassify(b *testing.B) {
	p := newPolicy(b, userConfig)
	call := Call{Tool: "Bash", Input: json.RawMessage(`{"command":"git status && ls -la && ssh web-01 uptime"}`)}
	for b.Loop() {
		if v := p.Classify(call); v.Effect != None {
			b.Fatal(v.Effect)
		}
	}
}

func TestGeneratedCatalog(t *testing.T) {
	t.Parallel()
	cfg, err := ParseCatalog()
	if err != nil {
		t.Fatal(err)
	}
	gen := newCatalogConfig()
	if gen.Tests != nil {
		t.Error("the generated catalog's config holds its tests, which catalogTestCases returns")
	}
	gen.Tests = catalogTestCases()
	if !reflect.DeepEqual(cfg, gen) {
		t.Fatal("catalog_gen.go's catalog is stale: run go generate ./policy")
	}
	want, err := compileCatalog(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := compiledCatalog()
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("catalog_gen.go's compiled catalog is stale (%v): run go generate ./policy", err)
	}
}

func TestSnakeCase(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"mcp__vsphere__power_off_vm", "mcp__vsphere__power_off_vm"},
		{"mcp__vcenter__powerOffVM", "mcp__vcenter__power_off_vm"},
		{"mcp__vcenter__PowerOffVM", "mcp__vcenter__power_off_vm"},
		{"mcp__vcenter__getVMInfo", "mcp__vcenter__get_vm_info"},
		{"mcp__vcenter__vmPowerOff", "mcp__vcenter__vm_power_off"},
		{"mcp__my-server__power-off-vm", "mcp__my_server__power_off_vm"},
		{"mcp__s__restartVm2Now", "mcp__s__restart_vm2_now"},
		{"Write", "write"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := snakeCase(tt.in); got != tt.want {
			t.Errorf("snakeCase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// effectCase is a shell command and the effect its verdict must have.
type effectCase struct {
	cmd  string
	want Effect
}

// wantEffects holds p's verdict on each command to its effect.
func wantEffects(t *testing.T, p *Policy, cases []effectCase) {
	t.Helper()
	for _, tt := range cases {
		if v := p.ClassifyCommand(tt.cmd); v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}
