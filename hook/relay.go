package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rewind-dev/rewind/hostio"
)

// Relay is the protect step of a program that takes no checkpoints itself,
// the light front rewind-hook: it hands the call, as the host wrote it, to
// `rewind hook` in the rewind binary beside it, with the same host and
// config, which judges it again, takes the checkpoint, logs the decision
// and answers; Relay passes that answer on as it is. Without an answer
// (no rewind binary, one that fails, or that does not answer within the
// budget), the call is denied: it would run without a checkpoint.
type Relay struct {
	// Bin returns the path of the rewind binary.
	Bin func() (string, error)
	// Host and ConfigPath are the run's, handed on as --host and --config.
	Host       hostio.Host
	ConfigPath string
	// Front names the program that relays, for the fix of a missing
	// rewind binary.
	Front string
	// Stderr receives rewind hook's diagnostics.
	Stderr io.Writer

	// run runs rewind hook; runHook when nil (tests stand a function in).
	run func(ctx context.Context, bin string, args []string, stdin []byte, stderr io.Writer, exitCodes bool) relayed
}

// relayed is what rewind hook made of the call.
type relayed struct {
	out, errOut []byte
	code        int
	err         error
}

// Protect hands the call to rewind hook and returns its answer.
func (s *Relay) Protect(_ context.Context, call *Call) Outcome {
	bin, err := s.Bin()
	if err != nil {
		return s.failed(call, err)
	}
	args := []string{"hook", "--host", string(s.Host)}
	if s.ConfigPath != "" {
		args = append(args, "--config", s.ConfigPath)
	}
	var a relayed
	done := make(chan struct{})
	// A rewind hook given up on is stopped, so that it cannot go on to
	// take a checkpoint, and log the call protected, after the host was
	// told the call is denied. It is not stopped at the protect step's
	// deadline: it counts its budget from its own start, a moment after
	// this process's, and its answer may still come until the watch's.
	child, stop := context.WithCancel(context.Background())
	defer stop()
	call.OnOverrun(func(ctx context.Context) Outcome {
		select {
		case <-done:
			return s.outcome(call, bin, a)
		case <-ctx.Done():
			stop()
			return s.failed(call, fmt.Errorf("%s hook did not answer within the budget of %s", bin, call.Config.Hook.Budget))
		}
	})
	run := s.run
	if run == nil {
		run = runHook
	}
	a = run(child, bin, args, call.Event.Raw(), s.Stderr, exitCodes(s.Host))
	close(done)
	return s.outcome(call, bin, a)
}

// runHook runs rewind hook. To the hosts that read a refusal from the exit
// code, the refusal's reason on stderr is the answer, and exit code 2 no
// failure.
func runHook(ctx context.Context, bin string, args []string, stdin []byte, stderr io.Writer, exitCodes bool) relayed {
	var out, errOut bytes.Buffer
	var err error
	// A binary that is being written (go install replacing it, or a file
	// another process just wrote and whose descriptor a process forked
	// meanwhile still holds) cannot be started, "text file busy", for a
	// moment; nothing of it ran, so starting it again is safe.
	for try := 1; ; try++ {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Stdin = bytes.NewReader(stdin)
		cmd.Stdout, cmd.Stderr = &out, stderr
		if exitCodes {
			cmd.Stderr = &errOut
		}
		if err = cmd.Start(); errors.Is(err, syscall.ETXTBSY) && try < 5 && ctx.Err() == nil {
			time.Sleep(time.Duration(try) * 10 * time.Millisecond)
			continue
		}
		if err == nil {
			err = cmd.Wait()
		}
		break
	}
	a := relayed{err: err}
	var ee *exec.ExitError
	if errors.As(a.err, &ee) && exitCodes && ee.ExitCode() == hostio.Blocking {
		a.err, a.code = nil, hostio.Blocking
	}
	a.out, a.errOut = out.Bytes(), errOut.Bytes()
	return a
}

// exitCodes reports whether host h reads a refusal from the hook's exit
// code and its reason from stderr.
func exitCodes(h hostio.Host) bool { return h == hostio.Kiro || h == hostio.Windsurf }

// outcome passes rewind hook's answer on, or denies the call when there is
// none: without it, the call would run without a checkpoint.
func (s *Relay) outcome(call *Call, bin string, a relayed) Outcome {
	var ee *exec.ExitError
	switch {
	case errors.As(a.err, &ee):
		return s.failed(call, fmt.Errorf("%s hook exited with %v", bin, ee))
	case a.err != nil:
		return s.failed(call, a.err)
	case !decided(s.Host, a):
		// For a call to protect, rewind hook always says something: the
		// checkpoint, pending, ask or deny. No answer, or an empty one,
		// means it judged the call otherwise (another version beside
		// this one, a config changed in between): the call has no
		// checkpoint behind it.
		return s.failed(call, fmt.Errorf("%s hook wrote no decision for a call to protect", bin))
	}
	return Outcome{Kind: Relayed, Answer: &hostio.Response{Stdout: a.out, Stderr: a.errOut, Code: a.code}}
}

// decided reports whether a is an answer rewind hook gives a call to
// protect: a JSON object with at least one member or, to the hosts that
// read exit codes, a refusal with its reason or a checkpoint to tell.
func decided(h hostio.Host, a relayed) bool {
	if exitCodes(h) {
		return a.code == hostio.Blocking && len(bytes.TrimSpace(a.errOut)) > 0 ||
			a.code == 0 && len(bytes.TrimSpace(a.out)) > 0
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(a.out, &m) == nil && len(m) > 0
}

// failed is the outcome of a call rewind hook could not take over.
func (s *Relay) failed(call *Call, err error) Outcome {
	return Outcome{
		Kind:     Failed,
		Failures: []string{strings.Join(call.Verdict.Targets, ", ") + ": " + err.Error()},
		Hint:     fmt.Sprintf("install rewind beside %s (go install github.com/rewind-dev/rewind/cmd/...@latest)", s.Front),
		Error:    err.Error(),
	}
}
