package hostio

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonscan"
)

// Partial is what can still be read of an event Decode refused as
// malformed: an input nested past the decoder's depth limit, invalid
// JSON, a key twice or in two cases, a field of the wrong type. The hook
// judges such a call by its tool name rather than let it through under
// hook.on_error (see MalformedError.Partial).
type Partial struct {
	// Tools are the names the event gives its tool, as Event.ToolName
	// would have them: each top-level tool name key that holds a string,
	// in any case and as often as it is given, since another reader of
	// the event may take any of them.
	Tools []string
	// Cwd is the event's cwd, when one holds a string.
	Cwd string
}

// readPartial reads the top-level members of an event of host h
// leniently (see jsonscan.Members); nil when no tool name can be read.
func readPartial(h Host, data []byte) *Partial {
	toolKey := "tool_name"
	if h == Copilot {
		toolKey = "toolName"
	}
	var p Partial
	var events []string
	var mcpServer, mcpTool []string
	jsonscan.Members(data, func(key string, value []byte) bool {
		switch {
		case strings.EqualFold(key, toolKey):
			if s, ok := partialString(value); ok && s != "" {
				p.Tools = append(p.Tools, s)
			}
		case strings.EqualFold(key, "cwd"):
			if s, ok := partialString(value); ok && p.Cwd == "" {
				p.Cwd = s
			}
		case strings.EqualFold(key, "hook_event_name"):
			if s, ok := partialString(value); ok {
				events = append(events, s)
			}
		case strings.EqualFold(key, "mcp_context") && h == Gemini:
			jsonscan.Members(value, func(k string, v []byte) bool {
				if s, ok := partialString(v); ok && s != "" {
					switch {
					case strings.EqualFold(k, "server_name"):
						mcpServer = append(mcpServer, s)
					case strings.EqualFold(k, "tool_name"):
						mcpTool = append(mcpTool, s)
					}
				}
				return true
			})
		}
		return true
	})
	for i, name := range p.Tools {
		p.Tools[i] = partialToolName(h, name, events)
	}
	for _, s := range mcpServer {
		for _, t := range mcpTool {
			p.Tools = append(p.Tools, "mcp__"+s+"__"+t)
		}
	}
	if h == Cursor && slices.Contains(events, cursorShell) {
		p.Tools = append(p.Tools, "Bash")
	}
	slices.Sort(p.Tools)
	p.Tools = slices.Compact(p.Tools)
	if len(p.Tools) == 0 {
		return nil
	}
	return &p
}

// partialToolName names a tool as the host's decoder would.
func partialToolName(h Host, name string, events []string) string {
	switch h {
	case Gemini:
		if n, ok := geminiTools[name]; ok {
			return n
		}
		if rest, ok := strings.CutPrefix(name, "mcp_"); ok && !strings.HasPrefix(name, "mcp__") && rest != "" {
			return (&mcpTool{joined: rest}).name(nil)
		}
	case Copilot:
		if n, ok := copilotTools[strings.ToLower(name)]; ok {
			return n
		}
	case Cursor:
		if slices.Contains(events, cursorMCP) && !strings.HasPrefix(name, "mcp__") {
			return (&mcpTool{tool: name}).name(nil)
		}
	}
	return name
}

// partialString decodes a string value as json.Unmarshal would (invalid
// UTF-8 becomes U+FFFD); ok is false for any other value.
func partialString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(value, &s) != nil {
		return "", false
	}
	return s, true
}
