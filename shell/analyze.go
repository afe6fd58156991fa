package shell

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxReparse bounds how many times code handed to another shell is
	// parsed again (bash -c inside ssh inside eval ...).
	maxReparse = 16
	// maxFrames bounds the call depth of one analysis, parser and walk
	// together, in stack frames. The parser is recursive: each level of
	// real nesting, such as $( or ( or if or a parenthesis in arithmetic,
	// costs it several frames, so this allows some hundreds of levels, far
	// more than any command written by hand.
	maxFrames = 3000
	// frameLimit is the call depth past which parsing stops: maxFrames
	// above the frames of the analysis's callers, which are far fewer
	// than callerFrames (some tens, in the hook and the MCP server).
	// A constant, not the callers' depth measured at each analysis:
	// unwinding the stack, the first time in a process, reads the
	// function tables of every frame on it.
	frameLimit   = maxFrames + callerFrames
	callerFrames = 256
)

// errTooDeep is reported for input nested beyond the limits above.
var errTooDeep = errors.New("nesting too deep")

// Analyze analyses a shell command string into the invocations that would run.
func Analyze(src string) *Analysis { return analyze(src, minElided, true) }

// analyze is Analyze with the analyzer's elideMin and elideRatio given.
func analyze(src string, elideMin int, elideRatio bool) *Analysis {
	out := &Analysis{Invocations: []Invocation{}}
	scan(src, elideMin, elideRatio, func(f Finding) {
		switch {
		case f.Invocation != nil:
			out.Invocations = append(out.Invocations, *f.Invocation)
		case f.Dynamic != nil:
			out.Dynamic = append(out.Dynamic, *f.Dynamic)
		case f.Unparsed != nil:
			out.Unparsed = append(out.Unparsed, *f.Unparsed)
		}
	})
	return out
}

// Finding is one result of an analysis: exactly one of its fields is set.
type Finding struct {
	Invocation *Invocation
	Dynamic    *Dynamic
	Unparsed   *Unparsed
}

// Scan analyses src as Analyze does, but hands each finding to visit
// instead of keeping it, so that its memory does not grow with the number
// of commands. Findings come a command line at a time, once the line is
// known to run: for each line its invocations, then its dynamic commands,
// then its unparsed parts, each in source order. The pointers are valid
// only during the call.
func Scan(src string, visit func(Finding)) { scan(src, minElided, true, visit) }

func scan(src string, elideMin int, elideRatio bool, visit func(Finding)) {
	a := &analyzer{visit: visit, elideMin: elideMin, elideRatio: elideRatio}
	a.reparseBytes = max(minReparseBytes, min(len(src), maxParsedBytes-len(src)))
	a.makeWork = max(minMakeWork, makeWorkPerByte*len(src))
	a.code(src, "", nil, 0, nil, dBash, false)
	a.flush()
}

// analyzer collects the result of one analysis.
type analyzer struct {
	// out holds the findings of the command line being analysed, which
	// go to visit once the line is known to run.
	out   Analysis
	visit func(Finding)
	// cost is what the command line being analysed has cost (see
	// maxLineAlloc); newLine says that one has begun since.
	cost    lineCost
	newLine bool
	// writes are the files written by the output redirections of the
	// statements being walked; every command inside them writes there.
	writes []string
	// environ are the variables the command being walked gets in its
	// environment (see Invocation.Env).
	environ []string
	// written are the files the command string writes, with what it
	// writes to them (see wrote); writtenLost is set once more were
	// written than it keeps.
	written     map[string]*input
	writtenBase map[string]writtenName
	writtenLost bool
	// appends hold the text of the written files appended to (see
	// appended).
	appends map[string]*strings.Builder
	// fds are what the descriptors read, as the statements being walked
	// set them up (see descriptor); outFds the files output descriptors
	// write to, that a bare exec opened (see openOutput).
	fds    [maxDescriptors]*input
	outFds [maxDescriptors]string
	// reads are the files the input redirections of the statements being
	// walked read; every command inside them reads them.
	reads []string
	// aliases are the aliases the command string defines, by name.
	aliases map[string]*aliasDef
	// expansions counts alias expansions, which maxAliasExpansions bounds.
	expansions int
	// hashed are the names "hash -p" binds to programs.
	hashed map[string]string
	// gitEnv are the keys and values of git's configuration given as
	// GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n, by n.
	gitEnv map[string][2]*field
	// bodies counts the function and loop bodies being walked, whose
	// code may run after code written below it; funcs is set once a
	// function is defined.
	bodies int
	funcs  bool
	// callLine is the last line of the simple command being run.
	callLine uint
	// reading is set once a parser has read from the analysis's source
	// (see tooDeep).
	reading bool
	// steps counts the wrappers of the simple command being unwrapped,
	// and tail is the command the last one runs (see run).
	steps int
	tail  *tailCall
	// loopPasses counts the loop bodies forEach analysed.
	loopPasses int
	// parsers are the parsers free for use (see parser), and reparses
	// counts the code handed on that was parsed (see maxReparses).
	parsers  [numDialects][]*syntax.Parser
	reparses int
	// reparseBytes is how many more bytes of code handed on may be
	// parsed (see maxParsedBytes).
	reparseBytes int
	// makeWork is what expanding the variables of every makefile the
	// call reads may still cost, in bytes read (see makeWorkPerByte): one
	// budget for the call, however many make commands it runs.
	makeWork int
	// handedOn and makeLimit report that the code handed on is past
	// maxReparses or maxParsedBytes, and that makefile expansions are past
	// makeWork: bounds of the whole call, reported once.
	handedOn, makeLimit callLimit
	// elideMin is the least the heredoc bodies of a code must hold to be
	// taken out of its source, or 0 for never; elideRatio says that they
	// must also hold more than the rest (see elide.go).
	elideMin   int
	elideRatio bool
}

// code is one piece of shell source being walked: the command string itself
// or code handed to a shell. Node positions refer to src.
type code struct {
	src string
	cr  byte // the byte standing for '\r' in src, or 0
	// bodies are the heredoc bodies taken out of src (see elide.go).
	bodies *bodies
	host   string
	via    []string
	depth  int
	// vars are the variables an enclosing for loop binds; see forEach.
	vars map[string]string
	// lang is the dialect the code is read in; zshToo says that zsh may
	// run it too (see dialects.go). handTo is the dialect of the code it
	// hands on: that of the shell it is handed to, or sh.
	lang   dialect
	zshToo bool
	handTo dialect
	// extra says that the code is read in lang besides another dialect
	// that parses it: where lang cannot, that shell runs none of it.
	extra bool
}

// text maps text read from src back to the original text. A slice of
// src is mapped by textAt, which gives a slice of the original rather
// than a copy with the heredoc bodies put back; only a quoted heredoc's
// literal holds a placeholder, and it is read so. Putting bodies back
// here keeps any other way of reading it from seeing a placeholder.
func (c *code) text(s string) string {
	if c.bodies != nil && strings.IndexByte(s, c.bodies.mark) >= 0 {
		s = c.bodies.restore(s)
	}
	return c.withCR(s)
}

// withCR puts back the '\r' that c.cr stands for in s.
func (c *code) withCR(s string) string {
	if c.cr == 0 || strings.IndexByte(s, c.cr) < 0 {
		return s
	}
	return strings.ReplaceAll(s, string(c.cr), "\r")
}

// textAt returns the original text of src[start:end].
func (c *code) textAt(start, end int) string {
	if c.bodies == nil {
		return c.withCR(c.src[start:end])
	}
	return c.withCR(c.bodies.orig[c.bodies.origAt(start, false):c.bodies.origAt(end, true)])
}

// source returns the original text of a node.
func (c *code) source(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	end = min(end, len(c.src))
	if start >= end {
		return ""
	}
	return c.textAt(start, end)
}

// handing returns a copy of c that hands code on to a shell of dialect d.
func (c *code) handing(d dialect) *code {
	n := *c
	n.handTo = d
	return &n
}

// with returns a copy of c reached through one more step.
func (c *code) with(via string) *code {
	n := *c
	n.via = appendVia(c.via, via)
	return &n
}

// appendVia returns a new slice so that sibling paths never share storage.
func appendVia(via []string, step string) []string {
	if len(via) >= maxVia {
		// Keep the outermost steps and the newest; what lies between is
		// elided, so that deep nesting costs linear, not quadratic, memory.
		v := make([]string, 0, maxVia+1)
		v = append(v, via[:maxVia/2]...)
		v = append(v, elidedVia)
		v = append(v, via[len(via)-(maxVia/2-2):]...)
		return append(v, step)
	}
	v := make([]string, len(via)+1)
	copy(v, via)
	v[len(via)] = step
	return v
}

// maxVia bounds the length of Invocation.Via; elidedVia stands for the
// steps left out of a longer one.
const (
	maxVia    = 16
	elidedVia = "…"
)

// code parses text in the dialect lang and walks it. stdin, when not nil,
// is what the top-level commands of text read on standard input.
func (a *analyzer) code(text, host string, via []string, depth int, stdin *input, lang dialect, extra bool) {
	if depth > maxReparse {
		a.unparsed(text, errTooDeep.Error(), host, via)
		return
	}
	if depth > 0 && !a.reparse(text, host, via) {
		return
	}
	// The command string and a remote command may run in zsh, the login
	// shell of many.
	c := &code{host: host, via: via, depth: depth, lang: lang, extra: extra, zshToo: lang == dBash && (depth == 0 || host != "")}
	c.src, c.cr = protectCR(text)
	switch lang {
	case dFish:
		a.fishSource(c, stdin)
	case dCsh:
		a.cshSource(c, stdin)
	default:
		a.elide(c)
		a.walkSource(c, stdin)
	}
}

// unparsed reports text left unanalysed because it is past a limit.
func (a *analyzer) unparsed(text, msg, host string, via []string) {
	a.out.Unparsed = append(a.out.Unparsed, Unparsed{Text: text, Err: msg, Host: host, Via: via, Limit: true})
}

func (a *analyzer) dynamic(c *code, source string) {
	a.out.Dynamic = append(a.out.Dynamic, Dynamic{Source: source, Host: c.host, Via: c.via})
}

// wordControls are the control bytes the parser reads as ordinary word
// characters, from which the analysis takes bytes a source does not hold
// to stand for something else: '\r' (protectCR), a delimiter bash reads
// otherwise (absentByte), a placeholder (placeholderMark).
const wordControls = "\x01\x02\x03\x04\x05\x06\x07\x08\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"

// protectCR replaces every '\r' by a control byte absent from src. The
// parser folds "\r\n" into "\n" while bash keeps '\r' as part of a word, so
// that a line "EOF\r" does not end a heredoc delimited by EOF; a byte the
// parser treats as an ordinary word character gives bash's behaviour.
func protectCR(src string) (string, byte) {
	if strings.IndexByte(src, '\r') < 0 {
		return src, 0
	}
	for _, b := range []byte(wordControls) {
		if strings.IndexByte(src, b) < 0 {
			return strings.ReplaceAll(src, "\r", string(b)), b
		}
	}
	return src, 0
}

func isWordByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func newParser(lang dialect) *syntax.Parser {
	return syntax.NewParser(syntax.Variant(lang.variant()))
}

// parser returns a parser of a dialect for one piece of code, from the
// analysis's free ones: code handed to shells is parsed while the code
// that hands it on is, so each level has its own, and a command line of
// thousands of "eval ls" reuses a few rather than making thousands.
func (a *analyzer) parser(lang dialect) *syntax.Parser {
	if n := len(a.parsers[lang]); n > 0 {
		p := a.parsers[lang][n-1]
		a.parsers[lang] = a.parsers[lang][:n-1]
		return p
	}
	return newParser(lang)
}

// release returns a parser of a dialect that finished its input, without
// an error, to the free ones.
func (a *analyzer) release(lang dialect, p *syntax.Parser) {
	a.parsers[lang] = append(a.parsers[lang], p)
}

// maxReparses bounds how many pieces of code handed on (to shells, by
// aliases, in text bash expands again, to interpreters) one analysis
// parses. Each costs a parse of its own, so past the bound a piece is
// reported as past a limit rather than parsed: no command written by hand
// hands on thousands.
const maxReparses = 4096

// maxParsedBytes bounds the bytes one analysis parses, the command string
// and the code it hands on together; the code handed on may take as many
// bytes as the command string, and at least minReparseBytes. Code read
// again is the same text parsed once more each time it runs: a script
// file or a descriptor run thousands of times ("cat > r <<'E' ... E",
// then "bash r" on every line) would cost the square of the input.
// Counting bytes rather than pieces keeps the whole analysis within about
// twice the cost of the command string, or of a MiB of code for a short
// one.
const (
	maxParsedBytes  = 8 << 20
	minReparseBytes = 1 << 20
)

// reparse counts a piece of code handed on, and reports false past
// maxReparses pieces or past the bytes left to parse. The first piece past
// a bound is reported as past a limit, which asks about the call; the
// others add nothing to that answer and are left out, so that a flood of
// them costs no more than their count.
func (a *analyzer) reparse(text, host string, via []string) bool {
	a.reparses++
	a.reparseBytes -= len(text)
	if a.reparses > maxReparses || a.reparseBytes < 0 {
		a.passed(&a.handedOn, text, "too much code handed on to analyse", host, via)
		return false
	}
	return true
}

// callLimit is the report that the call passed a bound it has as a
// whole. Made when the bound is first passed, it stands for every later
// pass, which add nothing to the answer; a line rolled back drops it, and
// the next pass makes it again (see rollback and flush).
type callLimit struct {
	pending int  // the report's place in out.Unparsed, plus one, until it goes to visit
	sent    bool // it went to visit
}

// passed reports text as past the call's bound l, unless that is reported.
func (a *analyzer) passed(l *callLimit, text, msg, host string, via []string) {
	if !l.sent && l.pending == 0 {
		a.unparsed(text, msg, host, via)
		l.pending = len(a.out.Unparsed)
	}
}

// heredocBody returns where the raw body of a heredoc, as bash reads it
// (the lines up to one that equals the delimiter exactly, after leading
// tabs for <<-), starts and ends in src, the offset just past its terminator line, and whether a terminator
// line ends the body, rather than the end of src.
func heredocBody(src string, r *syntax.Redirect) (start, line, end int, closed bool) {
	start = int(r.Hdoc.Pos().Offset())
	if l, ok := firstLit(r.Hdoc); ok && strings.HasPrefix(l.Value, "\\\n") &&
		start > 0 && start < len(src) && src[start-1:start+1] == "\\\n" && quotedDelim(r.Word) {
		// The parser places a quoted body that begins with a backslash
		// and a newline just after the backslash.
		start--
	}
	delim, _ := literal(r.Word)
	if line, _, next, ok := heredocEnd(src, start, delim, r.Op == syntax.DashHdoc); ok {
		return start, line, next, true
	}
	return start, len(src), len(src), false
}

// firstLit returns the first part of w when it is a literal.
func firstLit(w *syntax.Word) (*syntax.Lit, bool) {
	if len(w.Parts) == 0 {
		return nil, false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return l, ok
}

// heredocEnd finds, from offset body, the first line that equals stop
// (after leading tabs when dash, for <<-): where that line starts, where
// the delimiter on it starts, and where the next line starts.
func heredocEnd(src string, body int, stop string, dash bool) (line, delim, next int, ok bool) {
	for pos := body; pos < len(src); {
		le := strings.IndexByte(src[pos:], '\n')
		next := len(src)
		if le >= 0 {
			le += pos
			next = le + 1
		} else {
			le = len(src)
		}
		text := src[pos:le]
		off := pos
		if dash {
			trimmed := strings.TrimLeft(text, "\t")
			off += len(text) - len(trimmed)
			text = trimmed
		}
		if text == stop {
			return pos, off, next, true
		}
		pos = next
	}
	return 0, 0, 0, false
}
