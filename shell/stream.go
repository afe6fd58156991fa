package shell

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxLineAlloc bounds the memory the analysis of one command line may
// allocate, parser and walk together, code it hands to shells included.
// Bash parses a whole line before it runs any of it, so the findings of a
// line are kept until it is complete; the bound keeps that memory small
// however the line is built. Quoted text costs about its size, so a
// heredoc of megabytes is well inside it, while a line of millions of
// commands ("a|a|a...", "ls;ls;...") is not.
const maxLineAlloc = 64 << 20

// errTooLarge is reported for a command line past maxLineAlloc.
var errTooLarge = errors.New("command line too large to analyse")

// maxAllocPerByte bounds what the analysis allocates per byte it hands the
// parser: the dearest shape, a pipeline of one-letter commands, costs
// about 1,400 bytes a byte. It lets the analysis read the heap's count
// seldom (see lineCost).
const maxAllocPerByte = 2048

// firstCount is how many bytes of a line the parser reads before the
// heap's count is first read: a shorter line cannot come near
// maxLineAlloc, and most lines are short.
const firstCount = 1 << 10

// heapAllocated returns the bytes allocated on the heap so far, by the
// whole process; in the hook the analysis is all that runs. It reads
// runtime.ReadMemStats, which stops the world for some tens of
// microseconds, and only lines longer than firstCount are counted, a few
// times each. runtime/metrics reads the count without stopping the world,
// but its package initialisation, which every process that links it runs,
// cost the hook about 40 µs a call (bench/pair, docs/performance.md): more
// than the readings of a 220 KB commit message.
func heapAllocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// lineCost tracks what the command line being analysed has cost. Its
// allocation is the heap's count now less the count when the line began,
// which is not read: at the first reading, once the parser has read
// firstCount bytes, the line is taken to have cost maxAllocPerByte for
// each byte read so far, more than it can have. The next reading comes
// when the bytes read since, at that cost, could reach maxLineAlloc, so
// the line is stopped at most a kilobyte's cost past it, and a long line
// of data is read a few times (the benchmark's 220 KB commit message
// seven).
type lineCost struct {
	read      int    // bytes of the line the parser has read
	nextCount int    // read at which to read the count again
	base      uint64 // the count when the line began, as taken
	counted   bool   // base is taken
}

// start begins a new line.
func (c *lineCost) start() { c.read, c.nextCount, c.counted = 0, firstCount, false }

// add counts n more bytes read and reports whether the line is past
// maxLineAlloc.
func (c *lineCost) add(n int) bool {
	if c.read += n; c.read < c.nextCount {
		return false
	}
	now := heapAllocated()
	if !c.counted {
		c.base, c.counted = now-min(now, uint64(c.read)*maxAllocPerByte), true
	}
	used := now - c.base
	if used > maxLineAlloc {
		return true
	}
	c.nextCount = c.read + max(int((maxLineAlloc-used)/maxAllocPerByte), 1)
	return false
}

// depthReader feeds src to the parser and stops it once the stack is
// deeper than the analysis's frameLimit (errTooDeep) or the command line
// has cost more than maxLineAlloc (errTooLarge). The parser asks for input
// at most a kilobyte at a time from wherever it is in its recursion, so
// the depth is checked at least once per depthCheck kilobytes and the
// memory as lineCost says, and what they add past a limit is bounded.
// Only real structure deepens the stack: quoted text, comments and heredoc
// bodies do not, however many brackets or keywords they hold.
type depthReader struct {
	a     *analyzer
	src   string
	reads int
	pcs   [1]uintptr
	// stop ends the parse: the source is to be mended (see walkSource).
	stop bool
}

// depthCheck is how many reads of the parser depthReader checks the depth
// once in.
const depthCheck = 8

func (r *depthReader) Read(p []byte) (int, error) {
	if r.stop {
		return 0, errMend
	}
	if len(r.src) == 0 {
		return 0, io.EOF
	}
	// The check unwinds the stack, which at depth costs microseconds: it
	// runs on every depthCheck-th read. What the parser reads in between
	// adds at most some thousands of frames per kilobyte (a parenthesis
	// in arithmetic is the dearest), a few megabytes of stack at most.
	if r.a.tooDeep(&r.reads, r.pcs[:]) {
		return 0, errTooDeep
	}
	if r.a.newLine {
		r.a.cost.start()
		r.a.newLine = false
	}
	n := copy(p, r.src)
	if r.a.cost.add(n) {
		return 0, errTooLarge
	}
	r.src = r.src[n:]
	return n, nil
}

// tooDeep counts a parser's read in reads and reports, on every
// depthCheck-th, whether the stack is deeper than frameLimit; pcs is the
// caller's room for one frame. The analysis's first read is not checked:
// only its callers' frames are below it, and most calls are one short
// command line, parsed in one read.
func (a *analyzer) tooDeep(reads *int, pcs []uintptr) bool {
	*reads++
	if !a.reading {
		a.reading = true
		return false
	}
	return *reads%depthCheck == 1 && runtime.Callers(frameLimit, pcs) > 0
}

// pending is a statement waiting to be walked, with its heredocs.
type pending struct {
	stmt  *syntax.Stmt
	hdocs []*syntax.Redirect
}

// ready reports whether the bodies of the statement's heredocs are read.
func (p *pending) ready() bool {
	for _, r := range p.hdocs {
		if r.Hdoc == nil {
			return false
		}
	}
	return true
}

// walkSource parses c.src one statement at a time and walks each, keeping
// no more of the syntax tree than the statements of one command line that
// wait for their heredoc bodies. Bash reads a script one complete command
// line at a time: a line left incomplete by a syntax error never runs,
// even if some of its statements were whole ("a; if"), while the lines
// before it have run. So the findings of a line stand once the next line
// begins; on an error those of the failing line are dropped and the text
// from its start is reported as Unparsed. Where the parser reads the line
// otherwise than bash (see disagree.go), the source is mended and parsed
// again from the line's start.
func (a *analyzer) walkSource(c *code, stdin *input) {
	for mends := 0; ; mends++ {
		next := a.walkOnce(c, stdin)
		if next == nil {
			return
		}
		if mends == maxMends {
			a.unparsed(c.text(next.src), "too many lines read again", c.host, c.via)
			return
		}
		c = next
	}
}

// walkOnce is one pass of walkSource. When the source is to be mended it
// rolls back the findings of the line being read and returns the code to
// go on with: the mended source from that line's start.
func (a *analyzer) walkOnce(c *code, stdin *input) *code {
	top := c.depth == 0
	if top {
		a.newLine = true
	}
	mark := a.mark()
	var (
		committed int // offset of the first line not known to run
		lineEnd   int // end of the line's statements and heredoc bodies
		prevEnd   = -1
		hdocs     []*syntax.Redirect // the line's heredocs
		queue     []pending
		err       error
		walking   bool
		fix       []mend // the mends to make, once the parser stops
		limit     bool   // the source needs mends it cannot have
		reader    = &depthReader{a: a, src: c.src}
	)
	mendWith := func(ms []mend, ok bool) {
		if !ok {
			limit = true
		}
		if len(ms) > 0 || !ok {
			fix, reader.stop = ms, true
		}
	}
	// The parser may panic on input it cannot handle: the hook must
	// answer, and that text is reported as unparsed. A panic in the walk
	// is a bug of ours and goes on.
	func() {
		defer func() {
			if r := recover(); r != nil {
				if walking {
					panic(r)
				}
				err = fmt.Errorf("parser failure: %v", r)
			}
		}()
		// The sequence is drained rather than left with break: the
		// parser may yield once more after an error, which panics after
		// a break.
		parser := a.parser(c.lang)
		for s, serr := range parser.StmtsSeq(reader) {
			if err != nil || reader.stop {
				continue
			}
			if serr != nil {
				err = serr
				continue
			}
			if ms := commentJoins(c, s); len(ms) > 0 {
				mendWith(ms, true)
				continue
			}
			walking = true
			if prevEnd >= 0 && newlineBetween(c.src, prevEnd, int(s.Pos().Offset())) {
				// The line so far is complete: bash runs it.
				if queue, fix, limit = a.walkReady(c, queue, stdin, true); fix != nil || limit {
					reader.stop = true
					walking = false
					continue
				}
				committed = endOfLine(c.src, lineEnd, hdocs)
				lineEnd, hdocs = 0, hdocs[:0]
				mark = a.commit(top)
			}
			p := pending{stmt: s, hdocs: heredocsOf(c, s)}
			hdocs = append(hdocs, p.hdocs...)
			prevEnd = int(s.End().Offset())
			lineEnd = max(lineEnd, prevEnd)
			if queue, fix, limit = a.walkReady(c, append(queue, p), stdin, false); fix != nil || limit {
				reader.stop = true
			}
			walking = false
		}
		if err == nil && !reader.stop {
			a.release(c.lang, parser)
		}
	}()
	if reader.stop {
		return a.remend(c, mark, committed, len(c.src)-len(reader.src), fix, limit)
	}
	if err != nil {
		// A heredoc whose end the parser did not find may be one whose
		// delimiter it reads otherwise than bash; dash reads "&>" as two
		// operators.
		if ms, ok := a.errorHeredoc(c, err); len(ms) > 0 || !ok {
			return a.remend(c, mark, committed, len(c.src)-len(reader.src), ms, !ok)
		}
		if ms, ok := posixMend(c, err); ok {
			return a.remend(c, mark, committed, len(c.src)-len(reader.src), ms, false)
		}
	}
	if err != nil && prevEnd >= 0 && lineComplete(c.src, prevEnd, hdocs) {
		// The error is on a line after the last statement's.
		if queue, fix, limit = a.walkReady(c, queue, stdin, true); fix != nil || limit {
			return a.remend(c, mark, committed, len(c.src)-len(reader.src), fix, limit)
		}
		committed = endOfLine(c.src, lineEnd, hdocs)
		mark = a.commit(top)
	}
	if err != nil {
		a.rollback(mark)
		rest := c.textAt(min(committed, len(c.src)), len(c.src))
		limit := errors.Is(err, errTooDeep) || errors.Is(err, errTooLarge)
		if !limit && c.extra {
			// The shell this reading is for cannot parse the line and
			// runs none of it; the other reading stands.
			return nil
		}
		a.out.Unparsed = append(a.out.Unparsed, Unparsed{
			Text: rest, Err: err.Error(), Host: c.host, Via: c.via, Limit: limit,
		})
		if !limit && c.zshToo {
			// What bash cannot parse, zsh may run: its short loops,
			// anonymous functions, parameter flags.
			a.code(rest, c.host, appendVia(c.via, "zsh"), c.depth+1, stdin, dZsh, true)
		}
		return nil
	}
	if _, fix, limit = a.walkReady(c, queue, stdin, true); fix != nil || limit {
		return a.remend(c, mark, committed, len(c.src)-len(reader.src), fix, limit)
	}
	a.commit(top)
	return nil
}

// remend drops the findings of the line being read and returns the code to
// read again from the line's start, committed, with the mends made; or,
// when the mends cannot be made or cost more than is left to parse,
// reports the rest as past a limit and returns nil. read is how far the
// parser had read, which is parsed again.
func (a *analyzer) remend(c *code, mark outMark, committed, read int, fix []mend, limit bool) *code {
	a.rollback(mark)
	rest := c.src[min(committed, len(c.src)):]
	if a.reparseBytes -= max(read-committed, 0); limit || a.reparseBytes < 0 {
		a.unparsed(c.textAt(min(committed, len(c.src)), len(c.src)), "a line bash reads otherwise than the parser", c.host, c.via)
		return nil
	}
	for i := range fix {
		fix[i].off -= committed
	}
	n := *c
	if c.bodies != nil {
		// The line is read again as it was written, its bodies back:
		// the mends change how the parser reads it.
		var ok bool
		if rest, fix, ok = c.bodies.restoreMends(rest, fix); !ok {
			a.unparsed(c.textAt(min(committed, len(c.src)), len(c.src)), "a line bash reads otherwise than the parser", c.host, c.via)
			return nil
		}
		n.bodies = nil
	}
	n.src = mended(rest, fix)
	return &n
}

// walkReady walks the statements at the head of queue whose heredoc
// bodies are read, or all of them when all is set, in order, and returns
// the rest. It stops before a statement with a heredoc delimiter the
// parser reads otherwise than bash, and returns the mends it needs, or
// limit set when it cannot be mended.
func (a *analyzer) walkReady(c *code, queue []pending, stdin *input, all bool) (rest []pending, fix []mend, limit bool) {
	i := 0
	for ; i < len(queue) && (all || queue[i].ready()); i++ {
		if len(queue[i].hdocs) > 0 {
			if ms, ok := heredocMends(c, queue[i].hdocs); len(ms) > 0 || !ok {
				return nil, ms, !ok
			}
		}
		a.stmt(c, queue[i].stmt, stdin)
		queue[i] = pending{}
	}
	if i == len(queue) {
		return queue[:0], nil, false
	}
	return queue[i:], nil, false
}

// heredocsOf returns the heredoc redirections in s.
func heredocsOf(c *code, s *syntax.Stmt) []*syntax.Redirect {
	if start, end := int(s.Pos().Offset()), int(s.End().Offset()); start < end && end <= len(c.src) &&
		!strings.Contains(c.src[start:end], "<<") {
		return nil
	}
	var out []*syntax.Redirect
	syntax.Walk(s, func(n syntax.Node) bool {
		if r, ok := n.(*syntax.Redirect); ok && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) {
			out = append(out, r)
		}
		return true
	})
	return out
}

// newlineBetween reports whether src[from:to], the text between two
// statements, ends a command line: it holds a newline that is not escaped
// by a backslash (a comment always ends at one).
func newlineBetween(src string, from, to int) bool {
	to = min(to, len(src))
	for i := from; i < to; i++ {
		switch src[i] {
		case '\n':
			return true
		case '\\':
			i++
		case '#':
			for ; i < to; i++ {
				if src[i] == '\n' {
					return true
				}
			}
		}
	}
	return false
}

// lineComplete reports whether the command line of a statement that ends
// at end was complete before a syntax error: the bodies of its heredocs
// are read up to their terminators, or blanks and a comment, then a
// newline, follow it.
func lineComplete(src string, end int, hdocs []*syntax.Redirect) bool {
	read := false
	for _, r := range hdocs {
		if r.Hdoc != nil {
			if _, _, _, closed := heredocBody(src, r); !closed {
				// The error is the body's missing end.
				return false
			}
			read = true
		}
	}
	if read {
		return true
	}
	for i := end; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t':
		case '\\':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
				continue
			}
			return false
		case '\n', '#':
			return true
		default:
			return false
		}
	}
	// The error came at the end of the statement's own line.
	return false
}

// endOfLine returns the offset just past the line that ends at end,
// after the bodies of the line's heredocs.
func endOfLine(src string, end int, hdocs []*syntax.Redirect) int {
	for _, r := range hdocs {
		if r.Hdoc != nil {
			_, _, e, _ := heredocBody(src, r)
			end = max(end, e)
		}
	}
	end = min(end, len(src))
	if end > 0 && src[end-1] == '\n' {
		return end
	}
	for i := end; i < len(src); i++ {
		if src[i] == '\n' {
			return i + 1
		}
	}
	return len(src)
}

// outMark is how far the findings of the command line had come.
type outMark struct{ inv, dyn, unp int }

func (a *analyzer) mark() outMark {
	return outMark{len(a.out.Invocations), len(a.out.Dynamic), len(a.out.Unparsed)}
}

// rollback drops the findings made after m.
func (a *analyzer) rollback(m outMark) {
	for _, l := range [...]*callLimit{&a.handedOn, &a.makeLimit} {
		if l.pending > m.unp {
			l.pending = 0
		}
	}
	clear(a.out.Invocations[m.inv:])
	clear(a.out.Dynamic[m.dyn:])
	clear(a.out.Unparsed[m.unp:])
	a.out.Invocations = a.out.Invocations[:m.inv]
	a.out.Dynamic = a.out.Dynamic[:m.dyn]
	a.out.Unparsed = a.out.Unparsed[:m.unp]
}

// commit records that the findings so far stand. At the top level they
// go to visit and the next line starts afresh.
func (a *analyzer) commit(top bool) outMark {
	if top {
		a.flush()
		a.newLine = true
	}
	return a.mark()
}

// flush hands the findings kept so far to visit.
func (a *analyzer) flush() {
	for i := range a.out.Invocations {
		a.visit(Finding{Invocation: &a.out.Invocations[i]})
	}
	for i := range a.out.Dynamic {
		a.visit(Finding{Dynamic: &a.out.Dynamic[i]})
	}
	for i := range a.out.Unparsed {
		a.visit(Finding{Unparsed: &a.out.Unparsed[i]})
	}
	for _, l := range [...]*callLimit{&a.handedOn, &a.makeLimit} {
		if l.pending > 0 {
			l.sent, l.pending = true, 0
		}
	}
	a.rollback(outMark{})
}
