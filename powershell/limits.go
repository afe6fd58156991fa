package powershell

// The reader's cost is linear in the code: it reads each character a
// bounded number of times, keeps no more than one top-level statement's
// findings before it hands them on, and nests by an explicit stack, so
// that no input can outlast the hook's budget, exhaust its memory or its
// call stack. What is past a limit is reported as Unparsed with Limit set,
// and from there on the code is not read: PowerShell parses a whole script
// before it runs any of it, and the part past the limit could hold any
// command.
const (
	// maxNesting bounds how deep brackets, blocks and subexpressions
	// nest: far beyond any script written by hand. PowerShell's own
	// parser, which recurses, stops much earlier.
	maxNesting = 1000
	// maxStatementTokens bounds the tokens of one top-level statement,
	// whose findings are kept until it is complete (a whole script
	// inside one try { } is one statement).
	maxStatementTokens = 1 << 18
	// maxCommands bounds the commands reported for one code, code it
	// hands to Invoke-Expression and the like included.
	maxCommands = 1 << 17
	// maxDepth bounds how deep code built from strings is read again:
	// Invoke-Expression in Invoke-Expression, [scriptblock]::Create in a
	// script block...
	maxDepth = 8
	// maxChain bounds the receiver text kept for a method call.
	maxChain = 256
	// maxVia bounds the steps a place lists.
	maxVia = 16
)

// budget is shared by a reader and the readers of code it reads again.
type budget struct {
	commands int
}
