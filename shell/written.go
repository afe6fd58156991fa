package shell

import (
	"encoding/json"
	"maps"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script can also be a file the command string writes before it runs
// it: "cat > x.sh <<'EOF' ... EOF; bash x.sh", "echo CODE > run.sh &&
// chmod +x run.sh && ./run.sh", a FIFO fed by "echo ... > p". The analysis
// keeps what the command string writes to each file, and reads it where
// the file runs: as a script of a shell, source or an interpreter, or as a
// command named by its path (or by its name, which a folder of PATH may
// hold). The writers it reads are the output redirections (of the static
// output of echo, printf or cat, or of text known only at run time, also
// through a descriptor "exec 3> FILE" opened), tee, sponge and dd of
// static input, and cp, mv, install and ln of a file written here;
// curl -o, wget -O and sed -i write text known only at run time. A file
// copied from one the command string does not show is, like it, a plain
// program.

// Bounds of the files kept: the text of maxWritten files, and past them
// the names of up to maxWrittenNames more, whose text is known only at run
// time; past those, any script file may be one written, and is dynamic.
const (
	maxWritten      = 16
	maxWrittenNames = 1024
)

// wrote records what statement s writes to the file path: its static
// output, or text known only at run time; appended to what it wrote
// before when appending.
func (a *analyzer) wrote(c *code, path string, appending bool, s *syntax.Stmt, stdin *input) {
	if c.host != "" {
		return // a file of another host
	}
	// The statement's output is what its command writes, read without
	// the redirections that send it to files.
	inputs := &syntax.Stmt{Cmd: s.Cmd}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc, syntax.RdrIn:
			inputs.Redirs = append(inputs.Redirs, r)
		}
	}
	out, static := staticOutput(c, inputs)
	if !static {
		out, static = a.catOutput(c, inputs, stdin)
	}
	in := &input{kind: inText, text: out, code: out, via: path}
	if !static {
		in = &input{kind: inDynamic, via: path}
	}
	a.writeFile(path, in, appending)
}

// writeFile records that the file path holds in from now on, or has it
// appended.
func (a *analyzer) writeFile(path string, in *input, appending bool) {
	key := cleanPath(path)
	if prev, ok := a.written[key]; ok && appending {
		in = a.appended(key, prev, in)
	}
	if _, ok := a.written[key]; !ok {
		switch n := len(a.written); {
		case n >= maxWritten+maxWrittenNames:
			a.writtenLost = true
			return
		case n >= maxWritten:
			// Its name is kept, not its text.
			in = &input{kind: inDynamic, via: in.via}
		}
	}
	if a.written == nil {
		a.written = make(map[string]*input)
		a.writtenBase = make(map[string]writtenName)
	}
	if !appending {
		delete(a.appends, key)
	}
	a.written[key] = in
	base := baseName(key)
	if prev, ok := a.writtenBase[base]; ok && prev.key != key && prev.in != in {
		// Two files of the same name: a command that names one by its
		// name alone may run either.
		in = &input{kind: inDynamic, via: in.via}
	}
	a.writtenBase[base] = writtenName{key: key, in: in}
}

// forget records that the file path holds what the command string does
// not show: a file copied from one it did not write.
func (a *analyzer) forget(path string) {
	key := cleanPath(path)
	if _, ok := a.written[key]; !ok {
		return
	}
	delete(a.written, key)
	delete(a.appends, key)
	if b := baseName(key); a.writtenBase[b].key == key {
		delete(a.writtenBase, b)
	}
}

// writtenName is the file a name alone stands for, among those written.
type writtenName struct {
	key string
	in  *input
}

// wroteFile returns what the command string wrote to the file a name
// stands for: the file of that path or, when no such file was written,
// the one of that name in another folder, which the name may reach from
// another working folder or through PATH.
func (a *analyzer) wroteFile(name string) (*input, bool) {
	key := cleanPath(name)
	if in, ok := a.written[key]; ok {
		return in, true
	}
	if w, ok := a.writtenBase[baseName(key)]; ok {
		return w.in, true
	}
	return nil, false
}

// maxWrittenText bounds the text an appended file keeps; past it the
// file holds text known only at run time.
const maxWrittenText = 256 << 10

// appended returns what a file holds once in is appended to prev. The
// text grows in a buffer of the file's, so that thousands of appends
// ("echo ls >> f" on every line) cost the length of the text, not its
// square.
func (a *analyzer) appended(key string, prev, in *input) *input {
	if prev.kind != inText || in.kind != inText || len(prev.text)+len(in.text) > maxWrittenText {
		delete(a.appends, key)
		return &input{kind: inDynamic, via: in.via}
	}
	b := a.appends[key]
	if b == nil {
		if a.appends == nil {
			a.appends = make(map[string]*strings.Builder)
		}
		b = new(strings.Builder)
		b.WriteString(prev.text)
		a.appends[key] = b
	}
	b.WriteString(in.text)
	// A Builder never changes the bytes it has handed out.
	text := b.String()
	return &input{kind: inText, text: text, code: text, via: in.via}
}

// cleanPath is the key a file is kept under: "./x.sh" and "x.sh" alike.
func cleanPath(p string) string {
	p = strings.TrimPrefix(p, "./")
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return p
}

// catOutput returns what cat writes when it concatenates files the
// command string wrote, or its standard input ("-", /dev/stdin), all of
// them static text.
func (a *analyzer) catOutput(c *code, s *syntax.Stmt, stdin *input) (string, bool) {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || len(call.Assigns) > 0 {
		return "", false
	}
	if name, ok := literal(call.Args[0]); !ok || baseName(name) != "cat" {
		return "", false
	}
	for i := len(s.Redirs) - 1; i >= 0; i-- {
		// Its own heredoc or here-string is its standard input.
		if r := s.Redirs[i]; r.N == nil || r.N.Value == "0" {
			if text, ok := hereText(c, r); ok {
				stdin = &input{kind: inText, text: text}
				break
			}
		}
	}
	var b strings.Builder
	for _, w := range call.Args[1:] {
		v, ok := literal(w)
		if !ok || strings.HasPrefix(v, "-") && v != "-" {
			return "", false
		}
		in := stdin
		if v != "-" && v != "/dev/stdin" {
			in, ok = a.wroteFile(c.text(v))
		}
		if !ok || in == nil || in.kind != inText {
			return "", false
		}
		b.WriteString(in.text)
	}
	return b.String(), true
}

// toolWrites records what the tools that write files write: tee and
// sponge their standard input, dd its input file or standard input, cp,
// mv, install and ln the files they copy, and curl -o, wget -O and sed -i
// text known only at run time.
func (a *analyzer) toolWrites(c *code, name string, args []field, in *input) {
	if c.host != "" {
		return
	}
	stdin := func() *input {
		if in != nil && in.kind == inText {
			return &input{kind: inText, text: in.text, code: in.text, via: name}
		}
		return &input{kind: inDynamic, via: name}
	}
	switch name {
	case "tee", "sponge":
		i, seen := noOpts.parse(args)
		appending := seen.has("-a", "--append")
		for _, f := range args[i:] {
			a.writeName(f, stdin(), appending)
		}
	case "dd":
		from, to := field{}, field{}
		for _, f := range args {
			if v, ok := strings.CutPrefix(f.val, "if="); ok {
				from = field{val: v, dyn: f.dyn}
			} else if v, ok := strings.CutPrefix(f.val, "of="); ok {
				to = field{val: v, dyn: f.dyn}
			}
		}
		switch {
		case to.val == "":
		case from.val == "":
			a.writeName(to, stdin(), false)
		default:
			a.copyFile(from, to, false, in)
		}
	case "cp", "mv", "install", "ln":
		a.copies(name, args, in)
	case "curl":
		for _, f := range curlOutputs(args) {
			a.writeName(f, &input{kind: inDynamic, via: name}, false)
		}
	case "wget":
		for _, f := range clusterValues(args, 'O', "--output-document") {
			a.writeName(f, &input{kind: inDynamic, via: name}, false)
		}
	case "sed", "gsed", "perl":
		if !slices.ContainsFunc(args, func(f field) bool {
			return !f.dyn && (f.val == "-i" || strings.HasPrefix(f.val, "-i") && !strings.HasPrefix(f.val, "--") || strings.HasPrefix(f.val, "--in-place"))
		}) {
			return
		}
		for _, f := range args {
			if _, ok := a.wroteFile(f.val); ok && !f.dyn {
				a.writeName(f, &input{kind: inDynamic, via: name}, false)
			}
		}
	}
}

// writeName records a write to the file a word names; a name decided at
// run time is kept by its source text.
func (a *analyzer) writeName(f field, in *input, appending bool) {
	if f.val == "" || f.val == "-" || !f.dyn && f.val == "/dev/null" {
		return
	}
	a.writeFile(f.val, in, appending)
}

// copyOpts are the options of cp, mv, install and ln that take a value.
var copyOpts = opts{short: "tSmogb", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup"}}

// copies records what cp, mv, install and ln make: each destination holds
// what its source held, and mv leaves no source behind. A destination is
// the last operand, or a folder the sources go into: one named by -t, or
// the last of several operands, or one ending in a slash; a single source
// may go into the folder the last operand names, so both are recorded.
func (a *analyzer) copies(name string, args []field, in *input) {
	var ops []field
	var dir field
	hasDir, recursive := false, name == "mv"
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn || f.val == "-" || !strings.HasPrefix(f.val, "-") {
			ops = append(ops, f)
			continue
		}
		if f.val == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		// Options may come after the operands too, as GNU reads them.
		j, seen := copyOpts.parse(args[i : i+1 : i+1])
		if o, ok := seen.get("-t", "--target-directory"); ok {
			dir, hasDir = o.val, true
		}
		recursive = recursive || seen.has("-r", "-R", "-a", "--recursive", "--archive")
		if j == 1 && len(seen) > 0 && takesValue(copyOpts, seen[len(seen)-1]) && seen[len(seen)-1].val.val == "" && i+1 < len(args) {
			// The option's value is the next word.
			i++
			if n := seen[len(seen)-1].name; n == "-t" || n == "--target-directory" {
				dir, hasDir = args[i], true
			}
		}
	}
	var srcs []field
	var dst field
	switch {
	case hasDir:
		srcs, dst = ops, dir
	case len(ops) >= 2:
		srcs, dst = ops[:len(ops)-1], ops[len(ops)-1]
	default:
		return
	}
	into := hasDir || len(srcs) > 1 || strings.HasSuffix(dst.val, "/")
	for _, src := range srcs {
		if !into {
			a.copyFile(src, dst, recursive, in)
		}
		a.copyFile(src, field{val: strings.TrimSuffix(dst.val, "/") + "/" + baseName(src.val), dyn: dst.dyn || src.dyn}, recursive, in)
		if name == "mv" && !src.dyn {
			a.forget(src.val)
		}
	}
}

// takesValue reports whether the option o, as seen, is one of those that
// take a value.
func takesValue(o opts, seen option) bool {
	if long, ok := strings.CutPrefix(seen.name, "--"); ok {
		return slices.Contains(o.long, long)
	}
	return len(seen.name) == 2 && strings.IndexByte(o.short, seen.name[1]) >= 0
}

// copyFile records that to holds what from held: the text the command
// string wrote there (and under a folder copied whole, each file in it),
// the text of standard input for /dev/stdin, text known only at run time
// for a name decided then; a file it does not show leaves to one it does
// not show either.
func (a *analyzer) copyFile(from, to field, recursive bool, in *input) {
	switch {
	case from.dyn:
		a.writeName(to, &input{kind: inDynamic, via: from.val}, false)
		return
	case from.val == "/dev/stdin" || from.val == "-":
		if in != nil && in.kind == inText {
			a.writeName(to, &input{kind: inText, text: in.text, code: in.text, via: from.val}, false)
		} else {
			a.writeName(to, &input{kind: inDynamic, via: from.val}, false)
		}
		return
	}
	if w, ok := a.written[cleanPath(from.val)]; ok {
		a.writeName(to, w, false)
	} else if !to.dyn {
		a.forget(to.val)
	}
	if recursive {
		prefix := cleanPath(from.val) + "/"
		var inside []string
		for key := range a.written {
			if strings.HasPrefix(key, prefix) {
				inside = append(inside, key)
			}
		}
		slices.Sort(inside)
		for _, key := range inside {
			a.writeName(field{val: path.Join(to.val, strings.TrimPrefix(key, prefix)), dyn: to.dyn}, a.written[key], false)
		}
	}
}

// curlOutputs returns the files curl writes: -o FILE (also at the end of a
// cluster, "-sSo FILE", and as --output FILE or --output=FILE), and for -O
// and --remote-name the last part of the URL, whose name is known only at
// run time.
func curlOutputs(args []field) []field {
	out := clusterValues(args, 'o', "--output")
	for _, f := range args {
		if f.dyn {
			continue
		}
		if f.val == "--remote-name" || f.val == "--remote-name-all" ||
			len(f.val) > 1 && f.val[0] == '-' && f.val[1] != '-' && strings.IndexByte(f.val, 'O') > 0 && strings.IndexByte(f.val, 'o') < 0 {
			out = append(out, field{val: "<curl -O>", dyn: true})
		}
	}
	return out
}

// clusterValues returns the values of a short option that takes a value,
// also at the end of a cluster of others ("-sSo FILE", "-qOFILE"), and of
// its long form (--output FILE, --output=FILE).
func clusterValues(args []field, letter byte, long string) []field {
	var out []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.dyn:
		case f.val == "--":
			return out
		case f.val == long && i+1 < len(args):
			i++
			out = append(out, args[i])
		case strings.HasPrefix(f.val, long+"="):
			out = append(out, staticField(f.val[len(long)+1:]))
		case len(f.val) > 1 && f.val[0] == '-' && f.val[1] != '-':
			j := strings.IndexByte(f.val, letter)
			switch {
			case j < 0:
			case j < len(f.val)-1:
				out = append(out, staticField(f.val[j+1:]))
			case i+1 < len(args):
				i++
				out = append(out, args[i])
			}
		}
	}
	return out
}

// runsWritten analyses the command in fields when its name is a file the
// command string wrote: the interpreter its first line names ("#!/bin/sh",
// "#!/usr/bin/env python3") runs it, or, without one, the shell that runs
// the command, as bash runs a file it cannot execute. It reports false
// when the name is no such file.
func (a *analyzer) runsWritten(c *code, src string, fields []field, in *input) bool {
	f := fields[0]
	if c.host != "" || f.dyn {
		return false
	}
	file, ok := a.wroteFile(f.val)
	if !ok {
		if !a.writtenLost || !strings.Contains(f.val, "/") {
			return false
		}
		file = &input{kind: inDynamic, via: f.val}
	}
	i := a.invoke(c, c.host, baseName(f.val), fields[1:], in)
	if strings.Contains(f.val, "/") {
		a.out.Invocations[i].Path = f.val
	}
	if file.kind != inText {
		a.dynamic(c, src)
		return true
	}
	interp := []field{staticField("sh")}
	if line, ok := strings.CutPrefix(file.text, "#!"); ok {
		line, _, _ = strings.Cut(line, "\n")
		words := strings.Fields(line)
		if lineInterpreter(words) == "expect" {
			// The policy reads expect's scripts (what send types into
			// what spawn started), as given by -c.
			run := []field{staticField("expect"), staticField("-c"), staticField(file.text)}
			a.then(c.with(f.val), append(run, fields[1:]...), in)
			return true
		}
		if !readsScripts(words) {
			// A program the analysis does not read the code of.
			a.dynamic(c, src)
			return true
		}
		interp = interp[:0]
		for _, w := range words {
			interp = append(interp, staticField(w))
		}
	}
	// The interpreter is given the file's path, which names the written
	// text for it too.
	run := append(interp, staticField(f.val))
	run = append(run, fields[1:]...)
	a.then(c.with(f.val), run, in)
	return true
}

// readsScripts reports whether the interpreter line words runs a program
// whose scripts the analysis reads: a shell, or an interpreter of
// interp.go.
func readsScripts(words []string) bool {
	name := lineInterpreter(words)
	_, _, interp := interpreterOf(name)
	return name != "" && (shells()[name] || interp)
}

// lineInterpreter returns the name of the program an interpreter line's
// words run, also through env ("#!/usr/bin/env -S python3 -u"), or "".
func lineInterpreter(words []string) string {
	if len(words) > 0 && baseName(words[0]) == "env" {
		words = words[1:]
		for len(words) > 0 && (strings.HasPrefix(words[0], "-") || strings.Contains(words[0], "=")) {
			switch words[0] {
			case "-u", "--unset", "-C", "--chdir":
				words = words[1:]
			}
			words = words[min(1, len(words)):]
		}
	}
	if len(words) == 0 {
		return ""
	}
	return baseName(words[0])
}

// packageScripts analyses the scripts of a package.json the command string
// wrote, which npm, yarn, pnpm and bun run by name ("npm test", "npm run
// build", "yarn build") and around installs ("preinstall", "prepare"):
// every script is read, as any may run.
func (a *analyzer) packageScripts(c *code, name, src string, args []field) {
	if c.host != "" || len(args) == 0 {
		return
	}
	file, ok := a.wroteFile("package.json")
	if !ok {
		return
	}
	if file.kind != inText {
		a.dynamic(c, src)
		return
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal([]byte(file.text), &pkg) != nil {
		a.dynamic(c, src)
		return
	}
	keys := slices.Sorted(maps.Keys(pkg.Scripts))
	for _, k := range keys {
		a.codeFields(c, name+" run "+k, src, []field{staticField(pkg.Scripts[k])}, nil)
	}
}

// powershellFile reports the script of pwsh -File FILE (or pwsh FILE) that
// the command string wrote as the code of pwsh -Command, which the policy
// reads as PowerShell.
func (a *analyzer) powershellFile(c *code, name, src string, args []field, in *input) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn {
			return
		}
		opt := strings.ToLower(strings.TrimLeft(f.val, "-/"))
		isOpt := strings.HasPrefix(f.val, "-") || strings.HasPrefix(f.val, "/")
		switch {
		case isOpt && len(opt) >= 1 && strings.HasPrefix("file", opt) && i+1 < len(args):
			f = args[i+1]
		case isOpt:
			if strings.HasPrefix("command", opt) || strings.HasPrefix("encodedcommand", opt) || opt == "ec" || opt == "cwa" || strings.HasPrefix("commandwithargs", opt) {
				return // code given on the command line, which the policy reads
			}
			continue
		}
		file, ok := a.scriptFile(f, in)
		if !ok {
			return
		}
		if file.kind != inText {
			a.dynamic(c, src)
			return
		}
		a.invoke(c.with(name+" -File"), c.host, name, []field{staticField("-NoProfile"), staticField("-Command"), staticField(file.text)}, nil)
		return
	}
}

// pythonStartup analyses the modules a python process imports before its
// code when the command string wrote them: sitecustomize.py,
// usercustomize.py, and the import lines of .pth files.
func (a *analyzer) pythonStartup(c *code, label, src string) {
	if c.host != "" || len(a.written) == 0 {
		return
	}
	for _, name := range []string{"sitecustomize.py", "usercustomize.py"} {
		if f, ok := a.wroteFile(name); ok {
			if f.kind != inText {
				a.dynamic(c, src)
				continue
			}
			a.interpCode(c, label+" "+name, src, "python", f.text)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(a.written)) {
		if !strings.HasSuffix(key, ".pth") {
			continue
		}
		f := a.written[key]
		if f.kind != inText {
			a.dynamic(c, src)
			continue
		}
		for line := range strings.SplitSeq(f.text, "\n") {
			if strings.HasPrefix(line, "import ") || strings.HasPrefix(line, "import\t") {
				a.interpCode(c, label+" "+baseName(key), src, "python", line)
			}
		}
	}
}
