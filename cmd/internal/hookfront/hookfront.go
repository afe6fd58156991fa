package hookfront

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/cmd/internal/statusline"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/judge"
	"github.com/rewind-dev/rewind/internal/version"
)

// Name is the front's command name, installed beside rewind.
const Name = "rewind-hook"

// Main runs rewind-hook with args (without the program name) and returns
// the process exit code. It takes the flags of rewind hook, and answers
// version as rewind version does, so that rewind doctor can check it, and
// statusline as rewind statusline does, as light as the hook:
//
//	rewind-hook [--host HOST] [--config FILE]
//	rewind-hook version
//	rewind-hook statusline
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr, fullHook)
}

// run is Main with the rewind binary to hand protect calls to found by
// full.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, full func() (string, error)) int {
	if len(args) == 1 && args[0] == "version" {
		fmt.Fprintf(stdout, "rewind %s\n", version.String())
		return 0
	}
	if len(args) == 1 && args[0] == "statusline" {
		return statusline.Run(stdin, stdout, statusline.Options{Getenv: os.Getenv, Color: os.Getenv("NO_COLOR") == ""})
	}
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configPath := fs.String("config", "", "config file (default: discovered)")
	host := fs.String("host", string(hostio.Claude), "the agent host whose protocol to speak")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "rewind: %v\n", err)
		fmt.Fprintf(stderr, "hint: %s takes the flags of rewind hook: [--host HOST] [--config FILE]\n", Name)
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rewind: %s takes no arguments, got %q\n", Name, fs.Arg(0))
		return 1
	}
	h, err := hostio.ParseHost(*host)
	if err != nil {
		fmt.Fprintf(stderr, "rewind: %v\n", err)
		return 1
	}
	step := &relay{full: full, stderr: stderr, args: hookArgs(h, *configPath), host: h}
	return judge.Run(context.Background(), stdin, stdout, judge.Options{
		Host:       h,
		ConfigPath: *configPath,
		Stderr:     stderr,
		Protect:    step,
	})
}

// hookArgs are the arguments of rewind hook for the same host and config.
func hookArgs(h hostio.Host, configPath string) []string {
	args := []string{"hook", "--host", string(h)}
	if configPath != "" {
		args = append(args, "--config", configPath)
	}
	return args
}

// fullHook is the path of the rewind binary beside this one.
func fullHook() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	name := "rewind"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(exe), name), nil
}

// relay is the front's protect step: it hands the call, as the host wrote
// it, to rewind hook, which judges it again, takes the checkpoint, logs
// the decision and answers; relay passes that answer on as it is.
type relay struct {
	full   func() (string, error)
	args   []string
	stderr io.Writer
	host   hostio.Host
}

// answer is what rewind hook made of the call.
type answer struct {
	out, errOut []byte
	code        int
	err         error
	done        chan struct{}
}

func (s *relay) Protect(_ context.Context, call *judge.ProtectCall) judge.Protection {
	bin, err := s.full()
	if err != nil {
		return noHook(call, err)
	}
	a := &answer{done: make(chan struct{})}
	// A rewind hook given up on is stopped, so that it cannot go on to
	// take a checkpoint, and log the call protected, after the host was
	// told the call is denied.
	child, stop := context.WithCancel(context.Background())
	call.OnOverrun(func(ctx context.Context, budget time.Duration) judge.Protection {
		// rewind hook counts its budget from its own start, a moment
		// after this process's: its answer may still come.
		select {
		case <-a.done:
			return a.protection(call, bin, s.host)
		case <-ctx.Done():
			stop()
			return noHook(call, fmt.Errorf("%s hook did not answer within the budget of %s", bin, budget))
		}
	})
	go func() {
		defer close(a.done)
		defer stop()
		cmd := exec.CommandContext(child, bin, s.args...)
		cmd.Stdin = bytes.NewReader(call.Event.Raw())
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, s.stderr
		var errOut bytes.Buffer
		if exitCodes(s.host) {
			// The refusal's reason is on stderr: it is the answer.
			cmd.Stderr = &errOut
		}
		a.err = cmd.Run()
		var ee *exec.ExitError
		if errors.As(a.err, &ee) && exitCodes(s.host) && ee.ExitCode() == hostio.Blocking {
			a.err, a.code = nil, hostio.Blocking
		}
		a.out, a.errOut = out.Bytes(), errOut.Bytes()
	}()
	// rewind hook keeps to the budget itself; should it not, the budget
	// watch answers through the overrun above.
	<-a.done
	return a.protection(call, bin, s.host)
}

// exitCodes reports whether host h reads a refusal from the hook's exit
// code and its reason from stderr.
func exitCodes(h hostio.Host) bool { return h == hostio.Kiro || h == hostio.Windsurf }

// protection passes rewind hook's answer on, or denies the call when there
// is none: without it, the call would run without a checkpoint.
func (a *answer) protection(call *judge.ProtectCall, bin string, h hostio.Host) judge.Protection {
	var ee *exec.ExitError
	switch {
	case errors.As(a.err, &ee):
		return noHook(call, fmt.Errorf("%s hook exited with %v", bin, ee))
	case a.err != nil:
		return noHook(call, a.err)
	case !decided(h, a):
		// For a call to protect, rewind hook always says something: the
		// checkpoint, pending, ask or deny. No answer, or an empty one,
		// means it judged the call otherwise (another version beside
		// this one, a config changed in between): the call has no
		// checkpoint behind it.
		return noHook(call, fmt.Errorf("%s hook wrote no decision for a call to protect", bin))
	}
	return judge.Protection{Answer: &hostio.Response{
		Stdout: append([]byte{}, a.out...), Stderr: append([]byte{}, a.errOut...), Code: a.code}}
}

// decided reports whether a is an answer rewind hook gives a call to
// protect: a JSON object with at least one member or, to the hosts that
// read exit codes, a refusal with its reason or a checkpoint to tell.
func decided(h hostio.Host, a *answer) bool {
	if exitCodes(h) {
		return a.code == hostio.Blocking && len(bytes.TrimSpace(a.errOut)) > 0 ||
			a.code == 0 && len(bytes.TrimSpace(a.out)) > 0
	}
	return decisionObject(a.out)
}

// decisionObject reports whether out is one JSON object with at least one
// member, as every host's answer to a call to protect is.
func decisionObject(out []byte) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(out, &m) == nil && len(m) > 0
}

// noHook denies a protect call that rewind hook could not take over.
func noHook(call *judge.ProtectCall, err error) judge.Protection {
	return judge.Protection{
		Decision: hostio.Decision{
			Permission: hostio.Deny,
			Reason: fmt.Sprintf("rewind: no checkpoint for %s: %v. Fix: install rewind beside %s (go install github.com/rewind-dev/rewind/cmd/...@latest).",
				strings.Join(call.Verdict.Targets, ", "), err, Name),
		},
		Audit: audit.DecisionDeny,
		Error: err.Error(),
	}
}
