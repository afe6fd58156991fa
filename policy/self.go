package policy

import (
	"debug/buildinfo"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// The catalog asks rewind's own subcommands that loosen the guard or go
// back (rewind trust, rewind undo --restore...) when the agent runs them.
// The rules name the command rewind; an agent that copies the binary to
// another name (cp $(command -v rewind) /tmp/x; /tmp/x trust) or runs it
// from source (go run ./cmd/rewind trust) is recognised where it can be,
// and the command is judged as rewind. The confirmations these
// subcommands ask for themselves do not depend on it.

// selfWords are the subcommands of rewind that its catalog asks about: a
// command given one of them as its first word is looked at more closely.
var selfWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"trust": true, "uninstall": true, "install": true, "undo": true, "ui": true, "mcp": true}
})

// rewindModule is the module rewind is built from; a binary built from it
// records it in its build information.
const rewindModule = "github.com/rewind-dev/rewind"

// asRewind makes s rewind when it runs rewind under another name: a Go
// binary built from rewind's module, found as the shell would find it, or
// go run of rewind's command. It counts the binaries it reads against w's
// bound; past it, a command given a word of selfWords is taken for rewind.
func (p *Policy) asRewind(s *subject, w *walk) {
	if s.name == "rewind" || s.remote || s.ps || len(s.args) == 0 {
		return
	}
	if s.name == "go" {
		if args, ok := goRunRewind(s.args); ok {
			s.name, s.args, s.dyn, s.pos, s.posDone = "rewind", args, nil, nil, false
		}
		return
	}
	if !selfWords()[firstWord(s.args)] {
		return
	}
	if w.probes >= maxTreeProbes {
		s.name = "rewind"
		return
	}
	w.probes++
	if bin := p.lookPath(s.name, s.path, w.dir); bin != "" && builtFromRewind(bin) {
		s.name = "rewind"
	}
}

// firstWord returns the first argument that is not an option, or "".
func firstWord(args []string) string {
	for _, a := range args {
		if a == "--" || a == "" || a[0] != '-' {
			return a
		}
	}
	return ""
}

// goRunRewind returns the arguments rewind gets from `go run PKG ARGS...`
// when PKG is rewind's command (./cmd/rewind, or its module path at any
// version).
func goRunRewind(args []string) ([]string, bool) {
	if len(args) < 2 || args[0] != "run" {
		return nil, false
	}
	valueFlags := map[string]bool{"-C": true, "-exec": true, "-tags": true, "-ldflags": true, "-gcflags": true, "-asmflags": true, "-mod": true, "-modfile": true, "-overlay": true, "-pgo": true, "-p": true, "-toolexec": true}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if valueFlags[a] {
				i++
			}
			continue
		}
		pkg, _, _ := strings.Cut(a, "@")
		pkg = strings.TrimSuffix(filepath.ToSlash(pkg), "/")
		if pkg == rewindModule+"/cmd/rewind" || pkg == "cmd/rewind" || strings.HasSuffix(pkg, "/cmd/rewind") {
			return args[i+1:], true
		}
		return nil, false
	}
	return nil, false
}

// lookPath finds the file a command name runs, as the shell would: a name
// with a slash (written as path) from the folder it runs in, any other in
// the folders of $PATH. It returns "" when none is found.
func (p *Policy) lookPath(name, written, dir string) string {
	if strings.Contains(written, "/") {
		if abs := p.absPath(written, dir); abs != "" {
			return abs
		}
		return ""
	}
	for _, d := range filepath.SplitList(p.cfg.PathEnv) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		f := filepath.Join(d, name)
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return f
		}
	}
	return ""
}

// builtFromRewind reports whether the file at name is a Go binary built
// from rewind's module. It reads the file's build information only, from
// a regular file opened without blocking.
func builtFromRewind(name string) bool {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	bi, err := buildinfo.Read(f)
	if err != nil {
		return false
	}
	return bi.Main.Path == rewindModule || strings.HasPrefix(bi.Path, rewindModule+"/")
}
