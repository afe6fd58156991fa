//go:build windows

package confirm

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/windows"
)

// readProcess reads a process from a snapshot of the system's processes:
// its parent and program name, and its program's path where this user may
// query it.
func readProcess(pid int) (process, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return process{}, err
	}
	defer windows.CloseHandle(snap)
	var e windows.ProcessEntry32
	e.Size = uint32(unsafe.Sizeof(e))
	for err = windows.Process32First(snap, &e); err == nil; err = windows.Process32Next(snap, &e) {
		if int(e.ProcessID) != pid {
			continue
		}
		p := process{ppid: int(e.ParentProcessID), comm: windows.UTF16ToString(e.ExeFile[:])}
		if h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, e.ProcessID); err == nil {
			buf := make([]uint16, windows.MAX_LONG_PATH)
			n := uint32(len(buf))
			if windows.QueryFullProcessImageName(h, 0, &buf[0], &n) == nil {
				p.exe = windows.UTF16ToString(buf[:n])
			}
			windows.CloseHandle(h)
		}
		return p, nil
	}
	return process{}, errors.New("process not found")
}
