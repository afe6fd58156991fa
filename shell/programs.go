package shell

import (
	"slices"
	"strings"
)

// Some programs run commands of a language of their own, given as their
// arguments or on standard input, and those commands can run a shell: an
// Ex command "!cmd" in vim, "shell cmd" in gdb, ".shell cmd" in sqlite3.
// The analysis reads the commands that run code and analyses that code
// as code where it is literal; a command whose code is decided at run
// time, or that runs a program a setting names (vim's :make), is
// dynamic. Other commands run nothing.

// vim reads the Ex commands of -c CMD, +CMD and --cmd CMD, and of standard
// input in Ex mode (ex, -e, -es); -S and -s read a file of them, and -u
// a vimrc, which the command string does not show unless it wrote it.
func (a *analyzer) vim(c *code, name, src string, args []field, in *input) {
	exMode := name == "ex"
	restricted := false
	var cmds []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn {
			if strings.HasPrefix(f.approx, "-") || strings.HasPrefix(f.approx, "+") {
				// An option decided at run time may be -c.
				a.dynamic(c, src)
			}
			continue
		}
		v := f.val
		switch {
		case v == "--":
			i = len(args)
		case v == "-c" || v == "--cmd":
			if i+1 < len(args) {
				i++
				cmds = append(cmds, args[i])
			}
		case strings.HasPrefix(v, "+") && len(v) > 1:
			cmds = append(cmds, staticField(v[1:]))
		case v == "-s" && !exMode:
			// Keys typed from a file, :! among them.
			i++
			a.dynamic(c, src)
		case v == "-S" || v == "-u" || v == "-U":
			if i+1 < len(args) {
				i++
				file := args[i]
				if v != "-S" && !file.dyn && (file.val == "NONE" || file.val == "NORC" || file.val == "DEFAULTS") {
					continue
				}
				a.exFile(c, src, file, in)
			}
		case v == "-Z":
			restricted = true
		case v == "-e" || v == "-E" || v == "-es" || v == "-Es" || v == "-s":
			exMode = true
		case strings.HasPrefix(v, "-") && len(v) > 1 && !strings.HasPrefix(v, "--"):
			exMode = exMode || strings.ContainsAny(v[1:], "eE")
			restricted = restricted || strings.Contains(v[1:], "Z")
			if strings.ContainsAny(v[len(v)-1:], "tqrTiwW") && len(v) == 2 && i+1 < len(args) {
				i++ // an option's value
			}
		}
	}
	if restricted {
		// A restricted vim runs no shell command.
		return
	}
	for _, cmd := range cmds {
		a.exCommands(c, src, cmd)
	}
	if exMode && in != nil && in.kind != inFile && in.kind != inNone {
		a.exCommands(c, src, field{val: in.text, approx: in.text, skel: in.code, dyn: in.kind == inDynamic})
	}
}

// exFile reads a file of Ex commands a vim option names: what the command
// string wrote there, or dynamic.
func (a *analyzer) exFile(c *code, src string, f field, in *input) {
	file, ok := a.scriptFile(f, in)
	if !ok || file.kind != inText {
		a.dynamic(c, src)
		return
	}
	a.exCommands(c, src, staticField(file.text))
}

// exCommands analyses Ex commands, one a line or separated by "|".
func (a *analyzer) exCommands(c *code, src string, cmds field) {
	if cmds.dyn {
		a.dynamic(c, src)
	}
	for _, line := range strings.Split(cmds.skel, "\n") {
		a.exLine(c, src, line, 0)
	}
}

// exLine analyses one line of Ex commands; depth counts the commands it
// is run by (:silent, :global, :bufdo...).
func (a *analyzer) exLine(c *code, src, line string, depth int) {
	if depth > maxTmuxDepth {
		a.unparsed(line, errTooDeep.Error(), c.host, c.via)
		return
	}
	for line != "" {
		cmd := strings.TrimLeft(line, " \t:")
		// A range: %, ., $, numbers, marks, patterns, commas.
		cmd = strings.TrimLeft(cmd, "%.$0123456789,;+-'<>")
		if strings.HasPrefix(cmd, "/") || strings.HasPrefix(cmd, "?") {
			if end := strings.IndexByte(cmd[1:], cmd[0]); end >= 0 {
				cmd = cmd[end+2:]
			}
		}
		cmd = strings.TrimLeft(cmd, " \t")
		if strings.HasPrefix(cmd, "\"") {
			return // a comment
		}
		if rest, ok := strings.CutPrefix(cmd, "!"); ok {
			// The rest of the line, bars included, is a shell command.
			a.codeFields(c, "vim :!", src, []field{staticField(rest)}, nil)
			return
		}
		word, rest := exWord(cmd)
		switch {
		case abbrev(word, "read", 1) || abbrev(word, "write", 1) || abbrev(word, "wq", 2) || abbrev(word, "xit", 1) || abbrev(word, "update", 2):
			if shell, ok := strings.CutPrefix(strings.TrimLeft(rest, " \t"), "!"); ok {
				a.codeFields(c, "vim :"+word+" !", src, []field{staticField(shell)}, nil)
				return
			}
		case abbrev(word, "silent", 3) || abbrev(word, "bufdo", 5) || abbrev(word, "windo", 5) || abbrev(word, "tabdo", 5) ||
			abbrev(word, "argdo", 5) || abbrev(word, "cdo", 3) || abbrev(word, "ldo", 3) || abbrev(word, "cfdo", 4) ||
			abbrev(word, "lfdo", 4) || abbrev(word, "folddoopen", 5) || abbrev(word, "noautocmd", 3) || abbrev(word, "keepjumps", 5) ||
			abbrev(word, "unsilent", 3) || abbrev(word, "verbose", 4) || abbrev(word, "sandbox", 3) || word == "vertical" || abbrev(word, "tab", 3):
			a.exLine(c, src, strings.TrimPrefix(rest, "!"), depth+1)
			return
		case abbrev(word, "global", 1) || abbrev(word, "vglobal", 1):
			// :g/pattern/cmd runs cmd on each line that matches.
			rest = strings.TrimPrefix(rest, "!")
			if rest != "" {
				sep := rest[0]
				if k := strings.IndexByte(rest[1:], sep); k >= 0 {
					a.exLine(c, src, rest[k+2:], depth+1)
				}
			}
			return
		case abbrev(word, "shell", 2) || abbrev(word, "terminal", 3) || abbrev(word, "make", 3) || abbrev(word, "lmake", 4) ||
			abbrev(word, "grep", 2) || abbrev(word, "lgrep", 3) || abbrev(word, "execute", 3) || abbrev(word, "normal", 4) ||
			abbrev(word, "source", 2) || abbrev(word, "runtime", 2) || abbrev(word, "luado", 4) || abbrev(word, "luafile", 4) ||
			abbrev(word, "perldo", 5) || abbrev(word, "rubydo", 5) || abbrev(word, "pydo", 4) || abbrev(word, "py3do", 5) ||
			abbrev(word, "pyfile", 3) || abbrev(word, "py3file", 4) || abbrev(word, "tcl", 3) || abbrev(word, "mzscheme", 2) ||
			abbrev(word, "autocmd", 2) || abbrev(word, "command", 3) || abbrev(word, "function", 2) || abbrev(word, "map", 3) ||
			word == "nmap" || word == "noremap" || word == "nnoremap" || word == "imap" || word == "inoremap":
			// A shell, a program a setting names, keys typed, or code
			// that runs later or is made at run time.
			a.dynamic(c, src)
			return
		case abbrev(word, "lua", 3) || abbrev(word, "python", 2) || abbrev(word, "python3", 3) || abbrev(word, "py3", 3) ||
			abbrev(word, "pythonx", 3) || abbrev(word, "pyx", 3) || abbrev(word, "perl", 2) || abbrev(word, "ruby", 3):
			lang := map[byte]string{'l': "lua", 'p': "python", 'r': "ruby"}[word[0]]
			if strings.HasPrefix(word, "pe") {
				lang = "perl"
			}
			a.interpCode(c, "vim :"+word, src, lang, rest)
			return
		case abbrev(word, "set", 2) || abbrev(word, "setlocal", 4) || abbrev(word, "setglobal", 4):
			for _, opt := range []string{"shell", "sh", "makeprg", "mp", "grepprg", "gp", "keywordprg", "kp", "equalprg", "ep", "formatprg", "fp", "diffexpr", "dex", "patchexpr", "pex", "shellcmdflag", "shcf"} {
				if strings.Contains(rest, opt+"=") || strings.Contains(rest, opt+"+=") {
					a.dynamic(c, src)
					return
				}
			}
		}
		if calls := exSystemCalls(rest); calls != nil {
			for _, call := range calls {
				if call.dyn {
					a.dynamic(c, src)
				} else {
					a.codeFields(c, "vim system()", src, []field{call}, nil)
				}
			}
		}
		// The next command after a bar.
		bar := strings.IndexByte(cmd, '|')
		if bar < 0 {
			return
		}
		line = cmd[bar+1:]
	}
}

// exWord splits an Ex command into its name and the rest.
func exWord(cmd string) (string, string) {
	i := 0
	for i < len(cmd) && (cmd[i] >= 'a' && cmd[i] <= 'z' || cmd[i] >= 'A' && cmd[i] <= 'Z' || i > 0 && cmd[i] >= '0' && cmd[i] <= '9') {
		i++
	}
	return cmd[:i], cmd[i:]
}

// abbrev reports whether word is full, or its abbreviation of at least
// min letters, as Ex accepts.
func abbrev(word, full string, min int) bool {
	return len(word) >= min && len(word) <= len(full) && full[:len(word)] == word
}

// exSystemCalls returns the shell commands a Vim expression runs by
// system(), systemlist(), job_start(), jobstart(), term_start() and
// termopen(): a string literal, or a field marked dynamic.
func exSystemCalls(expr string) []field {
	var out []field
	for _, fn := range []string{"system(", "systemlist(", "job_start(", "jobstart(", "term_start(", "termopen("} {
		for rest := expr; ; {
			k := strings.Index(rest, fn)
			if k < 0 {
				break
			}
			rest = strings.TrimLeft(rest[k+len(fn):], " ")
			if rest != "" && (rest[0] == '\'' || rest[0] == '"') {
				if end := strings.IndexByte(rest[1:], rest[0]); end >= 0 && !strings.Contains(rest[1:end+1], "\\") {
					if after := strings.TrimLeft(rest[end+2:], " "); strings.HasPrefix(after, ")") || strings.HasPrefix(after, ",") {
						out = append(out, staticField(rest[1:end+1]))
						continue
					}
				}
			}
			out = append(out, field{val: fn, skel: dynamicPlaceholder, dyn: true})
		}
	}
	return out
}

var gdbOpts = opts{short: "pcdsex", long: []string{"pid", "core", "directory", "symbols", "exec", "ex", "iex", "x", "ix", "cd", "tty", "data-directory", "command", "init-command", "eval-command", "init-eval-command"}}

// gdb reads the commands gdb runs: those of -ex and --eval-command (and
// their init forms), of standard input when it is not a terminal, and of
// -x FILE when the command string wrote it; shell and ! run a shell
// command, pipe and | one the output goes to, python its code, run and
// start the program being debugged (--args PROG ARGS, or the program
// named first), with the arguments run gives it.
func (a *analyzer) gdb(c *code, src string, args []field, in *input) {
	var cmds []field
	var prog []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn {
			if strings.HasPrefix(f.approx, "-") {
				a.dynamic(c, src)
			} else if prog == nil {
				prog = args[i : i+1]
			}
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(f.val, "-"), "=")
		switch {
		case f.val == "--args":
			prog = args[i+1:]
			i = len(args)
		case strings.HasPrefix(f.val, "-") && (name == "ex" || name == "iex" || name == "eval-command" || name == "init-eval-command"):
			if hasVal {
				cmds = append(cmds, staticField(val))
			} else if i+1 < len(args) {
				i++
				cmds = append(cmds, args[i])
			}
		case strings.HasPrefix(f.val, "-") && (name == "x" || name == "ix" || name == "command" || name == "init-command"):
			file := staticField(val)
			if !hasVal && i+1 < len(args) {
				i++
				file = args[i]
			}
			if s, ok := a.scriptFile(file, in); ok && s.kind == inText {
				cmds = append(cmds, staticField(s.text))
			} else {
				a.dynamic(c, src)
			}
		case strings.HasPrefix(f.val, "-"):
			if _, seen := gdbOpts.parse([]field{f}); len(seen) > 0 && seen[0].val.val == "" && takesValue(gdbOpts, seen[0]) {
				i++
			}
		case prog == nil:
			prog = []field{f}
		}
	}
	if in != nil && (in.kind == inText || in.kind == inDynamic) {
		cmds = append(cmds, field{val: in.text, approx: in.text, skel: in.code, dyn: in.kind == inDynamic})
	}
	for _, cmd := range cmds {
		if cmd.dyn {
			a.dynamic(c, src)
		}
		for _, line := range strings.Split(cmd.skel, "\n") {
			a.gdbLine(c, src, strings.TrimSpace(line), prog)
		}
	}
}

// gdbLine analyses one gdb command.
func (a *analyzer) gdbLine(c *code, src, line string, prog []field) {
	word, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case strings.HasPrefix(line, "!"):
		a.codeFields(c, "gdb !", src, []field{staticField(line[1:])}, nil)
	case word == "shell":
		a.codeFields(c, "gdb shell", src, []field{staticField(rest)}, nil)
	case word == "pipe" || strings.HasPrefix(line, "|"):
		// pipe [COMMAND] | SHELL_COMMAND
		if k := strings.LastIndexByte(line, '|'); k >= 0 {
			a.codeFields(c, "gdb pipe", src, []field{staticField(line[k+1:])}, nil)
		}
	case word == "python" || word == "py" || word == "pi" || word == "python-interactive":
		a.interpCode(c, "gdb python", src, "python", rest)
	case word == "run" || word == "r" || word == "start" || word == "starti":
		if len(prog) > 0 {
			run := prog
			if rest != "" {
				run = append([]field{prog[0]}, staticField(rest))
				a.codeFields(c, "gdb run", src, run, nil)
				return
			}
			a.run(c.with("gdb run"), src, run, nil)
		}
	case word == "make":
		a.codeFields(c, "gdb make", src, []field{staticField("make " + rest)}, nil)
	case word == "target" && strings.Contains(rest, "|"):
		_, cmd, _ := strings.Cut(rest, "|")
		a.codeFields(c, "gdb target |", src, []field{staticField(cmd)}, nil)
	case word == "source" || word == "eval" || word == "guile" || word == "gu" || word == "compile" || word == "expression":
		a.dynamic(c, src)
	}
}

var sqliteOpts = opts{short: "", long: []string{"cmd", "init", "separator", "newline", "nullvalue", "vfs", "maxsize", "mmap", "heap", "escape", "A"}, longN: map[string]int{"lookaside": 2, "pagecache": 2}}

// sqlite3 reads the commands sqlite3 runs: the SQL and dot commands given
// after the database, those of -cmd and of -init FILE, and standard input.
// .shell and .system run a shell command, and .once, .output, .import and
// .read one whose output or input is a file named "|COMMAND"; .load loads
// a library, and SQL's load_extension() and edit() run code decided at run
// time.
func (a *analyzer) sqlite3(c *code, src string, args []field, in *input) {
	var cmds []field
	db := false
	for i := 0; i < len(args); i++ {
		f := args[i]
		v := strings.TrimPrefix(f.val, "-")
		switch {
		case !f.dyn && strings.HasPrefix(f.val, "-") && !db:
			if v == "cmd" && i+1 < len(args) {
				i++
				cmds = append(cmds, args[i])
				continue
			}
			if v == "init" && i+1 < len(args) {
				i++
				if s, ok := a.scriptFile(args[i], in); ok && s.kind == inText {
					cmds = append(cmds, staticField(s.text))
				} else {
					a.dynamic(c, src)
				}
				continue
			}
			if n := sqliteOpts.longN[v]; n > 0 {
				i += n
			} else if slices.Contains(sqliteOpts.long, v) {
				i++
			}
		case !db:
			db = true
		default:
			cmds = append(cmds, f)
		}
	}
	if in != nil && (in.kind == inText || in.kind == inDynamic) {
		cmds = append(cmds, field{val: in.text, approx: in.text, skel: in.code, dyn: in.kind == inDynamic})
	}
	for _, cmd := range cmds {
		if cmd.dyn {
			a.dynamic(c, src)
		}
		for _, line := range strings.Split(cmd.skel, "\n") {
			a.sqliteLine(c, src, strings.TrimSpace(line))
		}
	}
}

// sqliteLine analyses one line of sqlite3's input.
func (a *analyzer) sqliteLine(c *code, src, line string) {
	if !strings.HasPrefix(line, ".") {
		lower := strings.ToLower(line)
		if strings.Contains(lower, "load_extension") || strings.Contains(lower, "edit(") {
			a.dynamic(c, src)
		}
		return
	}
	words := shellWords(line)
	if len(words) == 0 {
		return
	}
	switch words[0] {
	case ".shell", ".system", ".sh":
		a.codeFields(c, "sqlite3 "+words[0], src, []field{staticField(strings.Join(words[1:], " "))}, nil)
	case ".once", ".output", ".import", ".read", ".out":
		for _, w := range words[1:] {
			if cmd, ok := strings.CutPrefix(w, "|"); ok {
				a.codeFields(c, "sqlite3 "+words[0]+" |", src, []field{staticField(cmd)}, nil)
			} else if words[0] == ".once" && (w == "-e" || w == "-x") {
				// The output opens in a program the system chooses.
				a.dynamic(c, src)
			}
		}
		if words[0] == ".read" && len(words) > 1 && !strings.HasPrefix(words[1], "|") {
			if f, ok := a.wroteFile(words[1]); ok && f.kind == inText {
				for _, l := range strings.Split(f.text, "\n") {
					a.sqliteLine(c, src, strings.TrimSpace(l))
				}
			} else {
				a.dynamic(c, src)
			}
		}
	case ".load", ".excel", ".edit":
		a.dynamic(c, src)
	}
}
