package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/shell"
	"github.com/spf13/cobra"
)

func newExplainCmd() *cobra.Command {
	var (
		configPath string
		asJSON     bool
		tool       string
		input      string
		exitCode   bool
	)
	cmd := &cobra.Command{
		Use:   "explain [--json] -- 'COMMAND' | --tool NAME --input JSON",
		Short: "Show the verdict on a command or tool call, and why",
		Long: `explain judges a shell command, or a tool call, the way the hook would, but
without calling Zerto: it shows each command that would run, what was
treated as data, and which rule decided.

Each target is shown as written and, where the config's [targets] aliases
or strip_domain map it to another name, as the Zerto VM it stands for:
"192.168.7.14 → app-03". The first line names the config that was loaded,
or says the built-in defaults were used.

With --json it prints one object:
  {"decision":"none|protect|ask|deny","targets":[...],"vms":[...],"rule":"...","reason":"...","config":"...","invocations":[...]}
where vms holds the Zerto VM name of each target, in the same order, and
config is the config file's path ("" for the built-in defaults).

With --exit-code the exit code says the decision, for scripts and CI:
  0  none or protect (the call would run; protect with a checkpoint first)
  2  ask
  3  deny
  1  explain itself failed (bad arguments, a broken config)`,
		Example: `  rewind explain -- 'git commit -m "never run gh issue create here"'
  rewind explain --json -- 'ssh web-01 sudo systemctl restart nginx'
  rewind explain --tool mcp__vsphere__power_off_vm --input '{"vm_name":"web-01"}'
  rewind explain --exit-code -- 'govc vm.destroy web-02' || echo "not without a person"`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var call policy.Call
			switch {
			case tool != "" && len(args) > 0:
				return &hintError{err: errors.New("explain takes a command or --tool, not both"),
					hint: "rewind explain -- 'COMMAND', or rewind explain --tool NAME --input JSON"}
			case tool != "":
				if input == "" {
					input = "{}"
				}
				if !json.Valid([]byte(input)) {
					return &hintError{err: fmt.Errorf("--input wants the tool's input as JSON, not %q", audit.Excerpt(input, 40)),
						hint: `such as --input '{"vm_name":"web-01"}', in single quotes so that the shell keeps the double ones`}
				}
				call = policy.Call{Tool: tool, Input: json.RawMessage(input)}
			case len(args) > 0:
				in, _ := json.Marshal(map[string]string{"command": strings.Join(args, " ")})
				call = policy.Call{Tool: "Bash", Input: in}
			default:
				return &hintError{err: errors.New("nothing to explain"), hint: "rewind explain -- 'COMMAND', or rewind explain --tool NAME --input JSON"}
			}
			if wd, err := os.Getwd(); err == nil {
				call.Cwd = wd
			}
			pol, err := loadPolicy(configPath)
			if err != nil {
				return err
			}
			v := pol.Classify(call)
			cfg := pol.Config()
			if asJSON {
				err = writeExplainJSON(cmd.OutOrStdout(), v, cfg)
			} else {
				err = writeExplain(cmd.OutOrStdout(), v, cfg)
			}
			if err != nil || !exitCode {
				return err
			}
			switch v.Effect {
			case policy.Ask:
				return &exitError{code: ExitAsk}
			case policy.Deny:
				return &exitError{code: ExitDeny}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&configPath, "config", "", "config `file` (default: discovered, see the README)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the verdict as one JSON object")
	cmd.Flags().StringVar(&tool, "tool", "", "explain a call of the tool `NAME` instead of a shell command")
	cmd.Flags().StringVar(&input, "input", "", "the tool's input, a `JSON` object")
	cmd.Flags().BoolVar(&exitCode, "exit-code", false, "exit 2 for ask and 3 for deny")
	return cmd
}

// The exit codes of explain --exit-code; 1 stays explain's own failure.
const (
	ExitAsk  = 2
	ExitDeny = 3
)

// explainJSON is the object the README documents for explain --json.
type explainJSON struct {
	Decision policy.Effect `json:"decision"`
	Targets  []string      `json:"targets"`
	// VMs are the Zerto VM names of Targets, in the same order.
	VMs         []string           `json:"vms"`
	Rule        string             `json:"rule"`
	Reason      string             `json:"reason"`
	Config      string             `json:"config"`
	Invocations []shell.Invocation `json:"invocations"`
}

func writeExplainJSON(w io.Writer, v policy.Verdict, cfg *policy.Config) error {
	out := explainJSON{
		Decision: v.Effect, Targets: v.Targets, VMs: cfg.Targets.VMNames(v.Targets),
		Rule: v.Rule, Reason: v.Reason, Config: cfg.Path, Invocations: v.Invocations,
	}
	if out.Targets == nil {
		out.Targets = []string{}
	}
	if out.Invocations == nil {
		out.Invocations = []shell.Invocation{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// configName names the config for a person.
func configName(cfg *policy.Config) string {
	if len(cfg.Sources) == 0 {
		if cfg.Path == "" {
			return "built-in defaults"
		}
		return cfg.Path
	}
	names := make([]string, len(cfg.Sources))
	for i, src := range cfg.Sources {
		names[i] = src.Path
		if src.Project && !src.Trusted {
			names[i] += " (untrusted: it can only tighten)"
		}
	}
	return strings.Join(names, ", ")
}

// targetList shows each target as written and, when the config maps it to
// another name, the Zerto VM it stands for.
func targetList(targets []string, tc policy.TargetsConfig) string {
	parts := make([]string, len(targets))
	for i, t := range targets {
		parts[i] = t
		if vm := tc.VMName(t); vm != t {
			parts[i] += " → " + vm
		}
	}
	return strings.Join(parts, ", ")
}

// writeExplain prints the verdict for a person: the decision first, then
// every piece of the call with the effect it got on its own.
func writeExplain(w io.Writer, v policy.Verdict, cfg *policy.Config) error {
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	fmt.Fprintf(tw, "config:\t%s\n", configName(cfg))
	fmt.Fprintf(tw, "decision:\t%s\n", v.Effect)
	if v.Rule != "" {
		fmt.Fprintf(tw, "rule:\t%s\n", v.Rule)
	}
	if v.Reason != "" {
		fmt.Fprintf(tw, "reason:\t%s\n", v.Reason)
	}
	if len(v.Targets) > 0 {
		fmt.Fprintf(tw, "targets:\t%s\n", targetList(v.Targets, cfg.Targets))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(v.Matches) == 0 {
		_, err := fmt.Fprintln(w, "\nno command would run")
		return err
	}
	fmt.Fprintln(w)
	for _, m := range v.Matches {
		fmt.Fprintf(w, "%-7s %s %s\n", m.Effect, label(m.Kind), m.Source)
		if m.Host != "" {
			fmt.Fprintf(w, "        on host %s\n", m.Host)
		}
		if len(m.Via) > 0 {
			fmt.Fprintf(w, "        via %s\n", strings.Join(m.Via, " > "))
		}
		for _, p := range m.Payload {
			fmt.Fprintf(w, "        data, not run: %s\n", excerpt(p, 72))
		}
		switch {
		case m.Rule != "" && m.Reason != "":
			fmt.Fprintf(w, "        rule %s: %s\n", m.Rule, m.Reason)
		case m.Rule != "":
			fmt.Fprintf(w, "        rule %s\n", m.Rule)
		case m.Reason != "":
			fmt.Fprintf(w, "        %s\n", m.Reason)
		default:
			fmt.Fprintf(w, "        no rule matched\n")
		}
		if len(m.Targets) > 0 {
			fmt.Fprintf(w, "        targets %s\n", targetList(m.Targets, cfg.Targets))
		}
	}
	return nil
}

func label(k policy.Kind) string {
	switch k {
	case policy.KindInvocation:
		return "run:"
	case policy.KindCmdlet:
		return "cmdlet:"
	case policy.KindDynamic:
		return "dynamic:"
	case policy.KindUnparsed:
		return "unparsed:"
	}
	return string(k) + ":"
}

// excerpt quotes s on one line, cut to about max characters.
func excerpt(s string, max int) string {
	r := []rune(s)
	cut := len(r) > max
	if cut {
		r = r[:max]
	}
	q := strconv.Quote(string(r))
	if cut {
		q += fmt.Sprintf(" (%d bytes in all)", len(s))
	}
	return q
}
