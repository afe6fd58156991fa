package policy

import (
	"encoding/base64"
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
	text string
	dyn  bool // holds a variable or subexpression
}

// psPipelines splits PowerShell code into pipelines of commands, each a
// list of words. Statements end at newlines, ';', '&&', '||' and at
// brackets, so that the commands inside script blocks and subexpressions
// stand on their own.
func psPipelines(code string) [][][]psWord {
	var (
		out      [][][]psWord
		pipeline [][]psWord
		stage    []psWord
		word     strings.Builder
		inWord   bool
		dyn      bool
	)
	endWord := func() {
		if inWord {
			w := psWord{text: word.String(), dyn: dyn}
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
		case c == '\n' || c == ';' || c == '{' || c == '}' || c == '(' || c == ')':
			endStatement()
		case c == '|' || c == '&':
			if i+1 < len(code) && code[i+1] == c {
				i++
				endStatement()
			} else if c == '|' {
				endStage()
			} else {
				endWord() // the call operator
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

// cmdletSubjects turns the PowerShell code of a pwsh invocation into
// subjects. A cmdlet that takes its VM from the pipeline (Get-VM web-01 |
// Stop-VM) gets the VM named upstream as its -VM argument, so that rules
// find it where they look.
func cmdletSubjects(inv *shell.Invocation, host string, remote bool) (subs []subject, dynamic bool, ok bool) {
	code, dynamic, ok := psCode(inv)
	if !ok {
		return nil, dynamic, false
	}
	via := append(append([]string(nil), inv.Via...), inv.Name+" -Command")
	subs, d := psSubjects(code, host, remote, via, 0)
	return subs, dynamic || d, true
}

// maxPSDepth bounds how deep Invoke-Expression code is read again.
const maxPSDepth = 8

// psSubjects reads the subjects of PowerShell code. The code of
// Invoke-Expression (iex) is read as code too.
func psSubjects(code, host string, remote bool, via []string, depth int) (subs []subject, dynamic bool) {
	for _, pipeline := range psPipelines(code) {
		var carried []psWord
		for _, stage := range pipeline {
			// The dot-source operator runs the command as & does.
			if stage[0].text == "." && !stage[0].dyn && len(stage) > 1 {
				stage = stage[1:]
			}
			// A module-qualified name: VMware.VimAutomation.Core\Stop-VM.
			if i := strings.LastIndexByte(stage[0].text, '\\'); i >= 0 && i < len(stage[0].text)-1 && !stage[0].dyn {
				stage[0].text = stage[0].text[i+1:]
			}
			if stage[0].dyn {
				dynamic = true
				continue
			}
			if isInvokeExpression(stage[0].text) {
				inner, ok := psExpression(stage)
				if !ok || depth >= maxPSDepth {
					dynamic = true
					continue
				}
				more, d := psSubjects(inner, host, remote, append(via[:len(via):len(via)], "Invoke-Expression"), depth+1)
				subs = append(subs, more...)
				dynamic = dynamic || d
				carried = nil
				continue
			}
			s := subject{name: stage[0].text, host: host, remote: remote, ps: true, via: via}
			hasVM := false
			for _, w := range stage[1:] {
				s.args = append(s.args, w.text)
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
		}
	}
	return subs, dynamic
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
