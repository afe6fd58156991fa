package policy

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/powershell"
)

// More ways of running code on hosts than ssh: parallel shells (pdsh,
// pssh, clush) that run one command on many hosts, Salt's remote
// execution, container and pod exec, Vagrant's machines. Like winrs and
// psexec, the policy reads them itself: the code is judged where it runs,
// read-only code passing and anything else protecting those hosts; the
// commands' own rules see the hosts through the "host" target.
//
// Code in a container or a pod runs on the machine of its daemon: on this
// machine for the local Docker, Podman or containerd, and in a cluster for
// Kubernetes. A container or a pod is not a VM that Zerto protects (see
// docs/catalog.md), so that code is judged as code running here: whatever
// it reaches (ssh, govc, az) is judged as it would be from here. A Docker
// or Podman daemon on another host (-H ssh://web-01, DOCKER_HOST) runs
// its containers on that host, a VM: their code is judged as code on that
// host, and a command that changes its containers protects it. A
// Kubernetes node debugged with kubectl debug node/NAME is a host too.

// maxExpandedHosts bounds the hosts a host list expands to ("web[01-99]");
// a longer list is taken to name hosts known only at run time.
const maxExpandedHosts = 64

// hostList expands a pdsh or ClusterShell host list: hosts separated by
// commas, each with ranges in brackets ("web[01-03,07]", "rack[1-2]-n[1-2]").
// It reports false for a list it cannot expand or that names hosts read
// elsewhere (a file, a group, an exclusion).
func hostList(list string) ([]string, bool) {
	var hosts []string
	for _, item := range splitOutside(list, ',') {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
			continue
		case strings.ContainsAny(item, "^@!&*?$`() \t") || item == "-":
			return nil, false
		}
		expanded, ok := expandRanges(stripUser(item))
		if !ok || len(hosts)+len(expanded) > maxExpandedHosts {
			return nil, false
		}
		hosts = append(hosts, expanded...)
	}
	return hosts, len(hosts) > 0
}

// splitOutside splits s at sep where sep is outside brackets.
func splitOutside(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// expandRanges expands the bracketed ranges of one host pattern.
func expandRanges(pattern string) ([]string, bool) {
	open := strings.IndexByte(pattern, '[')
	if open < 0 {
		return []string{pattern}, !strings.Contains(pattern, "]")
	}
	end := strings.IndexByte(pattern[open:], ']')
	if end < 0 {
		return nil, false
	}
	end += open
	prefix, body, suffix := pattern[:open], pattern[open+1:end], pattern[end+1:]
	var values []string
	for part := range strings.SplitSeq(body, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			values = append(values, part)
			continue
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || b < a || b-a >= maxExpandedHosts {
			return nil, false
		}
		for n := a; n <= b; n++ {
			v := strconv.Itoa(n)
			for len(v) < len(lo) {
				v = "0" + v // zero padding follows the lower bound
			}
			values = append(values, v)
		}
		if len(values) > maxExpandedHosts {
			return nil, false
		}
	}
	rest, ok := expandRanges(suffix)
	if !ok || len(values)*len(rest) > maxExpandedHosts {
		return nil, false
	}
	var out []string
	for _, v := range values {
		for _, r := range rest {
			out = append(out, prefix+v+r)
		}
	}
	return out, true
}

// argvLine joins the words from i on into a command line that parses back
// into the same words, for a program run with them as its argv (docker
// exec, kubectl exec).
func argvLine(s *subject, from int) string {
	words := make([]string, 0, len(s.args)-from)
	for i := from; i < len(s.args); i++ {
		if s.dynamic(i) {
			words = append(words, s.args[i])
		} else {
			words = append(words, shellQuote(s.args[i]))
		}
	}
	return strings.Join(words, " ")
}

// wordsAfterOptions returns the index of the first positional word of s
// from i on, skipping options and the values of those in valued; a "--"
// ends the options.
func wordsAfterOptions(s *subject, i int, valued map[string]bool) int {
	for ; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			return i
		}
		switch {
		case a == "--":
			return i + 1
		case isOption(a):
			name, _, hasVal := strings.Cut(a, "=")
			if valued[name] && !hasVal {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// pdshValues are the options of pdsh, pssh and clush that take a value.
var pdshValues = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-w": true, "-x": true, "-g": true, "-X": true, "-R": true, "-l": true, "-u": true, "-f": true,
		"-t": true, "-h": true, "-H": true, "-p": true, "-o": true, "-e": true, "-O": true, "-F": true,
		"-E": true, "--hosts": true, "--host": true, "--user": true, "--par": true, "--outdir": true,
		"--errdir": true, "--timeout": true, "--option": true, "--extra-args": true, "--extra-arg": true,
		"--nodes": true, "--exclude": true, "--group": true, "--fanout": true, "--options": true,
		"--dest": true, "--worker": true, "--topology": true, "--pick": true,
	}
})

// pdshReach reads pdsh -w HOSTS CMD, pssh -H HOST CMD and clush -w NODES
// CMD: CMD runs on each host. A host file (-h, ^file, WCOLL), a group
// (-g, @group, -a) or an expression the analysis cannot expand names
// hosts known only at run time.
func pdshReach(s *subject, name string) (reach, bool) {
	r := reach{family: parallelFamily}
	hostFlags := []string{"-w"}
	switch {
	case name == "clush":
		hostFlags = []string{"-w", "--nodes"}
	case strings.HasPrefix(name, "parallel-") || name[0] == 'p' && name != "pdsh" && name != "pdcp":
		// pssh and its tools: pscp.pssh, pslurp, prsync, pnuke.
		hostFlags = []string{"-H", "--host"}
	}
	given := false
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			if i > 0 && slices.Contains(hostFlags, s.args[i-1]) {
				r.unknown = true
			}
			continue
		}
		opt, val, hasVal := strings.Cut(a, "=")
		switch {
		case slices.Contains(hostFlags, opt):
			if !hasVal {
				if i+1 >= len(s.args) {
					continue
				}
				i++
				if s.dynamic(i) {
					r.unknown, given = true, true
					continue
				}
				val = s.args[i]
			}
			given = true
			for _, list := range strings.Fields(val) {
				hosts, ok := hostList(list)
				r.unknown = r.unknown || !ok
				for _, h := range hosts {
					r.hosts = addUnique(r.hosts, h)
				}
			}
		case opt == "-h" || opt == "--hosts" || opt == "-g" || opt == "--group" || opt == "-a" || opt == "--all":
			given, r.unknown = true, true
			if !hasVal && opt != "-a" && opt != "--all" {
				i++
			}
		case pdshValues()[opt] && !hasVal:
			i++
		}
	}
	if !given {
		// pdsh reads WCOLL, pssh and clush their defaults.
		r.unknown = true
	}
	if r.unknown {
		r.hosts = nil
	}
	r.via = name + " " + strings.Join(r.hosts, ",")
	if name == "pdcp" || name == "rpdcp" || name == "pscp" || name == "pscp.pssh" || name == "parallel-scp" ||
		name == "pslurp" || name == "parallel-slurp" || name == "prsync" || name == "parallel-rsync" ||
		name == "pnuke" || name == "parallel-nuke" || slices.Contains(s.args, "--copy") || slices.Contains(s.args, "--rcopy") {
		return r, true
	}
	if cmd := wordsAfterOptions(s, 0, pdshValues()); cmd < len(s.args) {
		r.code, r.known = codeOf(s, cmd), true
	}
	return r, true
}

// parallelFamily is the family of the parallel shells.
const parallelFamily = "parallel"

// saltValues are the options of salt and salt-ssh that take a value.
var saltValues = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-t": true, "--timeout": true, "--out": true, "--output": true, "--out-file": true, "-b": true,
		"--batch": true, "--batch-size": true, "--return": true, "-c": true, "--config-dir": true,
		"-l": true, "--log-level": true, "--out-indent": true, "--state-output": true, "--args-separator": true,
		"-u": true, "--user": true, "--roster": true, "--roster-file": true, "--priv": true, "--passwd": true,
		"--extra-filerefs": true, "--saltfile": true, "--log-file": true, "--timeout-dcc": true,
	}
})

// saltTargets are salt's options that choose minions by something other
// than their names: a regular expression, grains, pillar, a node group, a
// compound expression, a subnet, a range.
var saltTargets = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-E": true, "--pcre": true, "-G": true, "--grain": true, "-P": true, "--grain-pcre": true,
		"-I": true, "--pillar": true, "-J": true, "--pillar-pcre": true, "-N": true, "--nodegroup": true,
		"-C": true, "--compound": true, "-S": true, "--ipcidr": true, "-R": true, "--range": true,
	}
})

// saltCode are Salt's execution functions whose first argument is a
// command run by a shell on the minion (PowerShell for cmd.powershell).
var saltCode = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"cmd.run": true, "cmd.run_all": true, "cmd.run_stdout": true, "cmd.run_stderr": true,
		"cmd.run_bg": true, "cmd.shell": true, "cmd.retcode": true, "cmd.run_chroot": true,
		"cmd.powershell": true, "cmd.powershell_all": true,
	}
})

// saltReach reads salt [options] TARGET FUNCTION [ARGS...] and salt-ssh:
// the minions are TARGET (a list with -L; a glob, or another kind of
// target, names minions known only at run time), and a cmd.run command,
// or salt-ssh -r's raw command, runs on each. salt-call runs its function
// here.
func saltReach(s *subject, name string) (reach, bool) {
	r := reach{family: "salt", via: name}
	list, raw := false, false
	// Options may come anywhere among the positional words.
	var pos []int
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) || !isOption(a) {
			pos = append(pos, i)
			continue
		}
		opt, _, hasVal := strings.Cut(a, "=")
		switch {
		case opt == "-L" || opt == "--list":
			list = true
		case opt == "-r" || opt == "--raw" || opt == "--raw-shell":
			raw = true
		case saltTargets()[opt]:
			r.unknown = true
		case saltValues()[opt] && !hasVal:
			i++
		}
	}
	next := 0
	if name == "salt-call" {
		r.here = true
	} else {
		if len(pos) == 0 {
			return reach{}, false
		}
		i := pos[0]
		next = 1
		switch t := s.args[i]; {
		case s.dynamic(i) || r.unknown:
			r.unknown = true
		case list:
			for h := range strings.SplitSeq(t, ",") {
				if h = strings.TrimSpace(h); h != "" {
					r.hosts = addUnique(r.hosts, h)
				}
			}
		case strings.ContainsAny(t, "*?[]"):
			r.unknown = true
		default:
			r.hosts = []string{t}
		}
		if r.unknown {
			r.hosts = nil
		}
		r.via = name + " " + strings.Join(r.hosts, ",")
	}
	pos = pos[next:]
	if raw && name == "salt-ssh" {
		if len(pos) > 0 {
			r.code, r.known = codeOf(s, pos[0]), true
		}
		return r, true
	}
	if len(pos) == 0 || s.dynamic(pos[0]) || !saltCode()[s.args[pos[0]]] {
		return r, true
	}
	fn := s.args[pos[0]]
	for _, j := range pos[1:] {
		a := s.args[j]
		if s.dynamic(j) {
			return r, true // a command known only at run time: not read
		}
		if v, ok := strings.CutPrefix(a, "cmd="); ok {
			a = v
		} else if k, _, ok := strings.Cut(a, "="); ok && validKwarg(k) {
			continue
		}
		r.code, r.known, r.ps = a, true, strings.HasPrefix(fn, "cmd.powershell")
		break
	}
	return r, true
}

// validKwarg reports whether k is a Salt keyword argument's name.
func validKwarg(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// containerFamily is the family of container and pod exec.
const containerFamily = "containers"

// dockerValues are the global options of docker and podman that take a
// value, and of their exec and run subcommands.
var dockerValues = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-H": true, "--host": true, "-c": true, "--context": true, "--config": true, "-l": true,
		"--log-level": true, "--tlscacert": true, "--tlscert": true, "--tlskey": true, "--url": true,
		"--connection": true, "--identity": true, "--root": true, "--runroot": true,
		"--storage-driver": true, "--namespace": true, "-n": true, "--address": true, "-a": true,
		"-e": true, "--env": true, "--env-file": true, "-u": true, "--user": true, "-w": true,
		"--workdir": true, "--detach-keys": true, "--name": true, "-v": true, "--volume": true,
		"-p": true, "--publish": true, "--network": true, "--entrypoint": true, "--mount": true,
		"--platform": true, "--hostname": true, "--label": true, "--cpus": true, "--memory": true,
		"-m": true, "--restart": true, "--pull": true, "--device": true, "--cap-add": true,
		"--cap-drop": true, "--security-opt": true, "--ulimit": true, "--add-host": true,
		"--dns": true, "--log-driver": true, "--log-opt": true, "--gpus": true, "--runtime": true,
		"--pid": true, "--ipc": true, "--uts": true, "--userns": true, "--cgroupns": true,
		"--shm-size": true, "--tmpfs": true, "--health-cmd": true, "--stop-signal": true,
		"--index": true, "-f": true, "--file": true, "--project-name": true, "--profile": true,
	}
})

// daemonHost returns the host of a Docker or Podman daemon address:
// ssh://[user@]host[:port], tcp://host:port, host:port. A local socket
// (unix://, npipe://) is no host (not ok); a URI whose host cannot be
// read for certain names one unknown ("").
func daemonHost(addr string) (string, bool) {
	switch {
	case strings.HasPrefix(addr, "unix://"), strings.HasPrefix(addr, "npipe://"), strings.HasPrefix(addr, "fd://"):
		return "", false
	case strings.Contains(addr, "://"):
		return powershell.URIHost(addr), true
	}
	return stripPort(stripUser(addr)), addr != ""
}

// setDaemon sets the host of the daemon at addr (see daemonHost): none
// for a local socket, unknown for a host that cannot be read.
func (r *reach) setDaemon(addr string) {
	switch h, ok := daemonHost(addr); {
	case !ok:
		r.hosts = nil
	case h == "":
		r.unknown = true
	default:
		r.hosts = []string{h}
	}
}

// dockerReach reads docker, podman and nerdctl: the daemon they talk to
// (-H, --host, --url, DOCKER_HOST, CONTAINER_HOST; --context and
// --connection name one known only at run time), and the command of exec
// and run, which runs in a container on that daemon's host.
func dockerReach(s *subject, name string) (reach, bool) {
	r := reach{family: containerFamily}
	for _, e := range s.env {
		k, v, _ := strings.Cut(e, "=")
		switch k {
		case "DOCKER_HOST", "CONTAINER_HOST":
			if _, ok := daemonHost(v); !ok && runTimeHost(v) {
				r.unknown = true
			} else {
				r.setDaemon(v)
			}
		case "DOCKER_CONTEXT":
			r.unknown = true
		}
	}
	i := 0
	for ; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			if i > 0 && dockerValues()[s.args[i-1]] {
				r.unknown = true
				continue
			}
			break
		}
		if !isOption(a) {
			break
		}
		opt, val, hasVal := strings.Cut(a, "=")
		if dockerValues()[opt] && !hasVal && i+1 < len(s.args) {
			i++
			val = s.args[i]
			if s.dynamic(i) && opt != "-l" && opt != "--log-level" {
				r.unknown = true
				continue
			}
		}
		switch opt {
		case "-H", "--host", "--url":
			r.setDaemon(val)
		case "-c", "--context", "--connection":
			r.unknown = true
		case "-r", "--remote":
			if name == "podman" {
				r.unknown = true
			}
		}
	}
	if r.unknown {
		r.hosts = nil
	}
	r.here = len(r.hosts) == 0 && !r.unknown
	where := "here"
	if !r.here {
		where = strings.Join(r.hosts, ",")
	}
	if i >= len(s.args) || s.dynamic(i) {
		r.via = name + " " + where
		return r, true
	}
	sub := s.args[i]
	if sub == "compose" || sub == "container" {
		i++
		if i < len(s.args) && !s.dynamic(i) {
			sub = s.args[i]
		}
	}
	r.via = name + " " + sub + " " + where
	switch sub {
	case "exec", "run":
		j := wordsAfterOptions(s, i+1, dockerValues())
		// exec CONTAINER CMD..., run IMAGE [CMD...]
		if j+1 < len(s.args) {
			r.code, r.known = argvLine(s, j+1), true
		}
	}
	return r, true
}

// kubectlValues are kubectl's options that take a value.
var kubectlValues = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-n": true, "--namespace": true, "-c": true, "--container": true, "--context": true,
		"--kubeconfig": true, "--cluster": true, "--user": true, "-s": true, "--server": true,
		"--token": true, "--as": true, "--as-group": true, "--image": true, "--profile": true,
		"--target": true, "-f": true, "--filename": true, "--pod-running-timeout": true,
		"--env": true, "--labels": true, "-l": true, "--overrides": true, "--copy-to": true,
		"--request-timeout": true, "--image-pull-policy": true, "--restart": true,
	}
})

// kubectlReach reads kubectl exec POD -- CMD and kubectl run NAME --image
// I -- CMD (code in a pod: judged as code running here) and kubectl
// debug node/NAME -- CMD (code on the node, with its filesystem).
func kubectlReach(s *subject, name string) (reach, bool) {
	pos := -1
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) {
			return reach{}, false
		}
		if isOption(a) {
			if _, _, hasVal := strings.Cut(a, "="); kubectlValues()[a] && !hasVal {
				i++
			}
			continue
		}
		pos = i
		break
	}
	if pos < 0 {
		return reach{}, false
	}
	sub := s.args[pos]
	if sub != "exec" && sub != "run" && sub != "debug" {
		return reach{}, false
	}
	r := reach{family: containerFamily, here: true, via: name + " " + sub}
	target := wordsAfterOptions(s, pos+1, kubectlValues())
	if sub == "debug" && target < len(s.args) {
		if node, ok := strings.CutPrefix(s.args[target], "node/"); ok {
			r.here = false
			if s.dynamic(target) {
				r.unknown = true
			} else {
				r.hosts = []string{node}
			}
			r.via = name + " debug node/" + node
		}
	}
	dash := slices.Index(s.args, "--")
	if dash >= 0 && dash+1 < len(s.args) {
		r.code, r.known = argvLine(s, dash+1), true
	} else if sub == "exec" && target+1 < len(s.args) {
		// The old form without "--": exec POD CMD...
		r.code, r.known = argvLine(s, target+1), true
	}
	return r, true
}

// lxcReach reads lxc exec [REMOTE:]INSTANCE [--] CMD and incus exec: an
// instance is a machine, and CMD runs on it; lxc shell INSTANCE is a
// session on it.
func lxcReach(s *subject, name string) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 2 || s.dynamic(pos[0]) {
		return reach{}, false
	}
	sub := s.args[pos[0]]
	if sub != "exec" && sub != "shell" && sub != "console" {
		return reach{}, false
	}
	r := reach{family: containerFamily}
	inst := pos[1]
	if s.dynamic(inst) {
		r.unknown = true
	} else {
		h := s.args[inst]
		if _, after, ok := strings.Cut(h, ":"); ok {
			h = after
		}
		r.hosts = []string{h}
	}
	r.via = name + " " + sub + " " + strings.Join(r.hosts, ",")
	if sub == "exec" && len(pos) > 2 {
		r.code, r.known = argvLine(s, pos[2]), true
	}
	return r, true
}

// vagrantReach reads vagrant ssh [NAME] [-c CMD] and vagrant winrm and
// powershell -c CMD: the command runs on the machine NAME (the only or
// primary machine when none is named, which the Vagrantfile decides).
func vagrantReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 1 || s.dynamic(pos[0]) {
		return reach{}, false
	}
	sub := s.args[pos[0]]
	if sub != "ssh" && sub != "winrm" && sub != "powershell" {
		return reach{}, false
	}
	r := reach{family: "vagrant"}
	if len(pos) > 1 && !s.dynamic(pos[1]) {
		r.hosts = []string{s.args[pos[1]]}
	} else {
		r.unknown = true
	}
	r.via = "vagrant " + sub + " " + strings.Join(r.hosts, ",")
	vals, dyn, found := flagWords(s, "-c", false)
	if !found {
		vals, dyn, found = flagWords(s, "--command", false)
	}
	if found && !dyn && len(vals) > 0 {
		r.code, r.known, r.ps = vals[0], true, sub == "powershell"
	}
	return r, true
}
