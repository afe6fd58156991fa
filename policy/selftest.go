package policy

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// TestResult is the outcome of one self-test case: a [[test]] of the
// config or the catalog, or one variant of a rule's generated matrix.
type TestResult struct {
	// Name is the [[test]]'s name, or the rule and variant of a matrix case.
	Name string
	// Rule is the rule a matrix case exercises; empty for [[test]] cases.
	Rule string
	// Variant is the matrix variant, such as "sudo" or "commit message".
	Variant string
	// Origin is the file the case comes from, or "catalog".
	Origin string
	// Command is the command tested, or the tool name and input.
	Command string
	Want    Effect
	// Trip is true when the case must reach Want, false when it must
	// stay below it (a matrix case quoting the command as data).
	Trip    bool
	Got     Effect
	Targets []string
	OK      bool
	// Detail says what went wrong when OK is false.
	Detail string
}

func (r TestResult) String() string {
	status := "ok  "
	if !r.OK {
		status = "FAIL"
	}
	want := r.Want.String()
	if !r.Trip {
		want = "below " + want
	}
	s := fmt.Sprintf("%s %s: want %s, got %s: %s", status, r.Name, want, r.Got, r.Command)
	if r.Detail != "" {
		s += " (" + r.Detail + ")"
	}
	return s
}

// Summary counts passed and failed results.
func Summary(results []TestResult) (passed, failed int) {
	for _, r := range results {
		if r.OK {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}

// matrixVariants are the ways a command appears in a call: as data, which
// must not trip its rule, and as code, which must.
var matrixVariants = []struct {
	name string
	trip bool
	wrap func(cmd string) string
}{
	{"commit message", false, func(c string) string { return "git commit -m " + shellQuote(c) }},
	{"quoted heredoc", false, func(c string) string { return "cat > notes.md <<'EOF'\n" + c + "\nEOF" }},
	{"echo", false, func(c string) string { return "echo " + shellQuote(c) }},
	{"command", true, func(c string) string { return c }},
	{"after &&", true, func(c string) string { return "true && " + c }},
	{"sudo", true, func(c string) string { return "sudo " + c }},
	{"env", true, func(c string) string { return "env " + c }},
	{"bash -c", true, func(c string) string { return "bash -c " + shellQuote(c) }},
	{"$(...)", true, func(c string) string { return `echo "$(` + c + `)"` }},
}

// testSets returns the [[test]] cases of the configs and then the
// catalog's, which the policy does not hold (see catalogTestCases).
func (p *Policy) testSets() []testSet {
	return append(slices.Clip(p.tests), testSet{catalogTestCases(), catalogOrigin})
}

// SelfTest runs the [[test]] cases of the config and the catalog and, for
// every deny, ask and protect command rule, the matrix of its sample
// command quoted as data and run as code.
func (p *Policy) SelfTest() []TestResult {
	var out []TestResult
	for _, set := range p.testSets() {
		for _, t := range set.cases {
			// A case of a disabled family goes with its rules.
			if slices.ContainsFunc(strings.Fields(t.Family), p.disabled) {
				continue
			}
			out = append(out, p.runTest(originTest{t, set.origin}))
		}
	}
	for _, r := range p.commands {
		if r.src.Effect == None {
			continue
		}
		// A remote rule's sample reaches the host through ssh, which
		// is not judged when the ssh family is disabled.
		if r.on == "remote" && p.disabled("ssh") && r.src.Sample == "" || strings.HasPrefix(r.src.Sample, "ssh ") && p.disabled("ssh") {
			continue
		}
		sample := r.sample()
		for _, v := range matrixVariants {
			cmd := v.wrap(sample)
			got := p.ClassifyCommand(cmd)
			res := TestResult{
				Name:    r.label + " [" + v.name + "]",
				Rule:    r.label,
				Variant: v.name,
				Origin:  p.ruleOrigin(r.label),
				Command: cmd,
				Want:    r.src.Effect,
				Trip:    v.trip,
				Got:     got.Effect,
				Targets: got.Targets,
			}
			if v.trip {
				res.OK = got.Effect == r.src.Effect || got.Effect == Deny
			} else {
				res.OK = got.Effect < r.src.Effect
			}
			if !res.OK && got.Rule != "" {
				res.Detail = "decided by " + got.Rule + ": " + got.Reason
			}
			out = append(out, res)
		}
	}
	return out
}

func (p *Policy) ruleOrigin(label string) string {
	if strings.HasPrefix(label, catalogOrigin+":") {
		return catalogOrigin
	}
	return originName(p.cfg)
}

func (p *Policy) runTest(t originTest) TestResult {
	origin := t.origin
	if origin == "" {
		origin = originName(p.cfg)
	}
	res := TestResult{Name: t.Name, Origin: origin, Want: t.Expect, Trip: true}
	var v Verdict
	if t.Tool != "" {
		input := t.Input
		if input == "" {
			input = "{}"
		}
		res.Command = t.Tool + " " + input
		v = p.Classify(Call{Tool: t.Tool, Input: json.RawMessage(input), Cwd: t.Cwd})
	} else {
		res.Command = t.Command
		v = p.ClassifyCommand(t.Command)
	}
	if res.Name == "" {
		res.Name = res.Command
	}
	res.Got, res.Targets = v.Effect, v.Targets
	res.OK = v.Effect == t.Expect
	switch {
	case res.OK && t.Targets != nil && !slices.Equal(v.Targets, t.Targets):
		res.OK = false
		res.Detail = fmt.Sprintf("want targets %q, got %q", t.Targets, v.Targets)
	case !res.OK && v.Rule != "":
		res.Detail = "decided by " + v.Rule + ": " + v.Reason
	}
	return res
}

// sample builds a command the rule matches, for its matrix.
func (c *commandRule) sample() string {
	if c.src.Sample != "" {
		return c.src.Sample
	}
	var words []string
	if len(c.cmdlets) > 0 {
		words = append(words, sampleWord(c.src.Cmdlets[0], "Item"))
	} else {
		for i, w := range c.words {
			switch {
			case w == "*" && i == 0:
				words = append(words, "reboot")
			case w == "*":
				words = append(words, "item")
			default:
				words = append(words, sampleWord(w, "x"))
			}
		}
	}
	if len(c.src.ArgsAny) > 0 {
		words = append(words, strings.Fields(c.src.ArgsAny[0])...)
	}
	remote := c.on == "remote"
	if len(c.targets) > 0 {
		t := c.targets[0]
		switch t.kind {
		case targetFlag:
			flag := t.raw
			if !strings.HasPrefix(flag, "-") {
				flag = "-" + flag
			}
			words = append(words, flag, "web-01")
		case targetArg:
			for range t.n - 1 {
				words = append(words, "item")
			}
			words = append(words, "web-01")
		case targetArgs:
			words = append(words, "web-01")
		case targetHost:
			switch {
			case len(c.words) > 0 && c.words[0] == "ssh":
				words = append(words, "web-01")
			case c.on != "local":
				remote = true
			default:
				words = append(words, "web-01:/tmp/")
			}
		}
	}
	if len(c.src.PayloadContains) > 0 {
		words = append(words, "--body", shellQuote(c.src.PayloadContains[0]))
	}
	cmd := strings.Join(words, " ")
	if len(c.cmdlets) > 0 {
		cmd = "pwsh -Command " + shellQuote(cmd)
	}
	if remote {
		cmd = "ssh web-01 " + shellQuote(cmd)
	}
	return cmd
}

// sampleWord makes a word a glob matches, filling wildcards with fill; of
// alternatives ("stop|start"), the first.
func sampleWord(glob, fill string) string {
	glob, _, _ = strings.Cut(glob, "|")
	var b strings.Builder
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; c {
		case '*', '?':
			b.WriteString(fill)
		case '[':
			end := strings.IndexByte(glob[i:], ']')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			class := strings.TrimPrefix(glob[i+1:i+end], "^")
			if len(class) > 0 && glob[i+1] != '^' {
				b.WriteByte(class[0])
			} else {
				b.WriteString(fill[:1])
			}
			i += end
		case '\\':
			if i+1 < len(glob) {
				i++
				b.WriteByte(glob[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// shellQuote quotes s as one word of bash, the dialect the shell analysis
// reads. The one string bash cannot hold is one with a NUL byte, which
// bash drops from the words it reads: so does shellQuote.
func shellQuote(s string) string {
	q, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		q, _ = syntax.Quote(strings.ReplaceAll(s, "\x00", ""), syntax.LangBash)
	}
	return q
}
