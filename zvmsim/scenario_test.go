package zvmsim

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseScenarioErrors(t *testing.T) {
	t.Parallel()
	const base = `
[[site]]
name = "A"
[[vpg]]
name = "v"
recovery_site = "A"
cadence = "1s"
vms = ["a"]
`
	tests := []struct {
		name, doc string
		wantLine  int
		wantMsg   string
	}{
		{"unknown key", base + "cadense = \"5s\"\n", 9, `unknown key "vpg.cadense"`},
		{"unknown top-level key", "tokens_ttl = \"1m\"\n" + base, 1, `unknown key "tokens_ttl"`},
		{"bad duration", strings.Replace(base, `"1s"`, `"soon"`, 1), 7, "soon"},
		{"bad status", base + "status = \"Great\"\n", 9, "unknown VPG status"},
		{"bad site type", strings.Replace(base, `name = "A"`, "name = \"A\"\ntype = \"KVM\"", 1), 0, "unknown site type"},
		{"unknown recovery site", strings.Replace(base, `recovery_site = "A"`, `recovery_site = "B"`, 1), 0, `recovery_site "B" is not a declared site`},
		{"no cadence", strings.Replace(base, `cadence = "1s"`, "", 1), 0, "has no cadence"},
		{"vm twice in one vpg", strings.Replace(base, `vms = ["a"]`, `vms = ["a", "A"]`, 1), 0, `lists vm "A" twice`},
		{"clock offset too large", base + "[strict]\nclock_offset = \"-25h\"\n", 0, "clock_offset"},
		{"bad vpg id", base + "id = \"42\"\n", 0, "is not a GUID"},
		{"no sites", "", 0, "no sites"},
		{"bad error rate", base + "[faults]\nserver_error_rate = 2.0\n", 0, "server_error_rate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario("s.toml", []byte(tt.doc))
			var se *ScenarioError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a ScenarioError", err)
			}
			if se.Line != tt.wantLine || !strings.Contains(se.Msg, tt.wantMsg) {
				t.Fatalf("err = %q (line %d), want line %d and %q", err, se.Line, tt.wantLine, tt.wantMsg)
			}
		})
	}
}

func TestScenarioFiles(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("testdata/*.toml")
	if len(files) == 0 {
		t.Fatal("no scenario files in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sc, err := LoadScenario(f)
			if err != nil {
				t.Fatal(err)
			}
			s := NewServer(sc)
			s.Close()
		})
	}
	// The lab file writes out the built-in scenario.
	lab, err := LoadScenario("testdata/lab.toml")
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultScenario()
	if len(lab.VPGs) != len(def.VPGs) {
		t.Fatalf("lab.toml has %d VPGs, the default %d", len(lab.VPGs), len(def.VPGs))
	}
	for i := range def.VPGs {
		l, d := lab.VPGs[i], def.VPGs[i]
		if l.Name != d.Name || l.ID != d.ID || l.Cadence != d.Cadence || l.Status != d.Status || l.SubStatus != d.SubStatus || l.InsertFailure != d.InsertFailure {
			t.Errorf("lab.toml VPG %+v differs from the default %+v", l, d)
		}
	}
}

func TestScenarioDefaults(t *testing.T) {
	t.Parallel()
	sc, err := ParseScenario("min", []byte("[[site]]\nname = \"A\"\n[[vpg]]\nname = \"v\"\nrecovery_site = \"a\"\ncadence = \"2s\"\nvms = [\"x\"]\nstatus = \"4\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := sc.VPGs[0]
	if sc.Name != "min" || sc.LocalSite != "A" || sc.TokenTTL != Duration(5*time.Minute) ||
		v.ProtectedSite != "A" || v.Phase != v.Cadence || v.Status != StatusRpoNotMeetingSLA || v.ID != derivedGUID("vpg", "v") {
		t.Fatalf("defaults not applied: %+v", sc)
	}
}
