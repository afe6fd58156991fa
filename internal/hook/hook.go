package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// Options configure one hook run.
type Options struct {
	// Host is the agent host whose protocol is spoken.
	Host hostio.Host
	// ConfigPath is the --config flag; empty means discovery.
	ConfigPath string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Stderr receives diagnostics that are not part of the protocol.
	Stderr io.Writer
}

// Run reads one event from stdin and writes the decision to stdout. It
// always returns exit code 0: every outcome, errors included, is a decision.
func Run(ctx context.Context, stdin io.Reader, stdout io.Writer, opts Options) int {
	d := decideEvent(ctx, stdin, &opts)
	if err := hostio.Encode(stdout, opts.Host, d); err != nil && opts.Stderr != nil {
		fmt.Fprintf(opts.Stderr, "rewind: writing the decision: %v\n", err)
	}
	return 0
}

// decideEvent turns an event into a decision, turning panics and errors into
// the on_error outcome.
func decideEvent(ctx context.Context, stdin io.Reader, opts *Options) (d hostio.Decision) {
	onError := "allow"
	defer func() {
		if r := recover(); r != nil {
			d = errorDecision(onError, fmt.Errorf("internal error: %v", r))
		}
	}()

	ev, err := hostio.Decode(stdin, opts.Host)
	if err != nil {
		switch {
		case errors.Is(err, hostio.ErrNotPreToolUse):
			// rewind is registered for PreToolUse only; another event
			// reaching it is a setup mistake, not a call to judge.
			return hostio.Decision{}
		case errors.Is(err, hostio.ErrTooLarge):
			return hostio.Decision{
				Permission: hostio.Ask,
				Reason:     "rewind: the tool call is over 8 MiB, too large to analyse; confirm it by hand",
			}
		}
		return errorDecision(onError, err)
	}

	getenv := opts.getenv()
	cfg, cfgErr := loadConfig(opts.ConfigPath, ev.Cwd, getenv)
	if cfgErr != nil {
		return brokenConfigDecision(ev, cfgErr)
	}
	onError = cfg.Hook.OnError

	pol, err := policy.New(cfg)
	if err != nil {
		return brokenConfigDecision(ev, err)
	}
	v := pol.Classify(ev.Call())
	return decide(v, cfg)
}

func (o *Options) getenv() func(string) string {
	if o.Getenv != nil {
		return o.Getenv
	}
	return os.Getenv
}

// loadConfig finds and parses the configuration; no file at all is the
// built-in defaults, not an error.
func loadConfig(flagPath, cwd string, getenv func(string) string) (*policy.Config, error) {
	path, err := policy.Discover(flagPath, cwd, getenv)
	if err != nil {
		return nil, err
	}
	return policy.Load(path)
}

// brokenConfigDecision answers when the config cannot be used. The built-in
// catalog still judges the call, so honest read-only work goes on (with a
// warning), while anything the catalog would not let through silently is
// put to the user: the config's own rules and Zerto settings are unknown.
func brokenConfigDecision(ev *hostio.Event, cfgErr error) hostio.Decision {
	msg := fmt.Sprintf("rewind: config error: %v", cfgErr)
	pol, err := policy.New(policy.Default())
	if err != nil {
		return hostio.Decision{Permission: hostio.Ask, Reason: msg}
	}
	v := pol.Classify(ev.Call())
	if v.Effect == policy.None {
		return hostio.Decision{SystemMessage: msg + "; rules were checked against the built-in catalog only"}
	}
	return hostio.Decision{
		Permission:    hostio.Ask,
		Reason:        fmt.Sprintf("%s; without a working config rewind cannot guard this call (%s)", msg, describe(v)),
		SystemMessage: msg,
	}
}

// decide applies the decision table of DESIGN section 3 to a verdict.
func decide(v policy.Verdict, cfg *policy.Config) hostio.Decision {
	switch v.Effect {
	case policy.Deny:
		return hostio.Decision{Permission: hostio.Deny, Reason: "rewind: " + describe(v)}
	case policy.Ask:
		return hostio.Decision{Permission: hostio.Ask, Reason: "rewind: " + describe(v)}
	case policy.Protect:
		return hostio.Decision{
			Permission: hostio.Ask,
			Reason: fmt.Sprintf("rewind: no Zerto configured: nothing to rewind to (%s would change %s)",
				ruleName(v), strings.Join(v.Targets, ", ")),
		}
	}
	return hostio.Decision{}
}

// describe is the reason of a verdict followed by the rule that gave it.
func describe(v policy.Verdict) string {
	r := v.Reason
	if r == "" {
		r = "matched " + ruleName(v)
	} else if v.Rule != "" {
		r += " (rule: " + v.Rule + ")"
	}
	return r
}

func ruleName(v policy.Verdict) string {
	if v.Rule == "" {
		return "a rule"
	}
	return "rule " + v.Rule
}

// errorDecision is the outcome of an internal error under hook.on_error.
func errorDecision(onError string, err error) hostio.Decision {
	msg := fmt.Sprintf("rewind: %v", err)
	switch onError {
	case "deny":
		return hostio.Decision{Permission: hostio.Deny, Reason: msg + " (hook.on_error = deny)", SystemMessage: msg}
	case "ask":
		return hostio.Decision{Permission: hostio.Ask, Reason: msg + " (hook.on_error = ask)", SystemMessage: msg}
	}
	return hostio.Decision{SystemMessage: msg + "; the call was not checked (hook.on_error = allow)"}
}

