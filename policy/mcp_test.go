package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
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
