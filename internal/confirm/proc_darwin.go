//go:build darwin

package confirm

import (
	"bytes"
	"encoding/binary"

	"golang.org/x/sys/unix"
)

// readProcess reads a process by sysctl: kern.proc.pid for its parent and
// command name, kern.procargs2 for its program and argv; where sysctl
// refuses, by /bin/ps.
func readProcess(pid int) (process, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp == nil || kp.Proc.P_pid == 0 {
		return readPS(pid)
	}
	p := process{ppid: int(kp.Eproc.Ppid), comm: unix.ByteSliceToString(kp.Proc.P_comm[:])}
	if raw, err := unix.SysctlRaw("kern.procargs2", pid); err == nil && len(raw) > 4 {
		argc := int(binary.LittleEndian.Uint32(raw[:4]))
		rest := raw[4:]
		if i := bytes.IndexByte(rest, 0); i >= 0 {
			p.exe = string(rest[:i])
			rest = bytes.TrimLeft(rest[i:], "\x00")
			for len(p.argv) < argc && len(rest) > 0 {
				j := bytes.IndexByte(rest, 0)
				if j < 0 {
					j = len(rest)
				}
				p.argv = append(p.argv, string(rest[:j]))
				rest = rest[min(j+1, len(rest)):]
			}
		}
	}
	return p, nil
}
