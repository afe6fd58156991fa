package shell

import (
	"strings"
	"sync"
)

// perlStops end the arguments of a Perl call without brackets.
var perlStops = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"or": true, "and": true, "if": true, "unless": true, "while": true, "until": true, "for": true, "foreach": true, "xor": true}
})

// readPerl reads Perl: system, exec and readpipe (with or without
// brackets, a list of literals being a program and its arguments), `...`
// and qx, open with a command ("cmd |", "| cmd", "-|" with a list),
// IPC::Open2/3 and IPC::Run's calls, eval of a literal read again as
// Perl, and s///e, whose replacement is code.
func readPerl(r *interpResult, toks []token, depth int) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.cmd {
			if t.dyn {
				r.unknown("qx")
			} else {
				r.start(procShell, "qx", t.text, nil)
			}
			continue
		}
		if t.kind != tIdent {
			continue
		}
		name := t.text
		if name == "CORE" && isPunct(toks, i+1, "::") && i+2 < len(toks) {
			i += 2
			name = toks[i].text
		}
		if i > 0 && (isPunct(toks, i-1, "->") || isPunct(toks, i-1, "&") || isPunct(toks, i-1, "::")) && name != "open3" && name != "open2" {
			if (name == "system" || name == "exec") && isPunct(toks, i-1, "&") {
				r.unknown(name) // &system: a reference handed on
			}
			continue
		}
		var args [][]token
		end := i + 1
		call := func() {
			if isPunct(toks, i+1, "(") {
				args, end = r.callArgs(toks, i+1)
			} else {
				args, end = r.bareArgs(toks, i+1, perlStops())
			}
		}
		switch name {
		case "system", "exec", "readpipe", "open3", "open2", "run", "run3", "start", "harness":
			if name == "run" || name == "start" || name == "harness" || name == "run3" {
				// IPC::Run's and IPC::Run3's: the first argument is a
				// command, mostly a list reference.
				if !isPunct(toks, i+1, "(") {
					continue
				}
			}
			call()
			i = end - 1
			first := 0
			if (name == "system" || name == "exec") && len(args) > 0 && len(args[0]) > 0 && isPunct(args[0], 0, "{") {
				// exec { PROGRAM } LIST runs PROGRAM with a false argv[0].
				r.unknown(name)
				continue
			}
			if name == "open3" || name == "open2" {
				first = len(args) - 1
				for k := 2; k < len(args); k++ {
					if _, ok := literalOf(args[k], ".", false); ok {
						first = k
						break
					}
				}
			}
			if first < 0 || first >= len(args) {
				r.unknown(name)
				continue
			}
			rest := args[first:]
			if len(rest) == 1 {
				if list, ok := listOf(rest[0], ".", false); ok && len(list) > 0 {
					r.start(procArgv, name, "", list)
					continue
				}
				if len(rest[0]) > 0 && isPunct(rest[0], 0, "[") {
					if list, ok := listOf(rest[0], ".", false); ok && len(list) > 0 {
						r.start(procArgv, name, "", list)
						continue
					}
				}
			}
			r.command(name, rest, 0, ".", false, len(rest) > 1)
		case "open":
			call()
			i = end - 1
			perlOpen(r, args)
		case "eval":
			if isPunct(toks, i+1, "{") {
				continue // a block, read with the rest of the code
			}
			call()
			i = end - 1
			if len(args) == 1 {
				if code, ok := literalOf(args[0], ".", false); ok {
					readInterp(r, "perl", code, depth+1)
					continue
				}
			}
			r.unknown("eval")
		case "s///":
			if strings.Contains(t.flags, "e") && i+1 < len(toks) {
				repl := toks[i+1]
				switch {
				case strings.Count(t.flags, "e") > 1:
					r.unknown("s///ee") // the code's result is code again
				case repl.dyn:
					readInterp(r, "perl", repl.text, depth+1)
					r.unknown("s///e")
				default:
					readInterp(r, "perl", repl.text, depth+1)
				}
			}
			i++
		}
	}
}

// perlOpen reads open(FH, MODE, CMD...) and open(FH, "CMD |").
func perlOpen(r *interpResult, args [][]token) {
	if len(args) < 2 {
		return
	}
	mode, ok := literalOf(args[1], ".", false)
	if !ok {
		if len(args) == 2 {
			r.unknown("open") // a two-argument open with a run-time mode may be a pipe
		}
		return
	}
	if len(args) == 2 {
		m := strings.TrimSpace(mode)
		switch {
		case strings.HasSuffix(m, "|"):
			r.start(procShell, "open", strings.TrimSuffix(m, "|"), nil)
		case strings.HasPrefix(m, "|"):
			r.start(procShell, "open", strings.TrimPrefix(m, "|"), nil)
		}
		return
	}
	switch strings.TrimSpace(mode) {
	case "-|", "|-":
		r.command("open", args[2:], 0, ".", false, len(args) > 3)
	}
}
