// Package testlab is the lab the end-to-end tests of the hook, the
// recovery service, the page and the MCP server share: a Zerto simulator
// started in-process from a scenario file, a rewind config beside it, the
// state and cache folders, the environment a hook run reads, a Zerto
// client, the audit log, and one real hook call made as Claude Code makes
// it.
//
// It is for tests only; nothing outside _test.go files imports it. Its
// hook is rewind hook's: package hook with the Zerto step of package
// hook/zerto, whose tests use the lab from outside (package zerto_test).
package testlab
