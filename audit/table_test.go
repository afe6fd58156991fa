package audit

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func tableRecords() []Record {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return []Record{
		{ID: "0a1b2c3d4e5f", Time: t0, Tool: "Bash", Decision: DecisionProtected, Targets: []string{"web-01", "web-02"},
			Checkpoints: []Checkpoint{{Tag: "rewind-20260301T100000Z-0a1b2c3d", Identifier: "123"}, {Tag: "rewind-20260301T100000Z-0a1b2c3d", Identifier: "456"}},
			Reason:      `rewind: checkpoint "rewind-7" (CheckpointIdentifier 123) on VPG "web" ...`,
			Excerpt:     "govc vm.power -off web-01 web-02"},
		{ID: "ffffffffffff", Time: t0.Add(time.Minute), Tool: "mcp__vsphere__power_off_vm", Decision: DecisionPending,
			Targets: []string{"erp-01"}, Checkpoints: []Checkpoint{{Tag: "rewind-20260301T100100Z-ffffffff"}}, Excerpt: `{"vm_name":"erp-01"}`},
		{ID: "1234567890ab", Time: t0.Add(2 * time.Minute), Tool: "Bash", Decision: DecisionAsk,
			Targets: []string{"192.168.7.14"}, VMs: []string{"app-03"}, Excerpt: "ssh ops@192.168.7.14 sudo reboot",
			Reason: "rewind: app-03 is not a VM Zerto protects: nothing to rewind to (rule catalog:*). If it is a protected VM under another name, map it in [targets] aliases."},
		{ID: "000000000000", Tool: "Bash", Decision: DecisionDeny, Excerpt: "a\tb\x1b[2J\nc " + strings.Repeat("x", 100),
			Reason: "rewind: a checkpoint cannot bring a destroyed VM back in place"},
	}
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, tableRecords()); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	t1, t2, t3 := t0.Local().Format(timeLayout), t0.Add(time.Minute).Local().Format(timeLayout), t0.Add(2*time.Minute).Local().Format(timeLayout)
	want := strings.Join([]string{
		"ID            TIME         DECISION   TARGETS      CALL         REASON",
		"0a1b2c3d4e5f  " + t1 + "  protected  web-01,web…  govc vm.po…  rewind-20260301T100000Z-0a1b2c3d +1",
		"ffffffffffff  " + t2 + "  pending    erp-01       mcp__vsphe…  rewind-20260301T100100Z-ffffffff",
		"1234567890ab  " + t3 + "  ask        192.168.7.…  ssh ops@19…  app-03 is not a VM Zerto protects:…",
		"000000000000  -            deny       -            a b [2J c…   a checkpoint cannot bring a destro…",
		"",
	}, "\n")
	got := buf.String()
	for _, line := range strings.Split(got, "\n") {
		if n := utf8.RuneCountInString(line); n > DefaultTableWidth {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	if got != want {
		t.Errorf("WriteTable:\n%s\nwant:\n%s", got, want)
	}
}

func TestWriteTableWidth(t *testing.T) {
	for _, width := range []int{60, 80, 100, 160, 400} {
		var buf bytes.Buffer
		if err := WriteTableWidth(&buf, tableRecords(), width); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(buf.String(), "\n") {
			// The fixed columns (42 with the gaps), two flexible ones at
			// their minimum and the longest tag (35) may be wider.
			if n := utf8.RuneCountInString(line); n > max(width, 97) {
				t.Errorf("width %d: line of %d columns: %q", width, n, line)
			}
		}
		if width == 400 && !strings.Contains(buf.String(), "map it in [targets] aliases.") {
			t.Errorf("width 400 cut a reason that fits:\n%s", buf.String())
		}
	}
}

func TestWriteTableEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTable(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); !strings.HasPrefix(got, "ID") || strings.Count(got, "\n") != 1 {
		t.Errorf("WriteTable(nil) = %q, want the header alone", got)
	}
}
