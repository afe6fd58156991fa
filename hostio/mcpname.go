package hostio

import (
	"strings"

	"github.com/rewind-dev/rewind/policy"
)

// mcpTool is an MCP tool whose host does not name its server the way rewind
// does (mcp__SERVER__TOOL), so that the config's server names are needed to
// read it.
type mcpTool struct {
	// joined is Gemini CLI's SERVER_TOOL, from a tool named mcp_SERVER_TOOL:
	// server names may hold "_" themselves.
	joined string
	// bare marks a joined name that may be no MCP tool at all (OpenCode's
	// tools share the namespace): without a configured server it keeps
	// its name.
	bare bool
	// tool is Cursor's bare tool name, and hints are the server's URL or
	// command line, the only things Cursor says about the server.
	tool  string
	hints []string
}

// unknownServer stands for an MCP server the event does not name and no
// configured server matches. Catalog rules match any server's tools, so the
// call is still judged by its tool name.
const unknownServer = "unknown"

// ResolveServers rewrites the tool name of an MCP call whose host leaves the
// server's name ambiguous, using the names of the config's [[server]]
// tables, so that the config's rules and guarded servers apply as they do
// under Claude Code. Decode already names such a tool as well as it can
// without a config; other events are left alone.
//
// Gemini CLI's mcp_SERVER_TOOL takes the longest configured server name
// that SERVER_TOOL starts with, followed by "_"; without one, the server is
// the part before the first "_". Cursor's bare tool name takes the longest
// configured server name that appears as a whole word in the server's URL
// or command line; without one, the server is "unknown".
func (e *Event) ResolveServers(cfg *policy.Config) {
	if e.mcp == nil || cfg == nil {
		return
	}
	names := make([]string, 0, len(cfg.Servers))
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	e.ToolName = e.mcp.name(names)
}

func (m *mcpTool) name(servers []string) string {
	if m.joined != "" {
		best := ""
		for _, s := range servers {
			if len(s) > len(best) && strings.HasPrefix(m.joined, s+"_") && len(m.joined) > len(s)+1 {
				best = s
			}
		}
		if best != "" {
			return "mcp__" + best + "__" + m.joined[len(best)+1:]
		}
		if m.bare {
			return m.joined
		}
		server, tool, ok := strings.Cut(m.joined, "_")
		if !ok || server == "" || tool == "" {
			return "mcp__" + unknownServer + "__" + m.joined
		}
		return "mcp__" + server + "__" + tool
	}
	best := ""
	for _, s := range servers {
		if len(s) > len(best) && m.mentions(s) {
			best = s
		}
	}
	if best == "" {
		best = unknownServer
	}
	return "mcp__" + best + "__" + m.tool
}

// mentions reports whether a hint holds name as a whole word: not inside a
// longer run of letters, digits, "_" or "-".
func (m *mcpTool) mentions(name string) bool {
	if name == "" {
		return false
	}
	for _, h := range m.hints {
		for i := 0; ; {
			j := strings.Index(h[i:], name)
			if j < 0 {
				break
			}
			start, end := i+j, i+j+len(name)
			if (start == 0 || !isWordByte(h[start-1])) && (end == len(h) || !isWordByte(h[end])) {
				return true
			}
			i = start + 1
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
