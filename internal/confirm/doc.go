// Package confirm asks the person at this machine's terminal, and nobody
// else.
//
// A confirmation that an agent can give is no confirmation: a flag it
// adds (--yes), a line it pipes into standard input, an argument it
// writes. A Terminal therefore reads from the process's controlling
// terminal (/dev/tty; CONIN$ on Windows), never from standard input, and a
// process without one has nobody to ask: Open fails with ErrNoTerminal,
// and the caller refuses. Secrets are read with echo off, and never kept.
//
// A terminal is a better channel than standard input, not a boundary: an
// agent can run a command under a terminal of its own (script, expect,
// tmux) and type into it. AgentHost looks for an agent host among the
// process's ancestors, under which no terminal is a person's; that too is
// a recognition, which a process that leaves its parents escapes. What an
// agent cannot type is what it does not know, which is why rewind's
// restores ask for the operator's own Zerto credentials through a Terminal
// (see recovery.Operator).
package confirm
