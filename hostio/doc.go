// Package hostio translates between an agent host's hook protocol and rewind.
//
// It sits at both ends of the hook's data flow: [Decode] turns the JSON event
// the host writes on the hook's standard input into an [Event], whose
// [Event.Call] is what the policy judges; after the decision is taken,
// [Encode] writes rewind's [Decision] in the shape that host reads from the
// hook's standard output.
//
// Each host speaks its own dialect, named by a [Host]: Claude Code, Codex
// CLI, Gemini CLI, Cursor and GitHub Copilot. Events are read with
// case-sensitive keys, as the hosts write them, and tool names are brought
// to Claude Code's, so that one policy judges every host: a shell command is
// "Bash" with {"command"}, and an MCP tool is mcp__SERVER__TOOL. Where a host
// leaves the server's name ambiguous, [Event.ResolveServers] reads it against
// the config's servers. Decisions a host cannot express are sent as the
// nearest stricter one: an "ask" goes to Codex and Gemini CLI as a deny that
// says a person must approve. For Claude Code, an empty standard output lets
// the host's normal permission flow go on, which is why the zero [Decision]
// encodes to nothing; hosts that parse every output get {}.
package hostio
