package powershell

import (
	"strings"
)

// The reader is one pass over the code with an explicit stack of frames,
// one per bracket, block or subexpression it is inside of, so that its
// depth costs memory, bounded, and never the call stack. Each frame reads
// statements in its own mode: at the start of a statement PowerShell
// decides, as the reader does, between a command (a bare word, & or .) and
// an expression (a value, a variable, a bracket); a command reads
// arguments until its pipeline ends; an expression reads operators and
// operands. A string or bare word with $(...) in it is suspended while the
// code inside is read, and resumed after it.

type mode uint8

const (
	mStmt mode = iota // a statement or a pipeline element begins
	mCall             // after & or .: the name of the command to call
	mArgs             // a command's arguments
	mExpr             // an expression
	mKw               // a keyword statement (if, foreach, function...)
	mLine             // the rest of the line is data (using ...)
)

type frameKind uint8

const (
	fRoot    frameKind = iota
	fBlock             // { ... } script block
	fParen             // ( ... )
	fSub               // $( ... )
	fArray             // @( ... )
	fHash              // @{ key = value; ... }
	fCond              // ( ... ) of a keyword: if (...), foreach (...)
	fSwitch            // { ... } of switch: patterns and blocks
	fClass             // { ... } of class or enum: members
	fMethod            // ( ... ) of a method call: its arguments
	fBracket           // [ ... ]: a type name, an attribute or an index
)

// exprFrame reports whether statements in frames of kind k are
// expressions, in which a bare word is data: hash keys, switch patterns,
// class members, method arguments, type names.
func (k frameKind) exprFrame() bool {
	switch k {
	case fHash, fSwitch, fClass, fMethod, fBracket:
		return true
	}
	return false
}

// retKind says what a frame gives the frame below it when it closes.
type retKind uint8

const (
	retNone    retKind = iota
	retArg             // an argument of the command being built
	retName            // the command called with & or .
	retOperand         // an operand of an expression
	retMethod          // the arguments of a method call
	retKeyword         // a keyword's condition or body
	retResume          // a $(...) inside a string or a bare word
)

// purpose says what a token is read for.
type purpose uint8

const (
	pName     purpose = iota // a command name or keyword at a statement's start
	pCallName                // the name after & or .
	pArg                     // a command argument
	pOperand                 // an expression operand
	pRedirect                // the file of a redirection
)

type frame struct {
	kind   frameKind
	ret    retKind
	list   int
	open   int
	closer byte

	mode   mode
	cmd    int // the command being built, or -1
	prev   int // the command before a |, or -1
	prevIn *inputb
	pipe   bool // the element follows a |
	assign bool // the element is a value: after =, return, throw

	// an expression element
	vals   []string
	valsOK bool
	opEnd  bool // the last token was an operator: a newline continues
	// operand is set after an operand: another one right after it,
	// "$cmd web-01", is a command whose name is a value.
	operand  bool
	reported bool

	// an operand or a variable argument just ended: . [ :: may continue it
	adjacent     bool
	chain        []byte
	operandStart int

	// command arguments
	comma    bool // a comma joins the next argument to the last one
	colon    bool // the last parameter ended with ':' and takes the next argument
	redirect bool // the next token is the file of a redirection
	argStart int  // start of a chained variable argument
	argChain bool
	argKind  ArgKind
	stmts    int // statements ended in the frame

	// keywords
	kw        string
	kwExpect  uint8
	kwValue   bool // switch -file: the next word is its value
	foreachIn bool // in the ( ... ) of foreach, "in" starts a pipeline

	// a token suspended while a $(...) inside it is read
	tok     tokState
	tokFor  purpose
	resume  bool
	methodR string // fMethod: the receiver, lower case
	methodN string // fMethod: the method name, lower case
	methodW string // fMethod: the method name as written
	static  bool   // fMethod: a static method (::)
	index   bool   // fBracket: an index, not a type
	// afterType is set on an operand that is a type literal: [ after
	// it is another type ([ValidateNotNull()][string]$x), not an index.
	afterType bool
}

// inputb is what a pipeline element after | reads from an expression.
type inputb struct {
	vals []string
	dyn  bool
}

// reader reads one code.
type reader struct {
	src     string
	pos     int
	stack   []frame
	visit   func(Finding)
	base    Place
	depth   int
	bud     *budget
	al      *aliases
	collect bool // the alias pre-pass: record aliases, report nothing

	st     statement
	tokens int
	stmtAt int // where the top-level statement began
	done   bool
}

// Scan reads PowerShell code and calls visit with what it finds, one
// top-level statement at a time, in source order. The values visit
// receives are valid only during the call.
func Scan(code string, visit func(Finding)) {
	bud := &budget{}
	al := newAliases()
	if mayDefineAliases(code) {
		// An alias may be used before the line that defines it (in a
		// function called later): collect them all first.
		pre := &reader{src: code, visit: func(Finding) {}, bud: &budget{}, al: al, collect: true}
		pre.run()
	}
	r := &reader{src: code, visit: visit, bud: bud, al: al}
	r.run()
}

func (r *reader) run() {
	r.stack = append(r.stack[:0], frame{kind: fRoot, cmd: -1, prev: -1, valsOK: true})
	r.st.reset()
	r.stack[0].list = r.st.newList(-1, -1, -1, fRoot)
	last, stuck := -1, 0
	for !r.done {
		// Every step reads a character or changes state; a step that
		// does neither twice in a row would be a loop: the character is
		// skipped.
		if r.pos == last {
			if stuck++; stuck > 16 {
				_, w := runeAt(r.src, r.pos)
				r.pos += max(w, 1)
				stuck = 0
			}
		} else {
			last, stuck = r.pos, 0
		}
		f := &r.stack[len(r.stack)-1]
		if f.resume {
			f.resume = false
			r.scanToken(f)
			continue
		}
		if f.adjacent {
			r.adjacentTo(f)
			continue
		}
		r.blank(f)
		if r.pos >= len(r.src) {
			r.eof()
			return
		}
		if r.tokens++; r.tokens > maxStatementTokens {
			r.pastLimit("a statement of more than " + itoa(maxStatementTokens) + " tokens")
			return
		}
		switch f.mode {
		case mStmt:
			r.stmt(f)
		case mCall:
			r.callName(f)
		case mArgs:
			r.arg(f)
		case mExpr:
			r.expr(f)
		case mKw:
			r.keyword(f)
		case mLine:
			r.restOfLine(f)
		}
	}
}

func (r *reader) top() *frame { return &r.stack[len(r.stack)-1] }

// closes reports whether c closes the frame.
func (f *frame) closes(c rune) bool { return f.closer != 0 && c == rune(f.closer) }

// blank skips white space, line continuations and comments. Newlines are
// left: they end statements.
func (r *reader) blank(f *frame) {
	for r.pos < len(r.src) {
		c, w := runeAt(r.src, r.pos)
		switch {
		case isSpace(c):
			r.pos += w
		case c == '`':
			n, nw := runeAt(r.src, r.pos+1)
			switch {
			case n == '\r' && r.at(r.pos+2, '\n'):
				r.pos += 3
			case n == '\n' || n == '\r':
				r.pos += 2
			case isSpace(n):
				r.pos += 1 + nw
			default:
				return
			}
		case c == '#':
			r.lineComment()
		case c == '<' && r.at(r.pos+1, '#'):
			r.blockComment()
		case (c == '\n' || c == '\r') && f.mode == mKw && f.kwExpect == kwCont:
			// } then else, catch, while... on a later line: straight to
			// it, once, however many lines lie between.
			kw, at := r.continuation(f)
			if kw == "" {
				return
			}
			r.pos = at
		case (c == '\n' || c == '\r') && r.newlineContinues(f):
			r.pos++
		default:
			return
		}
	}
}

// newlineContinues reports whether a newline does not end the statement
// in f: after |, an operator, a comma, or = , and between a keyword and
// its condition or block.
func (r *reader) newlineContinues(f *frame) bool {
	switch f.mode {
	case mStmt:
		return f.pipe || f.assign || f.kind == fMethod || f.kind == fBracket
	case mExpr:
		return f.opEnd || f.kind == fMethod || f.kind == fBracket
	case mArgs:
		return f.comma
	case mCall:
		return false
	case mKw:
		return f.kwExpect == kwCond || f.kwExpect == kwBlock || f.kwExpect == kwName ||
			f.kwExpect == kwTypes || f.kwExpect == kwBase || f.kwExpect == kwOpts
	}
	return false
}

func (r *reader) at(i int, c byte) bool { return i < len(r.src) && r.src[i] == c }

func (r *reader) lineComment() {
	if i := strings.IndexAny(r.src[r.pos:], "\r\n"); i >= 0 {
		r.pos += i
	} else {
		r.pos = len(r.src)
	}
}

func (r *reader) blockComment() {
	if i := strings.Index(r.src[r.pos+2:], "#>"); i >= 0 {
		r.pos += 2 + i + 2
	} else {
		r.pos = len(r.src)
	}
}

// stmt reads the start of a statement or of a pipeline element.
func (r *reader) stmt(f *frame) {
	c, w := runeAt(r.src, r.pos)
	n, _ := runeAt(r.src, r.pos+w)
	switch {
	case c == '\n' || c == '\r' || c == ';':
		r.pos += w
		r.endStatement(f)
		return
	case f.closes(c):
		r.closeFrame(f)
		return
	case c == ')' || c == '}' || c == ']':
		r.syntaxError("unexpected " + string(c))
		return
	case c == '&' && n == '&' || c == '|' && n == '|':
		r.pos += 2
		r.endPipeline(f)
		return
	case c == '|':
		r.pos++
		return
	}
	if f.kind.exprFrame() && !f.assign {
		// A hash key, a switch pattern, a member: a value. After = it
		// is a statement (@{ Now = Get-Date }).
		r.beginExpr(f)
		return
	}
	switch {
	case c == '&':
		f.mode = mCall
		r.beginCommand(f, token{}, '&', r.pos)
		r.pos++
		return
	case c == '.' && (isSpace(n) || n == '$' || isDoubleQuote(n) || isSingleQuote(n) || n == '(' || n == '{'):
		f.mode = mCall
		r.beginCommand(f, token{}, '.', r.pos)
		r.pos++
		return
	case c == ':' && !f.pipe && isIdentChar(n):
		// A loop label.
		r.pos++
		for r.pos < len(r.src) {
			c, w := runeAt(r.src, r.pos)
			if !isIdentChar(c) {
				break
			}
			r.pos += w
		}
		return
	case r.startsExpression(c, n):
		r.beginExpr(f)
		return
	}
	r.beginToken(f, pName)
}

// startsExpression reports whether a statement that starts with c (then
// n) is an expression rather than a command.
func (r *reader) startsExpression(c, n rune) bool {
	switch {
	case c == '$' || c == '@' || c == '(' || c == '{' || c == '[' || c == '!' || c == '+' || c == ',':
		return true
	case isSingleQuote(c) || isDoubleQuote(c) || isDash(c):
		return true
	case c == '.' && n >= '0' && n <= '9':
		return true
	case c >= '0' && c <= '9':
		return numberEnd(r.src, r.pos) > r.pos
	}
	return false
}

// push opens a frame, bounded by maxNesting.
func (r *reader) push(f frame) {
	if len(r.stack) >= maxNesting {
		r.pastLimit("nesting deeper than " + itoa(maxNesting) + " levels")
		return
	}
	parent := r.top()
	owner, arg := -1, -1
	if f.ret == retArg && parent.cmd >= 0 {
		owner, arg = parent.cmd, len(r.st.cmds[parent.cmd].args)
	}
	f.list = r.st.newList(parent.list, owner, arg, f.kind)
	if f.ret == retName && parent.cmd >= 0 {
		r.st.lists[f.list].ownerCmd = parent.cmd
		r.st.lists[f.list].called = true
	}
	f.cmd, f.prev, f.valsOK = -1, -1, true
	if f.kind.exprFrame() {
		f.mode = mExpr
	}
	r.stack = append(r.stack, f)
}

// closeFrame ends the frame on top at its closing character and hands
// its result to the frame below.
func (r *reader) closeFrame(f *frame) {
	// The literals of a method's arguments, ("a", "b"), if that is all
	// the frame holds.
	lits, litsOK := f.vals, f.valsOK && f.mode == mExpr && f.cmd < 0 && f.stmts == 0 && !f.adjacent && len(f.vals) > 0
	r.endStatement(f)
	if len(r.stack) == 1 {
		return
	}
	f.vals, f.valsOK = lits, litsOK
	child := *f
	r.pos += len(string(rune(child.closer)))
	r.stack = r.stack[:len(r.stack)-1]
	parent := r.top()
	src := r.src[child.open:r.pos]
	switch child.ret {
	case retResume:
		parent.tok.pos = r.pos
		parent.resume = true
	case retArg:
		if child.kind == fBlock {
			r.addArg(parent, Arg{Text: src, Kind: Block})
			if parent.cmd >= 0 {
				r.st.cmds[parent.cmd].blocks = true
			}
			break
		}
		// (Get-VM web-01).Name: the value may go on with members.
		parent.adjacent, parent.argChain, parent.argStart, parent.argKind = true, true, child.open, Expr
		parent.chain = append(parent.chain[:0], "(…)"...)
	case retName:
		c := &r.st.cmds[parent.cmd]
		if child.kind == fBlock {
			c.hidden = true // & { ... }: the block's code is what runs
		} else {
			c.dynName = true
		}
		c.nameSrc = src
		parent.mode = mArgs
	case retOperand:
		parent.valsOK = false
		parent.opEnd = false
		// A type before a value is a cast: [int]$x.
		parent.operand = child.kind != fBracket || child.index
		parent.chain = append(parent.chain[:0], "(…)"...)
		if child.kind == fBlock {
			parent.chain = append(parent.chain[:0], "{…}"...)
		}
		if child.kind == fBracket && !child.index {
			parent.chain = append(parent.chain[:0], '[')
			parent.chain = append(parent.chain, normalType(src[1:len(src)-1])...)
			parent.chain = append(parent.chain, ']')
		}
		parent.adjacent = true
		parent.afterType = child.kind == fBracket && !child.index
		if child.kind != fBracket || !child.index {
			parent.operandStart = child.open
		}
	case retMethod:
		r.methodCall(parent, &child, src)
	case retKeyword:
		r.keywordPart(parent, &child)
	}
}

// eof ends every open frame at the end of the code.
func (r *reader) eof() {
	for len(r.stack) > 1 {
		f := r.top()
		if f.ret == retResume {
			// The code ended inside $( of a string: the string too.
			r.unterminated(f.open, true)
		} else {
			r.unterminated(f.open, false)
		}
		r.endStatement(f)
		child := *f
		r.stack = r.stack[:len(r.stack)-1]
		parent := r.top()
		switch child.ret {
		case retArg:
			r.addArg(parent, Arg{Text: r.src[child.open:], Dynamic: true, Kind: Expr})
		case retName:
			r.st.cmds[parent.cmd].dynName = true
			r.st.cmds[parent.cmd].nameSrc = r.src[child.open:]
		case retResume:
			parent.tok.pos = len(r.src)
			parent.tok.dyn = true
			r.tokenDone(parent)
		}
	}
	f := r.top()
	if f.resume {
		f.resume = false
		r.scanToken(f)
	}
	if f.adjacent {
		f.adjacent = false
		r.endAdjacent(f)
	}
	r.endStatement(f)
	r.flush()
	r.done = true
}

// unterminated notes a string or bracket the code never closes:
// PowerShell would not run the script, but the reader judges what it read
// of it.
func (r *reader) unterminated(at int, quoted bool) {
	what := "missing closing bracket"
	if quoted {
		what = "missing closing quote"
	}
	r.st.addExtra(extra{kind: xUnparsed, list: r.top().list, text: r.src[at:], err: what})
}

// syntaxError reports the rest of the code as not valid PowerShell.
func (r *reader) syntaxError(what string) {
	r.st.addExtra(extra{kind: xUnparsed, list: r.top().list, text: r.src[r.pos:], err: what})
	r.stopAll()
}

// pastLimit reports the rest of the top-level statement, and the code
// after it, as past a limit.
func (r *reader) pastLimit(what string) {
	r.st.addExtra(extra{kind: xUnparsed, list: r.stack[0].list, text: r.src[r.stmtAt:], err: what, limit: true})
	r.stopAll()
}

// stopAll ends the reading: what is complete is reported.
func (r *reader) stopAll() {
	r.stack = r.stack[:1]
	f := r.top()
	f.cmd, f.resume, f.adjacent = -1, false, false
	r.flush()
	r.done = true
}

// endStatement ends the statement being read in f. In the root frame the
// statement is complete and its findings are reported.
func (r *reader) endStatement(f *frame) {
	if f.mode == mKw {
		r.endKeyword(f)
	}
	r.endPipeline(f)
	f.stmts++
	f.assign = false
	f.mode = mStmt
	if f.kind.exprFrame() {
		f.mode = mExpr
	}
	if len(r.stack) == 1 && f == &r.stack[0] {
		r.flush()
		r.stmtAt = r.pos
		r.tokens = 0
	}
}

// endPipeline ends the pipeline being read in f.
func (r *reader) endPipeline(f *frame) {
	r.endElement(f)
	f.prev, f.prevIn, f.pipe = -1, nil, false
}

// endElement ends the pipeline element being read in f, which the
// element after a | reads.
func (r *reader) endElement(f *frame) {
	if f.adjacent {
		f.adjacent = false
		r.endAdjacent(f)
	}
	f.prevIn = nil
	switch {
	case f.cmd >= 0:
		c := &r.st.cmds[f.cmd]
		c.end = r.pos
		f.prev = f.cmd
		f.cmd = -1
	case f.mode == mExpr:
		f.prev = -1
		in := &inputb{dyn: true}
		if f.valsOK && len(f.vals) > 0 {
			in = &inputb{vals: f.vals}
		}
		f.prevIn = in
	default:
		f.prev = -1
	}
	f.vals, f.valsOK, f.opEnd, f.operand, f.reported = nil, true, false, false, false
	f.comma, f.colon, f.redirect, f.argChain = false, false, false, false
	if f.mode == mArgs || f.mode == mCall || f.mode == mExpr {
		f.mode = mStmt
	}
}

// beginExpr starts an expression element.
func (r *reader) beginExpr(f *frame) {
	f.mode = mExpr
	f.vals, f.valsOK, f.opEnd = nil, true, false
	f.chain = f.chain[:0]
	if f.pipe || f.prevIn != nil {
		// An expression after | is not PowerShell; the reader reads it
		// as a value all the same.
		f.prevIn = nil
	}
}

// beginCommand starts a command whose name is t, or, with call set, the
// command & or . runs, whose name comes next.
func (r *reader) beginCommand(f *frame, t token, call byte, start int) {
	if r.bud.commands++; r.bud.commands > maxCommands {
		r.pastLimit("more than " + itoa(maxCommands) + " commands")
		return
	}
	c := cmdb{list: f.list, name: t, call: call, upstream: -1, start: start}
	if f.pipe {
		c.upstream = f.prev
		c.input = f.prevIn
	}
	f.cmd = r.st.newCmd(c)
	f.prev, f.prevIn, f.pipe = -1, nil, false
	if call == 0 {
		f.mode = mArgs
	}
}

// nameToken reads the first word of a statement: a keyword or a command.
func (r *reader) nameToken(f *frame, t token) {
	if t.ident && !f.pipe {
		if kw := strings.ToLower(t.text); keywords()[kw] {
			r.beginKeyword(f, kw)
			return
		}
	}
	if t.quoted {
		// A string where a command could start is a value.
		f.mode = mExpr
		r.operandToken(f, t)
		return
	}
	r.beginCommand(f, t, 0, f.tok.start)
}

// openGroup opens the group that c, and n after it, begin at r.pos: (,
// {, $(, @( and, with hash, @{; the group returns to ret when it closes.
// It reports false when they begin none.
func (r *reader) openGroup(c, n rune, ret retKind, hash bool) bool {
	var kind frameKind
	var closer byte
	width := 2
	switch {
	case c == '(':
		kind, closer, width = fParen, ')', 1
	case c == '{':
		kind, closer, width = fBlock, '}', 1
	case c == '$' && n == '(':
		kind, closer = fSub, ')'
	case c == '@' && n == '(':
		kind, closer = fArray, ')'
	case hash && c == '@' && n == '{':
		kind, closer = fHash, '}'
	default:
		return false
	}
	r.pos += width
	r.push(frame{kind: kind, ret: ret, open: r.pos - width, closer: closer})
	return true
}

// callName reads the name after & or . .
func (r *reader) callName(f *frame) {
	c, w := runeAt(r.src, r.pos)
	n, _ := runeAt(r.src, r.pos+w)
	switch {
	case c == '\n' || c == '\r' || c == ';' || c == '|' || f.closes(c):
		// & with nothing to call.
		r.st.cmds[f.cmd].hidden = true
		f.mode = mArgs
	case r.openGroup(c, n, retName, false):
	case c == '$':
		end := varEnd(r.src, r.pos)
		if end == r.pos {
			end++
		}
		cm := &r.st.cmds[f.cmd]
		cm.dynName, cm.nameSrc = true, r.src[r.pos:end]
		r.pos = end
		f.mode = mArgs
		f.adjacent, f.argChain, f.argStart = true, false, r.pos
		f.chain = f.chain[:0]
	default:
		r.beginToken(f, pCallName)
	}
}

func (r *reader) callToken(f *frame, t token) {
	c := &r.st.cmds[f.cmd]
	c.name = t
	if t.dyn {
		c.dynName, c.nameSrc = true, t.src
	}
	f.mode = mArgs
}

// arg reads a command's next argument.
func (r *reader) arg(f *frame) {
	c, w := runeAt(r.src, r.pos)
	n, nw := runeAt(r.src, r.pos+w)
	if f.redirect && !endsToken(c) {
		r.beginToken(f, pRedirect)
		return
	}
	switch {
	case c == '\n' || c == '\r' || c == ';':
		r.pos += w
		r.endStatement(f)
	case c == '&' && n == '&' || c == '|' && n == '|':
		r.pos += 2
		r.endPipeline(f)
	case c == '|':
		r.pos++
		r.endElement(f)
		f.pipe = true
	case c == '&':
		// A job in the background: the pipeline ends here.
		r.pos++
		r.endPipeline(f)
	case f.closes(c):
		r.closeFrame(f)
	case c == ')' || c == '}' || c == ']':
		r.syntaxError("unexpected " + string(c))
	case c == ',':
		r.pos++
		f.comma = true
	case r.openGroup(c, n, retArg, true):
	case r.redirection():
	case c == '$' || c == '@' && isVarChar(n):
		// A variable, or @name: arguments splatted from a variable.
		start := r.pos
		end := varEnd(r.src, r.pos)
		if next, _ := runeAt(r.src, end); end == r.pos || next != 0 && !endsToken(next) && next != '.' && next != '[' {
			// $HOME/.claude: a variable and more is one word, as
			// PowerShell reads it in a command's arguments.
			r.beginToken(f, pArg)
			return
		}
		r.pos = end
		f.adjacent, f.argChain, f.argStart, f.argKind = true, true, start, Word
		f.chain = append(f.chain[:0], strings.ToLower(r.src[start:end])...)
	case isDash(c) && isDash(n) && r.at(r.pos+w+nw, '%'):
		r.stopParsing(f, r.pos+w+nw+1)
	case isDash(c) && (n == '_' || n == '?' || n > 0x7f && isIdentChar(n) || n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z'):
		r.parameter(f, w)
	default:
		r.beginToken(f, pArg)
	}
}

// redirection reads a redirection operator at r.pos: > >> 2> 2>> *>
// 3>&1 ... and marks the next token as its file. Merging redirections
// (2>&1) write no file. It reports false when none starts there.
func (r *reader) redirection() bool {
	s, i := r.src, r.pos
	switch {
	case s[i] == '>':
		i++
	case (s[i] == '*' || s[i] >= '1' && s[i] <= '6') && r.at(i+1, '>'):
		i += 2
	case s[i] == '<' && !r.at(i+1, '#'):
		// Input redirection is reserved in PowerShell; the reader
		// skips it.
		r.pos++
		return true
	default:
		return false
	}
	if r.at(i, '>') {
		i++
	} else if r.at(i, '&') && i+1 < len(s) && s[i+1] >= '1' && s[i+1] <= '6' {
		r.pos = i + 2
		return true
	}
	r.pos = i
	f := r.top()
	f.redirect = true
	return true
}

// parameter reads a parameter token: a dash (any of PowerShell's four)
// and a name, ending at white space, a bracket, ',', ';', '|', '&', '.'
// or ':'; a name with a quote in it is an argument instead.
func (r *reader) parameter(f *frame, dashWidth int) {
	start := r.pos
	i := r.pos + dashWidth
	for i < len(r.src) {
		c, w := runeAt(r.src, i)
		if endsToken(c) || c == '.' || c == '[' {
			break
		}
		if isSingleQuote(c) || isDoubleQuote(c) {
			r.beginToken(f, pArg)
			return
		}
		if c == ':' {
			r.addArg(f, Arg{Text: "-" + r.src[start+dashWidth:i] + ":", Kind: Param})
			r.pos = i + 1
			f.colon = true
			return
		}
		i += w
	}
	r.pos = i
	r.addArg(f, Arg{Text: "-" + r.src[start+dashWidth:i], Kind: Param})
}

// stopParsing reads the rest of the line after --% as PowerShell passes
// it: verbatim words up to the end of the line or a |, with cmd-style
// %NAME% variables expanded at run time.
func (r *reader) stopParsing(f *frame, from int) {
	end := from
	for end < len(r.src) && r.src[end] != '\n' && r.src[end] != '\r' && r.src[end] != '|' {
		end++
	}
	for w := range strings.FieldsSeq(r.src[from:end]) {
		dyn := strings.Count(w, "%") >= 2
		r.addArg(f, Arg{Text: w, Dynamic: dyn})
	}
	r.pos = end
}

// argToken adds a token as an argument.
func (r *reader) argToken(f *frame, t token) {
	if f.redirect {
		r.redirectToken(f, t)
		return
	}
	r.addArg(f, Arg{Text: t.text, Dynamic: t.dyn, Quoted: t.quoted})
}

// addArg adds an argument to the command being built in f, joining it
// to the last one after a comma or a parameter that ends with ':'.
func (r *reader) addArg(f *frame, a Arg) {
	if f.redirect {
		f.redirect = false
		if f.cmd >= 0 {
			c := &r.st.cmds[f.cmd]
			c.writes = append(c.writes, a.Text)
		}
		return
	}
	if f.cmd < 0 {
		return
	}
	c := &r.st.cmds[f.cmd]
	if n := len(c.args); n > 0 && (f.comma || f.colon) {
		last := &c.args[n-1]
		switch {
		case f.colon:
			last.Text += a.Text
			last.Dynamic = last.Dynamic || a.Dynamic
		default:
			// The list's Text is joined when the command is complete:
			// joined here, a list of n elements would cost n² bytes.
			if last.List == nil {
				last.List = []string{last.Text}
			}
			last.List = append(last.List, a.Text)
			last.Dynamic = last.Dynamic || a.Dynamic
		}
		f.comma, f.colon = false, false
		return
	}
	f.comma = false
	c.args = append(c.args, a)
}

// redirectToken records the file of a redirection.
func (r *reader) redirectToken(f *frame, t token) {
	f.redirect = false
	target := t.text
	if strings.EqualFold(t.src, "$null") {
		return
	}
	if f.cmd >= 0 {
		c := &r.st.cmds[f.cmd]
		c.writes = append(c.writes, target)
		return
	}
	// A value redirected to a file: PowerShell writes it with Out-File.
	r.st.addExtra(extra{kind: xWrite, list: f.list, text: "Out-File", writes: []string{target}})
}

// expr reads the next token of an expression.
func (r *reader) expr(f *frame) {
	c, w := runeAt(r.src, r.pos)
	n, nw := runeAt(r.src, r.pos+w)
	op := func(width int) {
		r.pos += width
		f.opEnd, f.operand = true, false
		f.valsOK = f.valsOK && c == ','
		f.chain = f.chain[:0]
	}
	if f.redirect && !endsToken(c) {
		r.beginToken(f, pRedirect)
		return
	}
	if f.operand && !f.kind.exprFrame() && !f.reported && startsOperand(c, n) && !(f.foreachIn && r.word("in")) {
		// Two values in a row: "$cmd web-01" calls what $cmd holds, to
		// PowerShell a syntax error, to the reader a command it cannot
		// name.
		f.reported = true
		end := strings.IndexAny(r.src[r.pos:], "\n;|")
		if end < 0 {
			end = len(r.src) - r.pos
		}
		r.st.addExtra(extra{kind: xDynamic, list: f.list, text: r.src[f.operandStart : r.pos+end]})
	}
	switch {
	case c == '\n' || c == '\r' || c == ';':
		if f.kind == fMethod || f.kind == fBracket {
			r.pos += w
			return
		}
		r.pos += w
		r.endStatement(f)
	case f.closes(c):
		r.closeFrame(f)
	case c == ')' || c == '}' || c == ']':
		r.syntaxError("unexpected " + string(c))
	case c == '&' && n == '&' || c == '|' && n == '|':
		r.pos += 2
		r.endPipeline(f)
	case c == '|':
		r.pos++
		r.endElement(f)
		f.pipe = true
	case c == '&':
		r.pos++
		r.endPipeline(f)
	case r.redirection():
		f.valsOK = false
	case c == '=' && n != '=' || (c == '+' || c == '*' || c == '/' || c == '%' || isDash(c)) && n == '=' || c == '?' && n == '?' && r.at(r.pos+2, '='):
		// An assignment: its value is a statement of its own. One to a
		// command-lookup hook (CommandNotFoundAction...) makes any name
		// run what the hook says.
		if chain := string(f.chain); strings.Contains(chain, "commandnotfoundaction") ||
			strings.Contains(chain, "precommandlookupaction") || strings.Contains(chain, "postcommandlookupaction") {
			r.st.addExtra(extra{kind: xDynamic, list: f.list, text: r.src[f.operandStart:min(r.pos+1, len(r.src))] + " ..."})
		}
		if c == '=' {
			r.pos++
		} else if c == '?' {
			r.pos += 3
		} else {
			r.pos += w + 1
		}
		f.mode = mStmt
		f.assign = true
		f.vals, f.valsOK, f.opEnd, f.operand = nil, true, false, false
		f.prev, f.prevIn = -1, nil
	case r.openGroup(c, n, retOperand, true):
	case c == '[':
		r.pos++
		r.push(frame{kind: fBracket, ret: retOperand, open: r.pos - 1, closer: ']'})
	case c == '$':
		end := varEnd(r.src, r.pos)
		if end == r.pos {
			op(1)
			return
		}
		f.valsOK, f.opEnd = false, false
		f.operandStart = r.pos
		f.chain = append(f.chain[:0], strings.ToLower(r.src[r.pos:end])...)
		r.pos = end
		f.adjacent, f.operand = true, true
	case c == '@' && isVarChar(n):
		f.valsOK, f.opEnd = false, false
		r.pos = varEnd(r.src, r.pos+1)
	case isSingleQuote(c) || isDoubleQuote(c) || c == '@' && r.hereHeader(r.pos+1):
		r.beginToken(f, pOperand)
	case c >= '0' && c <= '9' || c == '.' && n >= '0' && n <= '9':
		end := numberEnd(r.src, r.pos)
		if end == r.pos {
			end = r.pos + 1
		}
		f.valsOK, f.opEnd = false, false
		f.chain = append(f.chain[:0], '0')
		f.operandStart = r.pos
		r.pos = end
		f.adjacent, f.operand = true, true
	case isDash(c) && (n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z'):
		// An operator: -eq, -not, -replace, -f...
		i := r.pos + w
		for i < len(r.src) && isIdentChar(rune(r.src[i])) {
			i++
		}
		op(i - r.pos)
	case c == '.' && n == '.':
		op(2)
	case c == ':' && n == ':':
		op(2)
	case c == ',':
		op(1)
	case isIdentChar(c):
		// A bare word in an expression is data: a hash key, a switch
		// pattern, a member; in foreach (... in ...) "in" starts the
		// pipeline.
		i := r.pos
		for i < len(r.src) {
			c, w := runeAt(r.src, i)
			if !isIdentChar(c) && c != '-' && c != '.' && c != '\\' && c != ':' {
				break
			}
			i += w
		}
		word := r.src[r.pos:i]
		if f.foreachIn && strings.EqualFold(word, "in") {
			r.pos = i
			f.mode, f.assign, f.operand = mStmt, true, false
			return
		}
		if !f.operand {
			f.operandStart = r.pos
		}
		r.pos = i
		f.valsOK, f.opEnd, f.operand = false, false, true
	default:
		op(w)
		_ = nw
	}
}

// operandToken reads a string operand.
func (r *reader) operandToken(f *frame, t token) {
	if f.redirect {
		r.redirectToken(f, t)
		return
	}
	f.opEnd = false
	if t.dyn {
		f.valsOK = false
	} else if f.valsOK {
		f.vals = append(f.vals, t.text)
	}
	f.operandStart = f.tok.start
	f.chain = f.chain[:0]
	f.chain = append(f.chain, '\'')
	f.adjacent, f.operand = true, true
}

// adjacentTo reads what directly follows an operand or a variable
// argument: a member (.Name), a method call (.Name(...)), a static member
// (::Name), an index ([0]).
func (r *reader) adjacentTo(f *frame) {
	c, w := runeAt(r.src, r.pos)
	n, _ := runeAt(r.src, r.pos+w)
	switch {
	case c == '.' && n != '.' && (isIdentChar(n) || n == '$' || isSingleQuote(n) || isDoubleQuote(n)), c == ':' && n == ':':
		static := c == ':'
		r.pos += 1 + btoi(static)
		start := r.pos
		m, mw := runeAt(r.src, r.pos)
		dynMember := false
		switch {
		case m == '$':
			end := varEnd(r.src, r.pos)
			if end == r.pos {
				end++
			}
			r.pos = end
			dynMember = true
		case isSingleQuote(m) || isDoubleQuote(m):
			// A quoted member name; read it as a token-free span.
			r.pos += mw
			for r.pos < len(r.src) {
				q, qw := runeAt(r.src, r.pos)
				r.pos += qw
				if isSingleQuote(q) || isDoubleQuote(q) {
					break
				}
			}
			dynMember = isDoubleQuote(m)
		default:
			for r.pos < len(r.src) {
				q, qw := runeAt(r.src, r.pos)
				if !isIdentChar(q) {
					break
				}
				r.pos += qw
			}
		}
		name := strings.ToLower(r.src[start:r.pos])
		if dynMember {
			name = "$"
		}
		if r.at(r.pos, '(') {
			r.pos++
			recv := string(f.chain)
			f.chainAdd(string(c)+btos(static, ":")+name, maxChain)
			r.push(frame{kind: fMethod, ret: retMethod, open: r.pos - 1, closer: ')', methodR: recv, methodN: name, methodW: r.src[start : r.pos-1], static: static})
			return
		}
		f.chainAdd(string(c)+btos(static, ":")+name, maxChain)
	case c == '[':
		r.pos++
		f.chainAdd("[]", maxChain)
		r.push(frame{kind: fBracket, ret: retOperand, open: r.pos - 1, closer: ']', index: !f.afterType})
	default:
		f.adjacent = false
		r.endAdjacent(f)
	}
}

// endAdjacent ends an operand's member chain; for a variable argument it
// adds the argument.
func (r *reader) endAdjacent(f *frame) {
	if f.mode == mArgs && f.argChain {
		f.argChain = false
		kind := f.argKind
		f.argKind = Word
		r.addArg(f, Arg{Text: r.src[f.argStart:r.pos], Dynamic: true, Kind: kind})
	}
}

func (f *frame) chainAdd(s string, limit int) {
	if len(f.chain)+len(s) > limit {
		return
	}
	f.chain = append(f.chain, s...)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func btos(b bool, s string) string {
	if b {
		return s
	}
	return ""
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// word reports whether the word w (in any case) starts at r.pos and ends
// there.
func (r *reader) word(w string) bool {
	end := r.pos + len(w)
	if end > len(r.src) || !strings.EqualFold(r.src[r.pos:end], w) {
		return false
	}
	c, _ := runeAt(r.src, end)
	return !isIdentChar(c)
}
