package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
	"github.com/rewind-dev/rewind/internal/shapes"
)

// mcpServerTable is policy/testdata/mcp-servers.json: calls of public MCP
// servers with the decision each should get without a policy entry.
type mcpServerTable struct {
	Servers []struct {
		Server, Name, Source, Commit string
		Calls                        []struct {
			Tool    string
			Input   json.RawMessage
			Want    Effect
			Targets []string
		}
	}
}

func readMCPServers(t testing.TB) *mcpServerTable {
	t.Helper()
	data, err := os.ReadFile("testdata/mcp-servers.json")
	if err != nil {
		t.Fatal(err)
	}
	var table mcpServerTable
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	return &table
}

// TestMCPServers judges every call of the real-server table by the
// catalog alone and wants each decision: a read or create passes, a
// change protects the VMs it names (or is asked when the call names
// none), a delete is denied.
func TestMCPServers(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	table := readMCPServers(t)
	right, total := 0, 0
	for _, s := range table.Servers {
		for _, c := range s.Calls {
			total++
			tool := "mcp__" + s.Name + "__" + c.Tool
			v := p.Classify(Call{Tool: tool, Input: c.Input})
			if v.Effect == c.Want && (c.Targets == nil || slices.Equal(v.Targets, c.Targets)) {
				right++
				continue
			}
			t.Errorf("%s (%s): %s %s: got %s %q (%s: %s), want %s %q", s.Server, s.Source, tool, c.Input,
				v.Effect, v.Targets, v.Rule, v.Reason, c.Want, c.Targets)
		}
	}
	t.Logf("%d of %d calls of %d servers decided right", right, total, len(table.Servers))
}

// TestMCPServersQuoted puts every call of the table as text into the
// input of tools of other servers (an issue, a chat message, a file) and
// into a read-only tool of the same server: each must pass.
func TestMCPServersQuoted(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	table := readMCPServers(t)
	for _, s := range table.Servers {
		for _, c := range s.Calls {
			text := fmt.Sprintf("call mcp__%s__%s with %s", s.Name, c.Tool, c.Input)
			for _, q := range []struct{ tool, key string }{
				{"mcp__github__create_issue", "body"},
				{"mcp__slack__post_message", "text"},
				{"mcp__filesystem__write_file", "content"},
				{"mcp__" + s.Name + "__list_vms", "filter"},
			} {
				in, _ := json.Marshal(map[string]string{q.key: text, "path": "notes/" + strings.ReplaceAll(c.Tool, "/", "_") + ".md"})
				if v := p.Classify(Call{Tool: q.tool, Input: in}); v.Effect != None {
					t.Errorf("%s quoting %s: got %s (%s: %s), want none", q.tool, c.Tool, v.Effect, v.Rule, v.Reason)
				}
			}
		}
	}
}

// mcpLarge are MCP inputs of about size bytes of the shapes that could
// wear the words and keys down, with the effect each must get.
func mcpLarge(size int) []struct {
	name, tool, input string
	want              Effect
} {
	many := func(unit string) string { return strings.Repeat(unit, size/len(unit)) }
	distinct := func(sep string) string {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "vm-%d%s", i, sep)
		}
		return b.String()
	}
	keys := func() string {
		var b strings.Builder
		b.WriteString(`{"vm_name":"web-01"`)
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, `,"k%d":{"x":[1]}`, i)
		}
		return b.String() + "}"
	}
	return []struct {
		name, tool, input string
		want              Effect
	}{
		{"one name many times", "mcp__v__power_off_vm", `{"vm_name":"` + many("web-01,") + `"}`, Protect},
		{"many distinct names", "mcp__v__power_off_vm", `{"vm_name":"` + distinct(",") + `"}`, Ask},
		{"many positional names", "mcp__v__vm_destroy", `{"_args":"` + distinct(" ") + `"}`, Deny},
		{"many keys", "mcp__v__power_off_vm", keys(), Ask},
		{"deep nesting", "mcp__v__power_off_vm", `{"vm_name":"web-01","x":` + strings.Repeat("[", 9000) + strings.Repeat("]", 9000) + `}`, Protect},
		{"a long argv", "mcp__gcloud__run_gcloud_command", `{"args":["compute","instances","list"` + many(`,"x"`) + `]}`, None},
		{"many flags", "mcp__vmware__govc_run", `{"command":"vm.info","flags":{"` + strings.TrimSuffix(distinct(`":true,"`), `,"`) + `}}`, None},
		{"many hosts", "mcp__ssh__exec", `{"hosts":"` + distinct(",") + `","command":"sudo reboot"}`, Ask},
		{"a long action", "mcp__v__manage_vm", `{"vm_name":"web-01","action":"` + many("delete_") + `"}`, Deny},
	}
}

// TestMCPLarge: inputs of a megabyte of each shape are decided as their
// words and keys say; BenchmarkMCPLarge times 8 MiB of them.
func TestMCPLarge(t *testing.T) {
	race.SkipHuge(t)
	p := newPolicy(t, "")
	for _, tt := range mcpLarge(1 << 20) {
		if !json.Valid([]byte(tt.input)) {
			t.Fatalf("%s: not JSON", tt.name)
		}
		if v := p.Classify(Call{Tool: tt.tool, Input: json.RawMessage(tt.input)}); v.Effect != tt.want {
			t.Errorf("%s: got %s (%s: %.200s), want %s", tt.name, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}

func BenchmarkMCPLarge(b *testing.B) {
	p := newPolicy(b, "")
	for _, tt := range mcpLarge(8 << 20) {
		b.Run(tt.name, func(b *testing.B) {
			b.SetBytes(int64(len(tt.input)))
			for b.Loop() {
				p.Classify(Call{Tool: tt.tool, Input: json.RawMessage(tt.input), InputValid: true})
			}
		})
	}
}

// TestToolWritesMany: a file tool that names more files than the rules
// with writes check is asked; one that names a few is judged by them.
func TestToolWritesMany(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	many := make([]string, maxToolFiles+1)
	for i := range many {
		many[i] = fmt.Sprintf("docs/f%d.md", i)
	}
	for _, tt := range []struct {
		paths []string
		want  Effect
	}{
		{many, Ask},
		{many[:3], None},
		{append(many[:2:2], ".rewind.toml"), Ask},
	} {
		in, _ := json.Marshal(map[string]any{"paths": tt.paths})
		if v := p.Classify(Call{Tool: "mcp__files__delete_files", Input: in}); v.Effect != tt.want {
			t.Errorf("%d paths: got %s (%s: %s), want %s", len(tt.paths), v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}

// TestMCPWordsBothWays builds, for every verb of the catalog's [mcp]
// table, a tool that names a VM with it, verb first and verb last, and
// wants the verb's effect; the same call quoted in another server's tool
// and a read-only sibling of the same server must pass.
func TestMCPWordsBothWays(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	want := map[string]Effect{"read": None, "change": Protect, "machine": Protect, "create": None, "destroy": Deny, "exec": Ask}
	for class, verbs := range catalogConfig().MCP.Verbs {
		for _, verb := range verbs {
			for _, tool := range []string{verb + "_vm", "vm_" + verb} {
				input := json.RawMessage(`{"vm_name":"web-01"}`)
				v := p.Classify(Call{Tool: "mcp__lab__" + tool, Input: input})
				w := want[class]
				if tool == "destroy_vm" || tool == "vm_destroy" {
					// Not a domain: the VM is deleted.
					w = Deny
				}
				if v.Effect != w {
					t.Errorf("%s (%s): got %s (%s: %s), want %s", tool, class, v.Effect, v.Rule, v.Reason, w)
				}
				if w >= Protect && w != Ask && w != Deny && !slices.Equal(v.Targets, []string{"web-01"}) {
					t.Errorf("%s: targets %q, want web-01", tool, v.Targets)
				}
				quoted, _ := json.Marshal(map[string]string{"body": "mcp__lab__" + tool + ` {"vm_name":"web-01"}`})
				if v := p.Classify(Call{Tool: "mcp__github__add_comment", Input: quoted}); v.Effect != None {
					t.Errorf("%s quoted: got %s (%s: %s), want none", tool, v.Effect, v.Rule, v.Reason)
				}
				if v := p.Classify(Call{Tool: "mcp__lab__get_vm", Input: input}); v.Effect != None {
					t.Errorf("the read sibling of %s: got %s", tool, v.Effect)
				}
			}
		}
	}
}

// FuzzMCPTool judges MCP tool calls of any name and input, seeded from
// the real-server table: no panic, and the same verdict every time
// (targets in the same order), whatever order Go's maps iterate in.
func FuzzMCPTool(f *testing.F) {
	for _, s := range readMCPServers(f).Servers {
		for _, c := range s.Calls {
			f.Add("mcp__"+s.Name+"__"+c.Tool, []byte(c.Input))
		}
	}
	p := newPolicy(f, "")
	f.Fuzz(func(t *testing.T, tool string, input []byte) {
		if !strings.HasPrefix(tool, "mcp__") {
			tool = "mcp__x__" + tool
		}
		v := p.Classify(Call{Tool: tool, Input: input})
		for range 3 {
			w := p.Classify(Call{Tool: tool, Input: input})
			if w.Effect != v.Effect || !slices.Equal(w.Targets, v.Targets) || w.Reason != v.Reason {
				t.Fatalf("%s %q: %s %q, then %s %q", tool, input, v.Effect, v.Targets, w.Effect, w.Targets)
			}
		}
	})
}

// TestMCPConfig: a config's [mcp] words add to the catalog's and move a
// word to another class; an untrusted project's only tighten, a trusted
// one's move words too; a broken table is one error per problem.
func TestMCPConfig(t *testing.T) {
	t.Parallel()
	reset := Call{Tool: "mcp__lab__reset_vm", Input: json.RawMessage(`{"vm_name":"web-01"}`)}
	frob := Call{Tool: "mcp__lab__frob_vm", Input: json.RawMessage(`{"vm_name":"web-01"}`)}
	remote := Call{Tool: "mcp__prod__exec", Input: json.RawMessage(`{"command":"sudo reboot"}`)}
	user := "[mcp.verbs]\nread = [\"reset\"]\ndestroy = [\"frob\"]\n[mcp.nouns]\nremote = [\"prod\"]\n"
	p := newPolicy(t, user)
	for _, tt := range []struct {
		c    Call
		want Effect
	}{{reset, None}, {frob, Deny}, {remote, Ask}} {
		if v := p.Classify(tt.c); v.Effect != tt.want {
			t.Errorf("user words, %s: got %s (%s), want %s", tt.c.Tool, v.Effect, v.Reason, tt.want)
		}
	}
	// A config's language word: the lab server's code is Python.
	code := Call{Tool: "mcp__lab__run_snippet", Input: json.RawMessage(`{"code": "import os; os.system('ssh web-01 reboot')"}`)}
	if v := newPolicy(t, "[mcp.languages]\npython = [\"lab\"]\n").Classify(code); v.Effect != Protect {
		t.Errorf("a config's language word: got %s (%s), want protect", v.Effect, v.Reason)
	}
	if v := newPolicy(t, "").Classify(code); v.Effect != Ask {
		t.Errorf("without the config's words, the code's language is not known: got %s (%s), want ask", v.Effect, v.Reason)
	}
	if v := newPolicy(t, "").Classify(remote); v.Effect != None {
		t.Errorf("without the user's words, %s runs here: got %s, want none", remote.Tool, v.Effect)
	}

	// An untrusted project cannot make the catalog's reset a read.
	l := newLab(t, labUserConfig)
	path := l.projectConfig("[mcp.verbs]\nread = [\"reset\"]\ndestroy = [\"frob\"]\n")
	_, up := l.find()
	for _, tt := range []struct {
		c    Call
		want Effect
	}{{reset, Protect}, {frob, Deny}} {
		if v := up.Classify(tt.c); v.Effect != tt.want {
			t.Errorf("untrusted project, %s: got %s (%s), want %s", tt.c.Tool, v.Effect, v.Reason, tt.want)
		}
	}
	// Trusted, it moves the word.
	if _, _, err := Trust(path, l.getenv); err != nil {
		t.Fatal(err)
	}
	_, tp := l.find()
	if v := tp.Classify(reset); v.Effect != None {
		t.Errorf("trusted project, reset: got %s (%s), want none", v.Effect, v.Reason)
	}

	for _, tt := range []struct{ config, want string }{
		{"[mcp.verbs]\nzap = [\"x\"]\n", `test.toml:2: mcp.verbs.zap: unknown class "zap" (want one of read, change`},
		{"[mcp.verbs]\nread = [\"two words\"]\n", `test.toml:2: mcp.verbs.read: "two words": want one word`},
		{"[mcp.verbs]\nread = [\"reset\"]\nchange = [\"reset\"]\n", `test.toml:2: mcp.verbs.read: "reset" is in change too`},
		{"[mcp.keys]\nvm = [\"vm_name\"]\nhost = [\"vmName\"]\n", `test.toml:2: mcp.keys.vm: "vm_name" is in host too`},
		{"[mcp.phrases]\nchange = [\"destroy\"]\n", `test.toml:2: mcp.phrases.change: "destroy": want two words`},
		{"[mcp.flag_prefix]\ngovc = \"+\"\n", `test.toml:2: mcp.flag_prefix.govc: want "-", "--" or "/", got "+"`},
		{"[mcp.languages]\ncobol = [\"cbl\"]\n", `test.toml:2: mcp.languages.cobol: unknown class "cobol" (want one of shell, powershell`},
		{"[mcp.states]\nchange = [\"stopped\"]\ndestroy = [\"STOPPED\"]\n", `test.toml:3: mcp.states.destroy: "STOPPED" is in change too`},
		{"[mcp.keystrokes]\nsubmit = [\"enter\"]\n", `test.toml:2: mcp.keystrokes.submit: unknown class "submit" (want one of enter, interrupt, other)`},
		{"[mcp]\nmethods = [\"partial update\"]\n", `test.toml:2: mcp.methods: "partial update": want one word`},
		{"[mcp]\nverbs = 3\n", `test.toml:2: mcp.verbs: `},
	} {
		_, err := Parse("test.toml", []byte(tt.config))
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %s...", tt.config, err, tt.want)
		}
	}
}

// mcpShapeWant is the effect each MCP shape of internal/shapes must get:
// code past the bounds of one call is asked, and a destroy before it is
// still denied.
var mcpShapeWant = map[string]Effect{
	"mcp-command-list":              Ask,
	"mcp-destroy-then-command-list": Deny,
	"mcp-script":                    Deny,
	"mcp-command-keys":              Ask,
	"mcp-argv":                      None,
	"mcp-cell":                      Ask,
	"mcp-cell-lines":                Ask,
	"mcp-unknown-language":          Ask,
	"mcp-typed-keys":                Ask,
	"mcp-dispatched":                Deny,
	"mcp-vm-names":                  Protect,
}

// TestMCPShapesAreBounded judges every MCP shape of internal/shapes at 1
// and 4 MiB: each gets its effect, and four times the input allocates at
// most about four times the memory, whatever the shape: the bounds of
// one call's code are shared by all its keys.
func TestMCPShapesAreBounded(t *testing.T) {
	race.SkipHuge(t)
	p := newPolicy(t, "")
	for _, s := range shapes.MCP {
		want, ok := mcpShapeWant[s.Name]
		if !ok {
			t.Errorf("%s: no effect wanted", s.Name)
			continue
		}
		measure := func(size int, want Effect) uint64 {
			input := s.Make(size)
			if !json.Valid([]byte(input)) {
				t.Fatalf("%s: not JSON: %.200s", s.Name, input)
			}
			var v Verdict
			mem := allocated(func() { v = p.Classify(Call{Tool: s.Tool, Input: json.RawMessage(input), InputValid: true}) })
			if v.Effect != want {
				t.Errorf("%s, %d bytes: got %s (%s: %.200s), want %s", s.Name, size, v.Effect, v.Rule, v.Reason, want)
			}
			return mem
		}
		wantLarge := want
		if s.Name == "mcp-argv" {
			// Its command line is past the bound only at 4 MiB.
			wantLarge = Ask
		}
		small, large := measure(1<<20, want), measure(4<<20, wantLarge)
		if ratio := float64(large) / float64(max(small, 1)); ratio > 4*1.5 {
			t.Errorf("%s: 4 times the input allocated %.1f times the memory (%d -> %d bytes)", s.Name, ratio, small, large)
		}
		if large > 64<<20*4 {
			t.Errorf("%s: 4 MiB of input allocated %d MiB", s.Name, large>>20)
		}
	}
}

func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMCPCodeBound: a list of command lines is read up to its bound, the
// lines before it judged as they are; a script, to the last line that
// fits in the bytes.
func TestMCPCodeBound(t *testing.T) {
	race.SkipHuge(t)
	p := newPolicy(t, "")
	lines := func(first string, n int) string {
		list := []string{first}
		for range n {
			list = append(list, "uptime")
		}
		b, _ := json.Marshal(map[string]any{"host": "web-01", "commands": list})
		return string(b)
	}
	script := func(first string, size int) string {
		b, _ := json.Marshal(map[string]any{"host": "web-01", "command": first + "\n" + strings.Repeat("uptime\n", size/7)})
		return string(b)
	}
	for _, tt := range []struct {
		name, input string
		want        Effect
	}{
		{"lines within the bound", lines("uptime", maxMCPLines-1), None},
		{"lines past the bound", lines("uptime", maxMCPLines), Ask},
		{"a destroy before the bound", lines("govc vm.destroy web-02", maxMCPLines), Deny},
		{"a script within the bound", script("uptime", maxMCPCode-100), None},
		{"a script past the bound", script("uptime", maxMCPCode), Ask},
		{"a destroy before the bytes' bound", script("govc vm.destroy web-02", maxMCPCode), Deny},
	} {
		v := p.Classify(Call{Tool: "mcp__ssh__exec", Input: json.RawMessage(tt.input)})
		if v.Effect != tt.want {
			t.Errorf("%s: got %s (%s: %.200s), want %s", tt.name, v.Effect, v.Rule, v.Reason, tt.want)
		}
		if tt.want == Ask && !strings.Contains(v.Reason, "past a limit") {
			t.Errorf("%s: reason %q does not say past a limit", tt.name, v.Reason)
		}
	}
}

// TestReadIPython reads cells as IPython does: the commands of ! lines
// and magics, the Python left, and what rewind asks about.
func TestReadIPython(t *testing.T) {
	t.Parallel()
	w := newPolicy(t, "").words()
	for _, tt := range []struct {
		cell  string
		shell []string // the shell parts, in order
		py    string   // the Python, trimmed
		ask   bool
	}{
		{cell: "import os\nprint(1)", py: "import os\nprint(1)"},
		{cell: "!ls -la\nx = 1", shell: []string{"ls -la"}, py: "x = 1"},
		{cell: "  !!git status", shell: []string{"git status"}},
		{cell: "files = !ls\nout = %sx uptime", shell: []string{"ls", "uptime"}},
		{cell: "!ssh {host} reboot\n!echo $$HOME $x", shell: []string{"ssh ${IPYTHON_EXPR} reboot", "echo $HOME $x"}},
		{cell: "!ssh web-01 \\\n  reboot", shell: []string{"ssh web-01   reboot"}},
		{cell: "%%bash\nssh web-01 reboot\n", shell: []string{"ssh web-01 reboot\n"}},
		{cell: "%%script bash --bg\nuptime", shell: []string{"uptime"}},
		{cell: "%%script --out x sh\nuptime", shell: []string{"uptime"}},
		{cell: "%%time\n!uptime\nx = 1", shell: []string{"uptime"}, py: "x = 1"},
		{cell: "%%writefile .rewind.toml\n[catalog]", shell: []string{": > .rewind.toml"}},
		{cell: "%%writefile -a 'my notes.txt'\nx", shell: []string{": >> 'my notes.txt'"}},
		{cell: "%%html\n<b>!ssh web-01 reboot</b>"},
		{cell: "%%sql\nselect 1", ask: true},
		{cell: "%%R\nsystem('ssh web-01 reboot')", ask: true},
		{cell: "%cd /tmp\n%pip install pandas\n%env GIT_SSH_COMMAND=ssh web-01 reboot", shell: []string{"cd /tmp", "pip install pandas", "export 'GIT_SSH_COMMAND=ssh web-01 reboot'"}},
		{cell: "%sc -l out=ssh web-01 reboot", shell: []string{"ssh web-01 reboot"}},
		{cell: "%matplotlib inline\n%load_ext autoreload\nos.system?", py: ""},
		{cell: "%timeit os.system('ls')", py: "os.system('ls')"},
		{cell: "%rerun 3", ask: true},
		{cell: "%alias r ssh web-01 reboot", ask: true},
		{cell: "sx ssh web-01 reboot", shell: []string{"ssh web-01 reboot"}},
		{cell: "cd /tmp", shell: []string{"cd /tmp"}},
		{cell: "run = 3", py: "run = 3"},
		{cell: "ls\nx = 1", py: "ls\nx = 1"},
		{cell: "time.sleep(1)", py: "time.sleep(1)"},
		{cell: "cd, x = 1, 2", py: "cd, x = 1, 2"},
		{cell: "ls(x)", shell: []string{"ls (x)"}},
	} {
		var shellParts []string
		py, ask := "", false
		for _, part := range w.readIPython(tt.cell, 0) {
			switch {
			case part.ask != "":
				ask = true
			case part.lang == langShell:
				shellParts = append(shellParts, part.text)
			case part.lang == langPython:
				py += part.text
			}
		}
		if !slices.Equal(shellParts, tt.shell) || strings.TrimSpace(py) != tt.py || ask != tt.ask {
			t.Errorf("%q: shell %q, python %q, ask %v; want %q, %q, %v", tt.cell, shellParts, strings.TrimSpace(py), ask, tt.shell, tt.py, tt.ask)
		}
	}
}
