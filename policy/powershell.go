package policy

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/rewind-dev/rewind/shell"
)

// The shell analysis does not parse PowerShell, so the policy reads the
// code handed to pwsh or powershell itself: well enough to find the
// cmdlets, their parameters and the pipelines that feed them. Anything it
// cannot read statically is marked dynamic, as the shell analysis does.

func isPowerShell(name string) bool {
	switch strings.ToLower(name) {
	case "pwsh", "pwsh.exe", "powershell", "powershell.exe":
		return true
	}
	return false
}

// psValueParams are the PowerShell host's own parameters that take a value.
var psValueParams = []string{
	"executionpolicy", "ep", "workingdirectory", "wd", "configurationname",
	"configurationfile", "outputformat", "of", "inputformat", "if",
	"windowstyle", "w", "version", "v", "psconsolefile", "settingsfile",
	"custompipename",
}

// psCode returns the code a pwsh or powershell invocation runs, from
// -Command, -EncodedCommand, Windows PowerShell's positional command, or
// stdin. It reports false for a script file or an interactive shell.
func psCode(inv *shell.Invocation) (code string, dynamic, ok bool) {
	dyn := func(i int) bool { return len(inv.ArgDynamic) == len(inv.Args) && inv.ArgDynamic[i] }
	rest := func(i int) (string, bool) {
		var b strings.Builder
		d := false
		for j := i; j < len(inv.Args); j++ {
			if j > i {
				b.WriteByte(' ')
			}
			a := inv.Args[j]
			if dyn(j) {
				d = true
				// A dynamic word keeps its source text: drop its quotes.
				if len(a) >= 2 && a[0] == '"' && a[len(a)-1] == '"' {
					a = a[1 : len(a)-1]
				}
			}
			b.WriteString(a)
		}
		return b.String(), d
	}
	stdin := func() (string, bool, bool) {
		if len(inv.Payload) == 0 {
			return "", false, false
		}
		return strings.Join(inv.Payload, "\n"), false, true
	}
	for i := 0; i < len(inv.Args); i++ {
		a := inv.Args[i]
		if len(a) < 2 || a[0] != '-' {
			if strings.HasPrefix(strings.ToLower(inv.Name), "powershell") {
				code, d := rest(i)
				return code, d, true
			}
			return "", false, false // pwsh runs a script file
		}
		p := strings.ToLower(strings.TrimLeft(a, "-"))
		switch {
		case p == "c" || len(p) >= 3 && strings.HasPrefix("command", p):
			code, d := rest(i + 1)
			if code == "-" || code == "" {
				return stdin()
			}
			return code, d, true
		case p == "e" || p == "ec" || len(p) >= 2 && strings.HasPrefix("encodedcommand", p):
			if i+1 >= len(inv.Args) || dyn(i+1) {
				return "", true, true
			}
			code, err := decodeUTF16Base64(inv.Args[i+1])
			if err != nil {
				return "", true, true
			}
			return code, false, true
		case p == "f" || len(p) >= 2 && strings.HasPrefix("file", p):
			return "", false, false
		default:
			for _, v := range psValueParams {
				if p == v {
					i++
					break
				}
			}
		}
	}
	return stdin()
}

func decodeUTF16Base64(s string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", err
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return string(utf16.Decode(u)), nil
}

// psWord is a word of PowerShell code.
type psWord struct {
	text  string
	dyn   bool // holds a variable or subexpression
	block bool // a script block argument: text is the code between its braces
	paren bool // a (...) or $(...) argument: text is the code inside, its value dyn
	hash  bool // a @{...} hashtable: text is its entries
	// call is set on a word the call operator (&) runs, and on one
	// followed at once by "(": a method call such as $vm.Stop().
	call bool
}

// psPipelines splits PowerShell code into pipelines of commands, each a
// list of words. Statements end at newlines, ';', '&&', '||' and at
// brackets, so that the commands inside subexpressions and statement
// bodies stand on their own. A script block given to a command as an
// argument (Invoke-Command -ScriptBlock { ... }, ForEach-Object { ... })
// is one word of that command, marked block, whose code psSubjects reads
// in the place the command runs it.
func psPipelines(code string) [][][]psWord {
	var (
		out      [][][]psWord
		pipeline [][]psWord
		stage    []psWord
		word     strings.Builder
		inWord   bool
		dyn      bool
		call     bool
	)
	endWord := func() {
		if inWord {
			w := psWord{text: word.String(), dyn: dyn, call: call}
			call = false
			// "a, b" is one list argument.
			if n := len(stage); n > 0 && strings.HasSuffix(stage[n-1].text, ",") || strings.HasPrefix(w.text, ",") && len(stage) > 1 {
				stage[n-1].text += w.text
				stage[n-1].dyn = stage[n-1].dyn || w.dyn
			} else {
				stage = append(stage, w)
			}
		}
		word.Reset()
		inWord, dyn = false, false
	}
	endStage := func() {
		endWord()
		if len(stage) > 0 {
			pipeline = append(pipeline, stage)
		}
		stage = nil
	}
	endStatement := func() {
		endStage()
		if len(pipeline) > 0 {
			out = append(out, pipeline)
		}
		pipeline = nil
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
		case c == '{' && inWord && word.String() == "@":
			word.Reset()
			inWord, dyn = false, false
			end := psCloseEnd(code, i+1, '{', '}')
			stage = append(stage, psWord{text: code[i+1 : end], dyn: true, hash: true})
			i = end
		case c == '{' && (len(stage) > 0 || inWord):
			endWord()
			end := psCloseEnd(code, i+1, '{', '}')
			stage = append(stage, psWord{text: code[i+1 : end], block: true})
			i = end
		case c == '(' && inWord && !strings.HasSuffix(word.String(), "$") && !strings.HasSuffix(word.String(), "@"):
			// A method or function call: $vm.Stop().
			call = true
			endStatement()
		case c == '(' && (inWord || len(stage) > 0):
			// An argument computed by a (sub)expression: $(...),
			// @(...) or (...). Its code runs here, first.
			if w := word.String(); inWord && (w == "$" || w == "@") {
				word.Reset()
				inWord, dyn = false, false
			} else {
				endWord()
			}
			end := psCloseEnd(code, i+1, '(', ')')
			stage = append(stage, psWord{text: code[i+1 : end], dyn: true, paren: true})
			i = end
		case c == '\n' || c == ';' || c == '{' || c == '}' || c == '(' || c == ')':
			call = false
			endStatement()
		case c == '|' || c == '&':
			if i+1 < len(code) && code[i+1] == c {
				i++
				endStatement()
			} else if c == '|' {
				endStage()
			} else {
				endWord()
				call = true // the call operator runs the next word
			}
		case c == '#' && !inWord:
			end := strings.IndexByte(code[i:], '\n')
			if end < 0 {
				i = len(code)
			} else {
				i += end - 1
			}
		case c == '<' && i+1 < len(code) && code[i+1] == '#':
			end := strings.Index(code[i+2:], "#>")
			if end < 0 {
				i = len(code)
			} else {
				i += end + 3
			}
		case c == '\'':
			inWord = true
			for i++; i < len(code); i++ {
				if code[i] == '\'' {
					if i+1 < len(code) && code[i+1] == '\'' {
						word.WriteByte('\'')
						i++
						continue
					}
					break
				}
				word.WriteByte(code[i])
			}
		case c == '"':
			inWord = true
			for i++; i < len(code); i++ {
				switch code[i] {
				case '`':
					if i+1 < len(code) {
						i++
						word.WriteByte(code[i])
					}
					continue
				case '$':
					dyn = true
				case '"':
					if i+1 < len(code) && code[i+1] == '"' {
						word.WriteByte('"')
						i++
						continue
					}
				}
				if code[i] == '"' {
					break
				}
				word.WriteByte(code[i])
			}
		case c == '`':
			inWord = true
			if i+1 < len(code) {
				i++
				if code[i] != '\n' {
					word.WriteByte(code[i])
				}
			}
		default:
			if c == '$' || c == '@' && !inWord {
				dyn = true
			}
			inWord = true
			word.WriteByte(c)
		}
	}
	endStatement()
	return out
}

// psCloseEnd returns the index of the bracket (close) that closes the
// one (open) before code[start], or len(code) when it is not closed.
// Quotes, comments and nested brackets inside do not close it.
func psCloseEnd(code string, start int, open, close byte) int {
	depth := 0
	for i := start; i < len(code); i++ {
		switch c := code[i]; c {
		case open:
			depth++
		case close:
			if depth == 0 {
				return i
			}
			depth--
		case '`':
			i++
		case '#':
			if end := strings.IndexByte(code[i:], '\n'); end >= 0 {
				i += end
			} else {
				return len(code)
			}
		case '\'', '"':
			for i++; i < len(code) && code[i] != c; i++ {
				if c == '"' && code[i] == '`' {
					i++
				}
			}
		}
	}
	return len(code)
}

// place is where code runs: on this machine, on the hosts a remoting
// command names, or on a remote host decided at run time (remote set,
// no host).
type place struct {
	host   string
	hosts  []string
	remote bool
	via    []string
}

// cmdletSubjects turns the PowerShell code of a pwsh invocation into
// subjects. A cmdlet that takes its VM from the pipeline (Get-VM web-01 |
// Stop-VM) gets the VM named upstream as its -VM argument, so that rules
// find it where they look.
func cmdletSubjects(inv *shell.Invocation, s *subject) (subs []subject, dynamic bool, ok bool) {
	code, dynamic, ok := psCode(inv)
	if !ok {
		return nil, dynamic, false
	}
	via := append(append([]string(nil), s.via...), inv.Name+" -Command")
	subs, d := psSubjects(code, place{host: s.host, hosts: s.hosts, remote: s.remote, via: via}, 0)
	return subs, dynamic || d, true
}

// maxPSDepth bounds how deep Invoke-Expression code is read again.
const maxPSDepth = 8

// psSubjects reads the subjects of PowerShell code. The code of
// Invoke-Expression (iex) is read as code too.
func psSubjects(code string, at place, depth int) (subs []subject, dynamic bool) {
	return psStatements(code, at, depth, false)
}

// psStatements is psSubjects; with hash set the code is the entries of a
// hashtable (@{ n = 'x'; e = { ... } }), which run nothing but the
// blocks and subexpressions in their values.
func psStatements(code string, at place, depth int, hash bool) (subs []subject, dynamic bool) {
	host, remote, via := at.host, at.remote, at.via
	for _, pipeline := range psPipelines(code) {
		var carried []psWord
		for _, stage := range pipeline {
			// The dot-source operator runs the command as & does.
			if stage[0].text == "." && !stage[0].dyn && len(stage) > 1 {
				stage = append([]psWord(nil), stage[1:]...)
				stage[0].call = true
			}
			// A member of the value before it: (Get-VM web-01).Stop().
			if len(stage[0].text) > 1 && stage[0].text[0] == '.' && !stage[0].block {
				stage[0].dyn = true
			}
			// A module-qualified name: VMware.VimAutomation.Core\Stop-VM.
			if i := strings.LastIndexByte(stage[0].text, '\\'); i >= 0 && i < len(stage[0].text)-1 && !stage[0].dyn {
				stage[0].text = stage[0].text[i+1:]
			}
			// "$x = Get-VM web-01 | Stop-VM": the value of an assignment
			// is a pipeline of its own.
			for len(stage) > 2 && stage[0].dyn && !stage[0].call && isPSAssign(stage[1]) {
				stage = stage[2:]
			}
			// The code of script blocks runs where the cmdlet puts it:
			// on the computers a remoting cmdlet names, else here.
			var remoting *place
			if !hash && !stage[0].dyn && !stage[0].block {
				remoting = psRemoting(stage)
			}
			inner, d, blocks := psNested(stage, at, remoting, depth)
			dynamic = dynamic || d
			if hash || stage[0].dyn || stage[0].block {
				// A variable or member run by & or called as a method
				// ($vm.Stop()) is code known only at run time; a bare
				// value ($_.Name, $list, a hashtable entry) runs nothing.
				if !hash && stage[0].dyn && !stage[0].paren && (stage[0].call || len(stage) > 1) {
					dynamic = true
				}
				subs = append(subs, inner...)
				carried = nil
				continue
			}
			if isInvokeExpression(stage[0].text) {
				subs = append(subs, inner...)
				code, ok := psExpression(stage)
				if !ok || depth >= maxPSDepth {
					dynamic = true
					continue
				}
				in := at
				in.via = append(via[:len(via):len(via)], "Invoke-Expression")
				more, d := psSubjects(code, in, depth+1)
				subs = append(subs, more...)
				dynamic = dynamic || d
				carried = nil
				continue
			}
			s := subject{name: stage[0].text, host: host, hosts: at.hosts, remote: remote, ps: true, via: via, analysed: blocks}
			hasVM := false
			for _, w := range stage[1:] {
				s.args = append(s.args, w.source())
				s.dyn = append(s.dyn, w.dyn)
				if psParam(w.text, "vm") {
					hasVM = true
				}
			}
			if own := psVMs(stage); own != nil {
				carried = own
			} else if carried != nil && !hasVM {
				for _, w := range carried {
					s.args = append(s.args, "-VM", w.text)
					s.dyn = append(s.dyn, false, w.dyn)
				}
			}
			subs = append(subs, s)
			subs = append(subs, inner...)
		}
	}
	return subs, dynamic
}

// source shows a word as the code wrote it.
func (w psWord) source() string {
	switch {
	case w.block:
		return "{" + w.text + "}"
	case w.paren:
		return "(" + w.text + ")"
	case w.hash:
		return "@{" + w.text + "}"
	}
	return w.text
}

// psNested reads the code inside a stage's words: script blocks (on the
// computers of remoting, when set), subexpressions and hashtables. blocks
// reports whether the stage has a script block whose code was read.
func psNested(stage []psWord, at place, remoting *place, depth int) (subs []subject, dynamic, blocks bool) {
	blockAt := at
	if remoting != nil {
		blockAt = *remoting
		blockAt.via = append(at.via[:len(at.via):len(at.via)], psRemotingVia(stage[0].text, remoting))
	}
	for _, w := range stage {
		if !w.block && !w.paren && !w.hash {
			continue
		}
		if depth >= maxPSDepth {
			dynamic = true
			continue
		}
		var more []subject
		var d bool
		switch {
		case w.block:
			more, d = psSubjects(w.text, blockAt, depth+1)
			blocks = true
		case w.paren:
			more, d = psSubjects(w.text, at, depth+1)
		default:
			more, d = psStatements(w.text, at, depth+1, true)
		}
		subs = append(subs, more...)
		dynamic = dynamic || d
	}
	return subs, dynamic, blocks
}

func isInvokeExpression(name string) bool {
	return strings.EqualFold(name, "iex") || strings.EqualFold(name, "Invoke-Expression")
}

// psExpression returns the code an Invoke-Expression stage runs: its
// -Command value or first positional word. It reports false when the code
// is known only at run time, including code that comes down the pipeline.
func psExpression(stage []psWord) (string, bool) {
	for i := 1; i < len(stage); i++ {
		w := stage[i]
		switch {
		case psParam(w.text, "command") && strings.Contains(w.text, ":"):
			_, v, _ := strings.Cut(w.text, ":")
			return v, !w.dyn
		case psParam(w.text, "command") && i+1 < len(stage):
			return stage[i+1].text, !stage[i+1].dyn
		case len(w.text) > 1 && w.text[0] == '-':
			continue
		default:
			return w.text, !w.dyn
		}
	}
	return "", false
}

// psParam reports whether word is the parameter name (as -Name or -Name:v).
func psParam(word, name string) bool {
	if len(word) < 2 || word[0] != '-' {
		return false
	}
	p, _, _ := strings.Cut(word[1:], ":")
	return strings.EqualFold(p, name)
}

// psVMs returns the VMs a pipeline stage names: its -VM values, or for
// Get-VM its -Name values or first positional word.
func psVMs(stage []psWord) []psWord {
	var vms []psWord
	getVM := strings.EqualFold(stage[0].text, "Get-VM")
	positional := true
	for i := 1; i < len(stage); i++ {
		w := stage[i]
		isVM := psParam(w.text, "vm") || getVM && psParam(w.text, "name")
		switch {
		case isVM && strings.Contains(w.text, ":"):
			_, v, _ := strings.Cut(w.text, ":")
			vms = append(vms, psWord{text: v, dyn: w.dyn})
		case isVM && i+1 < len(stage):
			i++
			vms = append(vms, stage[i])
		case len(w.text) > 1 && w.text[0] == '-':
			positional = false
		case getVM && positional && len(vms) == 0:
			vms = append(vms, w)
		}
	}
	return vms
}

// psRemotingCmdlets run a script block on other computers.
var psRemotingCmdlets = []string{"Invoke-Command", "icm"}

// psComputerParams name the computers (or the Hyper-V VMs, for PowerShell
// Direct) a remoting cmdlet runs its script block on.
var psComputerParams = []string{"ComputerName", "Cn", "HostName", "VMName"}

// psSessionParams name computers only known at run time.
var psSessionParams = []string{"Session", "VMId", "ContainerId", "CimSession"}

// psRemotingValueParams are Invoke-Command's parameters that take a value,
// so that the words after them are not read as computer names.
var psRemotingValueParams = []string{
	"ArgumentList", "Args", "Credential", "Authentication", "ThrottleLimit",
	"JobName", "ConfigurationName", "Port", "FilePath", "SessionName",
	"KeyFilePath", "UserName", "ApplicationName", "SessionOption",
	"CertificateThumbprint", "Subsystem", "Options", "InputObject",
	"ConnectionUri", "Uri", "ScriptBlock", "SSHConnection",
}

// psRemoting reads where a remoting cmdlet's script block runs: the
// computers in -ComputerName (or its first positional word, a list
// "a,b"), the host of -ConnectionUri, or a host known only at run time
// (-Session $s, -ComputerName $list). It returns nil for any other
// cmdlet, and for Invoke-Command without a computer, which runs the block
// here.
func psRemoting(stage []psWord) *place {
	if !slices.ContainsFunc(psRemotingCmdlets, func(n string) bool { return strings.EqualFold(n, stage[0].text) }) {
		return nil
	}
	at := &place{remote: true}
	unknown, named := false, false
	add := func(w psWord) {
		named = true
		if w.dyn {
			unknown = true
			return
		}
		for h := range strings.SplitSeq(w.text, ",") {
			if h = strings.TrimSpace(h); h != "" && !slices.Contains(at.hosts, h) {
				at.hosts = append(at.hosts, h)
			}
		}
	}
	value := func(i int) (psWord, int, bool) {
		w := stage[i]
		if _, v, ok := strings.Cut(w.text, ":"); ok {
			return psWord{text: v, dyn: w.dyn}, i, true
		}
		if i+1 < len(stage) && !stage[i+1].block {
			return stage[i+1], i + 1, true
		}
		return psWord{}, i, false
	}
	positional := psWord{}
	for i := 1; i < len(stage); i++ {
		w := stage[i]
		switch {
		case w.block:
		case psAnyParam(w.text, psComputerParams):
			if v, j, ok := value(i); ok {
				add(v)
				i = j
			}
		case psAnyParam(w.text, psSessionParams):
			named, unknown = true, true
			_, i, _ = value(i)
		case psAnyParam(w.text, []string{"ConnectionUri", "Uri"}):
			if v, j, ok := value(i); ok {
				i = j
				if h := uriHost(v.text); h != "" && !v.dyn {
					add(psWord{text: h})
				} else {
					named, unknown = true, true
				}
			}
		case psAnyParam(w.text, psRemotingValueParams):
			if !strings.Contains(w.text, ":") {
				i++
			}
		case len(w.text) > 1 && w.text[0] == '-' && !w.dyn:
		case positional.text == "" && !positional.dyn:
			positional = w
		}
	}
	if !named && (positional.text != "" || positional.dyn) {
		add(positional)
	}
	if !named {
		return nil
	}
	if unknown {
		// Some computers are decided at run time: the block's changes
		// have no host to checkpoint.
		at.hosts = nil
	}
	if len(at.hosts) > 0 {
		at.host = at.hosts[0]
	}
	return at
}

// psRemotingVia describes the remoting step for Via.
func psRemotingVia(cmdlet string, at *place) string {
	if len(at.hosts) == 0 {
		return cmdlet + " (computers decided at run time)"
	}
	return cmdlet + " -ComputerName " + strings.Join(at.hosts, ",")
}

// psAnyParam reports whether word is one of the parameters names.
func psAnyParam(word string, names []string) bool {
	for _, n := range names {
		if psParam(word, n) {
			return true
		}
	}
	return false
}

// uriHost returns the host of a URI such as http://web-01:5985/wsman.
func uriHost(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// isPSAssign reports whether a word is an assignment operator.
func isPSAssign(w psWord) bool {
	switch w.text {
	case "=", "+=", "-=", "*=", "/=", "%=", "??=":
		return !w.dyn
	}
	return false
}
