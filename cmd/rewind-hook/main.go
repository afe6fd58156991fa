//go:build !floorbench

// Command rewind-hook is rewind's PreToolUse hook in a program of its own,
// for hosts to run before every tool call: it judges the call with the
// same code as rewind hook, but links no Zerto client, HTTP stack or MCP
// server, so it starts in about the time Go needs to start at all. A call
// that needs a checkpoint is handed to the rewind binary beside it. rewind
// install writes it into a host's settings when it is installed beside
// rewind; see docs/performance.md.
package main

import (
	"os"

	"github.com/rewind-dev/rewind/cmd/internal/hookfront"
)

func main() {
	os.Exit(hookfront.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
