package powershell

import (
	"slices"
	"strings"
)

// Some commands run code the reader can read: the script block of
// Invoke-Command on the computers it names, the string of
// Invoke-Expression, the program Start-Process starts, the guest script of
// Invoke-VMScript. Each is reported as what it runs, where it runs.

// commonValueParams are the common parameters that take a value.
var commonValueParams = []string{
	"ErrorAction", "EA", "WarningAction", "WA", "InformationAction", "InfA",
	"ErrorVariable", "EV", "WarningVariable", "WV", "InformationVariable", "IV",
	"OutVariable", "OV", "OutBuffer", "OB", "PipelineVariable", "PV", "ProgressAction", "PROGA",
}

// params reads a cmdlet's arguments by PowerShell's binding rules, as far
// as they can be known without the cmdlet: named parameters (also as an
// unambiguous prefix, -Comp for -ComputerName), the values of those known
// to take one, and the positional arguments.
type params struct {
	args  []Arg
	value []string // the parameters that take a value
}

// matches reports whether the parameter token p (without its dash and
// value) names the parameter name: in full, or as a prefix of two or more
// characters, in any case.
func matches(p, name string) bool {
	return len(p) >= 2 && len(p) <= len(name) && strings.EqualFold(p, name[:len(p)]) ||
		strings.EqualFold(p, name)
}

// paramName splits a parameter token "-Name" or "-Name:value".
func paramName(a Arg) (name, value string, attached bool) {
	if a.Kind != Param {
		return "", "", false
	}
	name, value, attached = strings.Cut(a.Text[1:], ":")
	return name, value, attached
}

func (p params) takesValue(name string) bool {
	for _, v := range p.value {
		if matches(name, v) {
			return true
		}
	}
	for _, v := range commonValueParams {
		if strings.EqualFold(name, v) || len(name) > 3 && matches(name, v) {
			return true
		}
	}
	return false
}

// named returns the value of the first parameter among names given, and
// whether one was.
func (p params) named(names ...string) (Arg, bool) {
	for i := 0; i < len(p.args); i++ {
		name, value, attached := paramName(p.args[i])
		if name == "" {
			continue
		}
		for _, n := range names {
			if !matches(name, n) {
				continue
			}
			if attached {
				return Arg{Text: value, Dynamic: p.args[i].Dynamic}, true
			}
			if i+1 < len(p.args) && p.args[i+1].Kind != Param {
				return p.args[i+1], true
			}
			return Arg{}, true
		}
		if !attached && p.takesValue(name) {
			i++
		}
	}
	return Arg{}, false
}

// positional returns the arguments bound by position.
func (p params) positional() []Arg {
	var out []Arg
	for i := 0; i < len(p.args); i++ {
		a := p.args[i]
		if a.Kind == Param {
			name, _, attached := paramName(a)
			if !attached && p.takesValue(name) {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// elems returns the elements of a list argument.
func elems(a Arg) []string {
	if a.List != nil {
		return a.List
	}
	return []string{a.Text}
}

// command reports a command, and what it runs.
func (r *reader) command(c *Command, n *resolved, b *cmdb) {
	if n.dynamic {
		r.report(Finding{Dynamic: &Dynamic{Source: clip(r.src[b.start:max(b.end, b.start)]), Place: c.Place}})
		return
	}
	r.one(c)
	if n.also != nil {
		other := *c
		other.Name, other.Native, other.Alias = n.also.name, n.also.native, n.also.alias
		r.one(&other)
	}
}

// one reports a command under one reading of its name.
func (r *reader) one(c *Command) {
	if c.Native {
		r.nativeCommand(c)
		return
	}
	switch strings.ToLower(c.Name) {
	case "set-alias", "new-alias":
		r.defineAlias(c, params{args: c.Args, value: []string{"Name", "Value", "Description", "Option", "Scope"}})
	case "set-item", "new-item":
		r.aliasItem(c)
	case "invoke-expression":
		r.invokeExpression(c)
		return
	case "start-process":
		r.startProcess(c)
		return
	case "invoke-item":
		p := params{args: c.Args, value: []string{"Path", "LiteralPath", "PSPath", "LP", "Filter", "Include", "Exclude", "Credential"}}
		file, ok := p.named("Path", "LiteralPath", "PSPath", "LP")
		if !ok {
			if pos := p.positional(); len(pos) > 0 {
				file, ok = pos[0], true
			}
		}
		if ok {
			r.startProgram(file, nil, c.Place, "Invoke-Item", nil)
		}
		return
	case "exec", "switch-process":
		// exec ssh web-01 reboot: Switch-Process runs the program in
		// PowerShell's place.
		p := params{args: c.Args, value: []string{"WithCommand"}}
		words := p.positional()
		if a, ok := p.named("WithCommand"); ok {
			words = append([]Arg{a}, words...)
		}
		if len(words) > 0 {
			first := words[0]
			rest := words[1:]
			if first.List != nil {
				// -WithCommand ssh, web-01, reboot
				for _, e := range first.List[1:] {
					rest = append([]Arg{{Text: e, Dynamic: first.Dynamic}}, rest...)
				}
				first = Arg{Text: first.List[0], Dynamic: first.Dynamic}
			}
			r.startProgram(first, rest, c.Place, "exec", nil)
		}
		return
	case "new-scheduledtaskaction":
		// The program a scheduled task will run, judged as if it ran now.
		p := params{args: c.Args, value: []string{"Execute", "Argument", "WorkingDirectory", "Id", "CimSession", "ThrottleLimit"}}
		if prog, ok := p.named("Execute"); ok {
			var args []Arg
			if a, ok := p.named("Argument"); ok {
				args = splitCommandLine(a.Text, a.Dynamic || a.Kind != Word)
			}
			r.startProgram(prog, args, c.Place, "New-ScheduledTaskAction", nil)
		}
	case "invoke-wmimethod", "invoke-cimmethod":
		r.processCreate(c)
	case "invoke-vmscript":
		r.invokeVMScript(c)
	case "foreach-object":
		r.forEachMember(c)
	}
	r.report(Finding{Command: c})
}

// nativeCommand reports a program with its arguments as PowerShell hands
// them on: a script block is its text (pwsh gets it as -Command), and
// literals piped to it are its standard input.
func (r *reader) nativeCommand(c *Command) {
	if slices.ContainsFunc(c.Args, func(a Arg) bool { return a.Kind == Block }) {
		args := make([]Arg, 0, len(c.Args)+1)
		for _, a := range c.Args {
			if a.Kind != Block {
				args = append(args, a)
				continue
			}
			inner := Arg{Text: a.Text[1 : len(a.Text)-1]}
			if IsPowerShell(c.Name) {
				args = append(args, Arg{Text: "-Command", Kind: Param})
			}
			args = append(args, inner)
		}
		c.Args = args
	}
	if c.Input != nil && c.Input.From == nil && !c.Input.Dynamic {
		c.Stdin = c.Input.Values
	}
	r.report(Finding{Command: c})
}

// defineAlias records Set-Alias NAME VALUE.
func (r *reader) defineAlias(c *Command, p params) {
	name, ok := p.named("Name")
	pos := p.positional()
	if !ok && len(pos) > 0 {
		name, pos, ok = pos[0], pos[1:], true
	}
	value, vok := p.named("Value")
	if !vok && len(pos) > 0 {
		value, vok = pos[0], true
	}
	if !ok || !vok {
		return
	}
	if name.Dynamic || name.Kind != Word {
		// Any command could now be anything.
		r.report(Finding{Dynamic: &Dynamic{Source: c.Name + " " + name.Text + " " + value.Text, Place: c.Place}})
		return
	}
	r.al.define(name.Text, value.Text, value.Dynamic || value.Kind != Word)
}

// aliasItem records Set-Item alias:NAME VALUE and New-Item -Path
// alias:NAME -Value VALUE.
func (r *reader) aliasItem(c *Command) {
	p := params{args: c.Args, value: []string{"Path", "LiteralPath", "Value", "Name", "ItemType", "Type", "Filter", "Include", "Exclude", "Credential"}}
	target, ok := p.named("Path", "LiteralPath")
	pos := p.positional()
	if !ok && len(pos) > 0 {
		target, pos, ok = pos[0], pos[1:], true
	}
	if !ok || len(target.Text) < 6 || !strings.EqualFold(target.Text[:6], "alias:") {
		return
	}
	name := strings.TrimLeft(target.Text[6:], `\/`)
	if n, ok := p.named("Name"); ok {
		name = n.Text
	}
	value, vok := p.named("Value")
	if !vok && len(pos) > 0 {
		value, vok = pos[0], true
	}
	if !vok {
		return
	}
	if target.Dynamic {
		r.report(Finding{Dynamic: &Dynamic{Source: c.Name + " " + target.Text, Place: c.Place}})
		return
	}
	r.al.define(name, value.Text, value.Dynamic || value.Kind != Word)
}

// invokeExpression reads the code of Invoke-Expression: its -Command, or
// a literal piped to it.
func (r *reader) invokeExpression(c *Command) {
	p := params{args: c.Args, value: []string{"Command"}}
	code, ok := p.named("Command")
	if !ok {
		if pos := p.positional(); len(pos) > 0 {
			code, ok = pos[0], true
		}
	}
	switch {
	case ok && !code.Dynamic && code.Kind == Word:
		r.again(code.Text, c.Place, "Invoke-Expression")
	case !ok && c.Input != nil && c.Input.From == nil && !c.Input.Dynamic:
		r.again(strings.Join(c.Input.Values, "\n"), c.Place, "Invoke-Expression")
	default:
		src := "Invoke-Expression"
		if ok {
			src += " " + code.Text
		}
		r.report(Finding{Dynamic: &Dynamic{Source: clip(src), Place: c.Place}})
	}
}

// startProcess reports the program Start-Process starts, with the
// arguments its -ArgumentList makes: the list is joined by spaces into a
// command line, which the program splits as Windows programs do.
func (r *reader) startProcess(c *Command) {
	p := params{args: c.Args, value: []string{"FilePath", "PSPath", "Path", "ArgumentList", "Args",
		"Credential", "WorkingDirectory", "Verb", "WindowStyle", "RedirectStandardInput",
		"RedirectStandardOutput", "RedirectStandardError", "Environment"}}
	pos := p.positional()
	file, ok := p.named("FilePath", "PSPath", "Path")
	if !ok && len(pos) > 0 {
		file, pos, ok = pos[0], pos[1:], true
	}
	if !ok {
		return
	}
	list, lok := p.named("ArgumentList", "Args")
	if !lok && len(pos) > 0 {
		list, lok = pos[0], true
	}
	var args []Arg
	if lok {
		switch {
		case list.Kind == Expr || list.Dynamic && list.List == nil:
			args = []Arg{{Text: list.Text, Dynamic: true}}
		default:
			args = splitCommandLine(strings.Join(elems(list), " "), list.Dynamic)
		}
	}
	var writes []string
	for _, name := range []string{"RedirectStandardOutput", "RedirectStandardError"} {
		if w, ok := p.named(name); ok {
			writes = append(writes, w.Text)
		}
	}
	r.startProgram(file, args, c.Place, "Start-Process", writes)
}

// startProgram reports the program file started with args.
func (r *reader) startProgram(file Arg, args []Arg, at Place, via string, writes []string) {
	if file.Dynamic || file.Kind != Word {
		src := via + " " + file.Text
		for _, a := range args {
			src += " " + a.Text
		}
		r.report(Finding{Dynamic: &Dynamic{Source: clip(src), Place: at}})
		return
	}
	res := r.al.resolve(file.Text)
	if !res.native {
		// Start-Process Stop-VM is not a thing; a cmdlet name here is a
		// program of that name.
		res = resolved{name: nativeName(file.Text), native: true}
	}
	c := Command{Name: res.name, Native: true, Args: args, Place: withVia(at, via), Writes: writes}
	r.nativeCommand(&c)
}

// splitCommandLine splits a Windows command line into arguments as the
// C runtime does: white space separates them outside double quotes, ""
// in quotes is a quote, and backslashes escape a quote only before one.
// With dyn set the words are marked known only at run time.
func splitCommandLine(line string, dyn bool) []Arg {
	var (
		out   []Arg
		cur   strings.Builder
		in    bool
		quote bool
		have  bool
	)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(line) && line[i] == '\\' {
				n++
				i++
			}
			if i < len(line) && line[i] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
				} else {
					i--
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i--
			}
			have = true
		case c == '"':
			if in && i+1 < len(line) && line[i+1] == '"' {
				cur.WriteByte('"')
				i++
			} else {
				in = !in
				quote = true
			}
			have = true
		case (c == ' ' || c == '\t') && !in:
			if have {
				out = append(out, Arg{Text: cur.String(), Dynamic: dyn, Quoted: quote})
				cur.Reset()
				have, quote = false, false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		out = append(out, Arg{Text: cur.String(), Dynamic: dyn, Quoted: quote})
	}
	return out
}

// processCreate reads the Create method of WMI's Win32_Process, which
// starts the program of its command line here: Invoke-WmiMethod -Class
// Win32_Process -Name Create -ArgumentList "cmd /c ...". A command line
// given as a literal is judged as that program; one in a hashtable
// (Invoke-CimMethod -Arguments @{ CommandLine = ... }) or known at run
// time is asked.
func (r *reader) processCreate(c *Command) {
	p := params{args: c.Args, value: []string{"Class", "ClassName", "Path", "Name", "MethodName", "ArgumentList",
		"Arguments", "ComputerName", "CimSession", "Namespace", "InputObject", "Query", "QueryDialect", "Credential",
		"Authentication", "Impersonation", "Locale", "ThrottleLimit", "OperationTimeoutSec", "ResourceUri", "CimClass"}}
	class, ok := p.named("Class", "ClassName", "Path")
	if !ok || !strings.Contains(strings.ToLower(class.Text), "win32_process") {
		return
	}
	if _, remote := p.named("ComputerName", "Cn", "CimSession"); remote {
		// On another computer: the rules for a cmdlet that acts on
		// computers judge it.
		return
	}
	method, ok := p.named("MethodName", "Name")
	if !ok || !strings.EqualFold(method.Text, "create") {
		return
	}
	if line, ok := p.named("ArgumentList"); ok && !line.Dynamic && line.Kind == Word {
		args := splitCommandLine(elems(line)[0], false)
		if len(args) > 0 {
			r.startProgram(args[0], args[1:], c.Place, "Win32_Process.Create", nil)
			return
		}
	}
	r.report(Finding{Dynamic: &Dynamic{Source: clip(c.Name + " Win32_Process Create"), Place: c.Place}})
}

// forEachMember reads ForEach-Object NAME: a member of each object, which
// for a method (Kill, PowerOffVM) runs it.
func (r *reader) forEachMember(c *Command) {
	p := params{args: c.Args, value: []string{"MemberName", "ArgumentList", "Args", "Begin", "Process", "End",
		"RemainingScripts", "Parallel", "ThrottleLimit", "TimeoutSeconds", "InputObject"}}
	member, ok := p.named("MemberName")
	if pos := p.positional(); !ok && len(pos) > 0 && pos[0].Kind == Word {
		member, ok = pos[0], true
	}
	if !ok {
		return
	}
	_, withArgs := p.named("ArgumentList", "Args")
	if member.Dynamic || withArgs || changesObject(member.Text) {
		r.report(Finding{Dynamic: &Dynamic{Source: clip("ForEach-Object " + member.Text), Place: c.Place}})
	}
}

// changesObject reports whether a member name reads as a method that
// changes what it is called on.
func changesObject(name string) bool {
	lower := strings.ToLower(name)
	for _, v := range []string{"kill", "stop", "start", "delete", "remove", "poweroff", "poweron", "reset",
		"reboot", "shutdown", "destroy", "terminate", "restart", "suspend", "invoke", "create", "set",
		"put", "update", "rename", "move", "clear", "uninstall", "install", "revert", "mount", "unmount",
		"dismount", "format", "change", "reconfig", "migrate", "relocate", "unregister", "register",
		"upgrade", "standby", "rebootguest", "answer", "mark", "consolidate", "customize", "apply",
		"refresh", "run", "exec"} {
		if strings.HasPrefix(lower, v) {
			return true
		}
	}
	return false
}

// invokeVMScript reads Invoke-VMScript -ScriptText: code that runs in the
// guest of the VMs named, PowerShell, Bash or Bat as -ScriptType says
// (without one, the guest's default: either).
func (r *reader) invokeVMScript(c *Command) {
	p := params{args: c.Args, value: []string{"ScriptText", "VM", "ScriptType", "GuestUser", "GuestPassword",
		"GuestCredential", "HostUser", "HostPassword", "HostCredential", "ToolsWaitSecs", "Server"}}
	pos := p.positional()
	text, ok := p.named("ScriptText")
	if !ok && len(pos) > 0 {
		text, pos, ok = pos[0], pos[1:], true
	}
	if !ok || text.Dynamic || text.Kind != Word {
		return
	}
	guest := Place{Remote: true}
	vm, vok := p.named("VM")
	if !vok && len(pos) > 0 {
		vm, vok = pos[0], true
	}
	switch {
	case vok && !vm.Dynamic && vm.Kind == Word:
		guest.Hosts = elems(vm)
	case !vok && c.Input != nil && c.Input.From != nil:
		vms, dyn := c.Input.From.NamedVMs()
		if !dyn {
			for _, a := range vms {
				guest.Hosts = append(guest.Hosts, elems(a)...)
			}
		}
	case !vok && c.Input != nil && !c.Input.Dynamic:
		guest.Hosts = c.Input.Values
	}
	for _, h := range guest.Hosts {
		if strings.ContainsAny(h, "*?[") {
			guest.Hosts = nil // VMs chosen by a pattern: known at run time
			break
		}
	}
	guest = joinPlace(c.Place, guest)
	via := "Invoke-VMScript -VM " + strings.Join(guest.Hosts, ",")
	if len(guest.Hosts) == 0 {
		via = "Invoke-VMScript (VMs decided at run time)"
	}
	guest.Via = append(guest.Via, via)
	c.Analysed = true
	typ, _ := p.named("ScriptType")
	switch strings.ToLower(typ.Text) {
	case "bash":
		r.report(Finding{Code: &Code{Lang: "sh", Text: text.Text, Place: guest}})
	case "bat":
		r.report(Finding{Code: &Code{Lang: "cmd", Text: text.Text, Place: guest}})
	case "powershell":
		r.again(text.Text, guest, "")
	default:
		if typ.Dynamic {
			r.report(Finding{Dynamic: &Dynamic{Source: "Invoke-VMScript -ScriptType " + typ.Text, Place: guest}})
		}
		r.again(text.Text, guest, "")
		r.report(Finding{Code: &Code{Lang: "sh", Text: text.Text, Place: guest}})
	}
}

// NamedVMs returns the VMs a command names for the command after it in a
// pipeline: its -VM (or -VMName) values, or, for Get-VM, its -Name
// values or first positional argument. dynamic reports that some are
// known only at run time.
func (c *Command) NamedVMs() (vms []Arg, dynamic bool) {
	p := params{args: c.Args, value: []string{"VM", "VMName", "Name", "Server", "ComputerName", "CimSession",
		"Credential", "Id", "Location", "Datastore", "Tag", "NoRecursion", "RelatedObject"}}
	if a, ok := p.named("VM", "VMName"); ok {
		return []Arg{a}, a.Dynamic || a.Kind != Word
	}
	if !strings.EqualFold(c.Name, "Get-VM") {
		return nil, false
	}
	if a, ok := p.named("Name"); ok {
		return []Arg{a}, a.Dynamic || a.Kind != Word
	}
	if pos := p.positional(); len(pos) > 0 {
		return pos[:1], pos[0].Dynamic || pos[0].Kind != Word
	}
	return nil, false
}

// remoting parameters of Invoke-Command.
var (
	computerParams = []string{"ComputerName", "Cn", "HostName", "VMName"}
	sessionParams  = []string{"Session", "VMId", "Id", "ContainerId", "SSHConnection"}
	uriParams      = []string{"ConnectionUri", "Uri", "CU"}
	remotingValues = []string{"ComputerName", "Cn", "HostName", "VMName", "Session", "VMId", "Id",
		"ContainerId", "SSHConnection", "ConnectionUri", "Uri", "CU", "ScriptBlock", "Command",
		"FilePath", "PSPath", "ArgumentList", "Args", "Credential", "Authentication", "ThrottleLimit",
		"JobName", "ConfigurationName", "Port", "SessionName", "KeyFilePath", "IdentityFilePath",
		"UserName", "ApplicationName", "SessionOption", "CertificateThumbprint", "Subsystem",
		"Options", "InputObject", "Transport"}
)

// remotePlace returns where Invoke-Command runs the code of its
// argument arg (a script block, or the value of -ScriptBlock): on the
// computers in -ComputerName (or its first positional argument), on the
// host of -ConnectionUri, or on computers known only at run time
// (-Session $s, -ComputerName $list). It reports false for any other
// command or argument, and for Invoke-Command without a computer, which
// runs the block here.
func remotePlace(name string, args []Arg, arg int, kind frameKind) (Place, bool) {
	if !strings.EqualFold(name, "Invoke-Command") || arg < 0 {
		return Place{}, false
	}
	if kind != fBlock {
		// A value run as the block: -ScriptBlock ([scriptblock]::Create(...)).
		if arg == 0 {
			return Place{}, false
		}
		n, _, attached := paramName(args[arg-1])
		if attached || !matches(n, "ScriptBlock") && !strings.EqualFold(n, "Command") {
			return Place{}, false
		}
	}
	p := params{args: args, value: remotingValues}
	at := Place{Remote: true}
	unknown, named := false, false
	add := func(a Arg) {
		named = true
		if a.Dynamic || a.Kind != Word {
			unknown = true
			return
		}
		for _, h := range elems(a) {
			for h := range strings.SplitSeq(h, ",") {
				if h = strings.TrimSpace(h); h != "" && !contains(at.Hosts, h) {
					at.Hosts = append(at.Hosts, h)
				}
			}
		}
	}
	for i := 0; i < len(args); i++ {
		pn, value, attached := paramName(args[i])
		if pn == "" {
			continue
		}
		val := func() (Arg, bool) {
			if attached {
				return Arg{Text: value, Dynamic: args[i].Dynamic}, true
			}
			if i+1 < len(args) && args[i+1].Kind != Param && args[i+1].Kind != Block {
				i++
				return args[i], true
			}
			return Arg{}, false
		}
		switch {
		case anyMatches(pn, computerParams):
			if a, ok := val(); ok {
				add(a)
			}
		case anyMatches(pn, sessionParams):
			named, unknown = true, true
			val()
		case anyMatches(pn, uriParams):
			if a, ok := val(); ok {
				if h := URIHost(a.Text); h != "" && !a.Dynamic {
					add(Arg{Text: h})
				} else {
					named, unknown = true, true
				}
			}
		case p.takesValue(pn):
			if !attached {
				i++
			}
		}
	}
	if !named {
		// Invoke-Command web-01 { ... }: the first positional argument
		// is the computer, unless it is the block itself.
		if pos := p.positional(); len(pos) > 0 && pos[0].Kind != Block {
			add(pos[0])
		}
	}
	if !named {
		return Place{}, false
	}
	if unknown {
		at.Hosts = nil
	}
	if len(at.Hosts) == 0 {
		at.Via = []string{"Invoke-Command (computers decided at run time)"}
	} else {
		at.Via = []string{"Invoke-Command -ComputerName " + strings.Join(at.Hosts, ",")}
	}
	return at, true
}

func anyMatches(p string, names []string) bool {
	for _, n := range names {
		if matches(p, n) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Named returns the value of the first of the parameters names the
// command is given, by its full name or a prefix of it as PowerShell
// accepts (-Comp for -ComputerName), and whether one is. valueParams are
// the command's parameters that take a value, so that a value is not
// read as the next parameter's.
func (c *Command) Named(valueParams []string, names ...string) (Arg, bool) {
	return params{args: c.Args, value: valueParams}.named(names...)
}

// Positional returns the arguments bound by position: not parameters,
// nor the values of valueParams.
func (c *Command) Positional(valueParams []string) []Arg {
	return params{args: c.Args, value: valueParams}.positional()
}

// Elems returns the elements of a list argument ("a, b"), or the
// argument itself.
func (a Arg) Elems() []string { return elems(a) }

// ParamMatches reports whether the parameter token tok (such as "-Comp"
// or "-ComputerName:web-01") names the parameter name, in full or as a
// prefix of two or more characters, in any case.
func ParamMatches(tok, name string) bool {
	if len(tok) < 2 || !isDash(rune(tok[0])) {
		return false
	}
	p, _, _ := strings.Cut(tok[1:], ":")
	return matches(p, strings.TrimPrefix(name, "-"))
}
