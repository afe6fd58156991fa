//go:build linux

package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rewind-dev/rewind/audit"
)

// TestLogOnTerminal prints the log to a real terminal (a pseudo-terminal
// of 80, 120 and 200 columns) and wants what --width prints for that
// width, coloured; with NO_COLOR set, without colours. The testscript
// log_table holds the tables themselves.
func TestLogOnTerminal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REWIND_STATE_DIR", dir)
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	l := audit.Open(dir)
	t0 := time.Date(2026, 12, 1, 5, 10, 12, 0, time.UTC)
	for i, r := range []*audit.Record{
		{Time: t0, Tool: "Bash", Decision: audit.DecisionProtected, Excerpt: "ssh web-01 sudo reboot", Targets: []string{"web-01"},
			Checkpoints: []audit.Checkpoint{{VPG: "lab-apps", Tag: "rewind-20261201T051012Z-28a83447", Identifier: "1002175"}}},
		{Tool: "Bash", Decision: audit.DecisionDeny, Excerpt: "govc vm.power -off -vm legacy-01", Targets: []string{"legacy-01"},
			Reason: `rewind: no checkpoint for legacy-01 (VPG "lab-legacy"): Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding`},
		{Tool: "Bash", Decision: audit.DecisionAsk, Excerpt: "ssh ops@192.168.7.14 sudo systemctl restart app", Targets: []string{"192.168.7.14"}, VMs: []string{"app-03"},
			Reason: "rewind: app-03 is not a VM Zerto protects: nothing to rewind to (rule catalog:*)."},
	} {
		r.Time = t0.Add(time.Duration(i) * time.Minute)
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, cols := range []int{80, 120, 200} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			colored := runLogOn(t, cols, "log")
			if want := runLogTo(t, "log", "--width", fmt.Sprint(cols), "--color=always"); colored != want {
				t.Errorf("on a terminal of %d columns:\n%s\nwant what --width %d --color=always prints:\n%s", cols, colored, cols, want)
			}
			if !strings.Contains(colored, "\x1b[1;31mdeny\x1b[0m") {
				t.Errorf("no colour on a terminal:\n%q", colored)
			}
			t.Setenv("NO_COLOR", "1")
			plain := runLogOn(t, cols, "log")
			if want := runLogTo(t, "log", "--width", fmt.Sprint(cols), "--color=never"); plain != want {
				t.Errorf("with NO_COLOR:\n%s\nwant:\n%s", plain, want)
			}
			if strings.Contains(plain, "\x1b") {
				t.Errorf("colours despite NO_COLOR:\n%q", plain)
			}
			t.Setenv("NO_COLOR", "")
		})
	}
}

// runLogOn runs rewind with args and its stdout on a pseudo-terminal of
// cols columns, and returns what the terminal got.
func runLogOn(t *testing.T, cols int, args ...string) string {
	t.Helper()
	master, slave := openPTY(t)
	if err := unix.IoctlSetWinsize(int(slave.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	// Raw mode: the terminal passes the output on as written, without
	// turning newlines into CR LF.
	tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	tio.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(int(slave.Fd()), unix.TCSETS, tio); err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte)
	go func() {
		var buf bytes.Buffer
		io.Copy(&buf, master) // ends with EIO once the slave is closed
		got <- buf.Bytes()
	}()
	var stderr bytes.Buffer
	code := Run(args, strings.NewReader(""), slave, &stderr)
	slave.Close()
	out := <-got
	master.Close()
	if code != 0 {
		t.Fatalf("rewind %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	return string(out)
}

func runLogTo(t *testing.T, args ...string) string {
	t.Helper()
	code, stdout, stderr := runLogCLI(t, args...)
	if code != 0 {
		t.Fatalf("rewind %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return stdout
}

// openPTY opens a pseudo-terminal pair: the master, and the slave that a
// program writes to as its terminal.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		m.Close()
		t.Fatal(err)
	}
	n, err := unix.IoctlGetUint32(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		m.Close()
		t.Fatal(err)
	}
	s, err := os.OpenFile(filepath.Join("/dev/pts", fmt.Sprint(n)), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("cannot open the pseudo-terminal's slave: %v", err)
	}
	return m, s
}
