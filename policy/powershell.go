package policy

import (
	"fmt"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/powershell"
	"github.com/rewind-dev/rewind/shell"
)

// PowerShell code — given to pwsh -Command, run by the host's PowerShell
// tool, or handed to a Windows host — is read by package powershell; the
// policy judges what it reports. A cmdlet is matched against the cmdlet
// rules. A program it runs (ssh, govc, cmd, a script) is a command like
// any other: its arguments, as PowerShell hands them to it, make a
// command line that the shell analysis reads, so that the same rules,
// deny rules and readers of remote code judge it. Code PowerShell decides
// at run time is asked; code past a limit of the reader is asked.

// IsPowerShellTool reports whether a tool runs its "command" input as
// PowerShell code: Claude Code's PowerShell tool on Windows, GitHub
// Copilot's powershell.
func IsPowerShellTool(name string) bool {
	switch name {
	case "PowerShell", "powershell":
		return true
	}
	return false
}

// classifyPowerShell judges PowerShell code run in cwd, by this policy
// and the policies of Config.Tighten.
func (p *Policy) classifyPowerShell(code, cwd string) Verdict {
	folds := p.folds(cwd, "")
	for _, f := range folds {
		dir := cwd
		f.p.judgePowerShell(code, place{}, &dir, 0, f.section(0).add)
	}
	return verdictOf(folds)
}

// judgePowerShell judges PowerShell code that runs at a place, in *dir,
// which a Set-Location in it moves on.
func (p *Policy) judgePowerShell(code string, at place, dir *string, depth int, add func(Match)) {
	if depth >= maxReachDepth {
		add(p.pastLimit(&shell.Unparsed{Text: code, Err: "code handed on more than " + itoa(maxReachDepth) + " levels deep", Limit: true}, at))
		return
	}
	nb := nativeBatch{p: p, depth: depth, add: add}
	pipes := make(pipes)
	w := &walk{dir: *dir, globDots: true}
	powershell.Scan(code, func(f powershell.Finding) {
		switch {
		case f.Command != nil:
			in := pipes.note(f.Command)
			pl := at.join(f.Command.Place)
			if p.skipPlace(f.Command.Place) {
				return
			}
			if f.Command.Native {
				nb.addCommand(f.Command, pl, *dir)
				if len(f.Command.Writes) > 0 && !pl.remote {
					// A program's output redirected by PowerShell:
					// PowerShell writes the file.
					s := psSubject(f.Command, pl, nil)
					w.dir = *dir
					m := p.psWrites(&s, f.Command, Match{Via: pl.via}, w)
					m.Kind, m.Source = KindCmdlet, s.text()
					add(m)
				}
				return
			}
			if d, ok := psChangeDir(f.Command, *dir); ok {
				nb.flush()
				*dir = d
			}
			w.dir = *dir
			add(p.judgeCmdlet(f.Command, pl, w, in))
		case f.Code != nil:
			if p.skipPlace(f.Code.Place) {
				return
			}
			nb.flush()
			pl := at.join(f.Code.Place)
			p.judgeCode(f.Code.Text, &pl, *dir, depth+1, add)
		case f.Dynamic != nil:
			if p.skipPlace(f.Dynamic.Place) {
				return
			}
			add(p.unknown(KindDynamic, f.Dynamic.Source, "", at.join(f.Dynamic.Place), true))
		case f.Unparsed != nil:
			u := f.Unparsed
			pl := at.join(u.Place)
			if u.Limit {
				add(p.pastLimit(&shell.Unparsed{Text: u.Text, Err: u.Err, Limit: true}, pl))
				return
			}
			add(p.unknown(KindUnparsed, u.Text, u.Err, pl, false))
		}
	})
	nb.flush()
}

// skipPlace reports whether code reached a place through a family that is
// turned off: with winrm disabled, what Invoke-Command runs on other
// computers is not judged; with powercli disabled, Invoke-VMScript's guest
// code is not.
func (p *Policy) skipPlace(pl powershell.Place) bool {
	for _, v := range pl.Via {
		switch {
		case strings.HasPrefix(v, "Invoke-Command ") && p.disabled("winrm"):
			return true
		case strings.HasPrefix(v, "Invoke-VMScript ") && p.disabled("powercli"):
			return true
		}
	}
	return false
}

// join puts a place the PowerShell reader reports, relative to the code,
// where the code runs.
func (at place) join(pp powershell.Place) place {
	pl := place{host: at.host, hosts: at.hosts, remote: at.remote, reads: at.reads}
	pl.via = append(append([]string(nil), at.via...), pp.Via...)
	if pp.Remote {
		pl.remote, pl.hosts, pl.host = true, pp.Hosts, ""
		if len(pp.Hosts) > 0 {
			pl.host = pp.Hosts[0]
		}
	}
	return pl
}

// judgeCmdlet judges a cmdlet or function at its place: the cmdlet rules,
// and, where it runs here, the files it writes.
func (p *Policy) judgeCmdlet(c *powershell.Command, at place, w *walk, in *piped) Match {
	s := psSubject(c, at, in)
	m := p.judge(&s)
	if !s.remote {
		m = p.psWrites(&s, c, m, w)
		if sm, ok := p.psSecretReads(c, w.dir); ok && (sm.Effect > m.Effect || m.Rule == "") {
			m.Effect, m.Rule, m.Reason, m.Targets = sm.Effect, sm.Rule, sm.Reason, nil
		}
	}
	m.Kind = KindCmdlet
	m.Source = s.text()
	return m
}

// psWrites is the pass of the rules with writes over the files a command
// PowerShell runs here writes; the rule that matches decides when it is
// stricter than m.
func (p *Policy) psWrites(s *subject, c *powershell.Command, m Match, w *walk) Match {
	dir := w.dir
	files := writtenNames(psWrittenFiles(c, p))
	trees, unknown := psTrees(c)
	if unknown != "" {
		m.Effect, m.Rule, m.Targets = max(m.Effect, Ask), "catalog:writes from the pipeline", nil
		m.Reason = c.Name + " " + unknown + ": they may be rewind's own files"
		return m
	}
	for _, t := range trees {
		if t.kind == treeRemove {
			// The item itself goes, a file as much as a folder.
			files = append(files, written{name: t.root})
		}
		roots := []string{t.root}
		if hasGlob(t.root) {
			matches, ok := p.expand(t.root, w)
			if !ok {
				m.Effect, m.Rule, m.Targets = max(m.Effect, Ask), "catalog:writes past a limit", nil
				m.Reason = fmt.Sprintf("%s, past the %d names and %d folder entries rewind looks into for one call: it may hold rewind's own files", t.via, maxGlobMatches, maxGlobDirents)
				return m
			}
			roots = matches
		}
		for _, r := range roots {
			mt := t
			mt.root = r
			c, ok := w.cover(p, mt)
			if !ok {
				m.Effect, m.Rule, m.Targets = max(m.Effect, Ask), "catalog:writes past a limit", nil
				m.Reason = fmt.Sprintf("%s, past the %d folders rewind looks into for one call: it may hold rewind's own files", t.via, maxTreeProbes)
				return m
			}
			files = append(files, c...)
		}
	}
	if len(files) == 0 {
		return m
	}
	wm, ok := p.judgeWrites(p.writes, files, dir, func(r *writeRule) bool {
		if r.cmd == nil {
			return false
		}
		if len(r.cmd.words) == 1 && r.cmd.words[0] == "*" && len(r.cmd.cmdlets) == 0 {
			return true // a rule on what any command writes
		}
		_, ok := r.cmd.match(s, false)
		return ok
	}, nil)
	if ok && (wm.Effect > m.Effect || m.Rule == "") {
		m.Effect, m.Rule, m.Reason, m.Targets = wm.Effect, wm.Rule, wm.Reason, nil
	}
	return m
}

// psSubject makes a subject of a cmdlet. A cmdlet that takes its objects
// from the pipeline gets what comes down to it (see pipes): the VMs
// (Get-VM web-01 | Stop-VM gets -VM web-01) and the computers
// (Get-CimInstance -ComputerName web-01 ... | Invoke-CimMethod gets
// -ComputerName web-01), so that rules find them where they look.
func psSubject(c *powershell.Command, at place, in *piped) subject {
	s := subject{name: moduleCmdlet(c.Name), ps: true, host: at.host, hosts: at.hosts, remote: at.remote,
		via: at.via, analysed: c.Analysed, writes: c.Writes}
	s.args = make([]string, 0, len(c.Args))
	s.dyn = make([]bool, 0, len(c.Args))
	for _, a := range c.Args {
		if name, val, ok := strings.Cut(a.Text, ":"); ok && a.Kind == powershell.Param && val != "" {
			// -Switch:$true is -Switch, -Switch:$false leaves it off;
			// -Name:$vm is -Name and a value known only at run time.
			switch strings.ToLower(val) {
			case "$false", "0":
			case "$true", "1":
				s.args, s.dyn = append(s.args, name), append(s.dyn, false)
			default:
				s.args, s.dyn = append(s.args, name, val), append(s.dyn, false, a.Dynamic)
			}
			continue
		}
		s.args = append(s.args, a.Text)
		s.dyn = append(s.dyn, a.Dynamic)
	}
	if in == nil {
		return s
	}
	carry := func(param string, vals []powershell.Arg) {
		for _, v := range vals {
			s.args = append(s.args, param, v.Text)
			s.dyn = append(s.dyn, false, v.Dynamic || v.Kind != powershell.Word)
		}
	}
	if !psHasParam(c, "VM", "VMName") {
		carry("-VM", in.vms)
	}
	if !psHasParam(c, "ComputerName", "Cn", "CimSession", "Session") && !psReadVerb(c.Name) {
		for i, name := range [...]string{"-ComputerName", "-CimSession", "-Session"} {
			carry(name, in.computers[i])
		}
	}
	return s
}

// moduleCmdlet returns the cmdlet that name, a module's alias, stands
// for, or name. Az.Accounts exports Invoke-AzRest for Invoke-AzRestMethod,
// and its Enable-AzureRmAlias names every Az cmdlet as the AzureRM modules
// did, Verb-AzureRmNoun for Verb-AzNoun (which the AzureRM modules
// themselves still are): the rules name the Az cmdlets.
func moduleCmdlet(name string) string {
	verb, noun, ok := strings.Cut(name, "-")
	switch {
	case !ok:
		return name
	case strings.EqualFold(name, "Invoke-AzRest"):
		return "Invoke-AzRestMethod"
	case len(noun) > len("AzureRm") && strings.EqualFold(noun[:len("AzureRm")], "AzureRm"):
		return verb + "-Az" + noun[len("AzureRm"):]
	}
	return name
}

// piped is what comes down a pipeline to a command: the VMs and the
// computers the commands before it name.
type piped struct {
	vms       []powershell.Arg
	computers [3][]powershell.Arg // -ComputerName, -CimSession, -Session
}

// pipes holds what each command of PowerShell code passes down its
// pipeline, worked out once per command as the reader reports them: a
// pipeline of thousands of stages costs a look at each, not at all the
// stages before each.
type pipes map[*powershell.Command]*piped

// note records what c passes on, and returns what comes down to it.
// Filters (Where-Object...) pass on what comes to them; Get- cmdlets
// that name no VM pass on the VMs (Get-VM web-01 | Get-HardDisk |
// Set-HardDisk: the disks are web-01's).
func (ps pipes) note(c *powershell.Command) *piped {
	var in *piped
	switch {
	case c.Input == nil:
	case c.Input.From != nil:
		in = ps[c.Input.From]
	case len(c.Input.Values) > 0:
		in = &piped{}
		for _, v := range c.Input.Values {
			in.vms = append(in.vms, powershell.Arg{Text: v})
		}
	}
	out := &piped{}
	name := strings.ToLower(c.Name)
	filter := psFilters()[name]
	if vms, _ := c.NamedVMs(); len(vms) > 0 {
		out.vms = vms
	} else if (filter || strings.HasPrefix(name, "get-")) && in != nil {
		out.vms = in.vms
	}
	for i, n := range [...]string{"ComputerName", "CimSession", "Session"} {
		if v, ok := c.Named(psComputerValueParams, n); ok {
			out.computers[i] = []powershell.Arg{v}
		} else if filter && in != nil {
			out.computers[i] = in.computers[i]
		}
	}
	ps[c] = out
	return in
}

// psReadVerb reports whether a cmdlet's verb says it reads or passes on
// what it gets (Out-File writes here the objects of another computer)
// rather than act on the objects themselves.
func psReadVerb(name string) bool {
	verb, _, _ := strings.Cut(strings.ToLower(name), "-")
	switch verb {
	case "get", "select", "where", "foreach", "sort", "format", "out", "export", "convertto", "convertfrom",
		"measure", "group", "tee", "write", "compare", "test", "show", "find", "search", "read", "resolve",
		"join", "split", "receive", "wait", "import", "add":
		return true
	}
	return false
}

// psPatterns reads the targets of a cmdlet: a name with a wildcard
// (web-*) stands for the VMs it matches when it runs, known only then.
func psPatterns(targets []string, unknown bool) ([]string, bool) {
	out := targets[:0]
	for _, t := range targets {
		if strings.ContainsAny(t, "*?[") {
			unknown = true
			continue
		}
		out = append(out, t)
	}
	return out, unknown
}

// psFilters pass on some of the objects they get, as they are.
var psFilters = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"where-object": true, "sort-object": true, "select-object": true, "tee-object": true, "get-unique": true}
})

// psComputerValueParams are parameters that take a value, for finding
// -ComputerName among a command's arguments.
var psComputerValueParams = []string{"ComputerName", "Cn", "CimSession", "Session", "ClassName", "Class",
	"Namespace", "Filter", "Query", "Credential", "Name", "VM", "VMName", "Property", "MethodName",
	"Arguments", "ArgumentList", "Path", "InputObject"}

// psHasParam reports whether c is given one of the parameters names.
func psHasParam(c *powershell.Command, names ...string) bool {
	for _, a := range c.Args {
		if a.Kind != powershell.Param {
			continue
		}
		for _, n := range names {
			if powershell.ParamMatches(a.Text, n) {
				return true
			}
		}
	}
	return false
}

// psWrite says where a cmdlet's parameters name the files it writes.
type psWrite struct {
	// named are the parameters that name files written; positions the
	// positional arguments that do (from 0).
	named     []string
	positions []int
	// values are the cmdlet's parameters that take a value.
	values []string
	// into is set for a destination that may be a folder: the sources
	// land in it under their own names (Copy-Item, Move-Item).
	into bool
	// moves is set when the sources are written too: Move-Item.
	moves bool
}

// psWrites are the cmdlets known to write the files they name, by lower
// case name.
var psWrites = sync.OnceValue(func() map[string]psWrite {
	return map[string]psWrite{
		"set-content":        {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Value", "Encoding", "Filter", "Include", "Exclude", "Credential", "Stream", "Delimiter"}},
		"add-content":        {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Value", "Encoding", "Filter", "Include", "Exclude", "Credential", "Stream"}},
		"clear-content":      {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Filter", "Include", "Exclude", "Credential", "Stream"}},
		"out-file":           {named: []string{"FilePath", "Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"FilePath", "LiteralPath", "Encoding", "Width", "InputObject"}},
		"tee-object":         {named: []string{"FilePath", "Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"FilePath", "LiteralPath", "Variable", "Encoding", "InputObject"}},
		"export-csv":         {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Delimiter", "Encoding", "InputObject", "UseQuotes", "QuoteFields"}},
		"export-clixml":      {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Depth", "Encoding", "InputObject"}},
		"export-alias":       {named: []string{"Path", "LiteralPath"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Name", "As", "Description", "Scope"}},
		"new-item":           {named: []string{"Path", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "Name", "ItemType", "Type", "Value", "Target", "Credential"}},
		"mkdir":              {named: []string{"Path", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "Name", "Credential"}},
		"remove-item":        {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Filter", "Include", "Exclude", "Credential", "Stream"}},
		"clear-item":         {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Filter", "Include", "Exclude", "Credential"}},
		"set-item":           {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Value", "Filter", "Include", "Exclude", "Credential"}},
		"set-acl":            {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "AclObject", "SecurityDescriptor", "Filter", "Include", "Exclude", "InputObject"}},
		"set-itemproperty":   {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "Name", "Value", "Type", "Filter", "Include", "Exclude", "Credential", "InputObject"}},
		"move-item":          {named: []string{"Path", "LiteralPath", "PSPath", "LP", "Destination"}, positions: []int{0, 1}, values: []string{"Path", "LiteralPath", "Destination", "Filter", "Include", "Exclude", "Credential"}, into: true, moves: true},
		"copy-item":          {named: []string{"Destination"}, positions: []int{1}, values: []string{"Path", "LiteralPath", "Destination", "Filter", "Include", "Exclude", "Credential", "ToSession", "FromSession"}, into: true},
		"rename-item":        {named: []string{"Path", "LiteralPath", "PSPath", "LP"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "NewName", "Credential"}},
		"start-transcript":   {named: []string{"Path", "LiteralPath", "OutputDirectory"}, positions: []int{0}, values: []string{"Path", "LiteralPath", "OutputDirectory"}},
		"expand-archive":     {named: []string{"DestinationPath"}, positions: []int{1}, values: []string{"Path", "LiteralPath", "DestinationPath"}},
		"compress-archive":   {named: []string{"DestinationPath"}, positions: []int{1}, values: []string{"Path", "LiteralPath", "DestinationPath", "CompressionLevel"}},
		"invoke-webrequest":  {named: []string{"OutFile"}, values: []string{"Uri", "OutFile", "Method", "Body", "Headers", "ContentType", "UserAgent", "Credential", "InFile", "Proxy", "WebSession", "SessionVariable", "TimeoutSec", "MaximumRedirection"}},
		"invoke-restmethod":  {named: []string{"OutFile"}, values: []string{"Uri", "OutFile", "Method", "Body", "Headers", "ContentType", "UserAgent", "Credential", "InFile", "Proxy", "WebSession", "SessionVariable", "TimeoutSec", "MaximumRedirection"}},
		"start-bitstransfer": {named: []string{"Destination"}, positions: []int{1}, values: []string{"Source", "Destination", "Credential", "DisplayName", "Priority", "TransferType"}},
	}
})

// psWrittenFiles returns the files a cmdlet writes: its redirections and
// the paths a cmdlet known to write files names. Windows paths are read
// with / for \, a provider prefix (FileSystem::) dropped, and a path with
// wildcards stands for each guarded file it could match.
func psWrittenFiles(c *powershell.Command, p *Policy) []string {
	var files []string
	for _, w := range c.Writes {
		files = append(files, psPath(w))
	}
	name := strings.ToLower(c.Name)
	spec, ok := psWrites()[name]
	if !ok {
		return files
	}
	var named []powershell.Arg
	literal := false
	for _, n := range spec.named {
		if a, ok := c.Named(spec.values, n); ok {
			named = append(named, a)
			literal = literal || strings.EqualFold(n, "LiteralPath")
		}
	}
	pos := c.Positional(spec.values)
	var paths []string
	add := func(a powershell.Arg) {
		for _, e := range a.Elems() {
			paths = append(paths, psPath(e))
		}
	}
	switch {
	case spec.into:
		// The destination, and what lands in it.
		dest, ok := c.Named(spec.values, "Destination")
		if !ok && len(pos) > 1 {
			dest, ok = pos[1], true
		}
		var sources []powershell.Arg
		for _, n := range []string{"Path", "LiteralPath"} {
			if a, ok := c.Named(spec.values, n); ok {
				sources = append(sources, a)
			}
		}
		if len(sources) == 0 && len(pos) > 0 {
			sources = pos[:1]
		}
		if ok {
			d := psPath(dest.Text)
			paths = append(paths, d)
			for _, src := range sources {
				for _, e := range src.Elems() {
					paths = append(paths, path.Join(d, path.Base(psPath(e))))
				}
			}
		}
		if spec.moves {
			for _, src := range sources {
				add(src)
			}
		}
	default:
		for _, a := range named {
			add(a)
		}
		if len(named) == 0 {
			for _, i := range spec.positions {
				if i < len(pos) {
					add(pos[i])
				}
			}
		}
	}
	switch name {
	case "new-item", "mkdir":
		if n, ok := c.Named(spec.values, "Name"); ok && len(paths) > 0 {
			paths = []string{path.Join(paths[0], psPath(n.Text))}
		} else if !ok && len(paths) == 0 && len(pos) > 0 {
			paths = append(paths, psPath(pos[0].Text))
		}
	case "rename-item":
		newName, ok := c.Named(spec.values, "NewName")
		if !ok && len(pos) > 1 {
			newName, ok = pos[1], true
		}
		if ok && len(paths) > 0 {
			paths = append(paths, path.Join(path.Dir(paths[0]), psPath(newName.Text)))
		}
	}
	for _, f := range paths {
		files = append(files, f)
		if !literal {
			files = append(files, p.wildcardWrites(f)...)
		}
	}
	return files
}

// psReaders are the cmdlets that read the files they are given, where
// their paths are (named, and the position of the first), and whether they
// read folders whole (with -Recurse for Copy-Item).
type psReadersEntry struct {
	position int
	whole    bool
	values   []string
}

var psReaders = sync.OnceValue(func() map[string]psReadersEntry {
	return map[string]psReadersEntry{
		"get-content":      {0, false, []string{"Path", "LiteralPath", "TotalCount", "Tail", "Head", "First", "Last", "ReadCount", "Encoding", "Delimiter", "Filter", "Include", "Exclude", "Credential", "Stream"}},
		"select-string":    {1, false, []string{"Pattern", "Path", "LiteralPath", "Include", "Exclude", "Encoding", "Context", "Culture", "InputObject"}},
		"copy-item":        {0, false, []string{"Path", "LiteralPath", "Destination", "Filter", "Include", "Exclude", "Credential", "ToSession", "FromSession"}},
		"import-csv":       {0, false, []string{"Path", "LiteralPath", "Delimiter", "Encoding", "Header", "Culture"}},
		"import-clixml":    {0, false, []string{"Path", "LiteralPath", "First", "Skip"}},
		"format-hex":       {0, false, []string{"Path", "LiteralPath", "Encoding", "Count", "Offset", "InputObject"}},
		"compress-archive": {0, true, []string{"Path", "LiteralPath", "DestinationPath", "CompressionLevel"}},
	}
})

// psSecretReads asks about a cmdlet that reads rewind's secret files:
// Get-Content (gc, cat, type), Select-String, Copy-Item, Import-Csv and
// the like given a path in them, Compress-Archive or Copy-Item -Recurse
// given a folder above them, and a web request that sends one (-InFile).
func (p *Policy) psSecretReads(c *powershell.Command, dir string) (Match, bool) {
	if len(p.cfg.SecretFiles) == 0 {
		return Match{}, false
	}
	name := strings.ToLower(c.Name)
	var paths []string
	whole := false
	if r, ok := psReaders()[name]; ok {
		whole = r.whole || name == "copy-item" && psHasParam(c, "Recurse")
		for _, n := range []string{"Path", "LiteralPath", "PSPath", "LP"} {
			if a, ok := c.Named(r.values, n); ok {
				for _, e := range a.Elems() {
					paths = append(paths, psPath(e))
				}
			}
		}
		if pos := c.Positional(r.values); len(paths) == 0 && len(pos) > r.position {
			for _, e := range pos[r.position].Elems() {
				paths = append(paths, psPath(e))
			}
		}
	}
	if spec, ok := psWrites()[name]; ok && (name == "invoke-webrequest" || name == "invoke-restmethod") {
		if a, ok := c.Named(spec.values, "InFile"); ok {
			paths = append(paths, psPath(a.Text))
		}
	}
	for _, f := range paths {
		if p.readsSecret(f, dir, whole) != "" {
			return Match{Effect: Ask, Rule: secretRule, Reason: fmt.Sprintf("reads %s: %s", f, secretReason)}, true
		}
	}
	return Match{}, false
}

// psTreeCmdlets are the cmdlets that write what they are given as a
// whole: a folder removed, moved, renamed or given an ACL takes what is
// in it along.
var psTreeCmdlets = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"remove-item": true, "move-item": true, "rename-item": true, "set-acl": true, "clear-item": true}
})

// psPipelineSources are the cmdlets that pass on the items of the paths
// they are given (the folder's own children for Get-ChildItem).
var psPipelineSources = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"get-childitem": true, "get-item": true, "resolve-path": true, "get-itemproperty": true}
})

// psTrees returns the folders a cmdlet writes as a whole: the paths of
// Remove-Item, Move-Item (its sources), Rename-Item and Set-Acl, the folder
// Expand-Archive extracts into, the destination of Copy-Item -Recurse. A
// removal given no path takes the items that come down the pipeline: those
// of Get-ChildItem or Get-Item PATH (through filters), or, from any other
// command, items not known before the call runs, which unknown says.
func psTrees(c *powershell.Command) (out []tree, unknown string) {
	name := strings.ToLower(c.Name)
	spec := psWrites()[name]
	paths := func(cmd *powershell.Command, spec psWrite, positions ...int) []string {
		var out []string
		for _, n := range []string{"Path", "LiteralPath", "PSPath", "LP"} {
			if a, ok := cmd.Named(spec.values, n); ok {
				for _, e := range a.Elems() {
					out = append(out, psPath(e))
				}
			}
		}
		if len(out) == 0 {
			pos := cmd.Positional(spec.values)
			for _, i := range positions {
				if i < len(pos) {
					for _, e := range pos[i].Elems() {
						out = append(out, psPath(e))
					}
				}
			}
		}
		return out
	}
	switch {
	case psTreeCmdlets()[name]:
		roots := paths(c, spec, 0)
		if len(roots) == 0 && c.Input != nil {
			src := c.Input.From
			for src != nil && psFilters()[strings.ToLower(src.Name)] && src.Input != nil {
				src = src.Input.From
			}
			switch {
			case src != nil && psPipelineSources()[strings.ToLower(src.Name)]:
				roots = paths(src, psWrite{values: []string{"Path", "LiteralPath", "Filter", "Include", "Exclude", "Depth", "Credential", "Attributes", "Name"}}, 0)
				if len(roots) == 0 {
					roots = []string{"."}
				}
			case src != nil:
				return nil, "takes the paths that " + src.Name + " passes down the pipeline, known only when it runs"
			case len(c.Input.Values) > 0:
				for _, v := range c.Input.Values {
					roots = append(roots, psPath(v))
				}
			default:
				return nil, "takes its paths from the pipeline, known only when it runs"
			}
		}
		for _, r := range roots {
			out = append(out, tree{root: r, kind: treeRemove, via: c.Name + " " + r})
		}
	case name == "expand-archive":
		archive := paths(c, spec, 0)
		dest, ok := c.Named(spec.values, "DestinationPath")
		root := ""
		if ok {
			root = psPath(dest.Text)
		} else if pos := c.Positional(spec.values); len(pos) > 1 {
			root = psPath(pos[1].Text)
		}
		a := ""
		if len(archive) > 0 {
			a = archive[0]
			if root == "" {
				// By default a folder named for the archive, here.
				root = strings.TrimSuffix(path.Base(a), path.Ext(a))
			}
		}
		if root == "" {
			root = "."
		}
		out = append(out, tree{root: root, kind: treeUnknown, via: "Expand-Archive into " + root, archive: a})
	case name == "copy-item" && psHasParam(c, "Recurse"):
		dest, ok := c.Named(spec.values, "Destination")
		pos := c.Positional(spec.values)
		if !ok && len(pos) > 1 {
			dest, ok = pos[1], true
		}
		if !ok {
			break
		}
		d := psPath(dest.Text)
		for _, src := range paths(c, psWrite{values: spec.values}, 0) {
			out = append(out, tree{root: d, kind: treeUnknown, via: "Copy-Item -Recurse " + src + " " + d, from: src, unlessDir: true},
				tree{root: path.Join(d, path.Base(src)), kind: treeUnknown, via: "Copy-Item -Recurse " + src + " " + d, from: src})
		}
	}
	return out, ""
}

// psPath reads a path as PowerShell code writes it: \ is a separator, as
// / is on every system, and a provider prefix (FileSystem::,
// Microsoft.PowerShell.Core\FileSystem::) names the file system.
func psPath(s string) string {
	if i := strings.Index(s, "::"); i >= 0 && strings.HasSuffix(strings.ToLower(s[:i]), "filesystem") {
		s = s[i+2:]
	}
	return strings.ReplaceAll(s, `\`, "/")
}

// wildcardWrites returns the guarded files a path with wildcards could
// name: Remove-Item .rewind.* removes .rewind.toml. Each guarded file
// name its last part matches is put in the path's folder.
func (p *Policy) wildcardWrites(file string) []string {
	dir, base := path.Split(file)
	if !strings.ContainsAny(base, "*?[") {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range p.writes {
		for _, list := range [2][]string{r.globs, p.ownFiles()} {
			for _, g := range list {
				name := path.Base(g)
				if name == "" || globMeta(name) >= 0 && !strings.Contains(name, `\`) || seen[name] {
					continue
				}
				name = strings.ReplaceAll(name, `\`, "")
				if ok, _ := path.Match(strings.ToLower(base), name); ok {
					seen[name] = true
					out = append(out, dir+name)
				}
			}
		}
	}
	return out
}

// psChangeDir follows Set-Location and Push-Location (cd, sl, chdir,
// pushd): the folder the commands after it run in.
func psChangeDir(c *powershell.Command, dir string) (string, bool) {
	switch strings.ToLower(c.Name) {
	case "set-location", "push-location":
	default:
		return "", false
	}
	switch strings.ToLower(c.Alias) {
	case "cd..":
		if dir == "" || dir == unknownDir {
			return unknownDir, true
		}
		return path.Dir(dir), true
	case `cd\`:
		return "/", true
	case "cd~":
		return "~", true
	}
	values := []string{"Path", "LiteralPath", "PSPath", "LP", "StackName"}
	to, ok := c.Named(values, "Path", "LiteralPath")
	if !ok {
		pos := c.Positional(values)
		if len(pos) == 0 {
			return "~", true
		}
		to = pos[0]
	}
	if to.Dynamic || to.Kind != powershell.Word {
		return unknownDir, true
	}
	t := psPath(to.Text)
	switch {
	case path.IsAbs(t) || strings.HasPrefix(t, "~") || len(t) > 1 && t[1] == ':':
		return t, true
	case dir == "":
		return t, true
	}
	return path.Join(dir, t), true
}

// nativeBatch gathers the programs PowerShell code runs at one place into
// one command line for the shell analysis, which judges them as a script
// of one command per line: a program of thousands costs one analysis, not
// thousands.
type nativeBatch struct {
	p     *Policy
	depth int
	add   func(Match)
	at    place
	key   string
	dir   string
	n     int
	b     strings.Builder
}

// maxBatch bounds the command line of one batch.
const maxBatch = 1 << 20

func (nb *nativeBatch) addCommand(c *powershell.Command, at place, dir string) {
	key := placeKey(at)
	if nb.n > 0 && (key != nb.key || dir != nb.dir || nb.b.Len() > maxBatch) {
		nb.flush()
	}
	if nb.n == 0 {
		nb.at, nb.key, nb.dir = at, key, dir
	}
	writeNativeLine(&nb.b, c)
	nb.b.WriteByte('\n')
	nb.n++
}

func (nb *nativeBatch) flush() {
	if nb.n == 0 {
		return
	}
	nb.p.judgeCode(nb.b.String(), &nb.at, nb.dir, nb.depth+1, nb.add)
	nb.b.Reset()
	nb.n = 0
}

func placeKey(at place) string {
	return at.host + "\x00" + strings.Join(at.hosts, ",") + "\x00" + btos(at.remote) + "\x00" + strings.Join(at.via, "\x00")
}

func btos(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// simpleVar matches a PowerShell variable the shell reads as a variable
// too: $name, $env:NAME. It is compiled on first use, by a PowerShell
// call.
var simpleVar = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$[A-Za-z_][A-Za-z0-9_]*(:[A-Za-z_][A-Za-z0-9_]*)?$`)
})

// writeNativeLine writes a program PowerShell runs as a shell command
// line: its name and arguments quoted, a value known only at run time as
// a shell variable, and what PowerShell pipes to it as its standard
// input: literals as echoed text, anything else as text known at run
// time.
func writeNativeLine(b *strings.Builder, c *powershell.Command) {
	switch {
	case len(c.Stdin) == 1:
		b.WriteString("echo " + shellQuote(c.Stdin[0]) + " | ")
	case len(c.Stdin) > 1:
		b.WriteString("{ ")
		for _, v := range c.Stdin {
			b.WriteString("echo " + shellQuote(v) + "; ")
		}
		b.WriteString("} | ")
	case c.Input != nil:
		b.WriteString(`cat "$PS_PIPELINE" | `)
	}
	b.WriteString(shellQuote(c.Name))
	for _, a := range c.Args {
		b.WriteByte(' ')
		switch {
		case !a.Dynamic:
			b.WriteString(shellQuote(a.Text))
		case simpleVar().MatchString(a.Text):
			b.WriteString(`"` + a.Text + `"`)
		default:
			b.WriteString(`"$PS_VALUE"`)
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// place is where code runs: on this machine, on the hosts a remoting
// command names, or on a remote host decided at run time (remote set,
// no host).
type place struct {
	host   string
	hosts  []string
	remote bool
	via    []string
	// reads is the count of code handed on the call has read (walk.reads).
	reads *int
}
