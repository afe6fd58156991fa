// Package version says which build of rewind is running, for `rewind
// version` and for any command or report that names it (a doctor report, a
// bug template, the MCP server's implementation info).
package version
