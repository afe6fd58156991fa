package policy

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/rewind-dev/rewind/internal/dirs"
)

// The catalog asks rewind's own subcommands that loosen the guard or go
// back (rewind trust, rewind undo --restore...) when the agent runs them.
// The rules name the command rewind; an agent that copies the binary to
// another name (cp $(command -v rewind) /tmp/x; /tmp/x trust) or runs it
// from source (go run ./cmd/rewind trust) is recognised where it can be,
// and the command is judged as rewind. A command given one of those
// subcommands whose program cannot be looked at when the call is judged —
// a path not there yet (made earlier in the same call), a link (which the
// call may point anywhere), a name not found in $PATH — is judged as
// rewind too: unknowable means asked. Copying or linking rewind's binary
// is asked as well (judgeSelfCopy). The confirmations these subcommands
// ask for themselves do not depend on any of it.

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
	if why := p.inspectProgram(s, w); why != "" {
		s.name, s.self = "rewind", why
	}
}

// inspectProgram says why the program s runs may be rewind: it is a
// binary built from rewind's module, or it cannot be looked at now. It
// returns "" for a program that is not rewind.
func (p *Policy) inspectProgram(s *subject, w *walk) string {
	dir := w.dir
	shown := s.name
	unread := " is past what rewind reads of programs for one call: it may be rewind under another name"
	if strings.Contains(s.path, "/") {
		shown = s.path
		abs := p.absPath(s.path, dir)
		if abs == "" {
			return shown + " runs from a folder known only at run time: it may be rewind under another name"
		}
		fi, err := os.Lstat(abs)
		switch {
		case err != nil:
			return shown + " is not there when the call is judged (the call may copy or build rewind there first)"
		case fi.Mode()&os.ModeSymlink != 0:
			return shown + " is a link, which the call may point at rewind"
		case !fi.Mode().IsRegular():
			return ""
		}
		switch rewind, unknown := builtFromRewind(abs, w); {
		case unknown:
			return shown + unread
		case rewind:
			return shown + " is rewind under another name"
		}
		return ""
	}
	bin := p.lookPath(s.name, s.path, dir)
	if bin == "" {
		return shown + " is not found in $PATH when the call is judged (the call may put rewind there first)"
	}
	switch rewind, unknown := builtFromRewind(bin, w); {
	case unknown:
		return shown + unread
	case rewind:
		return shown + " (" + bin + ") is rewind under another name"
	}
	return ""
}

// judgeSelfCopy asks about copying or linking rewind's binary (cp, ln,
// install, mv, rsync, scp, dd if=): a copy under another name runs
// rewind's subcommands unrecognised, and can be changed before it runs.
// A source is rewind's when it is one of its binaries (Config.Binaries),
// is named like one and there, is built from rewind's module, or is found
// at run time by a command that names rewind ($(command -v rewind)).
func (p *Policy) judgeSelfCopy(s *subject, w *walk) (Match, bool) {
	if p.disabled("rewind") || s.remote || s.ps {
		return Match{}, false
	}
	var srcs []string
	switch {
	case s.name == "dd":
		for _, a := range s.args {
			if v, ok := strings.CutPrefix(a, "if="); ok {
				srcs = append(srcs, v)
			}
		}
	default:
		spec, ok := copyCommand(s.name)
		if !ok {
			return Match{}, false
		}
		srcs, _, _ = spec.args(s)
	}
	for i, a := range s.args {
		// A source a command finds at run time: $(command -v rewind),
		// `which rewind-hook`.
		found := strings.Contains(a, "$(") || strings.Contains(a, "`")
		if s.dynamic(i) && found && strings.Contains(strings.ToLower(a), "rewind") && (s.name != "dd" || strings.HasPrefix(a, "if=")) {
			return selfCopy(a), true
		}
	}
	for _, src := range srcs {
		if strings.HasPrefix(src, "-") || strings.Contains(src, "$") {
			continue
		}
		abs := p.absPath(src, w.dir)
		if abs == "" {
			continue
		}
		real := abs
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			real = r
		}
		if bins := p.cfg.Binaries(); slices.Contains(bins, abs) || slices.Contains(bins, real) ||
			slices.Contains(binaryNames, strings.ToLower(filepath.Base(real))) && exists(real) {
			return selfCopy(src), true
		}
		if w.probes >= maxTreeProbes {
			continue
		}
		if fi, err := os.Stat(real); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			w.probes++
			// Past what a call may read of programs, a copy goes on
			// unlooked at, as past its probes; running it under another
			// name is asked.
			if rewind, _ := builtFromRewind(real, w); rewind {
				return selfCopy(src), true
			}
		}
	}
	return Match{}, false
}

// selfCopyRule names the built-in check of copies of rewind's binary.
const selfCopyRule = "catalog:copies rewind"

func selfCopy(src string) Match {
	return Match{Effect: Ask, Rule: selfCopyRule,
		Reason: fmt.Sprintf("copies rewind's binary (%s): a copy under another name runs rewind trust or uninstall unrecognised, and may be changed before it runs", clipWord(src))}
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
// a regular file opened without blocking, and counts what it reads against
// the call's maxProgramReads: unknown when the call has read that much of
// programs already.
func builtFromRewind(name string, w *walk) (rewind, unknown bool) {
	left := maxProgramReads - w.programReads
	if left <= 0 {
		return false, true
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false, false
	}
	limit := min(left, maxBuildInfoScan)
	bi, read, ok := goBuildInfo(f, limit)
	w.programReads += read
	if !ok {
		// Stopped by the call's bound, not the file's end or the scan's.
		return false, read >= limit && limit < maxBuildInfoScan
	}
	return bi.Main.Path == rewindModule || strings.HasPrefix(bi.Path, rewindModule+"/"), false
}

// maxProgramReads bounds what one call reads of programs to tell whether
// they are rewind (see goBuildInfo): some programs of tens of MiB.
const maxProgramReads = 512 << 20

// binaryNames are the names of rewind's binaries.
var binaryNames = []string{"rewind", "rewind-hook", "rewind.exe", "rewind-hook.exe"}

// rewindBinaries returns rewind's own binaries where it runs (see
// Config.Binaries): the running executable and those beside it, the ones
// installs recorded, and rewind's names in every absolute folder of
// pathEnv.
func rewindBinaries(getenv func(string) string, pathEnv string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) && !slices.Contains(out, filepath.Clean(p)) {
			out = append(out, filepath.Clean(p))
		}
	}
	if exe, err := os.Executable(); err == nil {
		add(exe)
		folders := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
			add(real)
			folders = append(folders, filepath.Dir(real))
		}
		for _, d := range folders {
			for _, n := range binaryNames {
				add(filepath.Join(d, n))
			}
		}
	}
	if dir, err := dirs.State(getenv); err == nil {
		for _, b := range installedBinaries(filepath.Join(dir, "installs.json")) {
			add(b)
		}
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if filepath.IsAbs(d) {
			for _, n := range binaryNames {
				add(filepath.Join(d, n))
			}
		}
	}
	return out
}

// maxInstallsFile bounds the installs record read.
const maxInstallsFile = 1 << 20

// installedBinaries reads the binaries that installs recorded in the state
// folder's installs.json (see package install).
func installedBinaries(name string) []string {
	data, err := readSmall(name, maxInstallsFile)
	if err != nil {
		return nil
	}
	var rec struct {
		Binaries []string `json:"binaries"`
	}
	if json.Unmarshal(data, &rec) != nil {
		return nil
	}
	return rec.Binaries
}

// binaryGlobs guards rewind's names in the relative folders of pathEnv
// ("." and the like, which the host's shell reads from the folder it runs
// in): in any folder, since that one is not known when the policy is made.
func binaryGlobs(pathEnv string) []string {
	var out []string
	for _, d := range filepath.SplitList(pathEnv) {
		if filepath.IsAbs(d) {
			continue
		}
		for _, n := range binaryNames {
			g := "**/" + n
			if !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// ownGlobsOf returns the globs of rewind's own files and binaries where
// cfg was found (see OwnFilesGlob).
func ownGlobsOf(cfg *Config) []string {
	own := append(cfg.OwnFiles[:len(cfg.OwnFiles):len(cfg.OwnFiles)], cfg.Binaries()...)
	return append(ownFileGlobs(own), binaryGlobs(cfg.PathEnv)...)
}

// ownPaths returns rewind's own files and binaries where it runs.
func (p *Policy) ownPaths() []string {
	return append(p.cfg.OwnFiles[:len(p.cfg.OwnFiles):len(p.cfg.OwnFiles)], p.cfg.Binaries()...)
}
