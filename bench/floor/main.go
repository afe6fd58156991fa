// Command floor is the floor that rewind's hook start-up is measured
// against: a static Go program that reads and decodes the hook event and
// does nothing else. No hook can start faster than this in Go.
package main

import (
	"encoding/json"
	"os"
)

func main() {
	var ev struct {
		ToolName  string          `json:"tool_name"`
		ToolInput json.RawMessage `json:"tool_input"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&ev); err != nil {
		os.Exit(1)
	}
}
