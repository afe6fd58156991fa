// Package mcpserver is rewind's MCP server (`rewind mcp`): the advice tools
// an agent, and the person behind it, use beside the hook.
//
// It is a front end, not a second guard. Each tool is a thin adapter over
// the package that owns the operation: zerto_check_tool runs a call through
// hook.Decide, the very function the PreToolUse hook decides with, so the
// verdict it gives and the checkpoint it names are the ones the hook would
// enforce; zerto_tag_checkpoint takes a checkpoint through capture, as the
// hook does; the listings read Zerto through zvm and the decision log
// through audit; zerto_rewind and zerto_stop_test go back through
// recovery's one operation, the one `rewind undo` and the local page run.
// A restore or its rollback never runs here: they need the person's own
// Zerto credentials, which no MCP channel carries safely, so the tool says
// what the restore would lose and the terminal command that runs it. The
// stop of a failover test rewind did not start is asked of the person by
// MCP elicitation, in the host's own dialog (elicit.go).
//
// The config is found for every call the way the hook finds it (--config,
// $REWIND_CONFIG, .rewind.toml upwards from the server's directory, the user
// config), so an edit applies at once. Zerto's failures are tool errors
// that carry Zerto's own message, which the model reads and can act on.
// The server speaks only the protocol on its output; diagnostics go to the
// Logger of its Options.
package mcpserver
