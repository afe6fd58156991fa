package policy

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/powershell"
	"github.com/rewind-dev/rewind/shell"
)

// Some commands run code on other hosts: winrs and psexec on Windows
// hosts, gcloud compute ssh, az vm run-command and aws ssm send-command on
// cloud VMs. The shell analysis knows ssh; these the policy reads itself,
// so that the code is judged like ssh's remote command: read-only code
// needs no checkpoint, anything else protects the hosts it runs on. The
// command's own rules see the hosts through the "host" target, and a rule
// with analysed = true applies when the code was read.

// reach is what a command hands to other hosts.
type reach struct {
	// family is the catalog family the command belongs to; a disabled
	// family's commands are not read.
	family string
	// hosts are the hosts the code runs on, as written; unknown tells
	// that some are decided at run time or read from a file.
	hosts   []string
	unknown bool
	// here is set for code that runs where the command runs: cmd /c,
	// and winrs or psexec without a host.
	here bool
	// known is set when the code was read; ps when it is PowerShell,
	// cmd when it is a line cmd.exe runs, argv when it is a Windows
	// command line of a program (see cmdScript).
	code  string
	known bool
	ps    bool
	cmd   bool
	argv  bool
	// via names the step, as in Match.Via.
	via string
}

// maxReachDepth bounds how deep handed-on code is read again.
const maxReachDepth = 8

// maxReachReads bounds the pieces of code handed on that one call reads
// (the code of winrs, cmd /c, docker exec... and the readings of remote
// commands as cmd.exe and PowerShell), nested ones included: each is
// analysed on its own, so that thousands of lines of them would cost
// seconds. Past it, such code is past a limit, and asked about.
const maxReachReads = 4096

// read counts a piece of code handed on that the call reads, and reports
// false past maxReachReads, and whether this is the first piece past it:
// the one reported as past a limit, which asks about the call; the others
// add nothing to that answer.
func (w *walk) read() (ok, first bool) {
	if w.reads == nil {
		w.reads = new(int)
	}
	*w.reads++
	return *w.reads <= maxReachReads, *w.reads == maxReachReads+1
}

// reachOf reads the hosts and code of a command that runs code elsewhere.
func reachOf(s *subject) (reach, bool) {
	if s.ps {
		return reach{}, false
	}
	name := windowsName(s.name)
	if r, ok := moreReach(s, name); ok {
		return r, true
	}
	switch name {
	case "winrs":
		return winrsReach(s)
	case "psexec", "psexec64":
		return psexecReach(s)
	case "cmd":
		return cmdReach(s)
	case "gcloud":
		return gcloudReach(s)
	case "az":
		return azReach(s)
	case "aws":
		return awsReach(s)
	case "pdsh", "pdcp", "rpdcp", "pssh", "parallel-ssh", "pscp", "pscp.pssh", "parallel-scp", "pslurp",
		"parallel-slurp", "prsync", "parallel-rsync", "pnuke", "parallel-nuke", "clush":
		return pdshReach(s, name)
	case "salt", "salt-ssh", "salt-call":
		return saltReach(s, name)
	case "docker", "podman", "nerdctl", "docker-compose", "podman-compose":
		return dockerReach(s, name)
	case "kubectl", "oc":
		return kubectlReach(s, name)
	case "lxc", "incus":
		return lxcReach(s, name)
	case "vagrant":
		return vagrantReach(s)
	}
	if impacketTools()[strings.TrimPrefix(strings.TrimSuffix(name, ".py"), "impacket-")] {
		return impacketReach(s)
	}
	return reach{}, false
}

// windowsName returns the name a Windows program is known by: lower case,
// without ".exe" (PsExec64.exe is psexec64), so that rules name it once.
func windowsName(name string) string {
	lower := strings.ToLower(name)
	return strings.TrimSuffix(lower, ".exe")
}

// isWindowsProgram reports whether name is one of the Windows programs
// whose name rules see in its canonical form.
func isWindowsProgram(name string) bool {
	switch windowsName(name) {
	case "winrs", "psexec", "psexec64", "cmd", "pwsh", "powershell":
		return true
	}
	return false
}

// codeOf joins the words from i on into the command line they make, as
// ssh, Impacket and gcloud compute ssh pass them on: the other side
// parses the line again. A word decided at run time keeps its source
// text, which the shell analysis then reads as such.
func codeOf(s *subject, from int) string {
	return strings.Join(s.args[from:], " ")
}

// lineOf is codeOf for Windows programs (winrs, psexec, cmd), which get
// one command line: the words joined as Windows joins a program's
// arguments, a word that holds a blank in double quotes. A single word is
// the whole line, as cmd /c "a b" runs a b.
func lineOf(s *subject, from int) string {
	if from == len(s.args)-1 {
		return s.args[from]
	}
	words := make([]string, 0, len(s.args)-from)
	for i := from; i < len(s.args); i++ {
		a := s.args[i]
		if !s.dynamic(i) && (a == "" || strings.ContainsAny(a, " \t")) {
			a = `"` + strings.ReplaceAll(a, `"`, `\"`) + `"`
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// winrsReach reads winrs -r:HOST [options] COMMAND: the command runs on
// HOST through WinRM (without -r, on this machine). Options start with -
// or / and carry their value after a colon. An option decided at run time
// may be -r: the host is then unknown.
func winrsReach(s *subject) (reach, bool) {
	r := reach{family: "winrm"}
	cmd := -1
	for i, a := range s.args {
		if s.dynamic(i) {
			if t := strings.TrimLeft(a, `"'`); t != "" && (t[0] == '-' || t[0] == '/') {
				r.unknown = true
				continue
			}
		}
		if !s.dynamic(i) && len(a) > 1 && (a[0] == '-' || a[0] == '/') {
			if isWinrsRemote(a) {
				_, v, _ := strings.Cut(a, ":")
				if strings.Contains(v, "://") {
					// A URI whose host cannot be read for certain
					// names a host unknown.
					v = powershell.URIHost(v)
					r.unknown = r.unknown || v == ""
				} else {
					v = stripPort(v)
				}
				if v != "" {
					r.hosts = addUnique(r.hosts, v)
				}
			}
			continue
		}
		cmd = i
		break
	}
	if r.unknown {
		r.hosts = nil
	}
	r.here = len(r.hosts) == 0 && !r.unknown
	if cmd >= 0 {
		// winrs runs the line with cmd.exe on the host.
		r.code, r.known, r.cmd = lineOf(s, cmd), true, true
	}
	r.via = "winrs -r:" + strings.Join(r.hosts, ",")
	return r, true
}

func isWinrsRemote(a string) bool {
	opt, _, ok := strings.Cut(strings.ToLower(a[1:]), ":")
	return ok && (opt == "r" || opt == "remote")
}

// psexecValueOpts are the Sysinternals PsExec options that take a value.
var psexecValueOpts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"-u": true, "-p": true, "-n": true, "-r": true, "-w": true, "-a": true}
})

// psexecReach reads PsExec \\HOST[,HOST...] [options] COMMAND (without a
// host, on this machine). The shell may leave one backslash ("\\host"
// unquoted) or two; @file, \\* and a first word decided at run time name
// computers known only at run time.
func psexecReach(s *subject) (reach, bool) {
	r := reach{family: "psexec"}
	i := 0
	for ; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			t := strings.TrimLeft(a, `"'`)
			if i == 0 || strings.HasPrefix(t, `\`) || strings.HasPrefix(t, "//") {
				r.unknown = true
				continue
			}
			break
		}
		switch {
		case strings.HasPrefix(a, `\`) || strings.HasPrefix(a, "//"):
			for h := range strings.SplitSeq(strings.TrimLeft(a, `\/`), ",") {
				switch {
				case h == "*":
					r.unknown = true
				case h != "":
					r.hosts = addUnique(r.hosts, h)
				}
			}
			continue
		case i == 0 && strings.HasPrefix(a, "@"):
			r.unknown = true
			continue
		case psexecValueOpts()[strings.ToLower(a)]:
			i++
			continue
		case strings.ToLower(a) == "-i" && i+1 < len(s.args) && isDigits(s.args[i+1]):
			i++
			continue
		case len(a) > 1 && a[0] == '-':
			continue
		}
		break
	}
	if r.unknown {
		r.hosts = nil
	}
	r.here = len(r.hosts) == 0 && !r.unknown
	if i < len(s.args) {
		// PsExec starts the program with the rest of the line.
		r.code, r.known, r.argv = lineOf(s, i), true, true
	}
	r.via = `psexec \\` + strings.Join(r.hosts, ",")
	return r, true
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// impacketTools are Impacket's remote-execution scripts, run as
// psexec.py or impacket-psexec.
var impacketTools = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"psexec": true, "wmiexec": true, "smbexec": true, "atexec": true, "dcomexec": true}
})

// impacketValueOpts are the options of Impacket's exec scripts that take a
// value.
var impacketValueOpts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-hashes": true, "-dc-ip": true, "-target-ip": true, "-port": true, "-codec": true,
		"-aesKey": true, "-keytab": true, "-service-name": true, "-remote-binary-name": true,
		"-file": true, "-share": true, "-shell-type": true, "-com-version": true,
		"-object": true, "-session-id": true,
	}
})

// impacketReach reads Impacket's psexec.py [options] [[domain/]user[:pass]@]HOST [COMMAND...].
func impacketReach(s *subject) (reach, bool) {
	r := reach{family: "psexec"}
	target := -1
	ps := false
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if !s.dynamic(i) && len(a) > 1 && a[0] == '-' {
			if a == "-shell-type" && i+1 < len(s.args) && strings.EqualFold(s.args[i+1], "powershell") {
				ps = true
			}
			if impacketValueOpts()[a] {
				i++
			}
			continue
		}
		target = i
		break
	}
	if target < 0 {
		return reach{}, false
	}
	if s.dynamic(target) {
		r.unknown = true
	} else if h := stripUser(s.args[target]); h != "" {
		r.hosts = []string{h}
	}
	if target+1 < len(s.args) {
		// Impacket runs the command with cmd.exe /c, or PowerShell.
		r.code = codeOf(s, target+1)
		r.known = true
		r.ps, r.cmd = ps, !ps
	}
	r.via = s.name + " " + strings.Join(r.hosts, ",")
	return r, true
}

// cmdReach reads cmd /c COMMAND and cmd /k COMMAND: code that runs where
// cmd runs.
func cmdReach(s *subject) (reach, bool) {
	for i, a := range s.args {
		if s.dynamic(i) {
			return reach{}, false
		}
		switch strings.ToLower(a) {
		case "/c", "/k", "/r":
			if i+1 >= len(s.args) {
				return reach{}, false
			}
			code := lineOf(s, i+1)
			return reach{family: remoteFamily, here: true, code: code, known: true, cmd: true, via: "cmd " + a}, true
		}
		if !strings.HasPrefix(a, "/") {
			return reach{}, false
		}
	}
	return reach{}, false
}

// subjectPositionals returns the positional words of s, with the
// command's known value options skipped.
func subjectPositionals(s *subject) []int {
	return anyRule.positionals(s)
}

// anyRule is a rule with no options of its own, for reading a subject's
// positional words as every such rule does.
var anyRule = &commandRule{src: &CommandRule{}}

// gcloudReach reads gcloud compute ssh [user@]INSTANCE [--command CMD]
// [-- SSH-ARGS... [COMMAND]] (dropReleaseTrack has removed alpha or beta).
func gcloudReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 3 || s.dynamic(pos[0]) || s.dynamic(pos[1]) || s.args[pos[0]] != "compute" || s.args[pos[1]] != "ssh" {
		return reach{}, false
	}
	r := reach{family: "gcloud"}
	dest := pos[2]
	if s.dynamic(dest) {
		r.unknown = true
	} else if h := hostOf(s.args[dest]); h != "" {
		r.hosts = []string{h}
	}
	r.via = "gcloud compute ssh " + strings.Join(r.hosts, ",")
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			continue
		}
		switch {
		case a == "--command" && i+1 < len(s.args):
			r.code, r.known = s.args[i+1], true
			return r, true
		case strings.HasPrefix(a, "--command="):
			r.code, r.known = strings.TrimPrefix(a, "--command="), true
			return r, true
		case a == "--":
			// What follows is ssh's: its options, then the command.
			j := i + 1
			for j < len(s.args) && isOption(s.args[j]) && !s.dynamic(j) {
				if strings.Contains("bcDEeFIiJLlmOoPpQRSWw", s.args[j][1:]) && len(s.args[j]) == 2 {
					j++
				}
				j++
			}
			if j < len(s.args) {
				r.code = codeOf(s, j)
				r.known = true
			}
			return r, true
		}
	}
	return r, true
}

// flagWords returns the words option name takes: one word, or with
// several every word up to the next option ("--scripts A B"). found tells
// whether the option was given; dyn whether a value is decided at run time.
func flagWords(s *subject, name string, several bool) (vals []string, dyn, found bool) {
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			continue
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			vals, found = append(vals, v), true
			continue
		}
		if a != name {
			continue
		}
		found = true
		for j := i + 1; j < len(s.args); j++ {
			if !s.dynamic(j) && isOption(s.args[j]) {
				break
			}
			i = j
			if s.dynamic(j) {
				dyn = true
			} else {
				vals = append(vals, s.args[j])
			}
			if !several {
				break
			}
		}
	}
	return vals, dyn, found
}

// azReach reads az vm run-command invoke|create|update: the script
// (--scripts, or --script for a managed run command) runs on the VM named
// by --vm-name, -n/--name (invoke) or --ids.
func azReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 3 || s.args[pos[0]] != "vm" || s.args[pos[1]] != "run-command" {
		return reach{}, false
	}
	verb := s.args[pos[2]]
	if verb != "invoke" && verb != "create" && verb != "update" {
		return reach{}, false
	}
	r := reach{family: "azure"}
	names := []string{"--vm-name"}
	if verb == "invoke" {
		names = append(names, "--name", "-n")
	}
	for _, n := range names {
		vals, dyn, found := flagWords(s, n, false)
		if found {
			r.hosts, r.unknown = vals, dyn
			break
		}
	}
	if ids, dyn, found := flagWords(s, "--ids", true); found && len(r.hosts) == 0 {
		for _, id := range ids {
			r.hosts = addUnique(r.hosts, resourceName(id))
		}
		r.unknown = r.unknown || dyn
	}
	if len(r.hosts) == 0 && !r.unknown {
		return reach{}, false
	}
	r.via = "az vm run-command " + verb + " " + strings.Join(r.hosts, ",")
	scripts, dyn, found := flagWords(s, "--scripts", true)
	if !found {
		scripts, dyn, found = flagWords(s, "--script", false)
	}
	if !found || dyn {
		return r, true
	}
	for _, sc := range scripts {
		if strings.HasPrefix(sc, "@") {
			return r, true // a script file: not read
		}
	}
	ids, _, _ := flagWords(s, "--command-id", false)
	if len(ids) > 0 && !strings.EqualFold(ids[0], "RunShellScript") && !strings.EqualFold(ids[0], "RunPowerShellScript") {
		return r, true // another command document: not code we read
	}
	r.ps = len(ids) > 0 && strings.EqualFold(ids[0], "RunPowerShellScript")
	r.code, r.known = strings.Join(scripts, "\n"), true
	return r, true
}

// awsReach reads aws ssm send-command: with the AWS-RunShellScript or
// AWS-RunPowerShellScript document its --parameters commands run on the
// instances in --instance-ids or --targets Key=InstanceIds,Values=....
func awsReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 2 || s.args[pos[0]] != "ssm" || s.args[pos[1]] != "send-command" {
		return reach{}, false
	}
	r := reach{family: "aws"}
	if ids, dyn, found := flagWords(s, "--instance-ids", true); found {
		for _, id := range ids {
			for part := range strings.FieldsFuncSeq(id, func(c rune) bool { return strings.ContainsRune(`,[]" `, c) }) {
				r.hosts = addUnique(r.hosts, resourceName(part))
			}
		}
		r.unknown = dyn
	}
	if targets, dyn, found := flagWords(s, "--targets", true); found {
		hosts, ok := ssmTargets(targets)
		r.hosts = append(r.hosts, hosts...)
		r.unknown = r.unknown || dyn || !ok
	}
	if len(r.hosts) == 0 {
		r.unknown = true
	}
	r.via = "aws ssm send-command " + strings.Join(r.hosts, ",")
	docs, _, _ := flagWords(s, "--document-name", false)
	if len(docs) == 0 {
		return r, true
	}
	switch docs[0] {
	case "AWS-RunShellScript":
	case "AWS-RunPowerShellScript":
		r.ps = true
	default:
		return r, true
	}
	params, dyn, found := flagWords(s, "--parameters", false)
	if !found || dyn || len(params) == 0 {
		return r, true
	}
	if cmds, ok := ssmCommands(params[0]); ok {
		r.code, r.known = strings.Join(cmds, "\n"), true
	}
	return r, true
}

// ssmTargets reads --targets Key=InstanceIds,Values=i-1,i-2. Targets by
// tag or resource group name instances known only at run time.
func ssmTargets(words []string) ([]string, bool) {
	var hosts []string
	ok := true
	for _, w := range words {
		key, values, found := strings.Cut(w, ",Values=")
		if !found || key != "Key=InstanceIds" && key != "Key=instanceids" {
			ok = false
			continue
		}
		for id := range strings.SplitSeq(values, ",") {
			if id != "" {
				hosts = addUnique(hosts, id)
			}
		}
	}
	return hosts, ok
}

// ssmCommands reads the commands of --parameters, in its JSON form
// {"commands":[...]} or its shorthand commands=[...] / commands=a,b.
func ssmCommands(p string) ([]string, bool) {
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "{") {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(p), &m) != nil {
			return nil, false
		}
		raw, ok := m["commands"]
		if !ok {
			return nil, false
		}
		return jsonStrings(raw)
	}
	v, ok := strings.CutPrefix(p, "commands=")
	if !ok {
		return nil, false
	}
	if cmds, ok := jsonStrings(json.RawMessage(v)); ok {
		return cmds, true
	}
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	var cmds []string
	for c := range strings.SplitSeq(v, ",") {
		cmds = append(cmds, strings.Trim(c, `"' `))
	}
	return cmds, true
}

func jsonStrings(raw json.RawMessage) ([]string, bool) {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list, true
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, true
	}
	return nil, false
}

// reachMatches judges the code a command hands to other hosts (or, for
// cmd /c, runs where it runs), in that place.
func (p *Policy) reachMatches(s *subject, r *reach, w *walk, depth int, add func(Match)) {
	cwd := w.dir
	at := place{host: s.host, hosts: s.hosts, remote: s.remote, via: append(append([]string(nil), s.via...), r.via), reads: w.reads}
	if !r.here {
		at.remote, at.host, at.hosts = true, "", nil
		if !r.unknown && len(r.hosts) > 0 {
			at.host, at.hosts = r.hosts[0], r.hosts
		}
	}
	if depth >= maxReachDepth {
		add(p.unknown(KindUnparsed, r.code, "nesting too deep", at, false))
		return
	}
	if ok, first := w.read(); !ok {
		if first {
			add(p.pastLimit(&shell.Unparsed{Text: r.code, Err: "too much code handed on to read", Limit: true}, at))
		}
		return
	}
	at.reads = w.reads
	switch {
	case r.ps:
		d := cwd
		p.judgePowerShell(r.code, at, &d, depth+1, add)
	case r.cmd:
		p.judgeCode(cmdScript(r.code), &at, cwd, depth+1, add)
	case r.argv:
		p.judgeCode(argvScript(r.code), &at, cwd, depth+1, add)
	default:
		p.judgeCode(r.code, &at, cwd, depth+1, add)
	}
}

// dropReleaseTrack removes gcloud's release track (gcloud beta compute
// ...), so that rules naming gcloud compute match its alpha and beta
// commands too. It reads the words itself rather than through the
// positionals, which are worked out once per subject: it changes them.
func dropReleaseTrack(s *subject) {
	if s.name != "gcloud" {
		return
	}
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			return
		}
		if isOption(a) {
			if takesValue(s.opts, a, false) {
				i++
			}
			continue
		}
		if a == "alpha" || a == "beta" {
			s.args = append(s.args[:i:i], s.args[i+1:]...)
			if s.dyn != nil {
				s.dyn = append(s.dyn[:i:i], s.dyn[i+1:]...)
			}
		}
		return
	}
}
