package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/internal/ptytest"
	"github.com/rogpeppe/go-internal/testscript"
)

// init leaves a script's rewind without a controlling terminal, the way a
// command an agent runs through a pipe is: the test binary, run as a
// command from a developer's terminal, must not ask that terminal. A
// command `tty` started keeps the terminal tty gave it.
func init() {
	if name := filepath.Base(os.Args[0]); name == "rewind" || name == "rewind-hook" {
		ptytest.Detach()
	}
}

// ttyEnv are the variables a script's environment may set that a command
// run by tty gets: testscript offers no list of them.
var ttyEnv = []string{"PATH", "HOME", "TMPDIR", "WORK", "GORACE", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME",
	"REWIND_CONFIG", "REWIND_STATE_DIR", "REWIND_ZVM_URL", "REWIND_ZVM_USERNAME", "REWIND_ZVM_PASSWORD",
	"REWIND_ZVM_CLIENT_ID", "REWIND_ZVM_CLIENT_SECRET", "REWIND_ZVM_CA_FILE", "REWIND_ZVM_AUTH", "NO_COLOR", "TERM", "REWIND_TEST_ANCESTOR"}

// cmdTTY runs a command with a terminal of its own, typing answers at its
// prompts, as a person at a terminal does (or an agent with script or
// expect):
//
//	[!] tty [ANSWER...] -- PROGRAM [ARG...]
//
// Each answer is typed when the command's terminal shows a prompt; once
// they run out, end-of-file is. The command's standard input is empty.
// Its stdout is the script's stdout; its stderr, then what its terminal
// showed (with the answers it echoed), are the script's stderr.
func cmdTTY(ts *testscript.TestScript, neg bool, args []string) {
	i := slices.Index(args, "--")
	if i < 0 || i == len(args)-1 {
		ts.Fatalf("usage: tty [ANSWER...] -- PROGRAM [ARG...]")
	}
	answers, argv := args[:i], args[i+1:]
	path := ""
	for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
		if p := filepath.Join(d, argv[0]); isExecutable(p) {
			path = p
			break
		}
	}
	if path == "" {
		ts.Fatalf("tty: %s not found in $PATH", argv[0])
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range ttyEnv {
		if v := ts.Getenv(k); v != "" {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	transcript, err := ptytest.Run(cmd, answers)
	if errors.Is(err, ptytest.ErrUnsupported) {
		ts.Logf("%v", err)
		ts.Fatalf("tty: no pseudo-terminals here")
	}
	ts.Stdout().Write([]byte(stdout.String()))
	ts.Stderr().Write([]byte(stderr.String() + transcript))
	var exit *exec.ExitError
	switch {
	case err == nil && neg:
		ts.Fatalf("unexpected success")
	case err != nil && !errors.As(err, &exit):
		ts.Fatalf("tty: %v", err)
	case err != nil && !neg:
		ts.Fatalf("tty %s: %v", strings.Join(argv, " "), err)
	}
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}
