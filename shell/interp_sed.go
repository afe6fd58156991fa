package shell

import "strings"

// GNU sed runs shell commands too: "e COMMAND" runs COMMAND, "e" alone
// runs the pattern space, and the s command's e flag runs the result of
// the substitution. The analysis reads sed scripts (-e SCRIPT,
// --expression, or the first operand; a script file of -f is not read)
// command by command: an e command's text is code, and what runs the
// pattern space is known only at run time.

var sedOpts = opts{short: "efl", long: []string{"expression", "file", "line-length"}}

// sed analyses the shell commands of a GNU sed script.
func (a *analyzer) sed(c *code, src string, args []field) {
	i, seen := sedOpts.parse(args)
	var scripts []field
	for _, o := range seen {
		switch o.name {
		case "-f", "--file":
			return
		case "-e", "--expression":
			scripts = append(scripts, o.val)
		}
	}
	if len(scripts) == 0 && i < len(args) {
		scripts = append(scripts, args[i])
	}
	for _, s := range scripts {
		if s.dyn {
			if strings.Contains(s.approx, "e") {
				a.dynamic(c, src)
			}
			continue
		}
		cmds, runsSpace := sedCommands(s.val)
		if runsSpace {
			a.dynamic(c, src)
		}
		for _, cmd := range cmds {
			a.codeFields(c, "sed e", src, []field{staticField(cmd)}, nil)
		}
	}
}

// sedCommands returns the commands of a sed script's e commands, and
// whether it runs a pattern space (e alone, or s///e).
func sedCommands(script string) (cmds []string, runsSpace bool) {
	i := 0
	for i < len(script) {
		// Blanks, separators and the address before a command.
		for i < len(script) && strings.IndexByte(" \t\n;!0123456789$,~{}", script[i]) >= 0 {
			i++
		}
		if i >= len(script) {
			break
		}
		switch ch := script[i]; ch {
		case '/', '\\':
			// An address /re/ or \cREc.
			delim := byte('/')
			if ch == '\\' && i+1 < len(script) {
				i++
				delim = script[i]
			}
			i = sedSkipDelimited(script, i+1, delim)
			continue
		case '#':
			i = sedLineEnd(script, i)
			continue
		case 'e':
			end := sedLineEnd(script, i)
			if cmd := strings.TrimSpace(script[i+1 : end]); cmd != "" {
				cmds = append(cmds, cmd)
			} else {
				runsSpace = true
			}
			i = end
			continue
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W':
			// Text or a file name to the end of the line.
			i = sedLineEnd(script, i)
			continue
		case ':', 'b', 't', 'T':
			// A label, to a ; or the end of the line.
			for i < len(script) && script[i] != ';' && script[i] != '\n' {
				i++
			}
			continue
		case 's', 'y':
			if i+1 >= len(script) {
				return cmds, runsSpace
			}
			delim := script[i+1]
			i = sedSkipDelimited(script, i+2, delim)
			i = sedSkipDelimited(script, i, delim)
			start := i
			for i < len(script) && strings.IndexByte(" \t\n;}", script[i]) < 0 {
				i++
			}
			flags := script[start:i]
			if ch == 's' && strings.Contains(flags, "e") {
				runsSpace = true
			}
			if ch == 's' && strings.ContainsAny(flags, "w") {
				// w FILE takes the rest of the line.
				i = sedLineEnd(script, i)
			}
			continue
		}
		i++
	}
	return cmds, runsSpace
}

// sedSkipDelimited returns the index after the next unescaped delim from i.
func sedSkipDelimited(s string, i int, delim byte) int {
	for i < len(s) {
		switch s[i] {
		case '\\':
			i += 2
			continue
		case delim:
			return i + 1
		}
		i++
	}
	return i
}

// sedLineEnd returns the index of the end of the line holding i.
func sedLineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}
