package shell

import (
	"strings"
	"sync"
)

// rubyProcs are Ruby's functions that start a process; they take a
// command line, or a program and its arguments (as several arguments
// or a %w list), maybe after an environment hash.
var rubyProcs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"system": true, "exec": true, "spawn": true, "Process.spawn": true, "Process.exec": true,
		"Kernel.system": true, "Kernel.exec": true, "Kernel.spawn": true, "IO.popen": true,
		"Open3.capture2": true, "Open3.capture2e": true, "Open3.capture3": true, "Open3.popen2": true,
		"Open3.popen2e": true, "Open3.popen3": true, "Open3.pipeline": true, "Open3.pipeline_r": true,
		"Open3.pipeline_w": true, "Open3.pipeline_rw": true, "PTY.spawn": true,
	}
})

var rubyStops = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"if": true, "unless": true, "while": true, "until": true, "or": true, "and": true, "rescue": true, "do": true}
})

// readRuby reads Ruby: `...` and %x, rubyProcs with or without brackets,
// open and Kernel.open of "|command", send and public_send of a literal
// name, and eval, instance_eval and class_eval of a literal, read again as
// Ruby.
func readRuby(r *interpResult, toks []token, depth int) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.cmd {
			if t.dyn {
				r.unknown("`...`")
			} else {
				r.start(procShell, "`...`", t.text, nil)
			}
			continue
		}
		if t.kind != tIdent {
			continue
		}
		if i > 0 && isPunct(toks, i-1, ".") {
			continue
		}
		parts, next := dottedName(toks, i)
		name := strings.Join(parts, ".")
		if len(parts) > 1 && (parts[len(parts)-1] == "send" || parts[len(parts)-1] == "public_send" || parts[len(parts)-1] == "__send__") || name == "send" || name == "public_send" || name == "__send__" || strings.HasSuffix(name, ".method") || name == "method" {
			// send(:system, "cmd"): the name is the first argument.
			if !isPunct(toks, next, "(") {
				continue
			}
			args, end := r.callArgs(toks, next)
			i = end - 1
			if len(args) > 0 {
				if fn, ok := literalOf(args[0], "+", false); !ok || rubyProcs()[fn] || rubyProcs()["Kernel."+fn] {
					if ok && len(args) > 1 {
						r.command(fn, args[1:], 0, "+", false, len(args) > 2)
					} else {
						r.unknown("send")
					}
				}
			}
			continue
		}
		switch {
		case rubyProcs()[name] || len(parts) > 1 && rubyProcs()[parts[len(parts)-2]+"."+parts[len(parts)-1]]:
		case name == "open" || name == "Kernel.open" || name == "URI.open":
			var args [][]token
			var end int
			if isPunct(toks, next, "(") {
				args, end = r.callArgs(toks, next)
			} else {
				args, end = r.bareArgs(toks, next, rubyStops())
			}
			i = end - 1
			if len(args) > 0 {
				if v, ok := literalOf(args[0], "+", false); ok && strings.HasPrefix(v, "|") {
					r.start(procShell, "open", v[1:], nil)
				} else if !ok {
					r.unknown("open") // a run-time name may be "|command"
				}
			}
			continue
		case name == "eval" || name == "instance_eval" || name == "class_eval" || name == "module_eval":
			if !isPunct(toks, next, "(") && (next >= len(toks) || toks[next].kind != tString) {
				continue
			}
			var args [][]token
			var end int
			if isPunct(toks, next, "(") {
				args, end = r.callArgs(toks, next)
			} else {
				args, end = r.bareArgs(toks, next, rubyStops())
			}
			i = end - 1
			if len(args) > 0 {
				if code, ok := literalOf(args[0], "+", false); ok {
					readInterp(r, "ruby", code, depth+1)
				} else {
					r.unknown(name)
				}
			}
			continue
		default:
			i = next - 1
			continue
		}
		var args [][]token
		var end int
		if isPunct(toks, next, "(") {
			args, end = r.callArgs(toks, next)
		} else {
			args, end = r.bareArgs(toks, next, rubyStops())
		}
		i = end - 1
		first := 0
		if len(args) > 0 && len(args[0]) > 0 && isPunct(args[0], 0, "{") {
			first = 1 // an environment hash
		}
		if first >= len(args) {
			r.unknown(name)
			continue
		}
		rest := args[first:]
		var plain [][]token
		for _, a := range rest {
			if !rubyOption(a) {
				plain = append(plain, a)
			}
		}
		if len(plain) == 1 {
			if list, ok := listOf(plain[0], "+", false); ok && len(list) > 0 {
				r.start(procArgv, name, "", list)
				continue
			}
		}
		r.command(name, plain, 0, "+", false, len(plain) > 1)
	}
}

// rubyOption reports whether an argument is a keyword option (chdir:
// "/tmp", :err => ...).
func rubyOption(arg []token) bool {
	return len(arg) > 1 && (arg[0].kind == tIdent && isPunct(arg, 1, ":") || isPunct(arg, 1, "=") && len(arg) > 2 && isPunct(arg, 2, ">"))
}
