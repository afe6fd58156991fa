//go:build floorbench

package main

import (
	"encoding/json"
	"os"

	"github.com/rewind-dev/rewind/cmd/internal/hookfront"
)

// Built with the floorbench tag, rewind-hook run without arguments does
// the floor's work (bench/floor: decode the event, nothing else) in
// rewind-hook's program, which links and initialises all that rewind-hook
// does, as its arguments still reach hookfront.Main. bench/hookbench
// measures it as "floor, linked as rewind-hook": the part of the hook's
// start-up that is the size and the package initialisation of its
// program rather than its judging.
func main() {
	if len(os.Args) > 1 {
		os.Exit(hookfront.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	var ev struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&ev); err != nil {
		os.Exit(1)
	}
}
