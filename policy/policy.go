package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/internal/jsonscan"
	"github.com/rewind-dev/rewind/powershell"
	"github.com/rewind-dev/rewind/shell"
)

// Policy judges calls by the user's rules and then the built-in catalog.
// It is safe for concurrent use.
type Policy struct {
	cfg *Config
	// commands are the command rules in order: the config's, then the
	// catalog's of the families it has not turned off.
	commands []*commandRule
	// index looks up the policy's own rules (see rulesFor); nil tries
	// them all. catalog, when set, is the compiled catalog, whose rules
	// follow the policy's own and are looked up in its index.
	index   *ruleIndex
	catalog *Policy
	tools   []*toolRule
	servers []string
	tests   []testSet
	// valueOpts are the options that take a separate value, per command.
	valueOpts table[[]string]
	// aliases are the subcommand aliases, per command.
	aliases table[[]subAlias]
	// writes are the rules with writes, judged in a pass of their own.
	writes []*writeRule
	// home expands ~ and $HOME in the files a command writes.
	home string
	// tighten are the policies of Config.Tighten: each judges a call
	// too, and its verdict counts only where it is stricter.
	tighten []*Policy
	// tightens marks such a policy: it turns no catalog family off. base
	// is the policy it tightens.
	tightens bool
	base     *Policy

	// ownGlobs and mcp are built on first use (see ownFiles and words):
	// a call that writes no file, or calls no MCP tool, never reads them.
	ownOnce, mcpOnce sync.Once
	ownGlobs         []string
	mcp              *mcpWords
}

// testSet is the [[test]] cases of one config file, kept as the file has
// them: only SelfTest reads them, and the hook builds a policy per call.
type testSet struct {
	cases  []TestCase
	origin string
}

type originTest struct {
	TestCase
	origin string
}

// Origins of rules, as shown in Verdict.Rule and Rules.
const catalogOrigin = "catalog"

// ambiguousRule names the built-in check that asks about an ambiguous tool
// input.
const ambiguousRule = "catalog:ambiguous input"

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
	user, err := compile(cfg, "")
	if err != nil {
		return nil, err
	}
	p := &Policy{cfg: cfg, catalog: cat, index: indexRules(user.commands)}
	p.commands = withCatalog(p, user.commands, cat.commands)
	p.tools = withCatalog(p, user.tools, cat.tools)
	p.servers = append(user.servers, cat.servers...)
	p.tests = user.tests // the catalog's are catalogTestCases'
	p.writes = append(user.writes, cat.writes...)
	p.home = cfg.Home
	// Options that take a value are a property of the command, so both
	// lists' options apply to every rule.
	p.valueOpts = appendTable(cat.valueOpts, cfg.ValueOptions)
	p.aliases = appendTable(cat.aliases, subAliases(cfg.SubcommandAliases))
	for _, tc := range cfg.Tighten {
		t, err := p.compileTighten(tc)
		if err != nil {
			return nil, err
		}
		p.tighten = append(p.tighten, t)
		p.tests = append(p.tests, t.tests...)
	}
	return p, nil
}

// withCatalog returns own followed by the rules of cat whose families p
// has not turned off: cat itself when there is nothing to add or leave out.
func withCatalog[R interface{ family() string }](p *Policy, own, cat []R) []R {
	if len(own) == 0 && len(p.cfg.Catalog.Disable) == 0 {
		return slices.Clip(cat)
	}
	for _, r := range cat {
		if !p.disabled(r.family()) {
			own = append(own, r)
		}
	}
	return own
}

func (c *commandRule) family() string { return c.src.Family }
func (t *toolRule) family() string    { return t.src.Family }

// compileTighten compiles a config whose rules may only make verdicts
// stricter. Its value options and subcommand aliases apply to its own
// rules alone: an untrusted config must not change how the user's and
// the catalog's rules read a command.
func (p *Policy) compileTighten(tc *Config) (*Policy, error) {
	label := filepath.Base(originName(tc))
	t, err := compile(tc, label)
	if err != nil {
		return nil, err
	}
	t.index = indexRules(t.commands)
	t.home, t.tightens, t.base = p.home, true, p
	t.valueOpts = appendTable(p.valueOpts, tc.ValueOptions)
	t.aliases = appendTable(p.aliases, subAliases(tc.SubcommandAliases))
	return t, nil
}

// ownFiles returns rewind's own files and binaries where it runs, as
// globs in lower case (see OwnFilesGlob): a policy of Config.Tighten
// guards those of the policy it tightens.
func (p *Policy) ownFiles() []string {
	if p.base != nil {
		return p.base.ownFiles()
	}
	p.ownOnce.Do(func() { p.ownGlobs = ownGlobsOf(p.cfg) })
	return p.ownGlobs
}

// words returns the words and keys that judge a tool of an MCP server no
// rule lists (see judgeMCP): the catalog's and the config's. A policy of
// Config.Tighten adds its config's to those of the policy it tightens,
// and judges the commands MCP tools run by its own rules.
func (p *Policy) words() *mcpWords {
	p.mcpOnce.Do(func() {
		switch {
		case p.base != nil:
			p.mcp = p.base.words().clone()
		case p.catalog != nil:
			p.mcp = &mcpWords{}
			if !p.disabled(mcpFamily) {
				p.mcp.add(&catalogConfig().MCP)
			}
		default:
			p.mcp = &mcpWords{}
		}
		p.mcp.add(&p.cfg.MCP)
	})
	return p.mcp
}

// writeLabel names a rule with writes: "any command writes", "gh
// writes", "tool Write writes" (a long list of tool names shortened).
func writeLabel(origin, name, kind string) string {
	switch {
	case name == "*" && kind == "command":
		name = "any command"
	case name == "*":
		name = "any tool"
	case kind == "tool":
		if first, _, more := strings.Cut(name, "|"); more {
			name = first + "|..."
		}
		name = "tool " + name
	}
	label := name + " writes"
	if origin != "" {
		label = origin + ":" + label
	}
	return label
}

// subAlias is a subcommand alias: words that stand for as many others.
type subAlias struct{ from, to []string }

// compile compiles the rules of one config file.
func compile(cfg *Config, origin string) (*Policy, error) {
	p := &Policy{cfg: cfg}
	for i := range cfg.Commands {
		r := &cfg.Commands[i]
		c, err := compileCommand(r, origin)
		if err != nil {
			return nil, fmt.Errorf("%s: command rule %d: %w", originName(cfg), i+1, err)
		}
		if len(r.Writes) > 0 {
			c.label = writeLabel(origin, r.Match, "command")
			p.writes = append(p.writes, &writeRule{cmd: c, globs: lowerGlobs(r.Writes), own: slices.Contains(r.Writes, OwnFilesGlob)})
			continue
		}
		p.commands = append(p.commands, c)
	}
	for i := range cfg.Tools {
		r := &cfg.Tools[i]
		t := compileTool(r, origin)
		if len(r.Writes) > 0 {
			t.label = writeLabel(origin, r.Name, "tool")
			p.writes = append(p.writes, &writeRule{tool: t, globs: lowerGlobs(r.Writes), own: slices.Contains(r.Writes, OwnFilesGlob)})
			continue
		}
		p.tools = append(p.tools, t)
	}
	for _, s := range cfg.Servers {
		p.servers = append(p.servers, s.Name)
	}
	if len(cfg.Tests) > 0 {
		p.tests = []testSet{{cfg.Tests, origin}}
	}
	return p, nil
}

// compileCatalog compiles the catalog with its indexes and tables, as
// catalog_gen.go holds it (see compiledCatalog): its rules do not depend
// on the user's config. Its tests are catalogTestCases', which SelfTest
// runs.
func compileCatalog(cfg *Config) (*Policy, error) {
	p, err := compile(cfg, catalogOrigin)
	if err != nil {
		return nil, err
	}
	p.cfg, p.tests = nil, nil
	p.index = indexRules(p.commands)
	p.valueOpts = makeTable(cfg.ValueOptions)
	p.aliases = makeTable(subAliases(cfg.SubcommandAliases))
	return p, nil
}

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
// input would run, for a PowerShell tool the commands of its PowerShell
// code, for any other tool the tool rules. The rules with
// writes judge the files the call writes in a pass of their own, and the
// policies of Config.Tighten judge the call too: the strictest verdict
// wins.
//
// An input that holds a key twice in one object, in any case, is asked:
// the host reads one spelling and a rule could read the other.
func (p *Policy) Classify(c Call) Verdict {
	// Valid input, all a host sends, is read by quick scans (see
	// foldedKeys and shellCommand): an input of megabytes is read a
	// third as often.
	valid := c.InputValid || json.Valid(c.Input)
	if !valid || foldedKeys(c.Input) {
		if what := ambiguousKey(c.Input); what != "" {
			m := Match{Kind: KindTool, Source: c.Tool, Effect: Ask, Rule: ambiguousRule,
				Reason: "the tool input is ambiguous: " + what + ", so the host may run another call than the one judged"}
			return combine([]Match{m})
		}
	}
	if IsShellTool(c.Tool) || IsPowerShellTool(c.Tool) {
		cmd, err := shellCommand(c.Input, valid)
		if err != nil {
			return Verdict{Effect: Ask, Rule: "tool " + c.Tool, Reason: "cannot read the command: " + err.Error()}
		}
		if IsPowerShellTool(c.Tool) {
			return p.classifyPowerShell(cmd, c.Cwd)
		}
		return p.classifyCommand(cmd, c.Cwd)
	}
	in := decodeToolInput(c.Input, c.Cwd)
	v, listed := p.classifyTool(c, &in)
	for _, t := range p.tighten {
		tv, tl := t.classifyTool(c, &in)
		v, listed = stricter(v, tv), listed || tl
	}
	if !listed {
		v = stricter(v, p.unlistedTool(c.Tool))
	}
	return v
}

// stricter combines the verdicts of two policies on one call: the more
// severe effect of each piece wins.
func stricter(v, t Verdict) Verdict {
	matches := append([]Match(nil), v.Matches...)
	for _, m := range t.Matches {
		// A piece no rule of t judged adds nothing to explain, nor one
		// judged alike already (the words of MCP tools, which t shares).
		if m.Rule != "" && !slices.ContainsFunc(v.Matches, func(x Match) bool { return sameMatch(x, m) }) {
			matches = append(matches, m)
		}
	}
	if len(matches) == len(v.Matches) {
		return v
	}
	out := combine(matches)
	out.Invocations = v.Invocations
	return out
}

// sameMatch reports whether two matches judge a piece alike.
func sameMatch(a, b Match) bool {
	return a.Kind == b.Kind && a.Source == b.Source && a.Effect == b.Effect && a.Rule == b.Rule &&
		a.Host == b.Host && slices.Equal(a.Targets, b.Targets)
}

// shellCommand reads a shell tool's command: a string, or an argv array as
// some hosts send it.
//
// The key is read in its exact spelling, as the host reads it: a map, not
// a struct, whose fields encoding/json matches in any case.
//
// When the input is known to be valid JSON, an object's "command" is found
// by jsonscan.Member, which, like the map, takes the last of a key given
// twice, without decoding the rest of the input.
func shellCommand(input json.RawMessage, valid bool) (string, error) {
	var command json.RawMessage
	if t := bytes.TrimLeft(input, " \t\r\n"); valid && len(t) > 0 && t[0] == '{' {
		command, _ = jsonscan.Member(input, "command")
	} else {
		var in map[string]json.RawMessage
		if err := json.Unmarshal(input, &in); err != nil {
			return "", fmt.Errorf("input is not a JSON object")
		}
		command = in["command"]
	}
	if valid && len(command) > 0 && command[0] == '"' {
		// Valid, so String decodes it as json.Unmarshal would, in one pass.
		if s, ok := jsonscan.String(command); ok {
			return s, nil
		}
	}
	var s string
	if json.Unmarshal(command, &s) == nil {
		return s, nil
	}
	var argv []string
	if json.Unmarshal(command, &argv) == nil && len(argv) > 0 {
		words := make([]string, len(argv))
		for i, a := range argv {
			words[i] = shellQuote(a)
		}
		return strings.Join(words, " "), nil
	}
	return "", fmt.Errorf("no command string in the input")
}

// ClassifyCommand judges a shell command string run in no known folder.
func (p *Policy) ClassifyCommand(cmd string) Verdict {
	return p.classifyCommand(cmd, "")
}

// classifyCommand judges a command run in cwd, by this policy and the
// policies of Config.Tighten. The analysis streams: each policy judges its
// findings as they come, keeping only what its verdict needs.
func (p *Policy) classifyCommand(cmd, cwd string) Verdict {
	folds := p.folds(cwd, cmd)
	dots := mentionsGlobDots(cmd)
	for _, f := range folds {
		f.w.globDots = dots
	}
	shell.Scan(cmd, func(x shell.Finding) {
		for _, f := range folds {
			f.add(x)
		}
	})
	return verdictOf(folds)
}

// classifyAnalysis judges a whole analysis of the command cmd, as
// classifyCommand judges the analysis it streams.
func (p *Policy) classifyAnalysis(a *shell.Analysis, cmd, cwd string) Verdict {
	folds := p.folds(cwd, cmd)
	for _, f := range folds {
		for i := range a.Invocations {
			f.add(shell.Finding{Invocation: &a.Invocations[i]})
		}
		for i := range a.Dynamic {
			f.add(shell.Finding{Dynamic: &a.Dynamic[i]})
		}
		for i := range a.Unparsed {
			f.add(shell.Finding{Unparsed: &a.Unparsed[i]})
		}
	}
	return verdictOf(folds)
}

// folds returns the folds of this policy and of the policies of
// Config.Tighten, whose pieces count only where a rule of theirs judged,
// for the code src run in cwd.
func (p *Policy) folds(cwd, src string) []*fold {
	vars := &assignments{src: src}
	folds := []*fold{{p: p, w: walk{dir: cwd, vars: vars}}}
	for _, t := range p.tighten {
		folds = append(folds, &fold{p: t, w: walk{dir: cwd, vars: vars}, ruledOnly: true})
	}
	return folds
}

// judgeInvocation judges an invocation run in w's folder, which it moves on past
// a cd, and the code it runs that the shell analysis leaves to the policy:
// PowerShell code (read by package powershell), and the code
// remote-execution commands hand to other hosts.
func (p *Policy) judgeInvocation(inv *shell.Invocation, w *walk, add func(Match)) {
	s := fromInvocation(inv)
	s.vars = w.vars
	p.judgeSubject(inv, &s, w, 0, add)
}

// judgeUnknown judges a dynamic command or an unparsed part.
func (p *Policy) judgeUnknown(f shell.Finding) Match {
	return p.judgeUnknownAt(f, nil)
}

// judgeUnknownAt judges a dynamic command or an unparsed part of code
// that runs at a place (see judgeCode), or, with at nil, of the command.
func (p *Policy) judgeUnknownAt(f shell.Finding, at *place) Match {
	if d := f.Dynamic; d != nil {
		return p.unknown(KindDynamic, d.Source, "", at.of(d.Host, d.Via), false)
	}
	u := f.Unparsed
	if u.Limit {
		return p.pastLimit(u, at.of(u.Host, u.Via))
	}
	return p.unknown(KindUnparsed, u.Text, u.Err, at.of(u.Host, u.Via), false)
}

// judgeCode judges code that a command hands to a place (see reach), as
// commands running there, in cwd when the place is here.
func (p *Policy) judgeCode(code string, at *place, cwd string, depth int, add func(Match)) {
	w := walk{dir: cwd, globDots: mentionsGlobDots(code), vars: &assignments{src: code}}
	if at != nil {
		w.reads = at.reads
	}
	shell.Scan(code, func(x shell.Finding) {
		if p.skipped(x) {
			return
		}
		if x.Invocation == nil {
			add(p.judgeUnknownAt(x, at))
			return
		}
		s := fromInvocation(x.Invocation)
		s.vars = w.vars
		at.apply(&s)
		p.judgeSubject(x.Invocation, &s, &w, depth, add)
	})
}

// judgeSubject judges the subject s of an invocation, run in w's folder, and
// then the code it runs that the policy reads itself.
func (p *Policy) judgeSubject(inv *shell.Invocation, s *subject, w *walk, depth int, add func(Match)) {
	if isWindowsProgram(s.name) {
		s.name = windowsName(s.name)
	}
	p.asRewind(s, w)
	s.opts, _ = p.valueOpts.get(s.name)
	s.aliases, _ = p.aliases.get(s.name)
	dropReleaseTrack(s)
	var ps *powershell.CommandLine
	if powershell.IsPowerShell(inv.Name) {
		cl := powershell.ReadCommandLine(inv.Name, inv.Args, s.dyn, inv.Payload)
		if cl.HasCode {
			s.analysed, ps = true, &cl
		}
	}
	r, reached := reachOf(s)
	if reached && !p.disabled(r.family) {
		s.reached, s.reach, s.reachUnknown = true, r.hosts, r.unknown
		s.analysed = s.analysed || r.known
	} else {
		reached = false
	}
	m := p.judge(s)
	if s.self != "" && m.Effect >= Ask {
		m.Reason = s.self + "; " + m.Reason
	}
	if !s.remote {
		// The files a command writes are judged from the folder it
		// runs in, which the cd before it decides. Most commands write
		// none, and spare the copy of s that judging writes keeps.
		if writesFiles(s) {
			sw := *s
			m = p.judgeCommandWrites(&sw, m, w)
		}
		if !s.ps {
			if sm, ok := p.judgeSecretReads(s, w.dir); ok && (sm.Effect > m.Effect || m.Rule == "") {
				m.Effect, m.Rule, m.Reason, m.Targets = sm.Effect, sm.Rule, sm.Reason, nil
			}
		}
		w.dir = changeDir(s, w.dir)
	}
	m.Kind = KindInvocation
	m.Source = s.text()
	add(m)
	if ps != nil {
		// The PowerShell code runs where pwsh runs; a Set-Location in it
		// does not move the shell.
		at := place{host: s.host, hosts: s.hosts, remote: s.remote, via: append(s.via[:len(s.via):len(s.via)], ps.Via)}
		if ps.Code != "" {
			d := w.dir
			p.judgePowerShell(ps.Code, at, &d, depth, add)
		}
		if ps.Dynamic {
			add(p.unknown(KindDynamic, ps.Via, "", at, true))
		}
	}
	if reached && r.known {
		p.reachMatches(s, &r, w, depth, add)
	}
	p.windowsReadings(s, inv, w, depth, add)
}

// apply puts a subject the analysis of handed-on code found in the place
// that code runs. A subject that names its own host (ssh inside the code)
// keeps it.
func (at *place) apply(s *subject) {
	if at == nil {
		return
	}
	s.via = append(append([]string(nil), at.via...), s.via...)
	if s.host != "" {
		s.remote = s.remote || at.remote
		return
	}
	s.host, s.hosts, s.remote = at.host, at.hosts, s.remote || at.remote
}

// of returns the place of a dynamic or unparsed piece of the analysis.
func (at *place) of(host string, via []string) place {
	pl := place{host: host, remote: host != "" || viaSSH(via), via: via}
	if at != nil {
		pl.via = append(append([]string(nil), at.via...), via...)
		if host == "" {
			pl.host, pl.hosts, pl.remote = at.host, at.hosts, pl.remote || at.remote
		}
	}
	return pl
}

// text shows the subject as a command line a person can read back: static
// words are quoted where the shell would need it, dynamic words are shown as
// their source, each cut to maxShownWord bytes.
func (s *subject) text() string {
	var b strings.Builder
	b.WriteString(s.name)
	for i, a := range s.args {
		b.WriteByte(' ')
		a = clipWord(a)
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
		m.Host = strings.Join(s.hostList(), ",")
	}
	// could is the first deny or protect rule that matches if a word
	// decided at run time turns out to be the rule's: "govc $OP web-01".
	var could *commandRule
	for r := range p.rulesFor(s) {
		// A read-only rule does not cover a command that writes a file
		// on a remote host: "cat > /etc/app.conf" changes the host.
		if s.remote && len(s.writes) > 0 && r.src.Effect == None {
			continue
		}
		rest, ok := r.match(s, false)
		if !ok {
			if could == nil && s.dyn != nil && r.src.Effect >= Protect {
				// A rule that needs a target applies only where the call
				// has one, or one known only at run time.
				if rest, ok := r.match(s, true); ok {
					if targets, unknown := r.extract(s, rest); !r.src.RequireTarget || len(targets) > 0 || unknown {
						could = r
					}
				}
			}
			continue
		}
		targets, unknown := r.extract(s, rest)
		if s.ps {
			targets, unknown = psPatterns(targets, unknown)
		}
		if r.src.RequireTarget && len(targets) == 0 && !unknown {
			continue
		}
		m.Effect, m.Rule, m.Reason, m.Targets = r.src.Effect, r.label, r.src.Reason, targets
		if m.Effect == Protect {
			switch {
			case unknown && s.remote && runTimeHost(s.host):
				m.Effect, m.Reason = Ask, runTimeHostReason(s.host)
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
// ask when some deny, ask or protect rule applies there; unparsed text gets
// ask only when one of its words is the command such a rule names.
func (p *Policy) unknown(kind Kind, source, parseErr string, at place, psDynamic bool) Match {
	remote := at.remote
	m := Match{Kind: kind, Source: source, Via: at.via}
	s := subject{host: at.host, hosts: at.hosts, remote: remote}
	if remote {
		m.Host = strings.Join(s.hostList(), ",")
	}
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
			if remote && runTimeHost(at.host) {
				m.Reason = unknownWhat(kind, source, parseErr) + ", and " + runTimeHostReason(at.host)
			}
		}
		return m
	}
	var words *wordSet
	if kind == KindUnparsed {
		words = newWordSet(source)
	}
	for _, r := range p.commands {
		if r.src.Effect == None || !r.at(remote) {
			continue
		}
		if kind == KindDynamic {
			m.Effect, m.Rule = Ask, r.label
			m.Reason = unknownWhat(kind, source, parseErr) + ", and a deny, ask or protect rule could match it"
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

// classifyTool judges a tool call by the tool rules, else, for an MCP
// tool, by its words (see judgeMCP), and the files it writes by the rules
// with writes. listed reports whether a tool rule matched or the words
// judged the tool, which keeps a guarded server's "ask" for its unlisted
// tools away (see unlistedTool).
func (p *Policy) classifyTool(c Call, in *toolInput) (v Verdict, listed bool) {
	m := Match{Kind: KindTool, Source: c.Tool}
	snake := snakeCase(c.Tool)
	for _, t := range p.tools {
		if !t.match(c.Tool, snake, in) {
			continue
		}
		targets := t.targets(in)
		if t.src.RequireTarget && len(targets) == 0 {
			continue
		}
		m.Effect, m.Rule, m.Reason, m.Targets = t.src.Effect, t.label, t.src.Reason, targets
		if m.Effect == Protect && len(targets) == 0 {
			m.Effect, m.Reason = Ask, "the rule found no target in the call"
		}
		listed = true
		break
	}
	matches := []Match{m}
	if !listed {
		// The words may judge a command of millions of lines: folded as
		// they come, their matches cost memory in their targets.
		var words section
		if p.judgeMCP(c, in, 0, words.add) {
			matches, listed = words.folded(), true
		}
	}
	if sm, ok := p.toolReadsSecret(c.Tool, in, c.Cwd); ok {
		sm.Kind, sm.Source = KindTool, c.Tool
		matches = append(matches, sm)
	}
	if gm, ok := p.judgeGitTool(c, in); ok {
		matches = append(matches, gm)
	}
	applies := func(r *writeRule) bool { return r.tool != nil && r.tool.match(c.Tool, snake, in) }
	files := toolWrites(c.Tool, in)
	if len(files) > maxToolFiles {
		for _, r := range p.writes {
			if applies(r) && r.effect() > None {
				matches = append(matches, Match{Kind: KindTool, Source: c.Tool, Effect: r.effect(), Rule: r.label(),
					Reason: fmt.Sprintf("the call writes %d files, more than rewind checks (%d): %s", len(files), maxToolFiles, r.reason())})
				break
			}
		}
		files = files[:maxToolFiles]
	}
	wm, ok := p.judgeWrites(p.writes, writtenNames(files), c.Cwd, applies, nil)
	if ok {
		// A rule on the files written does not list the tool: a guarded
		// server still asks about it.
		wm.Kind, wm.Source = KindTool, c.Tool
		matches = append(matches, wm)
	}
	return combine(matches), listed
}

// unlistedTool asks about a tool of a guarded server that no rule lists.
func (p *Policy) unlistedTool(tool string) Verdict {
	m := Match{Kind: KindTool, Source: tool}
	if server, ok := mcpServer(tool); ok {
		servers := [][]string{p.servers}
		for _, t := range p.tighten {
			servers = append(servers, t.servers)
		}
		for _, list := range servers {
			if slices.Contains(list, server) {
				m.Effect, m.Rule = Ask, "server "+server
				m.Reason = "a tool in a guarded server that no rule lists"
				break
			}
		}
	}
	return combine([]Match{m})
}

// namesCmdlet reports whether a pattern that names cmdlets matches name;
// "*", which matches every cmdlet, names none.
func namesCmdlet(patterns []string, name string) bool {
	for _, p := range patterns {
		if p != "*" && glob(p, name) {
			return true
		}
	}
	return false
}
