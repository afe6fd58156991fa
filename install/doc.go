// Package install adds rewind to an agent host's settings and takes it out
// again, and reads back what is installed for `rewind doctor`.
//
// It sits outside the hook's data flow: it writes the settings that make a
// host run rewind's hook before each tool call (and after it, to log how
// the call ended), and `rewind mcp` as an MCP server, for each host of
// package hostio. [Plan] computes the edits as [Change] values, each a
// settings file before and after, so that a dry run can show them as a
// diff and [Result.Apply] can write them.
//
// Edits are made in the file's text: every other key, hook and unknown
// field stays as its author wrote it, in its order and layout, and only
// rewind's entries change, so that a team can commit the result (a
// one-hook install is a diff of a few lines). A file the project commits
// names rewind by its name, found on the PATH, never by a path of the
// installing machine's. A second run changes nothing. An install records
// in rewind's state folder what it created, so that an uninstall takes out
// exactly that and gives the file back byte for byte. A settings file that
// does not parse is refused, never overwritten. [Find] reads the installed
// hooks back, and [CodexTrust] whether Codex trusts them.
package install
