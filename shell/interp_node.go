package shell

import (
	"strings"
	"sync"
)

// jsProcs are child_process's functions: "shell" take a command line,
// "argv" a program and a list of arguments.
var jsProcs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"exec": "shell", "execSync": "shell", "execFile": "argv", "execFileSync": "argv",
		"spawn": "argv", "spawnSync": "argv", "fork": "argv",
	}
})

// readJS reads JavaScript: child_process (required or imported, also as
// node:child_process) bound to a name, destructured, or called in place;
// its exec*, execFile* and spawn* calls; Bun.spawn and Bun.$; eval and
// new Function of a literal, read again as JavaScript.
func readJS(r *interpResult, toks []token, depth int) {
	modNames := map[string]bool{}
	funcNames := map[string]string{}
	// binding marks the tokens of the statements that bind those names,
	// which are not uses of them.
	binding := make([]bool, len(toks))
	mark := func(from, to int) {
		for k := max(from, 0); k < to && k < len(toks); k++ {
			binding[k] = true
		}
	}
	isModule := func(arg []token) bool {
		v, ok := literalOf(arg, "+", false)
		return ok && (v == "child_process" || v == "node:child_process")
	}
	// Bindings: const cp = require('child_process'), const {exec: run}
	// = require(...), import cp from / import * as cp from / import {x} from.
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tIdent && t.text == "require" && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			if len(args) == 0 || !isModule(args[0]) {
				continue
			}
			switch {
			case i >= 2 && isPunct(toks, i-1, "=") && toks[i-2].kind == tIdent:
				modNames[toks[i-2].text] = true
				mark(i-2, i-1)
			case i >= 2 && isPunct(toks, i-1, "=") && isPunct(toks, i-2, "}"):
				mark(jsDestructure(toks, i-2, funcNames), i-1)
			}
			i = end - 1
		case t.kind == tIdent && t.text == "import" && !isPunct(toks, i+1, "("):
			j := i + 1
			for j < len(toks) && !(toks[j].kind == tIdent && toks[j].text == "from") && !isPunct(toks, j, ";") {
				j++
			}
			if !r.spend(j - i) {
				return
			}
			if j+1 >= len(toks) || toks[j].text != "from" || !isModule(toks[j+1:j+2]) {
				continue
			}
			mark(i, j+2)
			for k := i + 1; k < j; k++ {
				switch {
				case toks[k].kind == tIdent && toks[k].text == "as" && k+1 < j:
					modNames[toks[k+1].text] = true
					k++
				case isPunct(toks, k, "{"):
					for k++; k < j && !isPunct(toks, k, "}"); k++ {
						if toks[k].kind == tIdent {
							local := toks[k].text
							if k+2 < j && toks[k+1].text == "as" {
								local = toks[k+2].text
								funcNames[local] = toks[k].text
								k += 2
								continue
							}
							funcNames[local] = toks[k].text
						}
					}
				case toks[k].kind == tIdent && k == i+1:
					modNames[toks[k].text] = true
				}
			}
		}
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || binding[i] || i > 0 && isPunct(toks, i-1, ".") {
			// A member is read from the name it belongs to.
			continue
		}
		var fn string
		next := i + 1
		switch {
		case t.text == "require" && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			if len(args) == 0 {
				continue
			}
			if !isModule(args[0]) {
				if _, ok := literalOf(args[0], "+", false); !ok {
					r.unknown("require")
				}
				i = end - 1
				continue
			}
			switch {
			case isPunct(toks, end, ".") && end+1 < len(toks) && toks[end+1].kind == tIdent:
				fn, next = toks[end+1].text, end+2
			case i > 0 && isPunct(toks, i-1, "="):
				// Bound to a name, read above.
				i = end - 1
				continue
			default:
				r.unknown("require") // the module handed on
				i = end - 1
				continue
			}
		case t.text == "import" && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			if len(args) > 0 && isModule(args[0]) {
				r.unknown("import()") // a dynamic import handed to code the reader does not follow
			}
			i = end - 1
			continue
		case modNames[t.text]:
			if !isPunct(toks, i+1, ".") && !isPunct(toks, i+1, "[") {
				if i > 0 && (toks[i-1].text == "import" || toks[i-1].text == "as" || isPunct(toks, i+1, "=")) {
					continue
				}
				r.unknown(t.text) // the module handed on
				continue
			}
			if isPunct(toks, i+1, "[") {
				args, end := r.callArgs(toks, i+1)
				if len(args) == 1 {
					if v, ok := literalOf(args[0], "+", false); ok {
						fn, next = v, end
						break
					}
				}
				r.unknown(t.text)
				i = end - 1
				continue
			}
			if i+2 < len(toks) && toks[i+2].kind == tIdent {
				fn, next = toks[i+2].text, i+3
			}
		case funcNames[t.text] != "":
			fn = funcNames[t.text]
		case t.text == "Bun" && isPunct(toks, i+1, ".") && i+2 < len(toks):
			switch toks[i+2].text {
			case "spawn", "spawnSync":
				if isPunct(toks, i+3, "(") {
					args, end := r.callArgs(toks, i+3)
					r.command("Bun.spawn", args, 0, "+", false, false)
					i = end - 1
				}
			case "$":
				if i+3 < len(toks) && toks[i+3].kind == tString {
					if toks[i+3].dyn {
						r.unknown("Bun.$")
					} else {
						r.start(procShell, "Bun.$", toks[i+3].text, nil)
					}
				}
			}
			continue
		case (t.text == "eval" || t.text == "Function") && isPunct(toks, i+1, "("):
			args, end := r.callArgs(toks, i+1)
			if len(args) > 0 {
				if code, ok := literalOf(args[len(args)-1], "+", false); ok {
					readInterp(r, "js", code, depth+1)
				} else {
					r.unknown(t.text)
				}
			}
			i = end - 1
			continue
		}
		kind, ok := jsProcs()[fn]
		if !ok {
			continue
		}
		if !isPunct(toks, next, "(") {
			r.unknown(fn)
			continue
		}
		args, end := r.callArgs(toks, next)
		i = end - 1
		if kind == "shell" {
			r.command(fn, args, 0, "+", false, false)
			continue
		}
		// spawn(program, [args], {shell: true}) and the like.
		if len(args) == 0 {
			r.unknown(fn)
			continue
		}
		prog, ok := literalOf(args[0], "+", false)
		if !ok {
			r.unknown(fn)
			continue
		}
		argv := []string{prog}
		if len(args) > 1 && !kwarg(args[1]) {
			list, ok := listOf(args[1], "+", false)
			if !ok {
				r.unknown(fn)
				continue
			}
			argv = append(argv, list...)
		}
		if fn == "fork" {
			argv = append([]string{"node"}, argv...)
		}
		if jsShellOption(args) {
			r.start(procShell, fn, strings.Join(argv, " "), nil)
		} else {
			r.start(procArgv, fn, "", argv)
		}
	}
}

// jsShellOption reports whether a call's options object sets shell.
func jsShellOption(args [][]token) bool {
	for _, a := range args {
		for k := 0; k+2 < len(a); k++ {
			if a[k].kind == tIdent && a[k].text == "shell" && isPunct(a, k+1, ":") && !(a[k+2].kind == tIdent && a[k+2].text == "false") {
				return true
			}
		}
	}
	return false
}

// jsDestructure reads "{exec, spawn: run} =" ending at toks[close], and
// returns the index of its "{".
func jsDestructure(toks []token, close int, funcNames map[string]string) int {
	open := close
	for open > 0 && !isPunct(toks, open, "{") {
		open--
	}
	for k := open + 1; k < close; k++ {
		if toks[k].kind != tIdent {
			continue
		}
		if isPunct(toks, k+1, ":") && k+2 < close && toks[k+2].kind == tIdent {
			funcNames[toks[k+2].text] = toks[k].text
			k += 2
			continue
		}
		funcNames[toks[k].text] = toks[k].text
	}
	return open
}
