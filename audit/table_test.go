package audit

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWriteTable(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	recs := []Record{
		{ID: "0a1b2c3d4e5f", Time: t0, Tool: "Bash", Decision: DecisionProtected, Targets: []string{"web-01", "web-02"},
			Checkpoints: []Checkpoint{{Tag: "rewind-7", Identifier: "123"}, {Tag: "rewind-8", Identifier: "456"}},
			Excerpt:     "govc vm.power -off web-01 web-02"},
		{ID: "ffffffffffff", Time: t0.Add(time.Minute), Tool: "mcp__vsphere__power_off_vm", Decision: DecisionPending,
			Checkpoints: []Checkpoint{{Tag: "rewind-9"}}, Excerpt: strings.Repeat("x", 100)},
		{ID: "000000000000", Tool: "Read", Decision: DecisionNone, Excerpt: "a\tb\x1b[2J\nc"},
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, recs); err != nil {
		t.Fatal(err)
	}
	t1, t2 := t0.Local().Format(timeLayout), t0.Add(time.Minute).Local().Format(timeLayout)
	want := strings.Join([]string{
		"ID            TIME                 DECISION   TOOL                        TARGETS        CHECKPOINT          EXCERPT",
		"0a1b2c3d4e5f  " + t1 + "  protected  Bash                        web-01,web-02  rewind-7 (123) +1   govc vm.power -off web-01 web-02",
		"ffffffffffff  " + t2 + "  pending    mcp__vsphere__power_off_vm  -              rewind-9 (pending)  " + strings.Repeat("x", 59) + "…",
		"000000000000  -                    none       Read                        -              -                   a b [2J c",
		"",
	}, "\n")
	if got := buf.String(); got != want {
		t.Errorf("WriteTable:\n%s\nwant:\n%s", got, want)
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
