package policy

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/shell"
)

// Policy judges calls by the user's rules and then the built-in catalog.
// It is safe for concurrent use.
type Policy struct {
	cfg      *Config
	commands []*commandRule
	// byName and unnamed index commands by the name a rule matches
	// (see indexRules).
	byName  map[string][]*commandRule
	unnamed []*commandRule
	tools   []*toolRule
	servers []string
	tests   []originTest
	// valueOpts are the options that take a separate value, per command.
	valueOpts map[string][]string
	// aliases are the subcommand aliases, per command.
	aliases map[string][]subAlias
}

type originTest struct {
	TestCase
	origin string
}

// Origins of rules, as shown in Verdict.Rule and Rules.
const catalogOrigin = "catalog"

// New compiles cfg's rules followed by the catalog's. A nil cfg means the
// defaults.
func New(cfg *Config) (*Policy, error) {
	if cfg == nil {
		cfg = Default()
	}
	cat, err := compiledCatalog()
	if err != nil {
		return nil, err
	}
	p := &Policy{cfg: cfg}
	user, err := compile(cfg, "")
	if err != nil {
		return nil, err
	}
	p.commands = append(user.commands, cat.commands...)
	p.byName, p.unnamed = indexRules(p.commands)
	p.tools = append(user.tools, cat.tools...)
	p.servers = append(user.servers, cat.servers...)
	p.tests = append(user.tests, cat.tests...)
	// Options that take a value are a property of the command, so both
	// lists' options apply to every rule.
	p.valueOpts = cat.valueOpts
	if len(cfg.ValueOptions) > 0 {
		p.valueOpts = make(map[string][]string, len(cat.valueOpts)+len(cfg.ValueOptions))
		for _, m := range []map[string][]string{cat.valueOpts, cfg.ValueOptions} {
			for k, v := range m {
				p.valueOpts[k] = append(p.valueOpts[k], v...)
			}
		}
	}
	for _, m := range []map[string]map[string]string{cat.cfg.SubcommandAliases, cfg.SubcommandAliases} {
		for cmd, list := range m {
			for from, to := range list {
				if p.aliases == nil {
					p.aliases = make(map[string][]subAlias)
				}
				p.aliases[cmd] = append(p.aliases[cmd], subAlias{strings.Fields(from), strings.Fields(to)})
			}
		}
	}
	return p, nil
}

// subAlias is a subcommand alias: words that stand for as many others.
type subAlias struct{ from, to []string }

// compile compiles the rules of one config file.
func compile(cfg *Config, origin string) (*Policy, error) {
	p := &Policy{cfg: cfg, valueOpts: cfg.ValueOptions}
	for i, r := range cfg.Commands {
		c, err := compileCommand(r, origin)
		if err != nil {
			return nil, fmt.Errorf("%s: command rule %d: %w", originName(cfg), i+1, err)
		}
		p.commands = append(p.commands, c)
	}
	for _, r := range cfg.Tools {
		p.tools = append(p.tools, compileTool(r, origin))
	}
	for _, s := range cfg.Servers {
		p.servers = append(p.servers, s.Name)
	}
	for _, t := range cfg.Tests {
		p.tests = append(p.tests, originTest{t, origin})
	}
	return p, nil
}

// compiledCatalog compiles the catalog once per process: its rules do not
// depend on the user's config.
var compiledCatalog = sync.OnceValues(func() (*Policy, error) {
	return compile(catalogConfig(), catalogOrigin)
})

func originName(c *Config) string {
	if c.Path == "" {
		return "config"
	}
	return c.Path
}

// Config returns the configuration the policy was built from.
func (p *Policy) Config() *Config { return p.cfg }

// IsShellTool reports whether a tool runs its "command" input in a shell.
// Claude Code calls it Bash; the other names are other hosts' shell tools.
func IsShellTool(name string) bool {
	switch name {
	case "Bash", "shell", "run_shell_command", "exec_command":
		return true
	}
	return false
}

// Classify judges a tool call: for a shell tool the commands its "command"
// input would run, for any other tool the tool rules.
func (p *Policy) Classify(c Call) Verdict {
	if IsShellTool(c.Tool) {
		cmd, err := shellCommand(c.Input)
		if err != nil {
			return Verdict{Effect: Ask, Rule: "tool " + c.Tool, Reason: "cannot read the command: " + err.Error()}
		}
		return p.ClassifyCommand(cmd)
	}
	return p.classifyTool(c)
}

// shellCommand reads a shell tool's command: a string, or an argv array as
// some hosts send it.
func shellCommand(input json.RawMessage) (string, error) {
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		return "", fmt.Errorf("input is not a JSON object")
	}
	var s string
	if json.Unmarshal(in.Command, &s) == nil {
		return s, nil
	}
	var argv []string
	if json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0 {
		words := make([]string, len(argv))
		for i, a := range argv {
			words[i] = shellQuote(a)
		}
		return strings.Join(words, " "), nil
	}
	return "", fmt.Errorf("no command string in the input")
}

// ClassifyCommand judges a shell command string.
func (p *Policy) ClassifyCommand(cmd string) Verdict {
	f := &fold{p: p}
	shell.Scan(cmd, f.add)
	return f.verdict()
}

func (p *Policy) classifyAnalysis(a *shell.Analysis) Verdict {
	f := &fold{p: p}
	for i := range a.Invocations {
		f.add(shell.Finding{Invocation: &a.Invocations[i]})
	}
	for i := range a.Dynamic {
		f.add(shell.Finding{Dynamic: &a.Dynamic[i]})
	}
	for i := range a.Unparsed {
		f.add(shell.Finding{Unparsed: &a.Unparsed[i]})
	}
	return f.verdict()
}

// judgeInvocation judges an invocation and, for PowerShell, the cmdlets of
// its code.
func (p *Policy) judgeInvocation(inv *shell.Invocation, add func(Match)) {
	s := fromInvocation(inv)
	s.opts = p.valueOpts[s.name]
	s.aliases = p.aliases[s.name]
	m := p.judge(&s)
	m.Kind = KindInvocation
	m.Source = s.text()
	add(m)
	if !isPowerShell(inv.Name) {
		return
	}
	subs, dynamic, ok := cmdletSubjects(inv, s.host, s.remote)
	if !ok {
		return
	}
	for j := range subs {
		m := p.judge(&subs[j])
		m.Kind = KindCmdlet
		m.Source = subs[j].text()
		add(m)
	}
	if dynamic {
		add(p.unknown(KindDynamic, inv.Name+" -Command", "", s.host, s.remote, inv.Via, true))
	}
}

// judgeUnknown judges a dynamic command or an unparsed part.
func (p *Policy) judgeUnknown(f shell.Finding) Match {
	if d := f.Dynamic; d != nil {
		return p.unknown(KindDynamic, d.Source, "", d.Host, d.Host != "" || viaSSH(d.Via), d.Via, false)
	}
	u := f.Unparsed
	if u.Limit {
		return p.pastLimit(u)
	}
	return p.unknown(KindUnparsed, u.Text, u.Err, u.Host, u.Host != "" || viaSSH(u.Via), u.Via, false)
}

// text shows the subject as a command line a person can read back: static
// words are quoted where the shell would need it, dynamic words are shown as
// their source.
func (s *subject) text() string {
	var b strings.Builder
	b.WriteString(s.name)
	for i, a := range s.args {
		b.WriteByte(' ')
		if s.dynamic(i) || s.ps {
			b.WriteString(a)
		} else {
			b.WriteString(shellQuote(a))
		}
	}
	return b.String()
}

// judge finds the first rule that matches s.
func (p *Policy) judge(s *subject) Match {
	m := Match{Via: s.via, Payload: s.payload}
	if s.remote {
		m.Host = s.host
	}
	// could is the first deny or protect rule that matches if a word
	// decided at run time turns out to be the rule's: "govc $OP web-01".
	var could *commandRule
	for _, r := range p.rulesFor(s) {
		// A read-only rule does not cover a command that writes a file
		// on a remote host: "cat > /etc/app.conf" changes the host.
		if s.remote && len(s.writes) > 0 && r.src.Effect == None {
			continue
		}
		rest, ok := r.match(s, false)
		if !ok {
			if could == nil && s.dyn != nil && r.src.Effect >= Protect {
				if _, ok := r.match(s, true); ok {
					could = r
				}
			}
			continue
		}
		targets, unknown := r.extract(s, rest)
		if r.src.RequireTarget && len(targets) == 0 && !unknown {
			continue
		}
		m.Effect, m.Rule, m.Reason, m.Targets = r.src.Effect, r.label, r.src.Reason, targets
		if m.Effect == Protect {
			switch {
			case unknown:
				m.Effect, m.Reason = Ask, "a target of the rule is decided at run time"
			case len(targets) == 0:
				m.Effect, m.Reason = Ask, "the rule found no target in the call"
			}
		}
		if could != nil && m.Effect < Ask {
			return couldMatch(m, could)
		}
		return m
	}
	if could != nil {
		return couldMatch(m, could)
	}
	return m
}

// couldMatch asks about a command that an earlier deny or protect rule
// would have judged had a word decided at run time been the rule's.
func couldMatch(m Match, r *commandRule) Match {
	m.Effect, m.Rule, m.Targets = Ask, r.label, nil
	m.Reason = "a word of the command is decided at run time, and this rule applies if it is the rule's"
	return m
}

// unknown judges a command the analysis could not resolve: a name decided
// at run time (dynamic) or text it could not parse. A rule that matches
// every command at that place (the remote catch-all) applies to it as to
// any command. Otherwise a dynamic name could be any command, so it gets
// ask when some deny or protect rule applies there; unparsed text gets ask
// only when one of its words is the command a deny or protect rule names.
func (p *Policy) unknown(kind Kind, source, parseErr, host string, remote bool, via []string, psDynamic bool) Match {
	m := Match{Kind: kind, Source: source, Via: via}
	if remote {
		m.Host = host
	}
	s := subject{host: host, remote: remote}
	for _, r := range p.commands {
		if !r.catchAll() || !r.at(remote) || psDynamic {
			continue
		}
		targets, _ := r.extract(&s, nil)
		m.Effect, m.Rule, m.Targets = r.src.Effect, r.label, targets
		m.Reason = fmt.Sprintf("%s; %s", unknownWhat(kind, source, parseErr), r.src.Reason)
		if m.Effect == Protect && len(targets) == 0 {
			m.Effect = Ask
			m.Reason = unknownWhat(kind, source, parseErr) + ", and the rule found no target in the call"
		}
		return m
	}
	var words *wordSet
	if kind == KindUnparsed {
		words = newWordSet(source)
	}
	for _, r := range p.commands {
		if r.src.Effect != Deny && r.src.Effect != Protect || !r.at(remote) {
			continue
		}
		if kind == KindDynamic {
			m.Effect, m.Rule = Ask, r.label
			m.Reason = unknownWhat(kind, source, parseErr) + ", and a deny or protect rule could match it"
			return m
		}
		if w, ok := words.names(r); ok {
			m.Effect, m.Rule = Ask, r.label
			m.Reason = fmt.Sprintf("%s, and %q in it could be the command this rule names", unknownWhat(kind, source, parseErr), w)
			return m
		}
	}
	return m
}

func unknownWhat(kind Kind, source, parseErr string) string {
	if kind == KindDynamic {
		return fmt.Sprintf("the command %q is decided at run time", source)
	}
	if parseErr != "" {
		return fmt.Sprintf("part of the command could not be parsed (%s)", parseErr)
	}
	return "part of the command could not be parsed"
}

// combine makes one verdict of the matches of a call: the most severe
// effect decides, and the targets of every match that needs a checkpoint
// or worse are merged.
func combine(matches []Match) Verdict {
	v := Verdict{Matches: matches}
	decided := -1
	for i, m := range matches {
		if m.Effect > v.Effect || decided < 0 && m.Rule != "" {
			v.Effect = m.Effect
			decided = i
		}
		if m.Effect >= Protect {
			v.Targets = append(v.Targets, m.Targets...)
		}
	}
	v.Targets = uniq(v.Targets)
	if decided >= 0 {
		v.Rule, v.Reason = matches[decided].Rule, matches[decided].Reason
	}
	return v
}

func (p *Policy) classifyTool(c Call) Verdict {
	in := decodeToolInput(c.Input, c.Cwd)
	m := Match{Kind: KindTool, Source: c.Tool}
	snake := snakeCase(c.Tool)
	for _, t := range p.tools {
		if !t.match(c.Tool, snake, &in) {
			continue
		}
		targets := t.targets(&in)
		if t.src.RequireTarget && len(targets) == 0 {
			continue
		}
		m.Effect, m.Rule, m.Reason, m.Targets = t.src.Effect, t.label, t.src.Reason, targets
		if m.Effect == Protect && len(targets) == 0 {
			m.Effect, m.Reason = Ask, "the rule found no target in the call"
		}
		return combine([]Match{m})
	}
	if server, ok := mcpServer(c.Tool); ok {
		for _, s := range p.servers {
			if s == server {
				m.Effect, m.Rule = Ask, "server "+server
				m.Reason = "a tool in a guarded server that no rule lists"
				break
			}
		}
	}
	return combine([]Match{m})
}
