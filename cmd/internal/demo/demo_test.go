package demo

import (
	"bytes"
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvmsim"
)

func TestRunLeavesNothingBehind(t *testing.T) {
	t.Setenv("REWIND_ZVM_URL", "http://127.0.0.1:1")
	t.Setenv("REWIND_STATE_DIR", t.TempDir()+"/must-not-exist")
	tmp := t.TempDir()
	for _, color := range []bool{false, true} {
		var out bytes.Buffer
		if err := Run(context.Background(), Options{Out: &out, Color: color, TempDir: tmp}); err != nil {
			t.Fatalf("Run(color %v): %v\n%s", color, err, out.String())
		}
		if got := strings.Contains(out.String(), "\x1b["); got != color {
			t.Errorf("color %v: escape sequences in the output: %v", color, got)
		}
		entries, err := os.ReadDir(tmp)
		if err != nil || len(entries) > 0 {
			t.Fatalf("temporary folder not emptied: %v, %v", entries, err)
		}
	}
	if _, err := os.Stat(os.Getenv("REWIND_STATE_DIR")); !os.IsNotExist(err) {
		t.Errorf("the environment's state folder was used: %v", err)
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, nil},
		{"a b c", 10, []string{"a b c"}},
		{"aaaa bbbb cccc", 9, []string{"aaaa bbbb", "cccc"}},
		{"aaaaaaaaaaaa b", 5, []string{"aaaaaaaaaaaa", "b"}},
		{"é é é é", 3, []string{"é é", "é é"}},
	} {
		got := wrap(tc.in, tc.width)
		if !slices.Equal(got, tc.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
		for _, l := range got {
			if n := utf8.RuneCountInString(l); n > tc.width && !strings.Contains(tc.in, l) {
				t.Errorf("wrap(%q, %d): line %q is %d wide", tc.in, tc.width, l, n)
			}
		}
	}
}

func TestRunInterrupted(t *testing.T) {
	tmp := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	if err := Run(ctx, Options{Out: &out, TempDir: tmp}); err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("Run with a cancelled context = %v, want interrupted", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("temporary folder not removed: %v", entries)
	}
}

func TestJSONLineShape(t *testing.T) {
	b, err := marshalLine(&Result{Step: 1, Call: `a && "b"`, Decision: None, Reason: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"step":1,"call":"a && \"b\"","decision":"none","reason":"r","checkpoint":""}`; string(b) != want {
		t.Errorf("line = %s, want %s", b, want)
	}
}

// TestOperatorLoginOnlyForItsSimulator: the demo types the simulator's
// operator login for its own in-process simulator, and refuses to for a
// service that reaches anything else.
func TestOperatorLoginOnlyForItsSimulator(t *testing.T) {
	l, err := newLab(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer l.close()
	svc, err := l.recoveryService()
	if err != nil {
		t.Fatal(err)
	}
	op, err := l.asOperator(svc)(t.Context(), nil)
	if err != nil || op.User != zvmsim.DefaultOperator {
		t.Fatalf("the demo's own simulator: %v, %v", op, err)
	}
	before := len(l.srv.Requests())
	for _, url := range []string{"https://zvm.lab.local", l.url + "/", strings.Replace(l.url, "127.0.0.1", "localhost", 1)} {
		svc.ZertoOptions.URL = url
		var ce *recovery.ConfirmError
		if op, err := l.asOperator(svc)(t.Context(), nil); !errors.As(err, &ce) || op != nil || !strings.Contains(err.Error(), "for its own simulator at "+l.url+" only") {
			t.Errorf("%s: %v, %v", url, op, err)
		}
	}
	if n := len(l.srv.Requests()) - before; n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
