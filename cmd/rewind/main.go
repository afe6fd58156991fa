// Command rewind guards an AI agent's tool calls with Zerto checkpoints.
// See the README for what it does and how to hook it into an agent host.
package main

import (
	"os"

	"github.com/rewind-dev/rewind/cmd/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
