package policy

import (
	"slices"
	"strings"
	"sync"
)

// More remote shells: each runs the command it is given on a host, as ssh
// does, and without one opens a session there. The code is judged as
// commands on that host (read-only code passing, anything else protecting
// it); the family's rules protect the host of a session. Hosts picked by a
// query (Chef search, Teleport labels, an inventory file, a Bolt group)
// are known only at run time.

// moreReach reads the hosts and code of the remote shells and the
// hypervisors' exec commands below, and the HTTP clients (see
// reachhttp.go); reachOf tries it first.
func moreReach(s *subject, name string) (reach, bool) {
	switch name {
	case "tsh":
		return tshReach(s)
	case "az":
		return azSSHReach(s)
	case "bolt":
		return boltReach(s)
	case "pyinfra":
		return pyinfraReach(s)
	case "fab":
		return fabReach(s)
	case "knife":
		return knifeReach(s)
	case "rsh", "remsh", "rlogin", "rexec":
		return rshReach(s, name)
	case "expect":
		return expectReach(s)
	case "virtctl":
		return virtctlReach(s, 0, "virtctl")
	case "kubectl":
		if pos := subjectPositionals(s); len(pos) > 0 && !s.dynamic(pos[0]) && s.args[pos[0]] == "virt" {
			return virtctlReach(s, pos[0]+1, "kubectl virt")
		}
	case "prlctl":
		return prlctlReach(s)
	case "hcloud":
		return hcloudReach(s)
	case "doctl":
		return doctlReach(s)
	case "multipass":
		return multipassReach(s)
	case "openstack", "nova":
		return openstackReach(s, name)
	case "curl", "wget", "http", "https", "xh", "xhs":
		return httpReach(s, name)
	case "xe":
		return xeReach(s)
	}
	return reach{}, false
}

// subcommandAt returns the index of the first positional word of s from
// i on, skipping the options in valued with their values, and whether it
// is the word want.
func subcommandAt(s *subject, i int, valued map[string]bool, want string) (int, bool) {
	j := wordsAfterOptions(s, i, valued)
	return j, j < len(s.args) && !s.dynamic(j) && s.args[j] == want
}

// destination reads [user@]host (or ssh://user@host:port) at index i: the
// host, or unknown when it is decided at run time.
func destination(r *reach, s *subject, i int) {
	if i >= len(s.args) || s.dynamic(i) {
		r.unknown = true
		return
	}
	if h := hostOf(s.args[i]); h != "" {
		r.hosts = []string{h}
	}
}

// tshValues are the options of tsh and tsh ssh that take a value.
var tshValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-l", "--login", "--proxy", "--user", "--ttl", "-i", "--identity", "--cert-format",
		"--auth", "--bind-addr", "-J", "--jumphost", "--mfa-mode", "--piv-slot", "-p", "--port", "-L", "--forward",
		"-R", "--remote-forward", "-D", "--dynamic-forward", "--cluster", "-o", "--option", "--log-dir",
		"--request-reason", "--request-id", "--request-mode", "--search", "--query", "--callback", "--browser")
})

// tshReach reads Teleport's tsh ssh [options] [user@]host [command...]. A
// host given by labels (env=prod), --search or --query names every node
// that matches, known only at run time.
func tshReach(s *subject) (reach, bool) {
	i, ok := subcommandAt(s, 0, tshValues(), "ssh")
	if !ok {
		return reach{}, false
	}
	r := reach{family: "teleport"}
	dest := wordsAfterOptions(s, i+1, tshValues())
	if hasOption(s, "--search", "--query") || dest < len(s.args) && strings.Contains(s.args[dest], "=") {
		r.unknown = true
	} else {
		destination(&r, s, dest)
	}
	r.via = "tsh ssh " + strings.Join(r.hosts, ",")
	if dest+1 < len(s.args) && !hasOption(s, "-N", "--no-remote-exec") {
		r.code, r.known = codeOf(s, dest+1), true
	}
	return r, true
}

// azSSHReach reads az ssh vm|arc [options] [-- SSH-ARGS [COMMAND]]: the
// command after ssh's own arguments runs on the VM that --name, --ip or
// --resource-id names.
func azSSHReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 2 || s.dynamic(pos[0]) || s.dynamic(pos[1]) || s.args[pos[0]] != "ssh" ||
		(s.args[pos[1]] != "vm" && s.args[pos[1]] != "arc") {
		return reach{}, false
	}
	r := reach{family: "azure"}
	for _, n := range []string{"--name", "-n", "--vm-name", "--ip", "--resource-id", "--ids"} {
		if vals, dyn, found := flagWords(s, n, false); found {
			if dyn {
				r.unknown = true
			}
			for _, v := range vals {
				r.hosts = addUnique(r.hosts, resourceName(v))
			}
			break
		}
	}
	if len(r.hosts) == 0 {
		r.unknown = true
	}
	r.via = "az ssh " + s.args[pos[1]] + " " + strings.Join(r.hosts, ",")
	if code, ok := afterSSHArgs(s); ok {
		r.code, r.known = code, true
	}
	return r, true
}

// afterSSHArgs reads the command of the ssh arguments after "--" (az ssh,
// openstack server ssh): ssh's options, then the command.
func afterSSHArgs(s *subject) (string, bool) {
	dash := slices.Index(s.args, "--")
	if dash < 0 || s.dynamic(dash) {
		return "", false
	}
	j := dash + 1
	for j < len(s.args) && isOption(s.args[j]) && !s.dynamic(j) {
		if len(s.args[j]) == 2 && strings.Contains("bcDEeFIiJLlmOoPpQRSWw", s.args[j][1:]) {
			j++
		}
		j++
	}
	if j >= len(s.args) {
		return "", false
	}
	return codeOf(s, j), true
}

// boltReach reads bolt command run COMMAND --targets T: COMMAND runs, by
// a shell, on each target. Targets are names, URIs or a list of them; a
// glob, a group's name, all, @file, - (standard input), --query (a
// PuppetDB query) and --rerun name targets known only at run time.
func boltReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 2 || s.dynamic(pos[0]) {
		return reach{}, false
	}
	r := reach{family: "bolt"}
	given := false
	for _, flag := range []string{"--targets", "-t", "--nodes"} {
		vals, dyn, found := flagWords(s, flag, false)
		if !found {
			continue
		}
		given, r.unknown = true, r.unknown || dyn
		for _, v := range vals {
			for t := range strings.SplitSeq(v, ",") {
				t = strings.TrimSpace(t)
				switch {
				case t == "":
				case t == "all" || t == "-" || strings.HasPrefix(t, "@") || strings.ContainsAny(t, "*?[]"):
					r.unknown = true
				default:
					if rest, ok := strings.CutPrefix(t, "ssh://"); ok {
						t = rest
					} else if _, rest, ok := strings.Cut(t, "://"); ok {
						t = rest
					}
					r.hosts = addUnique(r.hosts, stripPort(stripUser(t)))
				}
			}
		}
	}
	if !given || hasOption(s, "-q", "--query", "--rerun") {
		r.unknown = true
	}
	if r.unknown {
		r.hosts = nil
	}
	r.via = "bolt " + s.args[pos[0]] + " " + strings.Join(r.hosts, ",")
	if s.args[pos[0]] == "command" && !s.dynamic(pos[1]) && s.args[pos[1]] == "run" && len(pos) > 2 {
		if !s.dynamic(pos[2]) {
			r.code, r.known = s.args[pos[2]], true
		}
	}
	return r, true
}

// pyinfraValues are the options of pyinfra that take a value.
var pyinfraValues = sync.OnceValue(func() map[string]bool {
	return valueSet("--user", "--port", "--key", "--key-password", "--password", "--sudo-user",
		"--su-user", "--parallel", "--group-data", "--config", "--chdir", "--data", "--limit", "--shell-executable",
		"--retry", "--retry-delay", "--ssh-user", "--ssh-port", "--ssh-key", "--ssh-key-password", "--ssh-password",
		"--winrm-username", "--winrm-password", "--winrm-port", "--winrm-transport", "--diff")
})

// pyinfraReach reads pyinfra INVENTORY OPERATIONS: the inventory is a
// list of hosts (web-01,web-02), or a file, a connector (@docker/...)
// or --limit's pick, known only at run time; exec -- COMMAND runs COMMAND
// on each host.
func pyinfraReach(s *subject) (reach, bool) {
	inv := wordsAfterOptions(s, 0, pyinfraValues())
	if inv >= len(s.args) {
		return reach{}, false
	}
	r := reach{family: "pyinfra"}
	switch h := s.args[inv]; {
	case s.dynamic(inv), strings.HasSuffix(h, ".py"), strings.ContainsAny(h, "/@*?"), hasOption(s, "--limit"):
		r.unknown = true
	default:
		for t := range strings.SplitSeq(h, ",") {
			if t = strings.TrimSpace(t); t != "" {
				r.hosts = addUnique(r.hosts, stripPort(stripUser(t)))
			}
		}
	}
	if r.unknown {
		r.hosts = nil
	}
	r.via = "pyinfra " + strings.Join(r.hosts, ",")
	op := wordsAfterOptions(s, inv+1, pyinfraValues())
	if op < len(s.args) && !s.dynamic(op) && s.args[op] == "exec" {
		if cmd := wordsAfterOptions(s, op+1, pyinfraValues()); cmd < len(s.args) {
			r.code, r.known = codeOf(s, cmd), true
		}
	}
	return r, true
}

// fabReach reads fab -H HOSTS -- COMMAND: COMMAND runs on each host;
// without -H, or for a task of a fabfile, the hosts or the code are known
// only at run time.
func fabReach(s *subject) (reach, bool) {
	r := reach{family: "fabric"}
	vals, dyn, found := flagWords(s, "-H", false)
	if !found {
		vals, dyn, found = flagWords(s, "--hosts", false)
	}
	r.unknown = !found || dyn || hasOption(s, "-R", "--roles")
	for _, v := range vals {
		for t := range strings.SplitSeq(v, ",") {
			if t = strings.TrimSpace(t); t != "" {
				r.hosts = addUnique(r.hosts, stripPort(stripUser(t)))
			}
		}
	}
	if r.unknown {
		r.hosts = nil
	}
	r.via = "fab -H " + strings.Join(r.hosts, ",")
	if dash := slices.Index(s.args, "--"); dash >= 0 && !s.dynamic(dash) && dash+1 < len(s.args) {
		r.code, r.known = codeOf(s, dash+1), true
	}
	return r, true
}

// knifeValues are the options of knife ssh and knife winrm that take a
// value.
var knifeValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-x", "--ssh-user", "-P", "--ssh-password", "-p", "--ssh-port", "-G", "--ssh-gateway",
		"-i", "--ssh-identity-file", "-a", "--attribute", "-C", "--concurrency", "-c", "--config", "-s", "--server-url",
		"-u", "--user", "-k", "--key", "-E", "--environment", "--winrm-user", "--winrm-password", "--winrm-port",
		"--winrm-transport", "--winrm-shell", "--winrm-authentication-protocol", "--prefix-attribute",
		"--ssh-gateway-identity", "--ssh-timeout", "--exit-on-error", "-F", "--format", "--profile")
})

// knifeReach reads Chef's knife ssh QUERY COMMAND and knife winrm QUERY
// COMMAND: QUERY is a search of the Chef server (its nodes known only at
// run time), a node's name:NAME, or with -m a list of hosts.
func knifeReach(s *subject) (reach, bool) {
	sub := wordsAfterOptions(s, 0, knifeValues())
	if sub >= len(s.args) || s.dynamic(sub) || s.args[sub] != "ssh" && s.args[sub] != "winrm" {
		return reach{}, false
	}
	q := wordsAfterOptions(s, sub+1, knifeValues())
	if q >= len(s.args) {
		return reach{}, false
	}
	r := reach{family: "knife"}
	query := s.args[q]
	switch {
	case s.dynamic(q):
		r.unknown = true
	case hasOption(s, "-m", "--manual-list"):
		for _, h := range strings.Fields(query) {
			r.hosts = addUnique(r.hosts, stripUser(h))
		}
	default:
		name, ok := strings.CutPrefix(query, "name:")
		if !ok || name == "" || strings.ContainsAny(name, "*? ()[]{}:") {
			r.unknown = true
		} else {
			r.hosts = []string{name}
		}
	}
	r.via = "knife " + s.args[sub] + " " + strings.Join(r.hosts, ",")
	if cmd := wordsAfterOptions(s, q+1, knifeValues()); cmd < len(s.args) {
		r.code, r.known = lineOf(s, cmd), true
	}
	return r, true
}

// rshValues are the options of rsh, rlogin and rexec that take a value.
var rshValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-l", "-k", "-p", "-e")
})

// rshReach reads rsh [-l user] host [command] (remsh, rexec alike) and
// rlogin host: the command runs on the host; rlogin is a session.
func rshReach(s *subject, name string) (reach, bool) {
	dest := wordsAfterOptions(s, 0, rshValues())
	if dest >= len(s.args) {
		return reach{}, false
	}
	r := reach{family: "rsh"}
	destination(&r, s, dest)
	r.via = name + " " + strings.Join(r.hosts, ",")
	if name != "rlogin" && dest+1 < len(s.args) {
		r.code, r.known = codeOf(s, dest+1), true
	}
	return r, true
}

// hasOption reports whether s has one of the options, alone or with a
// value after "=".
func hasOption(s *subject, opts ...string) bool {
	for i, a := range s.args {
		if s.dynamic(i) {
			continue
		}
		name, _, _ := strings.Cut(a, "=")
		if slices.Contains(opts, name) {
			return true
		}
	}
	return false
}

// valueSet makes a set of option names.
func valueSet(opts ...string) map[string]bool {
	m := make(map[string]bool, len(opts))
	for _, o := range opts {
		m[o] = true
	}
	return m
}

// virtctlValues are the options of virtctl that take a value.
var virtctlValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-n", "--namespace", "--kubeconfig", "--context", "-i", "--identity-file",
		"-l", "--username", "-p", "--port", "-t", "--local-ssh-opts", "-c", "--command", "--known-hosts",
		"--local-ssh", "--address", "--proxy-address", "--vnc-type", "--vnc-path", "--timeout", "--as", "--server", "-s")
})

// virtctlReach reads KubeVirt's virtctl ssh [user@][vm/|vmi/]NAME[.NS]
// --command CMD (and kubectl virt ssh): CMD runs on the VM NAME; without
// it, a session.
func virtctlReach(s *subject, from int, via string) (reach, bool) {
	sub, ok := subcommandAt(s, from, virtctlValues(), "ssh")
	if !ok {
		return reach{}, false
	}
	dest := wordsAfterOptions(s, sub+1, virtctlValues())
	if dest >= len(s.args) {
		return reach{}, false
	}
	r := reach{family: "kubevirt"}
	if s.dynamic(dest) {
		r.unknown = true
	} else if vm := kubevirtName(stripUser(s.args[dest])); vm != "" {
		r.hosts = []string{vm}
	}
	r.via = via + " ssh " + strings.Join(r.hosts, ",")
	for _, flag := range []string{"--command", "-c"} {
		if vals, dyn, found := flagWords(s, flag, false); found && !dyn && len(vals) > 0 {
			r.code, r.known = vals[0], true
			break
		}
	}
	return r, true
}

// kubevirtName returns the VM's name of a virtctl target: vm/NAME,
// vmi/NAME, NAME.NAMESPACE.
func kubevirtName(t string) string {
	if _, name, ok := strings.Cut(t, "/"); ok {
		t = name
	}
	name, _, _ := strings.Cut(t, ".")
	return name
}

// prlctlReach reads Parallels' prlctl exec VM COMMAND: COMMAND runs in
// the VM.
func prlctlReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 3 || s.dynamic(pos[0]) || s.args[pos[0]] != "exec" {
		return reach{}, false
	}
	r := reach{family: "parallels"}
	destination(&r, s, pos[1])
	r.via = "prlctl exec " + strings.Join(r.hosts, ",")
	r.code, r.known = argvLine(s, pos[2]), true
	return r, true
}

// hcloudValues are the options of hcloud server ssh that take a value.
var hcloudValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-u", "--user", "-p", "--port", "--context", "--config", "-o", "--output", "--poll-interval")
})

// hcloudReach reads Hetzner's hcloud server ssh SERVER [COMMAND].
func hcloudReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 3 || s.dynamic(pos[0]) || s.dynamic(pos[1]) || s.args[pos[0]] != "server" || s.args[pos[1]] != "ssh" {
		return reach{}, false
	}
	dest := wordsAfterOptions(s, pos[1]+1, hcloudValues())
	if dest >= len(s.args) {
		return reach{}, false
	}
	r := reach{family: "hcloud"}
	destination(&r, s, dest)
	r.via = "hcloud server ssh " + strings.Join(r.hosts, ",")
	if dest+1 < len(s.args) {
		r.code, r.known = codeOf(s, dest+1), true
	}
	return r, true
}

// doctlReach reads DigitalOcean's doctl compute ssh DROPLET
// [--ssh-command CMD].
func doctlReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 3 || s.dynamic(pos[0]) || s.dynamic(pos[1]) || s.args[pos[0]] != "compute" && s.args[pos[0]] != "c" || s.args[pos[1]] != "ssh" {
		return reach{}, false
	}
	r := reach{family: "doctl"}
	destination(&r, s, pos[2])
	r.via = "doctl compute ssh " + strings.Join(r.hosts, ",")
	if vals, dyn, found := flagWords(s, "--ssh-command", false); found && !dyn && len(vals) > 0 {
		r.code, r.known = vals[0], true
	}
	return r, true
}

// multipassReach reads Canonical's multipass exec NAME -- COMMAND: the
// command, as its words, runs in the instance.
func multipassReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) < 2 || s.dynamic(pos[0]) || s.args[pos[0]] != "exec" {
		return reach{}, false
	}
	r := reach{family: "multipass"}
	destination(&r, s, pos[1])
	r.via = "multipass exec " + strings.Join(r.hosts, ",")
	if len(pos) > 2 {
		r.code, r.known = argvLine(s, pos[2]), true
	}
	return r, true
}

// openstackReach reads openstack server ssh SERVER [-- SSH-ARGS COMMAND]
// (nova ssh likewise).
func openstackReach(s *subject, name string) (reach, bool) {
	pos := subjectPositionals(s)
	i := 0
	if name == "openstack" {
		if len(pos) < 3 || s.dynamic(pos[0]) || s.args[pos[0]] != "server" {
			return reach{}, false
		}
		i = 1
	}
	if len(pos) < i+2 || s.dynamic(pos[i]) || s.args[pos[i]] != "ssh" {
		return reach{}, false
	}
	r := reach{family: "openstack"}
	destination(&r, s, pos[i+1])
	r.via = name + " ssh " + strings.Join(r.hosts, ",")
	if code, ok := afterSSHArgs(s); ok {
		r.code, r.known = code, true
	}
	return r, true
}

// xeReach reads the VM an xe vm-* command acts on, which xe names as a
// parameter: vm=, uuid=, name-label= (vm-uuid= and vm-name-label= on the
// commands of a VM's devices). It runs no code: the xen family's rules
// read the VMs as the command's targets. --multiple selects VMs by their
// other parameters, known only at run time.
func xeReach(s *subject) (reach, bool) {
	pos := subjectPositionals(s)
	if len(pos) == 0 || s.dynamic(pos[0]) || !strings.HasPrefix(s.args[pos[0]], "vm-") {
		return reach{}, false
	}
	r := reach{family: "xen", via: "xe " + s.args[pos[0]]}
	for i, a := range s.args {
		key, val, ok := strings.Cut(a, "=")
		switch {
		case a == "--multiple":
			r.unknown = true
		case !ok:
		case key != "vm" && key != "uuid" && key != "name-label" && key != "vm-uuid" && key != "vm-name-label":
		case s.dynamic(i) || val == "":
			r.unknown = true
		default:
			r.hosts = addUnique(r.hosts, val)
		}
	}
	if len(r.hosts) == 0 {
		r.unknown = true
	}
	if r.unknown {
		r.hosts = nil
	}
	return r, true
}
