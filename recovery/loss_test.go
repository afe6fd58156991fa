package recovery

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

func TestLoss(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	cp := func(vm string, at time.Duration) []audit.Checkpoint {
		return []audit.Checkpoint{{VM: vm, VMIdentifier: "g." + vm, VPG: "fast", VPGIdentifier: "v1", Identifier: "cp", Tag: "t", Time: t0.Add(at)}}
	}
	// The log, oldest first. The point is the checkpoint of t0, which
	// protected "call" and, reused, "reuse".
	log := []audit.Record{
		{ID: "early", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01"}, Checkpoints: cp("web-01", -time.Minute)},
		{ID: "askedbefore", Tool: "Bash", Decision: audit.DecisionAsk, Targets: []string{"web-01"}},
		{ID: "older", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"db-01"}, Checkpoints: cp("db-01", -time.Second)},
		{ID: "askedbetween", Tool: "Bash", Decision: audit.DecisionAsk, Targets: []string{"web-01"}},
		{ID: "reuse", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web-01"}, Checkpoints: cp("web-01", 0)},
		{ID: "call", Tool: "Bash", Excerpt: "govc vm.power -off -vm web-01", Decision: audit.DecisionProtected, Targets: []string{"web-01"}, Checkpoints: cp("web-01", 0)},
		{ID: "denied", Tool: "Bash", Decision: audit.DecisionDeny, Targets: []string{"web-01"}},
		{ID: "pending", Tool: "Bash", Decision: audit.DecisionPending, Targets: []string{"web-01"}},
		{ID: "othervm", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"app-01"}, Checkpoints: cp("app-01", time.Second)},
		{ID: "later", Tool: "Bash", Decision: audit.DecisionProtected, Targets: []string{"web01.lab"}, Checkpoints: cp("web-01", time.Minute)},
		{ID: "askedafter", Tool: "mcp__vsphere__power_off_vm", Decision: audit.DecisionAsk, Targets: []string{"WEB-01"}},
		{ID: "onerror", Tool: "Bash", Decision: audit.DecisionAllowOnError, Targets: []string{"web-01"}},
		{ID: "tested", Tool: DefaultTool, Decision: audit.DecisionUndoTest, Targets: []string{"web-01"}, Checkpoints: cp("web-01", -time.Hour)},
		{ID: "restored", Tool: DefaultTool, Decision: audit.DecisionUndoRestore, Targets: []string{"web-01"}, Checkpoints: cp("web-01", -time.Hour)},
	}
	web := []VM{{"web-01", "g.web-01"}}
	tests := []struct {
		name string
		p    Point
		want []string
	}{
		{"AuditID", Point{AuditID: "call", VPG: "fast", VPGIdentifier: "v1", VMs: web, Checkpoint: "cp", Tag: "t", Time: t0},
			[]string{"askedbetween", "reuse", "call", "later", "askedafter", "onerror", "restored"}},
		{"BareCheckpoint", Point{VPG: "fast", VPGIdentifier: "v1", VMs: web, Checkpoint: "cp", Time: t0},
			[]string{"askedbetween", "reuse", "call", "later", "askedafter", "onerror", "restored"}},
		{"EarlierPoint", Point{VPG: "fast", VPGIdentifier: "v1", VMs: []VM{{"db-01", "g.db-01"}}, Checkpoint: "cp", Time: t0.Add(-time.Hour)},
			[]string{"older"}},
		{"NothingSince", Point{VPG: "fast", VPGIdentifier: "v1", VMs: []VM{{"app-01", "g.app-01"}}, Checkpoint: "cp", Time: t0.Add(time.Hour)},
			nil},
	}
	l := &Service{Log: audit.Open(t.TempDir())}
	for i := range log {
		if err := l.Log.Append(&log[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loss, err := l.Loss(t.Context(), tt.p)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range loss.Calls {
				got = append(got, r.ID)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Calls = %v, want %v", got, tt.want)
			}
			if !loss.Since.Equal(tt.p.Time) || !strings.Contains(loss.Text, "loses every change made to "+tt.p.VMs[0].Name+" after that time, by anyone") {
				t.Errorf("Loss = %+v", loss)
			}
			for _, id := range tt.want {
				if !strings.Contains(loss.Text, "\n  "+id+"  ") {
					t.Errorf("Text does not list %s:\n%s", id, loss.Text)
				}
			}
			if len(tt.want) == 0 && !strings.Contains(loss.Text, "rewind logged no call that changed it since.") {
				t.Errorf("Text:\n%s", loss.Text)
			}
		})
	}
}

// FuzzLossText: whatever a (hand-edited) log holds, each call is one line of
// Text and no control character but the line breaks reaches a terminal.
func FuzzLossText(f *testing.F) {
	for _, seed := range [][3]string{
		{"call", "Bash", "govc vm.power -off -vm web-01"},
		{"askedafter", "mcp__vsphere__power_off_vm", `{"vm_name":"web-01"}`},
		{"x", "Bash", "echo a\nrm -rf /\r\x1b[2J"},
		{"", "", ""},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, id, tool, excerpt string) {
		p := Point{VPG: "fast\x1b", VMs: []VM{{"web-01", "g.web-01"}}, Checkpoint: "cp", Tag: "t\n", Time: t0}
		calls := []audit.Record{{ID: id, Tool: tool, Excerpt: excerpt, Decision: audit.DecisionProtected, Time: t0}}
		text := lossText(Loss{Point: p, Since: t0, Calls: calls})
		if n := strings.Count(text, "\n"); n != 2 {
			t.Errorf("Text has %d line breaks, want 2:\n%q", n, text)
		}
		for _, r := range text {
			if r != '\n' && (r < ' ' || (r >= 0x7f && r < 0xa0)) {
				t.Fatalf("control character %q in Text %q", r, text)
			}
		}
	})
}

func TestNamesTyped(t *testing.T) {
	tests := []struct {
		typed string
		names []string
		want  bool
	}{
		{"web-01\n", []string{"web-01"}, true},
		{"  web-01  ", []string{"web-01"}, true},
		{"WEB-01", []string{"web-01"}, false},
		{"yes", []string{"web-01"}, false},
		{"", []string{"web-01"}, false},
		{"web-01", nil, false},
		{"db-01 web-01", []string{"web-01", "db-01"}, true},
		{"db-01, web-01", []string{"web-01", "db-01"}, true},
		{"web-01", []string{"web-01", "db-01"}, false},
		{"web-01 web-01", []string{"web-01", "db-01"}, false},
		// A name with spaces can be typed: spaces within it, commas between.
		{"SQL Server 01", []string{"SQL Server 01"}, true},
		{"SQL  Server   01\n", []string{"SQL Server 01"}, true},
		{"SQL Server", []string{"SQL Server 01"}, false},
		{"SQL Server 01, web-01", []string{"web-01", "SQL Server 01"}, true},
		{"SQL Server 01 web-01", []string{"web-01", "SQL Server 01"}, false},
	}
	for _, tt := range tests {
		if got := NamesTyped(tt.typed, tt.names); got != tt.want {
			t.Errorf("NamesTyped(%q, %q) = %v, want %v", tt.typed, tt.names, got, tt.want)
		}
	}
}
