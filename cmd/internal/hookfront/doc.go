// Package hookfront is rewind-hook, the light front of rewind's hook. The
// hook runs before every tool call, so its start-up is paid thousands of
// times a day, and a Go program pays at start for every package it links:
// their initialisation and the pages of a larger binary. rewind links a
// Zerto client, net/http and crypto/tls, an MCP server, a simulator and a
// command tree that a call which needs no checkpoint never uses.
//
// The front runs package hook, the very code of rewind hook, with the
// protect step hook.Relay: a call with a protect verdict (which waits for
// Zerto for far longer than any start-up) is handed, as the host wrote it,
// to `rewind hook` beside the front, which judges it again, takes the
// checkpoint, logs the decision and answers; the front passes the answer
// on. Every other call, allowed, asked or denied, is decided, logged and
// answered by the front itself. This package is the front's command line:
// its flags, and the version and statusline it answers as rewind does.
package hookfront
