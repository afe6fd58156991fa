//go:build !(linux || darwin || windows)

package confirm

// readProcess reads a process with ps (see readPS).
func readProcess(pid int) (process, error) { return readPS(pid) }
