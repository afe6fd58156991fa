// Package cli implements the rewind command line: one cobra command per
// subcommand, each in its own file, all reached through Run.
package cli
