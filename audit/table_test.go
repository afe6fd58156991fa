package audit

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func tableRecords() []Record {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return []Record{
		{ID: "0a1b2c3d4e5f", Time: t0, Tool: "Bash", Decision: DecisionProtected, Targets: []string{"web-01", "web-02"},
			Checkpoints: []Checkpoint{{Tag: "rewind-20260301T100000Z-0a1b2c3d", Identifier: "123"}, {Tag: "rewind-20260301T100000Z-0a1b2c3d", Identifier: "456"}},
			Reason:      `rewind: checkpoint "rewind-7" (CheckpointIdentifier 123) on VPG "web" ...`,
			Excerpt:     "govc vm.power -off web-01 web-02"},
		{ID: "ffffffffffff", Time: t0.Add(time.Minute), Tool: "mcp__vsphere__power_off_vm", Decision: DecisionPending,
			Targets: []string{"erp-01"}, Checkpoints: []Checkpoint{{Tag: "rewind-20260301T100100Z-ffffffff"}}, Excerpt: `{"vm_name":"erp-01"}`,
			Reason: `rewind: Zerto accepted checkpoint tag "rewind-20260301T100100Z-ffffffff" for VPG "erp" (journal cadence ~630s); it is expected at 2026-03-01T10:11:31Z (in ~630s), past this hook's budget of 150s. Retry this call after 2026-03-01T10:11:31Z: the retry will use that checkpoint.`},
		{ID: "1234567890ab", Time: t0.Add(2 * time.Minute), Tool: "Bash", Decision: DecisionAsk,
			Targets: []string{"192.168.7.14"}, VMs: []string{"app-03"}, Excerpt: "ssh ops@192.168.7.14 sudo reboot",
			Reason: "rewind: app-03 is not a VM Zerto protects: nothing to rewind to (rule catalog:*). If it is a protected VM under another name, map it in [targets] aliases."},
		{ID: "000000000000", Tool: "Bash", Decision: DecisionDeny, Excerpt: "a\tb\x1b[2J\nc " + strings.Repeat("x", 100),
			Reason: "rewind: a checkpoint cannot bring a destroyed VM back in place (rule: catalog:govc vm.destroy)"},
		{ID: "9q9q9q9q9q9q", Time: t0.Add(3 * time.Minute), Tool: "Bash", Decision: DecisionDeny, Targets: []string{"legacy-01"},
			Excerpt: "ssh legacy-01 'echo 部署完成 && sudo systemctl restart app'",
			Reason:  `rewind: no checkpoint for legacy-01 (VPG "lab-legacy"): Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding`},
	}
}

func TestWriteTable(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteTableOptions(&buf, tableRecords(), TableOptions{Location: time.UTC}); err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"ID            TIME (UTC)   DECISION   TARGETS   CALL                REASON",
		"0a1b2c3d4e5f  03-01 10:00  protected  web-01,…  govc vm.power -of…  rewind-2026030…0000Z-0a1b2c3d +1",
		"ffffffffffff  03-01 10:01  pending    erp-01    mcp__vsphere__pow…  retry after 10:11:31",
		"1234567890ab  03-01 10:02  ask        192.168…  ssh ops@192.168.7…  app-03 is not a VM Zerto protec…",
		"000000000000  -            deny       -         a b [2J c xxxxxxx…  a checkpoint cannot bring a des…",
		"9q9q9q9q9q9q  03-01 10:03  deny       legacy-…  ssh legacy-01 'ec…  …the VRA on host esx-03.lab.loc…",
		"",
	}, "\n")
	if got := buf.String(); got != want {
		t.Errorf("WriteTable:\n%s\nwant:\n%s", got, want)
	}
}

// TestWriteTableFits lays the table out at every width a terminal may
// have and checks that no line is wider, that CALL has at least as much
// room as REASON and TARGETS until it is whole, and that colours do not
// count.
func TestWriteTableFits(t *testing.T) {
	t.Parallel()
	recs := tableRecords()
	exit := 127
	recs[0].Outcome = &Outcome{State: OutcomeFailed, ExitCode: &exit, Reported: true}
	recs[2].Outcome = &Outcome{State: OutcomeNotRun}
	for width := 60; width <= 260; width++ {
		for i, color := range []bool{false, true} {
			o := TableOptions{Width: width, Color: color, Location: time.UTC}
			if i == 1 {
				o.Outcome = OutcomeText
			}
			var buf bytes.Buffer
			if err := WriteTableOptions(&buf, recs, o); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
			if len(lines) != len(recs)+1 {
				t.Fatalf("width %d: %d lines for %d records", width, len(lines), len(recs))
			}
			for _, line := range lines {
				plain := line
				if color {
					plain = stripSGR(line)
				}
				if n := DisplayWidth(plain); n > width {
					t.Errorf("width %d: line of %d columns: %q", width, n, line)
				}
				if strings.HasSuffix(plain, " ") {
					t.Errorf("width %d: line ends in a space: %q", width, line)
				}
			}
			if strings.Contains(buf.String(), "\x1b[") != color {
				t.Errorf("width %d: colour %v, output %q", width, color, buf.String())
			}
		}
	}
}

func stripSGR(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexByte(s[i:], 'm')
		s = s[:i] + s[i+j+1:]
	}
}

func TestFitFlex(t *testing.T) {
	t.Parallel()
	tests := []struct {
		avail   int
		natural [3]int
		want    [3]int
	}{
		// Everything fits: every column at its natural width.
		{100, [3]int{6, 20, 30}, [3]int{6, 20, 30}},
		// CALL first, then REASON up to a tag, then TARGETS.
		{58, [3]int{19, 60, 90}, [3]int{8, 18, 32}},
		{78, [3]int{19, 60, 90}, [3]int{16, 30, 32}},
		// Past the steps, CALL and REASON share, the wider giving way.
		{158, [3]int{19, 76, 120}, [3]int{19, 70, 69}},
		{158, [3]int{19, 50, 120}, [3]int{19, 50, 89}},
		// Too narrow for the minimums: the widest gives way first.
		{38, [3]int{19, 60, 90}, [3]int{8, 14, 16}},
		{17, [3]int{19, 60, 90}, [3]int{7, 4, 6}},
		{12, [3]int{19, 60, 90}, [3]int{7, 4, 6}},
	}
	for _, tt := range tests {
		if got := fitFlex(tt.avail, tt.natural, [3]int{7, 4, 6}); got != tt.want {
			t.Errorf("fitFlex(%d, %v) = %v, want %v", tt.avail, tt.natural, got, tt.want)
		}
	}
}

// TestShortReason cuts reasons as the hook words them and checks that
// the part that says why is kept.
func TestShortReason(t *testing.T) {
	t.Parallel()
	tests := []struct {
		decision, reason string
		width            int
		want             string
	}{
		// A rule's reason loses the rule's name, then its end.
		{DecisionDeny, "rewind: a checkpoint cannot bring a destroyed VM back in place (rule: catalog:govc vm.destroy)", 60,
			"a checkpoint cannot bring a destroyed VM back in place"},
		{DecisionDeny, "rewind: a checkpoint cannot bring a destroyed VM back in place (rule: catalog:govc vm.destroy)", 30,
			"a checkpoint cannot bring a d…"},
		// Zerto's refusal is the cause: the target, in its own column,
		// goes first, then the start of the message.
		{DecisionDeny, `rewind: no checkpoint for legacy-01 (VPG "lab-legacy"): Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding`, 101,
			"no checkpoint: Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding"},
		{DecisionDeny, `rewind: no checkpoint for legacy-01 (VPG "lab-legacy"): Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding`, 90,
			"no checkpoint: …the VRA on host esx-03.lab.local is not responding"},
		{DecisionDeny, `rewind: no checkpoint for legacy-01 (VPG "lab-legacy"): Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding`, 40,
			"…the VRA on host esx-03.lab.local is no…"},
		// A transport error ends in what failed; the fix goes first.
		{DecisionDeny, `rewind: no checkpoint for db-01: zvm: POST /auth/realms/zerto/protocol/openid-connect/token: Post "http://127.0.0.1:1/auth/realms/zerto/protocol/openid-connect/token": dial tcp 127.0.0.1:1: connect: connection refused. Fix: check that REWIND_ZVM_URL (or url in [zerto]) is the ZVM's address and that it is reachable.`, 65,
			"no checkpoint: …dial tcp 127.0.0.1:1: connect: connection refused"},
		{DecisionDeny, `rewind: no checkpoint for db-01: zvm: POST /auth/realms/zerto/protocol/openid-connect/token: Post "http://127.0.0.1:1/auth/realms/zerto/protocol/openid-connect/token": dial tcp 127.0.0.1:1: connect: connection refused. Fix: check that REWIND_ZVM_URL (or url in [zerto]) is the ZVM's address and that it is reachable.`, 50,
			"…dial tcp 127.0.0.1:1: connect: connection refused"},
		{DecisionDeny, `rewind: no checkpoint for db-01: zvm: POST /auth/realms/zerto/protocol/openid-connect/token: Post "http://127.0.0.1:1/auth/realms/zerto/protocol/openid-connect/token": dial tcp 127.0.0.1:1: connect: connection refused. Fix: check that REWIND_ZVM_URL (or url in [zerto]) is the ZVM's address and that it is reachable.`, 24,
			"…connection refused"},
		// A first sentence that says why, and hints after it.
		{DecisionAsk, "rewind: app-03 is not a VM Zerto protects: nothing to rewind to (rule catalog:*). If it is a protected VM under another name, map it in [targets] aliases.", 72,
			"app-03 is not a VM Zerto protects: nothing to rewind to (rule catalog:*)"},
		{DecisionAsk, "rewind: app-03 is not a VM Zerto protects: nothing to rewind to (rule catalog:*). If it is a protected VM under another name, map it in [targets] aliases.", 60,
			"app-03 is not a VM Zerto protects: nothing to rewind to"},
		{DecisionAsk, "rewind: no Zerto configured: nothing to rewind to (rule catalog:govc vm.* would change web-01). Fix: set REWIND_ZVM_URL (or url in [zerto]) and the ZVM's credentials to have checkpoints taken.", 40,
			"no Zerto configured: nothing to rewind…"},
		// rewind's own error under on_error: the end of its chain.
		{DecisionDenyOnError, `rewind: config error: /home/me/.rewind.toml:4: [[command]] 2: match: unknown key "efect" (hook.on_error = deny)`, 40,
			`…match: unknown key "efect"`},
		// A reason that fits is shown whole.
		{DecisionDeny, "rewind: issue texts must not close a topic (rule: gh issue create)", 80,
			"issue texts must not close a topic (rule: gh issue create)"},
	}
	for _, tt := range tests {
		r := &Record{Decision: tt.decision, Reason: tt.reason}
		got := reasonOf(r, time.UTC).fit(tt.width)
		if got != tt.want {
			t.Errorf("%.40q at %d:\n got %q\nwant %q", tt.reason, tt.width, got, tt.want)
		}
		if DisplayWidth(got) > tt.width {
			t.Errorf("%.40q at %d: %q is %d wide", tt.reason, tt.width, got, DisplayWidth(got))
		}
	}
}

func TestPendingReason(t *testing.T) {
	t.Parallel()
	r := &tableRecords()[1]
	at, ok := RetryAfter(r)
	if !ok || !at.Equal(time.Date(2026, 3, 1, 10, 11, 31, 0, time.UTC)) {
		t.Fatalf("RetryAfter = %v, %v", at, ok)
	}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	rs := reasonOf(r, paris)
	for _, tt := range []struct {
		width int
		want  string
	}{
		{80, "rewind-20260301T100100Z-ffffffff, retry after 11:11:31"},
		{45, "rewind-2026…0Z-ffffffff, retry after 11:11:31"},
		{30, "retry after 11:11:31"},
		{16, "retry 11:11:31"},
	} {
		if got := rs.fit(tt.width); got != tt.want {
			t.Errorf("pending at %d = %q, want %q", tt.width, got, tt.want)
		}
	}
	// A record that carries its retry time is read by it, not by the
	// reason's wording, which an older record alone has.
	carried := *r
	carried.RetryAfter = time.Date(2026, 3, 1, 10, 20, 5, 0, time.UTC)
	if at, ok := RetryAfter(&carried); !ok || !at.Equal(carried.RetryAfter) {
		t.Errorf("RetryAfter of a record with retry_after = %v, %v", at, ok)
	}
	if got := reasonOf(&carried, paris).fit(30); got != "retry after 11:20:05" {
		t.Errorf("pending with retry_after = %q", got)
	}
	// Only a pending call has a retry time.
	other := *r
	other.Decision = DecisionDeny
	if _, ok := RetryAfter(&other); ok {
		t.Error("a deny has a retry time")
	}
}

func TestTimeHeader(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skip(err)
	}
	summer := Record{Time: time.Date(2026, 7, 1, 10, 0, 0, 0, time.UTC)}
	winter := Record{Time: time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)}
	for _, tt := range []struct {
		recs []Record
		loc  *time.Location
		want string
	}{
		{[]Record{winter}, paris, "TIME (CET)"},
		{[]Record{summer, winter, summer}, paris, "TIME (CEST/CET)"},
		{[]Record{summer, winter}, time.UTC, "TIME (UTC)"},
	} {
		if got := timeHeader(tt.recs, tt.loc); got != tt.want {
			t.Errorf("timeHeader = %q, want %q", got, tt.want)
		}
	}
}

func TestOutcomeColumn(t *testing.T) {
	t.Parallel()
	recs := tableRecords()[:2]
	var buf bytes.Buffer
	outcome := func(r *Record) string {
		if r.Decision == DecisionProtected {
			return "exit 1"
		}
		return ""
	}
	if err := WriteTableOptions(&buf, recs, TableOptions{Width: 120, Location: time.UTC, Outcome: outcome}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	if !strings.HasPrefix(lines[0], "ID            TIME (UTC)   DECISION   OUTCOME  TARGETS") ||
		!strings.HasPrefix(lines[1], "0a1b2c3d4e5f  03-01 10:00  protected  exit 1   web-01") ||
		!strings.HasPrefix(lines[2], "ffffffffffff  03-01 10:01  pending    -        erp-01") {
		t.Errorf("the outcome column:\n%s", buf.String())
	}
}

// TestOutcomeColumnLeftOut: the OUTCOME column is there only when some
// call's outcome is known and there is room for it.
func TestOutcomeColumnLeftOut(t *testing.T) {
	t.Parallel()
	recs := tableRecords()
	layout := func(width int) string {
		var buf bytes.Buffer
		if err := WriteTableOptions(&buf, recs, TableOptions{Width: width, Location: time.UTC, Outcome: OutcomeText}); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	if got := layout(200); strings.Contains(got, "OUTCOME") {
		t.Errorf("no outcome known, yet a column:\n%s", got)
	}
	recs[0].Outcome = &Outcome{State: OutcomeRan, Reported: true}
	// ID, TIME (UTC), DECISION and OUTCOME take 12+11+9+7 columns and 12
	// the gaps: the others keep 36 from 87 columns on.
	for _, tt := range []struct {
		width int
		shown bool
	}{{200, true}, {100, true}, {87, true}, {86, false}, {80, false}, {60, false}} {
		got := layout(tt.width)
		if strings.Contains(got, "  OUTCOME  ") != tt.shown {
			t.Errorf("at %d columns, OUTCOME shown %v:\n%s", tt.width, !tt.shown, got)
		}
		if tt.shown && !strings.Contains(got, "  protected  ran      ") {
			t.Errorf("at %d columns, the outcome is not shown:\n%s", tt.width, got)
		}
	}
}

func TestDisplayWidth(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int{
		"":             0,
		"ssh web-01":   10,
		"部署完成":         8,
		"e\u0301":      1, // e and a combining acute accent
		"→…":           2,
		"🚀 ok":         5,
		"ｆｕｌｌ":         8,
		"한국어":          6,
		"tab\u200bbed": 6,
	} {
		if got := DisplayWidth(s); got != want {
			t.Errorf("DisplayWidth(%q) = %d, want %d", s, got, want)
		}
	}
	if got := cutEnd("echo 部署完成", 8); got != "echo 部…" || DisplayWidth(got) > 8 {
		t.Errorf("cutEnd = %q", got)
	}
	if got := cutMiddle("rewind-20260301T100000Z-0a1b2c3d", 21); got != "rewind-202…Z-0a1b2c3d" {
		t.Errorf("cutMiddle = %q", got)
	}
}

func TestWriteTableEmpty(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := WriteTable(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.HasPrefix(got, "ID") || strings.Count(got, "\n") != 1 {
		t.Errorf("WriteTable(nil) = %q, want the header alone", got)
	}
}

// decisionConstants returns the values of the Decision constants that
// record.go declares, read from its source, so that a decision added there
// is one the tests below must know.
func decisionConstants(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "record.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Decision") {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok {
					t.Fatalf("%s is not a string literal", name.Name)
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				consts[name.Name] = v
			}
		}
	}
	if len(consts) < 10 {
		t.Fatalf("found only %d Decision constants in record.go: %v", len(consts), consts)
	}
	return consts
}

// TestEveryDecisionRenders lays out one record of every decision, each
// with a checkpoint, a reason and an error, and checks what its REASON
// says and that it has a colour. A decision record.go declares that this
// table does not list fails it.
func TestEveryDecisionRenders(t *testing.T) {
	t.Parallel()
	const (
		tag    = "rewind-20260301T100000Z-0a1b2c3d"
		reason = "rewind: the reason the host was told"
		err    = "restore of web-01: zvm: POST /v1/vms/x/restore: the VPG is in a failover test"
	)
	// What REASON shows: the checkpoint's tag, the reason or the error.
	want := map[string]string{
		DecisionNone:         "the reason the host was told",
		DecisionProtected:    tag,
		DecisionPending:      tag + ", retry after 10:11:31",
		DecisionAsk:          "the reason the host was told",
		DecisionDeny:         "the reason the host was told",
		DecisionAllowOnError: "the reason the host was told",
		DecisionAskOnError:   "the reason the host was told",
		DecisionDenyOnError:  "the reason the host was told",
		DecisionUndoTest:     tag,
		DecisionUndoStopTest: tag,
		DecisionUndoRestore:  tag,
		DecisionUndoRollback: tag,
		DecisionUndoCommit:   tag,
		DecisionUndoFailed:   err,
		DecisionCheckpoint:   tag,
	}
	consts := decisionConstants(t)
	var recs []Record
	for name, d := range consts {
		if _, ok := want[d]; !ok {
			t.Errorf("%s (%q): the table does not say how it renders", name, d)
			continue
		}
		recs = append(recs, Record{ID: "0a1b2c3d4e5f", Time: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Tool: "Bash",
			Decision: d, Reason: reason, Error: err, Excerpt: "govc vm.power -off -vm web-01", Targets: []string{"web-01"},
			Checkpoints: []Checkpoint{{VM: "web-01", Tag: tag, Identifier: "1002175"}},
			RetryAfter:  time.Date(2026, 3, 1, 10, 11, 31, 0, time.UTC)})
	}
	for d := range want {
		if !slices.Contains(slices.Collect(maps.Values(consts)), d) {
			t.Errorf("%q is not a decision of record.go", d)
		}
	}
	var buf bytes.Buffer
	if err := WriteTableOptions(&buf, recs, TableOptions{Width: 260, Location: time.UTC}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")[1:]
	for i, r := range recs {
		if !strings.HasSuffix(lines[i], "  "+want[r.Decision]) {
			t.Errorf("%s: REASON of %q, want %q", r.Decision, lines[i], want[r.Decision])
		}
		if DecisionColor(r.Decision) == "" {
			t.Errorf("%s has no colour", r.Decision)
		}
	}
}

// TestOutcomeText shows each outcome a call can have in its words.
func TestOutcomeText(t *testing.T) {
	t.Parallel()
	code := func(n int) *int { return &n }
	for _, tt := range []struct {
		o    *Outcome
		want string
	}{
		{nil, ""},
		{&Outcome{State: OutcomeRan, ExitCode: code(0), Reported: true}, "ran"},
		{&Outcome{State: OutcomeRan, Reported: true}, "ran"},
		{&Outcome{State: OutcomeFailed, ExitCode: code(2), Reported: true}, "exit 2"},
		{&Outcome{State: OutcomeFailed, Error: "EACCES", Reported: true}, "error"},
		{&Outcome{State: OutcomeInterrupted, Reported: true}, "stopped"},
		{&Outcome{State: OutcomeNotRun, Reported: true}, "not run"},
		{&Outcome{State: OutcomeNotRun}, "not run"},
		{&Outcome{State: "vanished\x1b[2J into thin air"}, "vanished…"},
	} {
		if got := OutcomeText(&Record{Decision: DecisionProtected, Outcome: tt.o}); got != tt.want {
			t.Errorf("OutcomeText(%+v) = %q, want %q", tt.o, got, tt.want)
		}
	}
}
