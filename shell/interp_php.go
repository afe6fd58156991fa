package shell

import (
	"strings"
	"sync"
)

// phpProcs are PHP's functions that start a process (the names in any
// case); proc_open takes a command line or an array.
var phpProcs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"system": true, "exec": true, "shell_exec": true, "passthru": true, "popen": true,
		"proc_open": true, "pcntl_exec": true, "expect_popen": true,
	}
})

// readPHP reads PHP: phpProcs, `...`, call_user_func and
// call_user_func_array of a literal name, a process function's name
// given as a string (a callback), a variable function ($f(...)), and eval
// and assert of a literal, read again as PHP.
func readPHP(r *interpResult, toks []token, depth int) {
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
		if t.kind == tString && phpProcs()[strings.ToLower(t.text)] {
			r.unknown(t.text) // a process function's name given as a callback
			continue
		}
		if t.kind != tIdent || i > 0 && isPunct(toks, i-1, "->") {
			continue
		}
		name := t.text
		if strings.HasPrefix(name, "$") && isPunct(toks, i+1, "(") {
			r.unknown("$function()")
			continue
		}
		if !isPunct(toks, i+1, "(") || !phpProcs()[name] && name != "call_user_func" && name != "call_user_func_array" && name != "forward_static_call" && name != "eval" && name != "assert" {
			continue
		}
		args, end := r.callArgs(toks, i+1)
		switch {
		case phpProcs()[name]:
			i = end - 1
			if name == "pcntl_exec" {
				r.command(name, phpArgv(args), 0, ".", false, true)
				continue
			}
			if list, ok := phpList(args); ok {
				r.start(procArgv, name, "", list)
				continue
			}
			r.command(name, args, 0, ".", false, false)
		case name == "call_user_func" || name == "call_user_func_array" || name == "forward_static_call":
			i = end - 1
			if len(args) == 0 {
				continue
			}
			fn, ok := literalOf(args[0], ".", false)
			switch {
			case !ok:
				r.unknown(name)
			case phpProcs()[strings.ToLower(fn)]:
				r.command(fn, args[1:], 0, ".", false, false)
			}
		case name == "eval" || name == "assert":
			i = end - 1
			if len(args) > 0 {
				if code, ok := literalOf(args[0], ".", false); ok {
					readInterp(r, "php-code", code, depth+1)
				} else if name == "eval" {
					r.unknown("eval")
				}
			}
		}
	}
}

// phpList returns the command of proc_open when it is an array of
// literals: [a, b] or array(a, b).
func phpList(args [][]token) ([]string, bool) {
	if len(args) == 0 {
		return nil, false
	}
	a := args[0]
	if len(a) > 0 && a[0].kind == tIdent && a[0].text == "array" {
		a = a[1:]
	}
	return listOf(a, ".", false)
}

// phpArgv turns pcntl_exec(path, [args]) into its words as arguments.
func phpArgv(args [][]token) [][]token {
	if len(args) < 2 {
		return args
	}
	a := args[1]
	if len(a) > 0 && a[0].kind == tIdent && a[0].text == "array" {
		a = a[1:]
	}
	if len(a) < 2 {
		return args[:1]
	}
	elems, _ := callArgs(a, 0)
	return append(args[:1:1], elems...)
}
