// Package ptytest runs a command with a pseudo-terminal as its controlling
// terminal and types answers at its prompts, for tests of what rewind asks
// a person at a terminal (see internal/confirm). It is what an agent can
// do too, with script or expect: the tests that use it show that a
// terminal alone proves no person, and that what stops an agent is what it
// cannot type.
//
// It works on Linux; elsewhere Run reports ErrUnsupported, and tests skip.
package ptytest
