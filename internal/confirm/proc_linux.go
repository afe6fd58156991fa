//go:build linux

package confirm

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// maxCmdline bounds the argv read of a process.
const maxCmdline = 64 << 10

// readProcess reads a process from /proc: its parent and command name
// from stat, its program from exe (when this user may read it), its argv
// from cmdline.
func readProcess(pid int) (process, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return process{}, err
	}
	// pid (comm) state ppid ...: the name may hold spaces and ")".
	lp, rp := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
	if lp < 0 || rp < lp {
		return process{}, fmt.Errorf("%s/stat: unexpected format", dir)
	}
	fields := strings.Fields(string(stat[rp+1:]))
	if len(fields) < 2 {
		return process{}, fmt.Errorf("%s/stat: unexpected format", dir)
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return process{}, err
	}
	p := process{ppid: ppid, comm: string(stat[lp+1 : rp])}
	p.exe, _ = os.Readlink(dir + "/exe")
	if f, err := os.Open(dir + "/cmdline"); err == nil {
		data, _ := io.ReadAll(io.LimitReader(f, maxCmdline))
		f.Close()
		if s := strings.TrimRight(string(data), "\x00"); s != "" {
			p.argv = strings.Split(s, "\x00")
		}
	}
	return p, nil
}
