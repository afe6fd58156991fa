package recovery

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

func TestLoss(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// TestLossCountsCallsThatRan: a call its host never ran changed nothing
// and is not counted, whether the host said so or the log shows it; a call
// whose outcome is unknown is counted, and the text says how many of
// those there are; each call's outcome, when known, is listed with it.
func TestLossCountsCallsThatRan(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	s := &Service{Log: audit.Open(t.TempDir())}
	code := func(n int) *int { return &n }
	type call struct {
		id, session, decision string
		at                    time.Duration
		cp                    time.Duration // the checkpoint's time, for a protected call
		outcome               *audit.Outcome
	}
	for i, c := range []call{
		{"call", "s1", audit.DecisionProtected, time.Second, 0, &audit.Outcome{State: audit.OutcomeRan, ExitCode: code(0)}},
		{"failed", "s1", audit.DecisionProtected, 3 * time.Second, 10 * time.Second, &audit.Outcome{State: audit.OutcomeFailed, ExitCode: code(2)}},
		// A person declined it, and the host said so.
		{"declined", "s1", audit.DecisionAsk, 5 * time.Second, 0, &audit.Outcome{State: audit.OutcomeNotRun}},
		// A person declined it; the host said nothing, but its session
		// went on past it (see audit.Log.Read).
		{"skipped", "s1", audit.DecisionAsk, 7 * time.Second, 0, nil},
		{"next", "s1", audit.DecisionProtected, 8 * time.Second, 20 * time.Second, &audit.Outcome{State: audit.OutcomeRan}},
		// Pending under hook.pending = "ask": a person allowed it.
		{"pendingran", "s1", audit.DecisionPending, 10 * time.Second, 0, &audit.Outcome{State: audit.OutcomeRan, ExitCode: code(0)}},
		{"pendingheld", "s1", audit.DecisionPending, 12 * time.Second, 0, nil},
		// The session's last call: no outcome yet.
		{"running", "s1", audit.DecisionProtected, 14 * time.Second, 30 * time.Second, nil},
		// A host with no post-tool hook.
		{"oldhost", "s-codex", audit.DecisionAsk, 15 * time.Second, 0, nil},
	} {
		r := audit.Record{ID: c.id, Time: t0.Add(c.at), Host: "claude", Session: c.session, ToolUseID: fmt.Sprint("toolu_", i),
			Tool: "Bash", Excerpt: "ssh web-01 sudo reboot", Decision: c.decision, Targets: []string{"web-01"}}
		if c.decision == audit.DecisionProtected {
			r.Checkpoints = []audit.Checkpoint{{VM: "web-01", VMIdentifier: "g.web-01", VPG: "fast", VPGIdentifier: "v1", Identifier: "cp" + c.id, Tag: "t", Time: t0.Add(c.cp)}}
		}
		if err := s.Log.Append(&r); err != nil {
			t.Fatal(err)
		}
		if c.outcome != nil {
			o := *c.outcome
			o.Time = r.Time.Add(time.Second)
			if err := s.Log.AppendOutcome(t.Context(), r.Host, r.Session, r.ToolUseID, r.Tool, o); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := Point{AuditID: "call", VPG: "fast", VPGIdentifier: "v1", VMs: []VM{{"web-01", "g.web-01"}}, Checkpoint: "cpcall", Tag: "t", Time: t0}
	loss, err := s.Loss(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range loss.Calls {
		got = append(got, r.ID)
	}
	if want := []string{"call", "failed", "next", "pendingran", "running", "oldhost"}; !slices.Equal(got, want) {
		t.Errorf("Calls = %v, want %v", got, want)
	}
	for _, want := range []string{
		"\nThe 6 calls rewind logged since (2 of them with no outcome reported: they may not have run):\n",
		"\n  call  2026-03-01T10:00:01Z  protected, ran  Bash  ",
		"\n  failed  2026-03-01T10:00:03Z  protected, exit 2  Bash  ",
		"\n  pendingran  2026-03-01T10:00:10Z  pending, ran  Bash  ",
		"\n  running  2026-03-01T10:00:14Z  protected  Bash  ",
		"\n  oldhost  2026-03-01T10:00:15Z  ask  Bash  ",
	} {
		if !strings.Contains(loss.Text, want) {
			t.Errorf("Text lacks %q:\n%s", want, loss.Text)
		}
	}

	// The words for one call, and for calls none of whose hosts reports.
	for _, tt := range []struct {
		calls []audit.Record
		want  string
	}{
		{loss.Calls[:1], "\nThe call rewind logged since:\n"},
		{loss.Calls[4:5], "\nThe call rewind logged since (no host reported its outcome: it may not have run):\n"},
		{loss.Calls[4:], "\nThe 2 calls rewind logged since (no host reported their outcome: some may not have run):\n"},
		{loss.Calls[2:5], "\nThe 3 calls rewind logged since (1 of them with no outcome reported: it may not have run):\n"},
	} {
		if text := lossText(Loss{Point: p, Since: t0, Calls: tt.calls}); !strings.Contains(text, tt.want) {
			t.Errorf("Text lacks %q:\n%s", tt.want, text)
		}
	}
}

// TestLossTextTimes: every time in the text is RFC 3339 in UTC, which the
// CLI shows as it is (the "Z" says the zone) and the page converts to the
// zone it shows, whatever this machine's zone.
func TestLossTextTimes(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	p := Point{VPG: "fast", VMs: []VM{{"web-01", "g.web-01"}}, Checkpoint: "cp", Tag: "t", Time: t0}
	calls := []audit.Record{{ID: "call", Tool: "Bash", Decision: audit.DecisionProtected, Time: t0.Add(90 * time.Second)}}
	text := lossText(Loss{Point: p, Since: t0, Calls: calls})
	stamps := regexp.MustCompile(`\d\d:\d\d(:\d\d)?\S*`).FindAllString(text, -1)
	if want := []string{"09:00:00Z", "09:01:30Z"}; !slices.Equal(stamps, want) {
		t.Errorf("times in the text %q, want %q:\n%s", stamps, want, text)
	}
}
