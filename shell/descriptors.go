package shell

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A script can come from a descriptor instead of a file: "source
// /dev/stdin <<<CODE", ". /dev/fd/3 3<<<CODE", "exec 3<<<CODE; source
// /dev/fd/3", "bash /dev/stdin", "sh /proc/self/fd/0". Bash opens those
// names like any file, and the descriptor reads what the redirections of
// the command string put there. The analysis follows the descriptors the
// statements being walked set up (and those a bare exec sets up for the
// rest of the code), so that such a script is analysed as code, like
// stdin fed to bash, and a descriptor whose text is known only at run time,
// or that the command string never sets up, is dynamic.

// maxDescriptors bounds the descriptors the analysis follows: those from
// 0 to maxDescriptors-1. A higher one is known only at run time.
const maxDescriptors = 16

// descriptor returns what descriptor n reads, as the redirections being
// walked set it up; nil when they do not.
func (a *analyzer) descriptor(n int) *input {
	if n < 0 || n >= maxDescriptors {
		return &input{kind: inDynamic, via: "<&" + strconv.Itoa(n)}
	}
	return a.fds[n]
}

// setDescriptor records what descriptor n reads from now on.
func (a *analyzer) setDescriptor(n int, in *input) {
	if n >= 0 && n < maxDescriptors {
		a.fds[n] = in
	}
}

// bareExec reports whether s is "exec" with no command, whose
// redirections stay for the rest of the code.
func bareExec(s *syntax.Stmt) bool {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 || len(s.Redirs) == 0 {
		return false
	}
	v, ok := literal(call.Args[0])
	return ok && v == "exec"
}

// fileInput is what reading a file named by f gives: the network for
// bash's /dev/tcp and /dev/udp, what the command string wrote to it,
// otherwise a file.
func (a *analyzer) fileInput(f field) *input {
	if !f.dyn && (strings.HasPrefix(f.val, "/dev/tcp/") || strings.HasPrefix(f.val, "/dev/udp/")) {
		return &input{kind: inDynamic, via: f.val}
	}
	if !f.dyn {
		if in, ok := a.written[cleanPath(f.val)]; ok {
			return in
		}
	}
	return &input{kind: inFile}
}

// descriptorPath returns the descriptor a path names: 0 for /dev/stdin,
// N for /dev/fd/N, /proc/self/fd/N, /proc/thread-self/fd/N and
// /proc/PID/fd/N (the PID may be $$ or $BASHPID).
func descriptorPath(f field) (int, bool) {
	p := f.val
	if f.dyn {
		p = f.approx
	}
	if p == "/dev/stdin" {
		return 0, !f.dyn
	}
	var rest string
	switch {
	case strings.HasPrefix(p, "/dev/fd/"):
		rest = p[len("/dev/fd/"):]
	case strings.HasPrefix(p, "/proc/"):
		proc, fd, ok := strings.Cut(p[len("/proc/"):], "/fd/")
		if !ok || strings.Contains(proc, "/") {
			return 0, false
		}
		rest = fd
	default:
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}

// A script can also be a file the command string writes before it runs
// it: "cat > x.sh <<'EOF' ... EOF; bash x.sh", a FIFO fed by "echo ... >
// p". The analysis keeps what the output redirections of the command
// string write to each file (the static output of echo, printf or cat,
// or text known only at run time) and reads it where the file is run as
// a script.

// maxWritten bounds the files whose written text the analysis keeps;
// past it, a script file it does not keep may be one written, and is
// dynamic.
const maxWritten = 16

// wrote records what statement s writes to the file path: its static
// output, or text known only at run time; appended to what it wrote
// before when appending.
func (a *analyzer) wrote(c *code, path string, appending bool, s *syntax.Stmt) {
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
	in := &input{kind: inText, text: out, code: out, via: path}
	if !static {
		in = &input{kind: inDynamic, via: path}
	}
	key := cleanPath(path)
	if prev, ok := a.written[key]; ok && appending {
		in = a.appended(key, prev, in)
	}
	if _, ok := a.written[key]; !ok && len(a.written) >= maxWritten {
		a.writtenLost = true
		return
	}
	if a.written == nil {
		a.written = make(map[string]*input)
	}
	if !appending {
		delete(a.appends, key)
	}
	a.written[key] = in
}

// maxWrittenText bounds the text an appended file keeps; past it the
// file holds text known only at run time.
const maxWrittenText = 1 << 20

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

// scriptFile returns what a shell or source reads when it runs the script
// file named by f: the output of a <(...), the text of a descriptor, the
// network, or what the command string wrote to the file. It reports false
// for any other file, which the command string does not show.
func (a *analyzer) scriptFile(f field, stdin *input) (*input, bool) {
	if f.file != nil {
		return f.file, true
	}
	if !f.dyn {
		if in, ok := a.written[cleanPath(f.val)]; ok {
			return in, true
		}
		if a.writtenLost {
			return &input{kind: inDynamic, via: f.val}, true
		}
	}
	if n, ok := descriptorPath(f); ok {
		in := stdin
		if n != 0 {
			in = a.descriptor(n)
		}
		switch {
		case in == nil:
			// A descriptor the command string does not set up.
			return &input{kind: inDynamic, via: f.val}, true
		case in.kind == inFile:
			return nil, false
		}
		if in.kind == inArgs {
			return &input{kind: inText, text: in.text, code: in.text, via: f.val}, true
		}
		return in, true
	}
	if in := a.fileInput(f); in.kind != inFile {
		return in, true
	}
	return nil, false
}
