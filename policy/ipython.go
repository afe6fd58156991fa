package policy

import (
	"regexp"
	"strings"
	"sync"
)

// A Jupyter cell is Python with IPython's own syntax around it, and that
// syntax runs commands: a line "!ssh web-01 reboot" runs ssh as surely as
// the shell would, and so do the cell magics %%bash and %%script, and the
// line magics %sx, %system, %cd or %pip. The notebook tools of MCP
// servers (Jupyter's insert_execute_code_cell, execute_code, Claude
// Code's own mcp__ide__executeCode) run such cells, so their code is read
// as IPython reads it (IPython's inputtransformer2 and magics): the
// commands its lines and magics run are judged as shell commands, and the
// Python that remains is read by the interpreter reader of package shell,
// through python3 -c. A magic that runs code rewind cannot read (an
// extension's %%sql, %rerun of the history, %alias) is asked about.
//
// It reads lines, not Python's tokens: a "!" line inside a triple-quoted
// string is read as a command, which only makes the verdict stricter.

// maxIPythonDepth bounds the cell magics that wrap a cell (%%time over
// %%capture over ...).
const maxIPythonDepth = 4

// magicKind is what a magic does with the text after its name.
type magicKind uint8

const (
	magicUnknown magicKind = iota // runs code rewind does not read
	magicNone                     // runs nothing of the text
	magicShell                    // runs the text as a shell command
	magicCommand                  // runs its name and the text as a shell command (%cd, %pip)
	magicPython                   // runs the text as Python (%time, %timeit)
	magicCell                     // a cell magic whose body is a cell again (%%time, %%capture)
	magicEnv                      // sets an environment variable (%env NAME=VALUE)
	magicRun                      // runs a Python file or module (%run)
	magicScript                   // a cell magic whose body its argument's interpreter runs (%%script bash)
	magicWrite                    // a cell magic that writes its body to a file (%%writefile)
	magicLang                     // a cell magic named after an interpreter (%%bash, %%perl)
)

// ipythonMagics are IPython's built-in magics by what they run, from
// IPython's magics modules (IPython/core/magics/*.py) and the aliases it
// defines on POSIX systems (IPython/core/alias.py).
var ipythonMagics = sync.OnceValue(func() map[string]magicKind {
	return map[string]magicKind{
		// Shell commands.
		"sx": magicShell, "system": magicShell, "sc": magicShell, "!": magicShell,
		"cd": magicCommand, "pushd": magicCommand, "popd": magicCommand, "ls": magicCommand, "ll": magicCommand,
		"lf": magicCommand, "lk": magicCommand, "lx": magicCommand, "ldir": magicCommand, "cat": magicCommand,
		"cp": magicCommand, "mv": magicCommand, "rm": magicCommand, "mkdir": magicCommand, "rmdir": magicCommand,
		"ln": magicCommand, "less": magicCommand, "more": magicCommand, "man": magicCommand, "clear": magicCommand,
		"pip": magicCommand, "conda": magicCommand, "mamba": magicCommand, "micromamba": magicCommand, "uv": magicCommand,
		"env": magicEnv, "set_env": magicEnv, "run": magicRun,
		// Python.
		"time": magicPython, "timeit": magicPython, "prun": magicPython, "debug": magicPython,
		"capture": magicCell,
		// Nothing of the text runs.
		"matplotlib": magicNone, "load_ext": magicNone, "reload_ext": magicNone, "unload_ext": magicNone,
		"autoreload": magicNone, "aimport": magicNone, "config": magicNone, "who": magicNone, "who_ls": magicNone,
		"whos": magicNone, "pwd": magicNone, "history": magicNone, "hist": magicNone, "precision": magicNone,
		"xmode": magicNone, "pinfo": magicNone, "pinfo2": magicNone, "pdoc": magicNone, "pdef": magicNone,
		"psource": magicNone, "pfile": magicNone, "psearch": magicNone, "lsmagic": magicNone, "magic": magicNone,
		"quickref": magicNone, "reset": magicNone, "reset_selective": magicNone, "xdel": magicNone,
		"dirs": magicNone, "dhist": magicNone, "bookmark": magicNone, "page": magicNone, "pprint": magicNone,
		"colors": magicNone, "autoindent": magicNone, "automagic": magicNone, "autocall": magicNone,
		"doctest_mode": magicNone, "gui": magicNone, "tb": magicNone, "unalias": magicNone,
		"connect_info": magicNone, "qtconsole": magicNone, "notebook": magicNone, "load": magicNone,
		"loadpy": magicNone, "save": magicNone, "logstart": magicNone, "logstop": magicNone, "logon": magicNone,
		"logoff": magicNone, "logstate": magicNone, "pastebin": magicNone, "alias_magic": magicNone,
		"killbgscripts": magicNone, "pdb": magicNone, "store": magicNone, "html": magicNone, "HTML": magicNone,
		"javascript": magicNone, "js": magicNone, "latex": magicNone, "markdown": magicNone, "svg": magicNone,
		// Cell magics.
		"script": magicScript, "writefile": magicWrite, "file": magicWrite,
		"bash": magicLang, "sh": magicLang, "zsh": magicLang, "python": magicLang, "python2": magicLang,
		"python3": magicLang, "pypy": magicLang, "perl": magicLang, "ruby": magicLang,
	}
})

// ipythonPart is a piece of a cell: code in a language, or a reason to
// ask.
type ipythonPart struct {
	lang string
	text string
	ask  string
	// own is set for a command that runs in a shell of its own (a !
	// line), whose cd does not move the kernel.
	own bool
}

// readIPython splits a cell into the code it runs, as IPython reads it.
func (w *mcpWords) readIPython(cell string, depth int) []ipythonPart {
	lines := strings.Split(cell, "\n")
	first := 0
	for first < len(lines) && strings.TrimSpace(lines[first]) == "" {
		first++
	}
	if first < len(lines) {
		if head, ok := strings.CutPrefix(strings.TrimSpace(lines[first]), "%%"); ok {
			return w.cellMagic(head, strings.Join(lines[first+1:], "\n"), depth)
		}
	}
	var parts []ipythonPart
	var python strings.Builder
	single := len(lines)-first <= 1
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimLeft(line, " \t")
		// IPython's escapes and magics take the physical lines that a
		// backslash continues.
		logical := trimmed
		for strings.HasSuffix(logical, "\\") && i+1 < len(lines) && isEscapeLine(trimmed) {
			i++
			logical = logical[:len(logical)-1] + lines[i]
		}
		switch {
		case strings.HasPrefix(trimmed, "!"):
			parts = append(parts, shellPart(strings.TrimLeft(logical, "!")))
		case assignedEscape(trimmed) != "":
			parts = append(parts, w.lineMagic(assignedEscape(logical))...)
		case strings.HasPrefix(trimmed, "%"):
			parts = append(parts, w.lineMagic(strings.TrimLeft(logical, "%"))...)
		case helpRE().MatchString(trimmed):
			// obj? and obj?? show help: nothing runs.
		case single && automagic(trimmed):
			// A cell of one line is read with automagic on, as IPython
			// has it by default: "sx ssh web-01 reboot" runs %sx.
			parts = append(parts, w.lineMagic(trimmed)...)
		default:
			python.WriteString(line)
		}
		python.WriteByte('\n')
	}
	if strings.TrimSpace(python.String()) != "" {
		parts = append(parts, ipythonPart{lang: langPython, text: python.String()})
	}
	return parts
}

// isEscapeLine reports whether a line is one of IPython's escapes, which
// a backslash at its end continues.
func isEscapeLine(trimmed string) bool {
	return strings.HasPrefix(trimmed, "!") || strings.HasPrefix(trimmed, "%") || assignedEscape(trimmed) != ""
}

// assignRE matches "name = !cmd" and "a, b = %sx cmd": the output of an
// escape assigned to names.
var assignRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*\s*=\s*([!%].*)$`)
})

// assignedEscape returns the escape of an assignment from one, "" for
// none: "!cmd" as "!cmd", "%sx cmd" as "sx cmd".
func assignedEscape(line string) string {
	m := assignRE().FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	if strings.HasPrefix(m[2], "!") {
		return "!" + strings.TrimLeft(m[2], "!")
	}
	return strings.TrimLeft(m[2], "%")
}

// helpRE matches IPython's help syntax: obj?, obj??, ?obj.
var helpRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\?{1,2}[A-Za-z_][A-Za-z0-9_.]*|[A-Za-z_][A-Za-z0-9_.]*\?{1,2})\s*$`)
})

// identRE matches a Python name at the start of a line.
var identRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`) })

// automagic reports whether a line of a one-line cell is a magic called
// without its %, as IPython's prefilter reads it with automagic on (its
// AssignmentChecker and AutoMagicChecker): its first name is a magic
// that runs something and is not assigned to ("cd = 3") or followed by
// an attribute ("time.sleep(1)"). A Python name that shadows the magic
// is known only at run time: the line is read as the magic.
func automagic(line string) bool {
	name := identRE().FindString(line)
	if name == "" {
		return false
	}
	rest := line[len(name):]
	if strings.HasPrefix(rest, ".") {
		return false
	}
	if r := strings.TrimLeft(rest, " \t"); r != "" && (r[0] == '=' || r[0] == ',') {
		return false
	}
	k, ok := ipythonMagics()[name]
	return ok && k != magicNone && k != magicPython && k != magicLang
}

// shellPart is a shell command of a cell. IPython puts the value of a
// Python expression in {expr} and of a variable in $name ($$ is a
// dollar): those are known only at run time, as a variable is to the
// shell analysis.
func shellPart(cmd string) ipythonPart {
	var b strings.Builder
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; {
		case c == '$' && i+1 < len(cmd) && cmd[i+1] == '$':
			b.WriteByte('$')
			i++
		case c == '{':
			end := strings.IndexByte(cmd[i:], '}')
			if end > 1 {
				b.WriteString("${IPYTHON_EXPR}")
				i += end
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return ipythonPart{lang: langShell, text: b.String(), own: true}
}

// lineMagic reads a line magic without its %: its name and the text it
// takes.
func (w *mcpWords) lineMagic(line string) []ipythonPart {
	if rest, ok := strings.CutPrefix(line, "!"); ok {
		return []ipythonPart{shellPart(strings.TrimLeft(rest, "!"))}
	}
	line = strings.TrimSpace(line)
	name := identRE().FindString(line)
	if name == "" {
		name, _, _ = strings.Cut(line, " ")
	}
	rest := strings.TrimSpace(line[len(name):])
	switch ipythonMagics()[name] {
	case magicNone:
		return nil
	case magicShell:
		if name == "sc" {
			// %sc [-l] [-v] name=command.
			for strings.HasPrefix(rest, "-") {
				_, rest, _ = strings.Cut(rest, " ")
				rest = strings.TrimSpace(rest)
			}
			if _, cmd, ok := strings.Cut(rest, "="); ok {
				rest = cmd
			}
		}
		return []ipythonPart{shellPart(rest)}
	case magicCommand:
		// %cd and %pushd move the kernel: the commands after them run
		// in the folder they name.
		part := shellPart(strings.TrimSpace(name + " " + rest))
		part.own = false
		return []ipythonPart{part}
	case magicEnv:
		// %env NAME=VALUE, %env NAME VALUE, %set_env NAME VALUE; %env
		// and %env NAME print.
		k, v, ok := strings.Cut(rest, "=")
		if !ok {
			k, v, ok = strings.Cut(rest, " ")
		}
		if !ok {
			return nil
		}
		return []ipythonPart{{lang: langShell, text: "export " + shellQuote(strings.TrimSpace(k)+"="+strings.TrimSpace(v))}}
	case magicRun:
		return []ipythonPart{shellPart("python3 " + rest)}
	case magicPython:
		return []ipythonPart{{lang: langPython, text: rest}}
	}
	return []ipythonPart{{ask: "the cell runs the magic %" + name + ", which rewind does not read"}}
}

// cellMagic reads a cell that starts with a cell magic: its head (the
// magic's name and arguments, without %%) and its body.
func (w *mcpWords) cellMagic(head, body string, depth int) []ipythonPart {
	name, args, _ := strings.Cut(strings.TrimSpace(head), " ")
	args = strings.TrimSpace(args)
	switch ipythonMagics()[name] {
	case magicNone:
		return nil
	case magicShell:
		return []ipythonPart{{lang: langShell, text: body}}
	case magicPython, magicCell:
		if depth >= maxIPythonDepth {
			return []ipythonPart{{ask: "the cell nests more cell magics than rewind reads"}}
		}
		return w.readIPython(body, depth+1)
	case magicLang:
		return []ipythonPart{w.interpreted(name, body)}
	case magicScript:
		// %%script [options] PROGRAM: --proc, --out and --err take a
		// variable's name, --bg and --no-raise-error nothing.
		fields := strings.Fields(args)
		for i := 0; i < len(fields); i++ {
			switch f := fields[i]; {
			case f == "--proc" || f == "--out" || f == "--err":
				i++
			case !strings.HasPrefix(f, "-"):
				return []ipythonPart{w.interpreted(f, body)}
			}
		}
	case magicWrite:
		// %%writefile [-a] FILE: the body is data, written to FILE.
		// Its argument is split as shell words are.
		op, file := ">", args
		if a, ok := strings.CutPrefix(args, "-a"); ok {
			op, file = ">>", strings.TrimSpace(a)
		}
		if file != "" {
			return []ipythonPart{{lang: langShell, text: ": " + op + " " + file}}
		}
		return nil
	}
	return []ipythonPart{{ask: "the cell runs the cell magic %%" + name + ", which rewind does not read"}}
}

// interpreted is a cell body that the interpreter prog runs.
func (w *mcpWords) interpreted(prog, body string) ipythonPart {
	switch l := w.valueLanguage(prog); l {
	case langShell, langPython, langPerl, langRuby, langJavaScript, langPHP, langPowerShell:
		return ipythonPart{lang: l, text: body}
	}
	return ipythonPart{ask: "the cell runs its body with " + prog + ", which rewind does not read"}
}

// judgeIPython judges a cell, as readIPython splits it, at a place. Its
// shell commands are judged as one script, in order: each ! line in a
// subshell of its own, as IPython runs each in a shell of its own, and
// the magics (%cd) in the kernel's.
func (p *Policy) judgeIPython(c Call, cell string, at *place, ask func(string), add func(Match)) {
	var script strings.Builder
	for _, part := range p.words().readIPython(cell, 0) {
		switch {
		case part.ask != "":
			ask(part.ask)
		case part.lang == langShell && part.own:
			script.WriteString("(\n" + part.text + "\n)\n")
		case part.lang == langShell:
			script.WriteString(part.text + "\n")
		default:
			p.judgeCode(interpreterLine(part.lang, part.text), at, c.Cwd, 0, add)
		}
	}
	if script.Len() > 0 {
		p.judgeCode(script.String(), at, c.Cwd, 0, add)
	}
}
