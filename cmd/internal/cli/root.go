package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/internal/version"
)

// Main is Run for the rewind process itself: a hook call also sets the
// process's memory limit (hook.LimitMemory), a setting of the whole
// process, which a test that calls Run must not be left with.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if isHook(args) {
		hook.LimitMemory(os.Getenv)
	}
	return Run(args, stdin, stdout, stderr)
}

// isHook reports whether args run rewind hook.
func isHook(args []string) bool { return len(args) > 0 && args[0] == "hook" }

// Run runs the rewind command line with args (without the program name) and
// returns the process exit code.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	if isHook(args) {
		// The hook runs before every tool call: it is spared building
		// the other commands, which it cannot reach.
		root.AddCommand(newHookCmd())
	} else {
		addCommands(root)
	}
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(stderr, "rewind: %s\n", ee.msg)
		}
		return ee.code
	}
	err = usageError(cmd, err)
	fmt.Fprintf(stderr, "rewind: %s\n", oneLine(err.Error()))
	var he interface{ Hint() string }
	if errors.As(err, &he) && he.Hint() != "" {
		fmt.Fprintf(stderr, "hint: %s\n", oneLine(he.Hint()))
	}
	return 1
}

// oneLine joins the lines of an error into one, so that every error is
// one line on stderr whatever a library wrote (cobra's suggestions, a
// parser's context); the spacing within a line is kept.
func oneLine(s string) string {
	var parts []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			parts = append(parts, line)
		}
	}
	return strings.Join(parts, " ")
}

// exitError ends a command with a given exit code and, optionally, a message
// already formatted for stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "rewind",
		Short: "Zerto checkpoints before an AI agent changes a VM",
		Long: `rewind sits in an agent host's PreToolUse hook. Before a tool call changes a
VM that Zerto protects, it has Zerto write a tagged checkpoint into that VM's
journal, waits until the checkpoint exists, and tells the agent which
checkpoint undoes the change. Calls that change nothing pass silently.

rewind status says what is enforced here now.`,
		Version:       version.String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Flags().BoolP("version", "V", false, "print rewind's version, as rewind version does")
	root.SetVersionTemplate("rewind {{.Version}}\n")
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagParseError)
	return root
}

// addCommands adds every subcommand to root.
func addCommands(root *cobra.Command) {
	root.AddCommand(
		newVersionCmd(),
		newHookCmd(),
		newExplainCmd(),
		newTestCmd(),
		newCatalogCmd(),
		newSimCmd(),
		newLogCmd(),
		newStatusCmd(),
		newStatuslineCmd(),
		newInstallCmd(), newUninstallCmd(), newDoctorCmd(),
		newUndoCmd(),
		newDemoCmd(),
		newTrustCmd(),
		newMCPCmd(),
		newUICmd(),
		// Subcommands are added here, one line each.
	)
}

// hintError is an error with a hint, printed on a line of its own.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return e.err.Error() }
func (e *hintError) Unwrap() error { return e.err }
func (e *hintError) Hint() string  { return e.hint }

// flagParseError says what is wrong with a flag as the person typed it,
// with the form the flag takes: pflag's own errors name a Go parser
// ("strconv.ParseInt: parsing "abc": invalid syntax"), not the fix.
func flagParseError(cmd *cobra.Command, err error) error {
	var (
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
		missing  *pflag.NotExistError
	)
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		form := flagForm(f)
		if form == "" {
			form = oneLine(errors.Unwrap(invalid).Error())
		}
		return &hintError{
			err:  fmt.Errorf("--%s wants %s, not %q", f.Name, form, invalid.GetValue()),
			hint: flagUsage(cmd, f),
		}
	case errors.As(err, &required):
		f := required.GetFlag()
		return &hintError{err: fmt.Errorf("--%s needs a value", f.Name), hint: flagUsage(cmd, f)}
	case errors.As(err, &missing):
		name := "--" + missing.GetSpecifiedName()
		if missing.GetSpecifiedShortnames() != "" {
			name = "-" + missing.GetSpecifiedName()
		}
		return &hintError{err: fmt.Errorf("%s has no flag %s", cmd.CommandPath(), name), hint: flagList(cmd, missing.GetSpecifiedName())}
	}
	return &hintError{err: err, hint: "see " + cmd.CommandPath() + " --help"}
}

// flagForm says in words what a flag of pflag's own types takes, or ""
// for a flag whose value checks itself (its error then says it).
func flagForm(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "int", "int8", "int16", "int32", "int64":
		return "a whole number"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number, 0 or more"
	case "float32", "float64":
		return "a number"
	case "duration":
		return "a duration such as 90s, 5m or 1h30m"
	case "bool":
		return "true or false"
	}
	return ""
}

// flagUsage is a flag's line of the command's help, prefixed by the
// command: "rewind log --limit N: only the last N decisions".
func flagUsage(cmd *cobra.Command, f *pflag.Flag) string {
	name, usage := pflag.UnquoteUsage(f)
	form := "--" + f.Name
	if f.Shorthand != "" {
		form = "-" + f.Shorthand + "/" + form
	}
	if name != "" && f.Value.Type() != "bool" {
		form += " " + name
	}
	return fmt.Sprintf("%s %s: %s", cmd.CommandPath(), form, usage)
}

// flagList names a command's flags, the likeliest meant for typed first.
func flagList(cmd *cobra.Command, typed string) string {
	var names []string
	var near string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		names = append(names, "--"+f.Name)
		if near == "" && (typed == f.Shorthand || editDistance(typed, f.Name) <= 2 || len(typed) > 2 && strings.HasPrefix(f.Name, typed)) {
			near = "--" + f.Name
		}
	})
	slices.Sort(names)
	if len(names) == 0 {
		return cmd.CommandPath() + " takes no flags"
	}
	s := "its flags are " + strings.Join(names, ", ") + " (" + cmd.CommandPath() + " --help)"
	if near != "" {
		s = "did you mean " + near + "? " + s
	}
	return s
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// flagError is a flag whose value parsed but is out of its range, said as
// flagParseError says a value that does not parse.
func flagError(cmd *cobra.Command, name, value, form string) error {
	f := cmd.Flags().Lookup(name)
	return &hintError{err: fmt.Errorf("--%s wants %s, not %q", name, form, value), hint: flagUsage(cmd, f)}
}

// Cobra's usage errors, which it words for a program's author.
var (
	unknownCommandRe = regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)
	argCountRe       = regexp.MustCompile(`^accepts (\d+) arg\(s\), received (\d+)`)
	exclusiveRe      = regexp.MustCompile(`^if any flags in the group \[([^\]]*)\] are set none of the others can be; \[([^\]]*)\] were all set`)
	togetherRe       = regexp.MustCompile(`^if any flags in the group \[([^\]]*)\] are set they must all be set; missing \[([^\]]*)\]`)
	oneOfRe          = regexp.MustCompile(`^at least one of the flags in the group \[([^\]]*)\] is required`)
	requiredRe       = regexp.MustCompile(`^required flag\(s\) (.*) not set`)
)

// usageError rewords cobra's errors about a command line (an unknown
// command, arguments where none are taken, flags that exclude each other)
// for the person who typed it, with the fix; other errors pass as they
// are.
func usageError(cmd *cobra.Command, err error) error {
	var he *hintError
	if errors.As(err, &he) || cmd == nil {
		return err
	}
	msg := err.Error()
	help := cmd.CommandPath() + " --help"
	if m := unknownCommandRe.FindStringSubmatch(msg); m != nil {
		if cmd.HasParent() || !cmd.HasSubCommands() {
			return &hintError{err: fmt.Errorf("%s takes no arguments, got %q", cmd.CommandPath(), m[1]),
				hint: "see " + help}
		}
		hint := "rewind --help lists the commands"
		if s := cmd.SuggestionsFor(m[1]); len(s) > 0 {
			hint = "did you mean rewind " + s[0] + "? " + hint
		}
		return &hintError{err: fmt.Errorf("rewind has no command %q", m[1]), hint: hint}
	}
	if m := argCountRe.FindStringSubmatch(msg); m != nil {
		return &hintError{err: fmt.Errorf("%s takes %s argument(s), got %s", cmd.CommandPath(), m[1], m[2]),
			hint: "usage: " + cmd.UseLine()}
	}
	dashed := func(list string) string {
		fs := strings.Fields(list)
		for i := range fs {
			fs[i] = "--" + fs[i]
		}
		return strings.Join(fs, ", ")
	}
	if m := exclusiveRe.FindStringSubmatch(msg); m != nil {
		return &hintError{err: fmt.Errorf("%s cannot be given together", strings.ReplaceAll(dashed(m[2]), ", ", " and ")),
			hint: "give one of " + dashed(m[1]) + " (" + help + ")"}
	}
	if m := togetherRe.FindStringSubmatch(msg); m != nil {
		return &hintError{err: fmt.Errorf("%s must be given together: %s is missing", dashed(m[1]), dashed(m[2])), hint: "see " + help}
	}
	if m := oneOfRe.FindStringSubmatch(msg); m != nil {
		return &hintError{err: fmt.Errorf("%s needs one of %s", cmd.CommandPath(), dashed(m[1])), hint: "see " + help}
	}
	if m := requiredRe.FindStringSubmatch(msg); m != nil {
		return &hintError{err: fmt.Errorf("%s needs %s", cmd.CommandPath(), dashed(strings.ReplaceAll(strings.ReplaceAll(m[1], `"`, ""), ",", ""))), hint: "see " + help}
	}
	return err
}
