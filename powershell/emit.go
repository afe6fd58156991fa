package powershell

import "strings"

// A top-level statement is read whole before its findings are reported:
// where a script block runs depends on the command it is given to, whose
// arguments may come after the block (Invoke-Command { ... }
// -ComputerName web-01). The statement keeps its commands and statement
// lists in arenas, reused from one statement to the next.

// cmdb is a command being read.
type cmdb struct {
	list     int
	seq      int
	name     token
	call     byte // '&' or '.' when called so
	hidden   bool // & { ... }: the block is what runs
	dynName  bool
	nameSrc  string
	args     []Arg
	upstream int // the command before the |, or -1
	input    *inputb
	writes   []string
	blocks   bool // it has a script block argument
	start    int
	end      int
}

// listb is a statement list: the code of the root, of a block, of a
// bracket or subexpression.
type listb struct {
	parent   int
	ownerCmd int // the command whose argument the list is, or -1
	ownerArg int
	kind     frameKind
	called   bool // & { ... }
	place    Place
}

type xkind uint8

const (
	xDynamic  xkind = iota // code known only at run time
	xUnparsed              // code not read
	xWrite                 // a write to a file by a value (> file, [IO.File]::...)
	xCode                  // PowerShell code built from a string, to read again
	xNative                // a program started by a method ([Diagnostics.Process]::Start)
)

// extra is a finding of a statement other than a command.
type extra struct {
	kind   xkind
	list   int
	seq    int
	text   string
	err    string
	limit  bool
	writes []string
	args   []Arg
	via    string
}

type statement struct {
	lists  []listb
	cmds   []cmdb
	extras []extra
	seq    int
}

func (st *statement) reset() {
	st.lists, st.cmds, st.extras, st.seq = st.lists[:0], st.cmds[:0], st.extras[:0], 0
}

func (st *statement) newList(parent, owner, arg int, kind frameKind) int {
	st.lists = append(st.lists, listb{parent: parent, ownerCmd: owner, ownerArg: arg, kind: kind})
	return len(st.lists) - 1
}

func (st *statement) newCmd(c cmdb) int {
	c.seq = st.seq
	st.seq++
	st.cmds = append(st.cmds, c)
	return len(st.cmds) - 1
}

func (st *statement) addExtra(x extra) {
	x.seq = st.seq
	st.seq++
	st.extras = append(st.extras, x)
}

// resolved is a command's name as PowerShell looks it up.
type resolved struct {
	name   string
	alias  string
	native bool
	// also is a second reading of the name: an alias that stands for a
	// cmdlet on Windows names a program elsewhere (rm, ls, sc...), and a
	// name an alias of the script shadows is the command itself before
	// the alias is set.
	also    *resolved
	dynamic bool // an alias whose value is known only at run time
}

// flush reports the findings of the statement read so far and clears it.
func (r *reader) flush() {
	st := &r.st
	if len(st.cmds) == 0 && len(st.extras) == 0 {
		st.reset()
		r.stack[0].list = st.newList(-1, -1, -1, fRoot)
		return
	}
	names := make([]resolved, len(st.cmds))
	for i := range st.cmds {
		c := &st.cmds[i]
		if !c.hidden && !c.dynName {
			names[i] = r.al.resolve(c.name.text)
		}
	}
	// Places, outermost first: a list is created after its parent.
	for i := range st.lists {
		l := &st.lists[i]
		switch {
		case l.parent < 0:
			l.place = r.base
		default:
			l.place = st.lists[l.parent].place
		}
		if l.ownerCmd >= 0 && !l.called {
			owner := &st.cmds[l.ownerCmd]
			if at, ok := remotePlace(names[l.ownerCmd].name, owner.args, l.ownerArg, l.kind); ok {
				l.place = joinPlace(st.lists[owner.list].place, at)
			}
		}
	}
	// The commands, with their pipeline inputs.
	built := make([]Command, len(st.cmds))
	for i := range st.cmds {
		c := &st.cmds[i]
		for j := range c.args {
			if a := &c.args[j]; a.List != nil {
				a.Text = strings.Join(a.List, ",")
			}
		}
		b := &built[i]
		b.Name, b.Alias, b.Native = names[i].name, names[i].alias, names[i].native
		b.Args, b.Writes, b.Place = c.args, c.writes, st.lists[c.list].place
		b.Analysed = c.blocks && !names[i].native
		switch {
		case c.upstream >= 0:
			b.Input = &Input{From: &built[c.upstream]}
			if st.cmds[c.upstream].hidden || st.cmds[c.upstream].dynName {
				b.Input = &Input{Dynamic: true}
			}
		case c.input != nil:
			b.Input = &Input{Values: c.input.vals, Dynamic: c.input.dyn}
		}
	}
	// Report them in source order.
	ci, xi := 0, 0
	for ci < len(st.cmds) || xi < len(st.extras) {
		if xi == len(st.extras) || ci < len(st.cmds) && st.cmds[ci].seq < st.extras[xi].seq {
			c := &st.cmds[ci]
			switch {
			case c.hidden:
			case c.dynName:
				r.report(Finding{Dynamic: &Dynamic{Source: clip(r.src[c.start:max(c.end, c.start)]), Place: built[ci].Place}})
			default:
				r.command(&built[ci], &names[ci], c)
			}
			ci++
			continue
		}
		r.extraFinding(&st.extras[xi])
		xi++
	}
	st.reset()
	r.stack[0].list = st.newList(-1, -1, -1, fRoot)
}

// report hands a finding to visit, unless the reader only collects
// aliases.
func (r *reader) report(f Finding) {
	if r.collect {
		return
	}
	r.visit(f)
}

func (r *reader) extraFinding(x *extra) {
	at := r.st.lists[x.list].place
	switch x.kind {
	case xDynamic:
		r.report(Finding{Dynamic: &Dynamic{Source: clip(x.text), Place: at}})
	case xUnparsed:
		r.report(Finding{Unparsed: &Unparsed{Text: x.text, Err: x.err, Place: at, Limit: x.limit}})
	case xWrite:
		r.report(Finding{Command: &Command{Name: x.text, Args: x.args, Writes: x.writes, Place: at}})
	case xNative:
		r.native(x.text, x.args, at, x.via)
	case xCode:
		r.again(x.text, at, x.via)
	}
}

// native reports a program started with arguments.
func (r *reader) native(name string, args []Arg, at Place, via string) {
	c := Command{Name: nativeName(name), Native: true, Args: args, Place: withVia(at, via)}
	r.nativeCommand(&c)
}

// again reads code built from a string (Invoke-Expression,
// [scriptblock]::Create...) where it runs.
func (r *reader) again(code string, at Place, via string) {
	at = withVia(at, via)
	if r.depth+1 >= maxDepth {
		r.report(Finding{Unparsed: &Unparsed{Text: code, Err: "code built from strings nested more than " + itoa(maxDepth) + " deep", Place: at, Limit: true}})
		return
	}
	if r.collect {
		return
	}
	sub := &reader{src: code, visit: r.visit, base: at, depth: r.depth + 1, bud: r.bud, al: r.al}
	sub.run()
}

// joinPlace puts a place reached from outer: its computers replace
// outer's, its steps follow outer's. Of a chain of more than maxVia steps
// (Invoke-Command in Invoke-Command...) the first and the last are kept:
// where the code runs is the last one's computers.
func joinPlace(outer, p Place) Place {
	via := make([]string, 0, min(len(outer.Via)+len(p.Via), maxVia))
	via = append(via, outer.Via...)
	via = append(via, p.Via...)
	if len(via) > maxVia {
		via = append(via[:1:1], append([]string{"…"}, via[len(via)-maxVia+2:]...)...)
	}
	p.Via = via
	return p
}

func withVia(at Place, via string) Place {
	if via == "" {
		return at
	}
	at.Via = append(append([]string(nil), at.Via...), via)
	return at
}

// clip cuts a source text shown in a finding to a few hundred bytes.
func clip(s string) string {
	const limit = 512
	s = strings.TrimSpace(s)
	if len(s) <= limit {
		return s
	}
	i := limit
	for i > 0 && s[i]&0xc0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}
