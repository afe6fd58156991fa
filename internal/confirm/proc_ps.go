//go:build !(linux || windows)

package confirm

import (
	"errors"
	"os/exec"
	"strconv"
	"strings"
)

// readPS reads a process with ps, by its absolute path: the agent's
// $PATH may hold another ps.
func readPS(pid int) (process, error) {
	out, err := exec.Command("/bin/ps", "-o", "ppid=,comm=", "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return process{}, err
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return process{}, errors.New("ps: unexpected output")
	}
	ppid, err := strconv.Atoi(f[0])
	if err != nil {
		return process{}, err
	}
	p := process{ppid: ppid, comm: strings.Join(f[1:], " ")}
	if args, err := exec.Command("/bin/ps", "-o", "args=", "-p", strconv.Itoa(pid)).Output(); err == nil {
		p.argv = strings.Fields(string(args))
	}
	return p, nil
}
