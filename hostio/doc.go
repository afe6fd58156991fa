// Package hostio translates between an agent host's hook protocol and rewind.
//
// It sits at both ends of the hook's data flow: [Decode] turns the JSON event
// the host writes on the hook's standard input into an [Event], whose
// [Event.Call] is what the policy judges; after the decision is taken,
// [Respond] makes rewind's [Decision] the answer that host reads: a JSON
// object on standard output for most hosts, an exit code and a reason on
// standard error for the hosts that read exit codes.
//
// Each host speaks its own dialect, named by a [Host]: Claude Code, Codex
// CLI, Antigravity CLI, Cursor, GitHub Copilot, OpenCode (through the
// plugin rewind installs), Kiro CLI, Windsurf and Cline, and the retired
// Gemini CLI. Events are read with case-sensitive keys, as the hosts write
// them, and tool names are brought to Claude Code's, so that one policy
// judges every host: a shell command is "Bash" (or "PowerShell") with
// {"command"}, and an MCP tool is mcp__SERVER__TOOL. Where a host leaves
// the server's name ambiguous, [Event.ResolveServers] reads it against the
// config's servers. Decisions a host cannot express are sent as the
// nearest stricter one: an "ask" goes to a host that cannot ask a person
// as a deny that says a person must approve.
//
// The post-tool events of the hosts whose post-tool hook rewind installs
// (Claude Code, Codex CLI, Cursor, OpenCode) decode to an Event with an
// [Outcome]: how the call ended, which the audit log joins to the call's
// record by the host's tool-use id. They get no answer.
package hostio
