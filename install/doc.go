// Package install adds rewind to an agent host's settings and takes it out
// again, and reads back what is installed for `rewind doctor`.
//
// It sits outside the hook's data flow: it writes the settings that make a
// host run `rewind hook` before each tool call (and `rewind mcp` as an MCP
// server), for Claude Code, Codex CLI, Gemini CLI, Cursor and GitHub
// Copilot. [Plan] computes the edits as [Change] values, each a settings
// file before and after, so that a dry run can show them as a diff and
// [Apply] can write them. Edits merge with what is there: every other key,
// hook and unknown field is kept in its order, the hook is added once, and
// a second run changes nothing. A settings file that does not parse is
// refused, never overwritten. [Find] reads the installed hooks back.
package install
