package shell

import (
	"strings"
	"sync"
)

// pythonProcs are the Python functions that start a process, by how they
// take the command: "shell" a command line, "cmd" a command line or a
// list, "spread" a program and its arguments as arguments, "execl"
// "execv" and "spawn" as os's exec and spawn families take them.
var pythonProcs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"os.system": "shell", "os.popen": "shell", "os.popen2": "shell", "os.popen3": "shell", "os.popen4": "shell",
		"subprocess.getoutput": "shell", "subprocess.getstatusoutput": "shell", "commands.getoutput": "shell",
		"commands.getstatusoutput": "shell", "asyncio.create_subprocess_shell": "shell", "platform.popen": "shell",
		"subprocess.run": "cmd", "subprocess.call": "cmd", "subprocess.check_call": "cmd", "subprocess.check_output": "cmd",
		"subprocess.Popen": "cmd", "pty.spawn": "cmd", "pexpect.spawn": "shell", "pexpect.run": "shell",
		"asyncio.create_subprocess_exec": "spread",
		"os.execl":                       "execl", "os.execle": "execl", "os.execlp": "execl", "os.execlpe": "execl",
		"os.execv": "execv", "os.execve": "execv", "os.execvp": "execv", "os.execvpe": "execv",
		"os.posix_spawn": "execv", "os.posix_spawnp": "execv",
		"os.spawnl": "spawnl", "os.spawnle": "spawnl", "os.spawnlp": "spawnl", "os.spawnlpe": "spawnl",
		"os.spawnv": "spawnv", "os.spawnve": "spawnv", "os.spawnvp": "spawnv", "os.spawnvpe": "spawnv",
	}
})

// pythonModules are the modules whose functions start processes.
var pythonModules = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"os": true, "subprocess": true, "commands": true, "asyncio": true, "pty": true, "platform": true, "pexpect": true}
})

// readPython reads Python: imports (import M as A, from M import f as g,
// from M import *), calls of pythonProcs by their module, an alias or a
// bare imported name (also through __import__('os'), importlib and
// getattr with a literal name), and eval, exec and compile of a literal,
// read again as Python.
func readPython(r *interpResult, toks []token, depth int) {
	mods := map[string]string{}  // local name -> module
	funcs := map[string]string{} // local name -> module.function
	star := map[string]bool{}
	// Imports first: an import further down still names the functions
	// the code calls, when they run in a function or a loop.
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent {
			continue
		}
		switch t.text {
		case "import":
			if i > 0 && toks[i-1].kind == tIdent {
				continue // from M import ...: below
			}
			for j := i + 1; j < len(toks) && toks[j].kind == tIdent; {
				parts, k := dottedName(toks, j)
				name, local := strings.Join(parts, "."), parts[0]
				if k+1 < len(toks) && toks[k].kind == tIdent && toks[k].text == "as" && toks[k+1].kind == tIdent {
					local = toks[k+1].text
					mods[local] = name
					k += 2
				} else {
					mods[local] = local
				}
				if !isPunct(toks, k, ",") {
					break
				}
				j = k + 1
			}
		case "from":
			if i+3 >= len(toks) || toks[i+1].kind != tIdent {
				continue
			}
			parts, k := dottedName(toks, i+1)
			mod := strings.Join(parts, ".")
			if k >= len(toks) || toks[k].text != "import" {
				continue
			}
			for j := k + 1; j < len(toks); j++ {
				switch tj := toks[j]; {
				case tj.kind == tPunct && tj.text == "*":
					star[mod] = true
				case tj.kind == tIdent && tj.text != "as":
					local := tj.text
					if j+2 < len(toks) && toks[j+1].text == "as" && toks[j+2].kind == tIdent {
						local = toks[j+2].text
						j += 2
					}
					funcs[local] = mod + "." + tj.text
					mods[local] = mod + "." + tj.text
				case tj.kind == tPunct && (tj.text == "," || tj.text == "(" || tj.text == ")"):
				default:
					j = len(toks)
				}
			}
		}
	}
	resolve := func(parts []string) string {
		if f, ok := funcs[parts[0]]; ok && len(parts) == 1 {
			return f
		}
		base := parts[0]
		if m, ok := mods[base]; ok {
			base = m
		}
		if len(parts) == 1 {
			for m := range star {
				if _, ok := pythonProcs()[m+"."+base]; ok {
					return m + "." + base
				}
			}
		}
		return strings.Join(append([]string{base}, parts[1:]...), ".")
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent {
			continue
		}
		if t.text == "import" || t.text == "from" {
			// Skip the import statement's names.
			for i+1 < len(toks) && (toks[i+1].kind == tIdent || isPunct(toks, i+1, ",") || isPunct(toks, i+1, ".") || isPunct(toks, i+1, "*") || isPunct(toks, i+1, "(") || isPunct(toks, i+1, ")")) {
				i++
			}
			continue
		}
		var name string
		next := i + 1
		switch {
		case t.text == "__import__" || t.text == "importlib" && isPunct(toks, i+1, ".") && i+2 < len(toks) && toks[i+2].text == "import_module":
			// __import__('os').system(...), importlib.import_module('os')
			open := i + 1
			if t.text == "importlib" {
				open = i + 3
			}
			if isPunct(toks, open, "(") {
				args, end := r.callArgs(toks, open)
				m, ok := "", false
				if len(args) > 0 {
					m, ok = literalOf(args[0], "+", true)
				}
				if !ok {
					r.unknown(t.text)
					i = end - 1
					continue
				}
				if isPunct(toks, end, ".") && end+1 < len(toks) && toks[end+1].kind == tIdent {
					name = m + "." + toks[end+1].text
					next = end + 2
				} else {
					i = end - 1
					continue
				}
			}
		case t.text == "getattr" && isPunct(toks, i+1, "(") && i+2 < len(toks) && toks[i+2].kind == tIdent && pythonModules()[resolve([]string{toks[i+2].text})]:
			args, end := r.callArgs(toks, i+1)
			if len(args) >= 2 && len(args[0]) >= 1 && args[0][0].kind == tIdent {
				parts, _ := dottedName(args[0], 0)
				mod := resolve(parts)
				attr, ok := literalOf(args[1], "+", true)
				switch {
				case !ok && pythonModules()[mod]:
					r.unknown("getattr")
				case ok:
					name = mod + "." + attr
					next = end
				}
			}
			if name == "" {
				i = end - 1
				continue
			}
		case (t.text == "eval" || t.text == "exec" || t.text == "compile") && isPunct(toks, i+1, "(") && (i == 0 || !isPunct(toks, i-1, ".")):
			args, end := r.callArgs(toks, i+1)
			if code, ok := "", false; len(args) > 0 {
				if code, ok = literalOf(args[0], "+", true); ok {
					readInterp(r, "python", code, depth+1)
				} else {
					r.unknown(t.text)
				}
			}
			i = end - 1
			continue
		default:
			if i > 0 && isPunct(toks, i-1, ".") {
				continue // an attribute of something the reader does not follow
			}
			var parts []string
			parts, next = dottedName(toks, i)
			name = resolve(parts)
		}
		kind, isProc := pythonProcs()[name]
		if !isProc {
			if pythonModules()[name] && name != "os" && name != "asyncio" && name != "platform" && !isPunct(toks, next, ".") {
				// The module itself handed on: m = subprocess.
				r.unknown(name)
			}
			i = next - 1
			continue
		}
		if !isPunct(toks, next, "(") {
			// The function handed on: f = os.system.
			r.unknown(name)
			i = next - 1
			continue
		}
		args, end := r.callArgs(toks, next)
		i = end - 1
		switch kind {
		case "shell", "cmd":
			r.command(name, args, 0, "+", true, false)
		case "spread":
			r.command(name, args, 0, "+", true, true)
		case "execl", "spawnl":
			from := 0
			if kind == "spawnl" {
				from = 1 // the mode
			}
			if from+1 < len(args) {
				// path, arg0, arg1...: the program and its arguments.
				r.command(name, append([][]token{args[from]}, args[from+2:]...), 0, "+", true, true)
				if len(args) == from+2 {
					r.command(name, args[from:from+1], 0, "+", true, false)
				}
			} else {
				r.unknown(name)
			}
		case "execv", "spawnv":
			from := 0
			if kind == "spawnv" {
				from = 1
			}
			if from+1 >= len(args) {
				r.unknown(name)
				break
			}
			path, ok := literalOf(args[from], "+", true)
			list, ok2 := listOf(args[from+1], "+", true)
			if !ok || !ok2 {
				r.unknown(name)
				break
			}
			argv := []string{path}
			if len(list) > 1 {
				argv = append(argv, list[1:]...)
			}
			r.start(procArgv, name, "", argv)
		}
	}
}
