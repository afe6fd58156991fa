package shell

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// inputKind says what a command reads on standard input.
type inputKind uint8

const (
	inNone    inputKind = iota // nothing known: the caller's stdin
	inText                     // static text: heredoc, here-string, piped static output
	inDynamic                  // text known only at run time; text holds its static skeleton
	inFile                     // a file redirected with <
	inArgs                     // static text xargs turns into arguments: a payload, not code
)

// input is what a command reads on standard input.
type input struct {
	kind inputKind
	// text is the payload: the static text, or for inDynamic its static
	// parts with run-time parts as source text.
	text string
	// code is text for analysis as code, with run-time parts that hold
	// code replaced (see field.skel).
	code string
	// via names how the text arrives, for Via of code read from it.
	via string
}

func (a *analyzer) stmts(c *code, list []*syntax.Stmt, stdin *input) {
	for _, s := range list {
		a.stmt(c, s, stdin)
	}
}

// stmt walks one statement. Its own redirections decide its stdin and
// the other descriptors it reads; otherwise it reads stdin, and what the
// statements around it, or an earlier "exec 3<<<...", set up.
func (a *analyzer) stmt(c *code, s *syntax.Stmt, stdin *input) {
	in := stdin
	if in == nil {
		in = a.descriptor(0)
	}
	outer, outerReads, outerFds, outerOut := a.writes, a.reads, a.fds, a.outFds
	bare := bareExec(s)
	defer func() {
		a.writes, a.reads = outer, outerReads
		if !bare {
			a.fds, a.outFds = outerFds, outerOut
		}
	}()
	for _, r := range s.Redirs {
		if f, ok := writtenFile(c, r); ok {
			if len(a.writes) < maxWrites {
				// Copy on append: the slice is shared with enclosing
				// statements.
				a.writes = append(a.writes[:len(a.writes):len(a.writes)], f)
			}
			switch {
			case r.N == nil || r.N.Value == "1" || r.Op == syntax.RdrAll || r.Op == syntax.AppAll:
				a.wrote(c, f, r.Op == syntax.AppOut || r.Op == syntax.AppAll, s, in)
			case bare && r.Op != syntax.RdrInOut:
				// "exec 3> FILE" opens FILE for what is written to
				// descriptor 3 from now on.
				a.openOutput(c, r.N.Value, f, r.Op == syntax.AppOut)
			}
		}
		if f, ok := readFile(c, r); ok && len(a.reads) < maxWrites {
			a.reads = append(a.reads[:len(a.reads):len(a.reads)], f)
		}
		if to, ok := a.outputTo(c, r); ok {
			a.wrote(c, to, true, s, in)
		}
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if !quotedDelim(r.Word) && r.Hdoc != nil {
				a.wordIn(c, r.Hdoc, true)
			}
		default:
			a.word(c, r.Word)
		}
		n := 0
		if r.N != nil {
			var err error
			if n, err = strconv.Atoi(r.N.Value); err != nil {
				continue
			}
		}
		fd, ok := a.redirInput(c, r, in)
		if !ok {
			continue
		}
		if n == 0 {
			in = fd
		}
		if n != 0 || bare {
			a.setDescriptor(n, fd)
		}
	}
	a.command(c, s.Cmd, in)
}

// redirInput returns what a redirection makes its descriptor read: the
// text of a heredoc or here-string, a file, the output of a <(...), or a
// copy of another descriptor (<&3). It reports false for a redirection
// that reads nothing.
func (a *analyzer) redirInput(c *code, r *syntax.Redirect, stdin *input) (*input, bool) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		text, skel, static := heredocTexts(c, r)
		in := &input{kind: inText, text: text, code: skel, via: "<<"}
		if !static {
			in.kind = inDynamic
		}
		return in, true
	case syntax.WordHdoc:
		f := c.field(r.Word)
		in := &input{kind: inText, text: f.approx + "\n", code: f.skel + "\n", via: "<<<"}
		if f.dyn {
			in.kind = inDynamic
		}
		return in, true
	case syntax.RdrIn, syntax.RdrInOut:
		if f := procSubstFile(c, r.Word); f != nil && r.Op == syntax.RdrIn {
			// < <(...) reads the substitution's output.
			return f, true
		}
		return a.fileInput(c.field(r.Word)), true
	case syntax.DplIn:
		f := c.field(r.Word)
		if f.dyn {
			return &input{kind: inDynamic, via: "<&"}, true
		}
		n, err := strconv.Atoi(f.val)
		if err != nil {
			return nil, false
		}
		if n == 0 {
			return stdin, stdin != nil
		}
		return a.descriptor(n), true
	}
	return nil, false
}

// maxWrites bounds Invocation.Writes and Invocation.Reads: a command
// inside many redirected statements need not list them all to be known
// to write.
const maxWrites = 16

// readFile reports the file an input redirection reads: the target of <
// and <> that is not a process substitution.
func readFile(c *code, r *syntax.Redirect) (string, bool) {
	if r.Op != syntax.RdrIn && r.Op != syntax.RdrInOut || procSubstFile(c, r.Word) != nil {
		return "", false
	}
	f := c.field(r.Word)
	if !f.dyn && f.val == "/dev/null" {
		return "", false
	}
	return f.val, true
}

// openOutput records that output descriptor n writes to the file path
// from now on; the file is emptied unless appended to.
func (a *analyzer) openOutput(c *code, n, path string, appending bool) {
	fd, err := strconv.Atoi(n)
	if err != nil || fd < 3 || fd >= maxDescriptors || c.host != "" {
		return
	}
	a.outFds[fd] = path
	if !appending {
		a.writeFile(path, &input{kind: inText, via: path}, false)
	}
}

// outputTo reports the file a redirection of standard output to a
// descriptor writes to, when the descriptor was opened on one ("exec 3>
// FILE", then "echo ... >&3"); a descriptor closed (>&-) writes nowhere.
func (a *analyzer) outputTo(c *code, r *syntax.Redirect) (string, bool) {
	if r.Op != syntax.DplOut || r.N != nil && r.N.Value != "1" {
		return "", false
	}
	lit := r.Word.Lit()
	if lit == "-" {
		return "", false
	}
	fd, err := strconv.Atoi(lit)
	if err != nil || fd < 3 || fd >= maxDescriptors || a.outFds[fd] == "" {
		return "", false
	}
	return a.outFds[fd], true
}

// writtenFile reports the file an output redirection writes to: the
// target of >, >>, >|, &>, &>>, <> and of >& with a word that is not a
// descriptor. Writing to /dev/null changes nothing.
func writtenFile(c *code, r *syntax.Redirect) (string, bool) {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
	case syntax.DplOut:
		if lit := r.Word.Lit(); lit == "-" || lit != "" && strings.Trim(lit, "0123456789") == "" {
			return "", false
		}
	default:
		return "", false
	}
	f := c.field(r.Word)
	if !f.dyn && f.val == "/dev/null" {
		return "", false
	}
	return f.val, true
}

func (a *analyzer) command(c *code, cmd syntax.Command, in *input) {
	switch x := cmd.(type) {
	case *syntax.CallExpr:
		a.call(c, x, in)
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
			a.pipeline(c, x, in)
			return
		}
		// && and || chains nest to the left; walk them without recursion.
		var right []*syntax.Stmt
		for {
			right = append(right, x.Y)
			next, ok := x.X.Cmd.(*syntax.BinaryCmd)
			if !ok || next.Op == syntax.Pipe || next.Op == syntax.PipeAll || len(x.X.Redirs) > 0 || x.X.Negated {
				a.stmt(c, x.X, in)
				break
			}
			x = next
		}
		for i := len(right) - 1; i >= 0; i-- {
			a.stmt(c, right[i], in)
		}
	case *syntax.Subshell:
		a.stmts(c, x.Stmts, in)
	case *syntax.Block:
		a.stmts(c, x.Stmts, in)
	case *syntax.IfClause:
		for ; x != nil; x = x.Else {
			a.stmts(c, x.Cond, in)
			a.stmts(c, x.Then, in)
		}
	case *syntax.WhileClause:
		a.bodies++
		a.stmts(c, x.Cond, in)
		a.stmts(c, x.Do, in)
		a.bodies--
	case *syntax.ForClause:
		switch l := x.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				a.word(c, w)
			}
			a.bodies++
			done := a.forEach(c, l, x.Do, in)
			a.bodies--
			if done {
				return
			}
		case *syntax.CStyleLoop:
			a.arith(c, l.Init)
			a.arith(c, l.Cond)
			a.arith(c, l.Post)
		}
		a.bodies++
		a.stmts(c, x.Do, in)
		a.bodies--
	case *syntax.CaseClause:
		a.word(c, x.Word)
		for _, item := range x.Items {
			for _, w := range item.Patterns {
				a.word(c, w)
			}
			a.stmts(c, item.Stmts, in)
		}
	case *syntax.FuncDecl:
		// The body runs whenever the function is called, which a static
		// analysis cannot rule out, so it counts as code.
		a.funcs = true
		a.bodies++
		a.stmt(c, x.Body, nil)
		a.bodies--
	case *syntax.ArithmCmd:
		a.arith(c, x.X)
	case *syntax.TestClause:
		a.test(c, x.X)
	case *syntax.DeclClause:
		args := make([]field, 0, len(x.Args))
		for _, as := range x.Args {
			a.assign(c, as)
			args = append(args, c.assignField(as))
		}
		a.invoke(c, c.host, x.Variant.Value, args, in)
	case *syntax.TimeClause:
		if x.Stmt != nil {
			a.stmt(c.with("time"), x.Stmt, in)
		}
	case *syntax.CoprocClause:
		if x.Stmt != nil {
			// A coprocess reads what the shell writes to it at run
			// time: "coproc bash" runs code nobody wrote here.
			a.stmt(c, x.Stmt, &input{kind: inDynamic, via: "coproc"})
		}
	case *syntax.LetClause:
		for _, e := range x.Exprs {
			a.arith(c, e)
		}
	case *syntax.TestDecl:
		a.stmt(c, x.Body, nil)
	}
}

// pipeline walks a | b | c, feeding each element the static output of the
// one before it when that output is known.
func (a *analyzer) pipeline(c *code, x *syntax.BinaryCmd, in *input) {
	var elems []*syntax.Stmt
	for {
		elems = append(elems, x.Y)
		next, ok := x.X.Cmd.(*syntax.BinaryCmd)
		if !ok || (next.Op != syntax.Pipe && next.Op != syntax.PipeAll) || len(x.X.Redirs) > 0 || x.X.Negated {
			elems = append(elems, x.X)
			break
		}
		x = next
	}
	for i := len(elems) - 1; i >= 0; i-- {
		stdin := in
		if i < len(elems)-1 {
			if out, ok := staticOutput(c, elems[i+1]); ok {
				stdin = &input{kind: inText, text: out, code: out, via: "|"}
			} else {
				stdin = &input{kind: inDynamic, via: "|"}
			}
		}
		a.stmt(c, elems[i], stdin)
	}
}

func (a *analyzer) assign(c *code, as *syntax.Assign) {
	if as.Name != nil && as.Name.Value == "BASH_ALIASES" {
		a.aliasArray(c, as)
	}
	a.arith(c, as.Index)
	if as.Value != nil {
		a.word(c, as.Value)
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			a.arith(c, e.Index)
			if e.Value != nil {
				a.word(c, e.Value)
			}
		}
	}
	a.assignment(c, as)
}

// word walks the code inside a word: command and process substitutions,
// also within double quotes, parameter expansions and arithmetic.
func (a *analyzer) word(c *code, w *syntax.Word) {
	a.wordIn(c, w, false)
}

// wordIn is word for a word in double quotes, or in the body of an
// unquoted heredoc, when dq is set.
func (a *analyzer) wordIn(c *code, w *syntax.Word, dq bool) {
	if w == nil {
		return
	}
	for _, p := range w.Parts {
		a.wordPart(c, p, dq)
	}
}

// keepsQuotes reports whether bash keeps single quotes literal in the word
// of a parameter expansion in double quotes or a heredoc body: it does for
// the word ${x-word}, ${x:-word}, ${x=word}, ${x:=word}, ${x+word} and
// ${x:+word} put in place, and expands what the quotes hold ("${x-'$(cmd)'}"
// runs cmd), while the parser reads them as quotes. Patterns, replacements
// and ${x?word} remove their quotes.
func keepsQuotes(op syntax.ParExpOperator) bool {
	switch op {
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
		syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
		return true
	}
	return false
}

// wordPart walks one part of a word; dq says that it is in double quotes
// or a heredoc body.
func (a *analyzer) wordPart(c *code, p syntax.WordPart, dq bool) {
	switch x := p.(type) {
	case *syntax.SglQuoted:
		if dq {
			// Single quotes in "${x-'...'}" are literal (see keepsQuotes):
			// what they hold is expanded, $'...' decoded first.
			a.reexpand(c, singleQuoted(x), "${x-'...'}")
		}
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			a.wordPart(c, q, true)
		}
	case *syntax.CmdSubst:
		a.stmts(c.with("$(...)"), x.Stmts, nil)
	case *syntax.ProcSubst:
		if x.Op == syntax.CmdOut {
			// >(...) reads what the command writes to it, which is
			// known only at run time: "exec 3> >(bash)" runs it.
			a.stmts(c.with(">(...)"), x.Stmts, &input{kind: inDynamic, via: ">(...)"})
			return
		}
		a.stmts(c.with("<(...)"), x.Stmts, nil)
	case *syntax.ParamExp:
		if x.Exp != nil && x.Exp.Op == syntax.OtherParamOps && x.Exp.Word != nil && x.Exp.Word.Lit() == "P" ||
			x.Flags != nil && strings.IndexByte(x.Flags.Value, 'e') >= 0 {
			// ${x@P} expands the value as a prompt string, and zsh's
			// ${(e)x} expands it again, running the substitutions it
			// holds.
			a.dynamic(c, c.source(x))
		}
		if x.NestedParam != nil {
			a.wordPart(c, x.NestedParam, dq)
		}
		a.arith(c, x.Index)
		if x.Slice != nil {
			a.arith(c, x.Slice.Offset)
			a.arith(c, x.Slice.Length)
		}
		if x.Repl != nil {
			a.word(c, x.Repl.Orig)
			a.word(c, x.Repl.With)
		}
		if x.Exp != nil {
			a.wordIn(c, x.Exp.Word, dq && keepsQuotes(x.Exp.Op))
		}
	case *syntax.ArithmExp:
		a.arith(c, x.X)
	case *syntax.ExtGlob:
		// The parser keeps an extended pattern, @(...) and its kin, as
		// literal text, while bash expands what it holds: "echo
		// @($(cmd))" runs cmd once extglob is on. zsh reads *(...) after
		// a pattern as its glob qualifiers.
		a.reexpand(c, x.Pattern.Value, "extglob")
		a.zshQualified(c, "("+x.Pattern.Value+")", c.source(x))
	case *syntax.Lit:
		if c.lang == dZsh && strings.IndexByte(x.Value, '(') >= 0 {
			a.zshQualified(c, x.Value, c.source(x))
		}
	case *syntax.BraceExp:
		for _, e := range x.Elems {
			a.word(c, e)
		}
	}
}

func (a *analyzer) arith(c *code, e syntax.ArithmExpr) {
	// Long chains such as 1+1+1 nest to the left; follow X in a loop and
	// walk the right operands afterwards, in source order.
	var right []syntax.ArithmExpr
	defer func() {
		for i := len(right) - 1; i >= 0; i-- {
			a.arith(c, right[i])
		}
	}()
	for e != nil {
		switch x := e.(type) {
		case *syntax.BinaryArithm:
			right = append(right, x.Y)
			e = x.X
		case *syntax.UnaryArithm:
			e = x.X
		case *syntax.ParenArithm:
			e = x.X
		case *syntax.FlagsArithm:
			e = x.X
		case *syntax.Word:
			a.arithWord(c, x)
			return
		default:
			return
		}
	}
}

func (a *analyzer) test(c *code, e syntax.TestExpr) {
	var right []syntax.TestExpr
	defer func() {
		for i := len(right) - 1; i >= 0; i-- {
			a.test(c, right[i])
		}
	}()
	for e != nil {
		switch x := e.(type) {
		case *syntax.BinaryTest:
			if x.Op >= syntax.TsEql && x.Op <= syntax.TsGtr {
				// Arithmetic comparisons evaluate their operands.
				a.testArith(c, x.X)
				a.testArith(c, x.Y)
			}
			right = append(right, x.Y)
			e = x.X
		case *syntax.UnaryTest:
			if x.Op == syntax.TsVarSet {
				a.testArith(c, x.X)
			}
			e = x.X
		case *syntax.ParenTest:
			e = x.X
		case *syntax.Word:
			a.word(c, x)
			return
		default:
			return
		}
	}
}

// testArith expands the quoted text of a [[ ]] operand that bash evaluates
// as arithmetic or as a variable name with a subscript.
func (a *analyzer) testArith(c *code, e syntax.TestExpr) {
	if w, ok := e.(*syntax.Word); ok {
		a.reexpand(c, quotedText(w), "arithmetic")
	}
}
