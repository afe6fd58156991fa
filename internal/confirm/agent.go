package confirm

import (
	"os"
	"path/filepath"
	"strings"
)

// A terminal is not a person's when an agent host made it: an agent can
// run `script -qc "rewind trust" /dev/null` and type the word into the
// pseudo-terminal script made. Where the system shows a process its
// ancestors (Linux's /proc, macOS's sysctl or ps, Windows' process
// snapshot), AgentHost looks among them for a known agent host, by the
// names it runs under (hosts.go); trust and uninstall refuse under one,
// whatever terminal is attached.
//
// This is a recognition, not a boundary: a process that leaves its
// parents (a double fork, setsid and a reparenting to init, a service or
// cron job the agent installs) runs under no host, and an agent host
// renamed or unknown here is not recognised. The boundary is the operating
// system's: an agent whose user cannot write rewind's state folder and
// host settings cannot trust or uninstall, whatever it types.

// Host is an agent host found among the ancestors of a process.
type Host struct {
	// Name is the host ("Claude Code"), PID its process, and Seen what
	// gave it away (its name, or the path of its program or script).
	Name string
	PID  int
	Seen string
}

// process is what the system tells of one process: its parent, and the
// names it runs under (its command name, program path, argv).
type process struct {
	ppid int
	comm string
	exe  string
	argv []string
}

// maxAncestors bounds the ancestors looked at.
const maxAncestors = 64

// StopAt, when not zero, is a process at which AgentHost stops looking:
// the test binary that runs rewind's scripts sets it to itself, above
// which a developer's own agent host may run the tests. Only tests set it.
var StopAt int

// AgentHost returns the first agent host among the ancestors of this
// process, if the system lets it see them.
func AgentHost() (Host, bool) { return agentAmong(os.Getppid(), readProcess) }

// agentAmong looks for an agent host from process pid upwards.
func agentAmong(pid int, read func(int) (process, error)) (Host, bool) {
	seen := map[int]bool{}
	for range maxAncestors {
		if pid <= 1 || pid == StopAt || seen[pid] {
			return Host{}, false
		}
		seen[pid] = true
		p, err := read(pid)
		if err != nil {
			return Host{}, false
		}
		if name, what, ok := recognise(p); ok {
			return Host{Name: name, PID: pid, Seen: what}, true
		}
		pid = p.ppid
	}
	return Host{}, false
}

// recognise tells whether a process is an agent host: its command name,
// its program's name or a folder of its path, or, for an interpreter (the
// hosts written in JavaScript run under node), its script's.
func recognise(p process) (name, seen string, ok bool) {
	candidates := []string{p.comm, p.exe}
	if len(p.argv) > 0 {
		candidates = append(candidates, p.argv[0])
		if interpreters[programName(p.argv[0])] || interpreters[programName(p.exe)] || interpreters[programName(p.comm)] {
			for _, a := range p.argv[1:min(len(p.argv), 4)] {
				if !strings.HasPrefix(a, "-") {
					candidates = append(candidates, a)
				}
			}
		}
	}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if n, ok := hostNames[programName(c)]; ok {
			return n, c, true
		}
		if !strings.ContainsAny(c, `/\`) {
			continue
		}
		for _, part := range strings.FieldsFunc(c, func(r rune) bool { return r == '/' || r == '\\' }) {
			part = strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(part, ".app"), ".exe"))
			if n, ok := hostNames[part]; ok {
				return n, c, true
			}
			if n, ok := hostFolders[part]; ok {
				return n, c, true
			}
		}
	}
	return "", "", false
}

// programName is the lower-case base name of a program, without .exe and
// a script's extension.
func programName(p string) string {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(p, `\`, "/")))
	for _, ext := range []string{".exe", ".js", ".mjs", ".cjs", ".cmd", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// interpreters are the programs that run an agent host written in a
// script language.
var interpreters = map[string]bool{"node": true, "nodejs": true, "bun": true, "deno": true, "python": true, "python3": true}
