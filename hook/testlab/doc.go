// Package testlab is the lab the end-to-end tests of the hook, the
// recovery service, the page and the MCP server share: a Zerto simulator
// started in-process from a scenario file, a rewind config beside it, the
// state and cache folders, the environment a hook run reads, a Zerto
// client, the audit log, and one real hook call made as Claude Code makes
// it.
//
// It is for tests only; nothing outside _test.go files imports it. The
// hook is handed in (a [HookFunc], which hook.Run is) rather than
// imported, so that package hook's own tests can use the lab without an
// import cycle.
package testlab
