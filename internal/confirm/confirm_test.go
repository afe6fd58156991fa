package confirm

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/ptytest"
)

// TestMain runs the test binary as the helper that asks, when told to.
func TestMain(m *testing.M) {
	switch os.Getenv("CONFIRM_HELPER") {
	case "1":
		os.Exit(helper())
	case "agent":
		os.Exit(agentHelper())
	}
	os.Exit(m.Run())
}

// helper asks a line and a secret at its terminal and prints the answers
// on standard output, where the terminal does not show them.
func helper() int {
	t, err := Open()
	if err != nil {
		fmt.Println("open:", err, errors.Is(err, ErrNoTerminal))
		return 1
	}
	defer t.Close()
	t.Say("Restoring web-01 loses what it wrote since.")
	ok, err := Word(t, "Type the VM name: ", "web-01")
	if err != nil {
		fmt.Println("word:", err)
		return 1
	}
	pw, err := t.Secret("Password: ")
	fmt.Printf("word=%v secret=%q err=%v\n", ok, pw, err)
	return 0
}

func helperCmd(t *testing.T) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CONFIRM_HELPER=1")
	devNull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { devNull.Close() })
	cmd.Stdin = devNull // a confirmation never comes from standard input
	return cmd
}

// TestTerminal: the person's answers come from the controlling terminal,
// and the secret is not echoed there.
func TestTerminal(t *testing.T) {
	t.Parallel()
	cmd := helperCmd(t)
	var stdout strings.Builder
	cmd.Stdout = &stdout
	transcript, err := ptytest.Run(cmd, []string{"web-01", "s3cret"})
	if errors.Is(err, ptytest.ErrUnsupported) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, transcript)
	}
	if got := stdout.String(); got != "word=true secret=\"s3cret\" err=<nil>\n" {
		t.Errorf("helper printed %q", got)
	}
	if !strings.Contains(transcript, "Restoring web-01 loses what it wrote since.\nType the VM name: web-01\nPassword: ") {
		t.Errorf("transcript %q", transcript)
	}
	if strings.Contains(transcript, "s3cret") {
		t.Errorf("the secret was echoed: %q", transcript)
	}
}

// TestTerminalWrongWord: another word, or end-of-file, is a no.
func TestTerminalWrongWord(t *testing.T) {
	t.Parallel()
	for _, answers := range [][]string{{"web-02", "x"}, {ptytest.EOF}} {
		cmd := helperCmd(t)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		transcript, err := ptytest.Run(cmd, answers)
		if errors.Is(err, ptytest.ErrUnsupported) {
			t.Skip(err)
		}
		got := stdout.String()
		if strings.Contains(got, "word=true") || got == "" {
			t.Errorf("answers %q: helper printed %q (%v)\n%s", answers, got, err, transcript)
		}
	}
}

// TestNoTerminal: a process without a controlling terminal has nobody to
// ask, whatever its standard input holds.
func TestNoTerminal(t *testing.T) {
	t.Parallel()
	cmd := helperCmd(t)
	cmd.Stdin = strings.NewReader("web-01\ns3cret\n")
	detachCmd(cmd)
	out, err := cmd.Output()
	if err == nil || !strings.Contains(string(out), "no terminal to ask a person at") || !strings.Contains(string(out), "true") {
		t.Errorf("helper without a terminal: %v, %q", err, out)
	}
}

func TestPrintable(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"web-01\n\tok":                     "web-01\n\tok",
		"\x1b[2Jtrust me\r":                "?[2Jtrust me?",
		"a\u202eb\u200bc\x9bd\u2028\u009b": "a?b?c?d??",
		"ünïcode":                          "ünïcode",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
