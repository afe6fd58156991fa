package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/shell"
)

// cmd.exe reads a command line otherwise than a POSIX shell: ' is not a
// quote, " quotes up to the next ", ^ escapes the character after it, and
// &, &&, || and | end a command wherever no quote holds them (echo
// x'&shutdown /r&' runs shutdown); each command's program then splits its
// own arguments, " quoting and \" a quote. cmdScript writes the commands
// of such a line, and argvScript the one program of a Windows command
// line, as a script for the shell analysis, each word quoted for it, so
// that the commands are judged as the same commands run from the shell.
// A %NAME% or !NAME! the line expands is known only at run time.

// cmdScript returns the commands of a line cmd.exe runs as a script.
func cmdScript(line string) string {
	var b strings.Builder
	for _, cmd := range cmdCommands(line) {
		cmdWrite(&b, windowsArgv(cmd), 0)
	}
	return b.String()
}

// argvScript returns the program of a Windows command line, and its
// arguments, as a script.
func argvScript(line string) string {
	var b strings.Builder
	writeWords(&b, windowsArgv(line))
	return b.String()
}

// cmdCommands splits a line at cmd.exe's separators that no quote holds
// or ^ escapes: &, &&, ||, |, brackets and newlines. The escapes stay for
// windowsArgv, which drops the carets.
func cmdCommands(line string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if strings.TrimSpace(cur.String()) != "" {
			out = append(out, cur.String())
		}
		cur.Reset()
	}
	quoted := false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '"':
			quoted = !quoted
			cur.WriteByte(ch)
		case quoted:
			cur.WriteByte(ch)
		case ch == '^' && i+1 < len(line):
			// The caret goes; the character it escapes is kept, and
			// quoted so that it splits nothing.
			i++
			cur.WriteString("^" + line[i:i+1])
		case ch == '&' || ch == '|' || ch == '\n' || ch == '\r' || ch == '(' || ch == ')':
			if ch == '&' && cur.Len() > 0 && strings.HasSuffix(strings.TrimRight(cur.String(), " "), ">") {
				// >&2, 2>&1: a redirection, not a separator.
				cur.WriteByte(ch)
				continue
			}
			flush()
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	return out
}

// windowsWord is one argument of a Windows command line.
type windowsWord struct {
	text string
	// escaped marks the bytes a caret escaped, which no redirection or
	// keyword is made of.
	escaped bool
}

// windowsArgv splits a command into its arguments as Windows programs do
// (CommandLineToArgvW): blanks separate them outside double quotes, \"
// is a quote, and backslashes are literal elsewhere; a caret, kept by
// cmdCommands, escapes the byte after it.
func windowsArgv(cmd string) []windowsWord {
	var out []windowsWord
	var cur strings.Builder
	in, quoted, escaped := false, false, false
	for i := 0; i < len(cmd); i++ {
		ch := cmd[i]
		switch {
		case ch == '^' && i+1 < len(cmd):
			i++
			cur.WriteByte(cmd[i])
			in, escaped = true, true
		case ch == '\\':
			n := 0
			for i+n < len(cmd) && cmd[i+n] == '\\' {
				n++
			}
			if i+n < len(cmd) && cmd[i+n] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
					i += n
				} else {
					i += n - 1
				}
			} else {
				cur.WriteString(strings.Repeat(`\`, n))
				i += n - 1
			}
			in = true
		case ch == '"':
			quoted, in = !quoted, true
		case (ch == ' ' || ch == '\t') && !quoted:
			if in {
				out = append(out, windowsWord{text: cur.String(), escaped: escaped})
				cur.Reset()
				in, escaped = false, false
			}
		default:
			cur.WriteByte(ch)
			in = true
		}
	}
	if in {
		out = append(out, windowsWord{text: cur.String(), escaped: escaped})
	}
	return out
}

// cmdWrite writes one command of cmd.exe: @ and its redirections left out,
// and the commands inside if, for, call and start.
func cmdWrite(b *strings.Builder, words []windowsWord, depth int) {
	var kept []windowsWord
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !w.escaped && isRedirection(w.text) {
			switch strings.TrimLeft(w.text, "0123456789") {
			case ">", ">>", "<", ">&", "<&":
				i++ // the file it names follows
			}
			continue
		}
		kept = append(kept, w)
	}
	if len(kept) > 0 {
		kept[0].text = strings.TrimLeft(kept[0].text, "@")
		if kept[0].text == "" {
			kept = kept[1:]
		}
	}
	if len(kept) == 0 || depth > maxReachDepth || strings.Contains(kept[0].text, "'") {
		// A program named with a quote: the rest of a quoted POSIX
		// word ("grep 'a|b'" makes b'), which names no program.
		return
	}
	switch strings.ToLower(kept[0].text) {
	case "if":
		cmdWrite(b, ifCommand(kept[1:]), depth+1)
		return
	case "for":
		// for ... in (SET) do COMMAND; with /f, a SET in single quotes
		// is a command whose output is read.
		for k, w := range kept {
			if set, ok := strings.CutPrefix(w.text, "('"); ok && !w.escaped {
				b.WriteString(cmdScript(strings.TrimSuffix(strings.TrimSuffix(set, ")"), "'")))
			}
			if strings.EqualFold(w.text, "do") {
				cmdWrite(b, kept[k+1:], depth+1)
				return
			}
		}
		return
	case "call":
		cmdWrite(b, kept[1:], depth+1)
		return
	case "start":
		// start ["title"] [/options] COMMAND
		rest := kept[1:]
		for len(rest) > 0 && strings.HasPrefix(rest[0].text, "/") {
			rest = rest[1:]
		}
		cmdWrite(b, rest, depth+1)
		return
	case "else", "rem":
		if strings.EqualFold(kept[0].text, "else") {
			cmdWrite(b, kept[1:], depth+1)
		}
		return
	}
	writeWords(b, kept)
}

// ifCommand returns the command of if [/i] [not] CONDITION COMMAND.
func ifCommand(words []windowsWord) []windowsWord {
	for len(words) > 0 && (strings.EqualFold(words[0].text, "/i") || strings.EqualFold(words[0].text, "not")) {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil
	}
	switch strings.ToLower(words[0].text) {
	case "exist", "defined", "errorlevel", "cmdextversion":
		return words[min(2, len(words)):]
	}
	if strings.Contains(words[0].text, "==") {
		return words[1:]
	}
	if len(words) > 2 && comparison()[strings.ToUpper(words[1].text)] {
		return words[3:]
	}
	return words[min(1, len(words)):]
}

var comparison = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"EQU": true, "NEQ": true, "LSS": true, "LEQ": true, "GTR": true, "GEQ": true, "==": true}
})

// isRedirection reports whether a word is a redirection of cmd.exe:
// >FILE, >>FILE, <FILE, 2>FILE, 2>&1.
func isRedirection(w string) bool {
	w = strings.TrimLeft(w, "0123456789")
	return strings.HasPrefix(w, ">") || strings.HasPrefix(w, "<")
}

// cmdVariable is a variable cmd.exe expands: %NAME%, or !NAME! with
// delayed expansion.
var cmdVariable = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%[^%\s]+%|![^!\s]+!`) })

// writeWords writes words as one command, each quoted for the shell
// analysis, a variable as a part known only at run time.
func writeWords(b *strings.Builder, words []windowsWord) {
	if len(words) == 0 {
		return
	}
	for k, w := range words {
		if k > 0 {
			b.WriteByte(' ')
		}
		parts := cmdVariable().Split(w.text, -1)
		for j, part := range parts {
			if j > 0 {
				b.WriteString(`"$__rewind_cmd_variable"`)
			}
			if part != "" || len(parts) == 1 {
				b.WriteString(shellQuote(part))
			}
		}
	}
	b.WriteByte('\n')
}

// A remote command over ssh is read by the host's login shell, which on a
// Windows host is cmd.exe or PowerShell. The shell analysis reads it as a
// POSIX shell would; where the text holds what cmd.exe or PowerShell read
// otherwise (a & or | inside quotes, ^; a \" , a backtick, '' or a
// comment of PowerShell's), it is read their way too, and the commands
// those readings find that the shell's did not are judged on the host.

// maxWindowsReading bounds the remote code read again as cmd.exe and
// PowerShell; past it the call is asked about.
const maxWindowsReading = 64 << 10

// cmdDiffers reports whether cmd.exe may split code into other commands
// than a POSIX shell.
func cmdDiffers(code string) bool {
	return strings.ContainsAny(code, "&|") && strings.ContainsAny(code, "'\"\\^")
}

// psDiffers reports whether PowerShell may read code otherwise than a
// POSIX shell.
func psDiffers(code string) bool {
	for _, s := range []string{`\"`, "`", "''", "<#", "@'", `@"`, "--%"} {
		if strings.Contains(code, s) {
			return true
		}
	}
	return false
}

// windowsReadings judges the remote command of an ssh invocation as
// cmd.exe and PowerShell read it, where they read it otherwise.
func (p *Policy) windowsReadings(s *subject, inv *shell.Invocation, w *walk, depth int, add func(Match)) {
	code := inv.Remote
	cmd, ps := cmdDiffers(code), psDiffers(code)
	if code == "" || !cmd && !ps || depth >= maxReachDepth {
		return
	}
	at := place{host: s.host, remote: true, via: append(s.via[:len(s.via):len(s.via)], "ssh "+s.host), reads: w.reads}
	if ok, first := w.read(); !ok || len(code) > maxWindowsReading {
		if first || ok {
			add(p.pastLimit(&shell.Unparsed{Text: code, Err: "remote command too long, or too many, to read as cmd.exe and PowerShell", Limit: true}, at))
		}
		return
	}
	at.reads = w.reads
	// The commands the shell's reading found.
	seen := map[string]bool{}
	shell.Scan(code, func(f shell.Finding) {
		if f.Invocation != nil {
			seen[strings.ToLower(f.Invocation.Name)] = true
		}
	})
	extra := func(m Match) {
		if m.Kind == KindUnparsed && m.Effect < Ask || m.Kind == KindDynamic && seen[commandWord(m.Source)] {
			// A reading that cannot parse the code runs none of it.
			return
		}
		if (m.Kind == KindInvocation || m.Kind == KindCmdlet) && seen[commandWord(m.Source)] {
			return
		}
		add(m)
	}
	if cmd {
		p.judgeCode(cmdScript(code), &at, "", depth+1, extra)
	}
	if ps {
		d := ""
		p.judgePowerShell(code, at, &d, depth+1, extra)
	}
}

// commandWord returns the name a match's source starts with, lower case,
// without a folder or .exe.
func commandWord(src string) string {
	w, _, _ := strings.Cut(strings.TrimSpace(src), " ")
	w = strings.Trim(w, `'"`)
	if i := strings.LastIndexAny(w, `/\`); i >= 0 {
		w = w[i+1:]
	}
	return windowsName(w)
}
