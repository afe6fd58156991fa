package policy

import (
	"slices"
	"strings"
)

// Expect drives programs through a terminal: "spawn ssh web-01" opens a
// session on web-01, and what "send" types into it runs there. The policy
// reads the script of expect -c (or on standard input) as Tcl commands:
// what spawn, exec and system start is judged as commands here (so a
// spawned ssh is judged as ssh: its session protects the host), and the
// text send types into a spawned ssh, rsh or tsh is judged as commands on
// its host (into a spawned shell or interpreter, as its code here; into
// another program, as that program's own input). A command or a value
// Tcl makes at run time (eval, source, [...], $var) is known only then. A
// script file is not read: the expect family asks about it.

// maxExpectScript bounds the script that is read: a longer one is past a
// limit, and known only at run time.
const maxExpectScript = 1 << 20

// expectReach reads expect -c SCRIPT, or a script on standard input. A
// script file is not read: known stays unset.
func expectReach(s *subject) (reach, bool) {
	r := reach{family: "expect", here: true, hosts: s.hostList(), via: "expect"}
	var scripts []string
	stdin := false
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		switch {
		case s.dynamic(i):
			if i > 0 && s.args[i-1] == "-c" {
				scripts = append(scripts, "$expect_code")
				continue
			}
			return r, true
		case a == "-c" && i+1 < len(s.args):
			if !s.dynamic(i + 1) {
				scripts = append(scripts, s.args[i+1])
				i++
			}
		case a == "-D":
			i++
		case a == "-" || a == "-f" && i+1 < len(s.args) && s.args[i+1] == "-":
			stdin = true
			i = len(s.args)
		case a == "-f" || a == "--" || !isOption(a):
			// A script file: code rewind does not read.
			return r, true
		}
	}
	if stdin || len(scripts) == 0 {
		scripts = append(scripts, s.payload...)
	}
	if len(scripts) == 0 {
		return r, true
	}
	r.code, r.known = expectCode(strings.Join(scripts, "\n")), true
	return r, true
}

// expectCode returns the shell commands an expect script runs, as one
// script: the commands it spawns and execs, and the text it sends to a
// spawned remote shell as that shell's command.
func expectCode(script string) string {
	if len(script) > maxExpectScript {
		return runtimeWord
	}
	var lines []string
	var spawned []tclWord // the last spawned command
	var sent []string     // the text sent to it
	interact := false     // whether it is handed to the terminal
	flush := func() {
		if len(spawned) == 0 {
			return
		}
		if interact {
			// Whoever holds the terminal types into it: a session.
			lines = append(lines, tclLine(spawned))
		}
		line := tclLine(spawned)
		if len(sent) > 0 {
			text := strings.Join(sent, "")
			switch lang := spawnedLanguage(spawned); {
			case remoteShell(spawned):
				line += " " + shellQuote(text)
			case lang == langShell:
				line += "\n" + text
			case lang != "":
				line += "\n" + interpreterLine(lang, text)
			}
		}
		lines = append(lines, line)
		spawned, sent, interact = nil, nil, false
	}
	for _, cmd := range tclCommands(script) {
		if len(cmd) == 0 {
			continue
		}
		if cmd[0].dyn {
			lines = append(lines, runtimeWord)
			continue
		}
		switch name := cmd[0].text; name {
		case "spawn":
			flush()
			args := cmd[1:]
			for len(args) > 0 && !args[0].dyn && strings.HasPrefix(args[0].text, "-") {
				if args[0].text == "-open" || args[0].text == "-leaveopen" || args[0].text == "-ignore" {
					args = args[1:]
				}
				args = args[1:]
			}
			spawned = args
		case "send", "exp_send", "send_spawn":
			args := cmd[1:]
			for len(args) > 0 && !args[0].dyn && strings.HasPrefix(args[0].text, "-") && args[0].text != "--" {
				if args[0].text == "-i" {
					args = args[1:]
				}
				args = args[1:]
			}
			if len(args) > 0 && args[0].text == "--" && !args[0].dyn {
				args = args[1:]
			}
			for _, w := range args {
				if w.dyn {
					sent = append(sent, "$expect_sent ")
				} else {
					sent = append(sent, strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(w.text))
				}
			}
		case "interact":
			interact = true
		case "exec", "system":
			lines = append(lines, tclLine(cmd[1:]))
		case "eval", "uplevel", "source", "interp", "namespace", "proc", "apply", "after", "trap":
			// Code Tcl makes or defines, to run later or elsewhere.
			lines = append(lines, runtimeWord)
		}
	}
	flush()
	return strings.Join(lines, "\n")
}

// remoteShell reports whether a spawned command is a session on another
// host, whose input runs there: ssh, tsh ssh, rsh, mosh, plink.
func remoteShell(cmd []tclWord) bool {
	if len(cmd) == 0 || cmd[0].dyn {
		return false
	}
	name := cmd[0].text[strings.LastIndexByte(cmd[0].text, '/')+1:]
	switch name {
	case "ssh", "rsh", "mosh", "plink", "dbclient", "autossh":
		return true
	case "tsh":
		return len(cmd) > 1 && cmd[1].text == "ssh"
	}
	return false
}

// spawnedLanguage returns the language of what is typed into a spawned
// shell or interpreter, "" for another program, whose input is its own.
func spawnedLanguage(cmd []tclWord) string {
	if len(cmd) == 0 || cmd[0].dyn {
		return ""
	}
	name := cmd[0].text[strings.LastIndexByte(cmd[0].text, '/')+1:]
	switch strings.TrimRight(name, "0123456789.") {
	case "bash", "sh", "zsh", "dash", "ksh", "fish", "su":
		return langShell
	case "python", "ipython":
		return langPython
	case "node", "nodejs":
		return langJavaScript
	case "perl":
		return langPerl
	case "ruby", "irb":
		return langRuby
	case "php":
		return langPHP
	case "pwsh", "powershell":
		return langPowerShell
	}
	return ""
}

// tclLine makes a shell command line of Tcl words: each word quoted, a
// word known only at run time as runtimeWord, and exec's redirections and
// pipes as the shell writes them.
func tclLine(words []tclWord) string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		switch {
		case w.dyn:
			out = append(out, runtimeWord)
		case slices.Contains([]string{"|", "|&", ">", ">>", "<", "2>", "2>>", ">&", "&"}, w.text):
			out = append(out, w.text)
		default:
			out = append(out, shellQuote(w.text))
		}
	}
	return strings.Join(out, " ")
}

// tclWord is a word of a Tcl command; dyn is set for one made at run time
// ($var, [command]).
type tclWord struct {
	text string
	dyn  bool
}

// tclCommands splits Tcl code into its commands' words, as Tcl's parser
// does: commands end at a newline or ";", words are separated by blanks,
// "..." words take backslash escapes, {...} words are literal (braces
// nest), and $var and [command] make a word known only at run time. A
// comment (# at a command's start) runs to the end of its line.
func tclCommands(code string) [][]tclWord {
	var cmds [][]tclWord
	var cmd []tclWord
	i := 0
	for i < len(code) {
		c := code[i]
		switch {
		case c == '\n' || c == ';':
			cmds, cmd = append(cmds, cmd), nil
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(code) && code[i+1] == '\n':
			i += 2
		case c == '#' && len(cmd) == 0:
			for i < len(code) && code[i] != '\n' {
				i++
			}
		default:
			var w tclWord
			w, i = tclReadWord(code, i)
			cmd = append(cmd, w)
		}
	}
	return append(cmds, cmd)
}

// tclReadWord reads the word that starts at i, and returns it and the
// index after it.
func tclReadWord(code string, i int) (tclWord, int) {
	var w tclWord
	var b strings.Builder
	switch code[i] {
	case '{':
		depth, j := 1, i+1
		for j < len(code) && depth > 0 {
			switch code[j] {
			case '\\':
				j++
			case '{':
				depth++
			case '}':
				depth--
			}
			j++
		}
		w.text = code[i+1 : max(j-1, i+1)]
		return w, j
	case '"':
		j := i + 1
		for j < len(code) && code[j] != '"' {
			j = tclReadChar(code, j, &b, &w)
		}
		w.text = b.String()
		return w, min(j+1, len(code))
	}
	j := i
	for j < len(code) && !strings.ContainsRune(" \t\r\n;", rune(code[j])) {
		j = tclReadChar(code, j, &b, &w)
	}
	w.text = b.String()
	return w, j
}

// tclReadChar reads one character of a word at j into b: an escape, a
// variable or a command substitution (which make the word dynamic).
func tclReadChar(code string, j int, b *strings.Builder, w *tclWord) int {
	switch c := code[j]; c {
	case '\\':
		if j+1 < len(code) {
			switch code[j+1] {
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(code[j+1])
			}
			return j + 2
		}
		return j + 1
	case '$':
		if j+1 < len(code) && (isTclNameChar(code[j+1]) || code[j+1] == '{') {
			w.dyn = true
		}
		b.WriteByte(c)
		return j + 1
	case '[':
		w.dyn = true
		depth := 1
		j++
		for j < len(code) && depth > 0 {
			switch code[j] {
			case '\\':
				j++
			case '[':
				depth++
			case ']':
				depth--
			}
			j++
		}
		return j
	}
	b.WriteByte(code[j])
	return j + 1
}

func isTclNameChar(c byte) bool {
	return c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
