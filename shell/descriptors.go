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
		if in, ok := a.wroteFile(f.val); ok {
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

// scriptFile returns what a shell or source reads when it runs the script
// file named by f: the output of a <(...), the text of a descriptor, the
// network, or what the command string wrote to the file. It reports false
// for any other file, which the command string does not show.
func (a *analyzer) scriptFile(f field, stdin *input) (*input, bool) {
	if f.file != nil {
		return f.file, true
	}
	if !f.dyn {
		if in, ok := a.wroteFile(f.val); ok {
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
