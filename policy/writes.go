package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// A rule with writes judges the files a call writes. Such rules are judged
// in a pass of their own (judgeWrites), so that a rule that lets a command
// or tool through ("tee" is read-only, Write to docs/** is fine) does not
// hide a write to a file the catalog guards, such as rewind's own config
// or the host settings that install rewind.

// writeRule is a rule with writes, compiled: a command rule (cmd) or a tool
// rule (tool), and its globs in lower case.
type writeRule struct {
	cmd   *commandRule
	tool  *toolRule
	globs []string
	// own is set when the globs include OwnFilesGlob: the rule also
	// guards rewind's own files where it runs (Policy.ownFiles).
	own bool
}

// OwnFilesGlob in a rule's writes stands for rewind's own files where it
// runs: the config files in use, the user config, $REWIND_CONFIG and the
// state folder (see Config.OwnFiles).
const OwnFilesGlob = "@rewind"

func lowerGlobs(globs []string) []string {
	out := make([]string, len(globs))
	for i, g := range globs {
		out[i] = strings.ToLower(filepath.ToSlash(g))
	}
	return out
}

// label and src give the rule's name, effect and reason.
func (w *writeRule) label() string {
	if w.cmd != nil {
		return w.cmd.label
	}
	return w.tool.label
}

// rawGlobs are the rule's writes as written in its config.
func (w *writeRule) rawGlobs() []string {
	if w.cmd != nil {
		return w.cmd.src.Writes
	}
	return w.tool.src.Writes
}

func (w *writeRule) effect() Effect {
	if w.cmd != nil {
		return w.cmd.src.Effect
	}
	return w.tool.src.Effect
}

func (w *writeRule) reason() string {
	if w.cmd != nil {
		return w.cmd.src.Reason
	}
	return w.tool.src.Reason
}

// matchFile returns the first spelling of a written file that matches the
// rule's globs, or "". Globs and names are compared in lower case: on the
// file systems of macOS and Windows ".Rewind.TOML" is the same file as
// ".rewind.toml". A rule that guards rewind's own files also matches
// those own returns, which is called only for such a rule: finding
// rewind's binaries costs a look at the disk.
func (w *writeRule) matchFile(forms []string, own func() []string) string {
	for _, f := range forms {
		lower := strings.ToLower(f)
		for _, g := range w.globs {
			if matchPath(g, lower) {
				return f
			}
		}
		if !w.own {
			continue
		}
		for _, g := range own() {
			if matchPath(g, lower) {
				return f
			}
		}
	}
	return ""
}

// fileForms returns the spellings of a written file name that rules are
// matched against: as written (cleaned), with ~ and $HOME expanded, made
// absolute against cwd, and with symbolic links followed, so that a link
// made earlier does not hide the file it points to.
func (p *Policy) fileForms(name, cwd string) []string {
	var forms []string
	add := func(f string) {
		f = filepath.ToSlash(f)
		for _, x := range forms {
			if x == f {
				return
			}
		}
		forms = append(forms, f)
	}
	name = strings.Trim(name, `"'`)
	add(path.Clean(filepath.ToSlash(name)))
	rooted := filepath.IsAbs(name) || strings.HasPrefix(name, "~") || strings.HasPrefix(name, "$")
	if !rooted {
		if cwd == "" || cwd == unknownDir || strings.Contains(name, "`") {
			return forms
		}
		name = filepath.Join(cwd, name)
		add(name)
	}
	if home := p.home; home != "" {
		for _, prefix := range []string{"~/", "$HOME/", "${HOME}/"} {
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				name = filepath.Join(home, rest)
				add(name)
			}
		}
	}
	if !filepath.IsAbs(name) {
		return forms
	}
	add(filepath.Clean(name))
	if real := resolveLinks(name); real != "" {
		add(real)
	}
	return forms
}

// resolveLinks follows the symbolic links of an absolute path: of the file
// itself when it exists, else of its folder. A link whose target does not
// exist yet is followed too, since writing through it creates the target
// (notes.txt -> .rewind.toml). It returns "" when nothing resolves.
func resolveLinks(abs string) string {
	followed := false
	for range maxLinkHops {
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			return real
		}
		target, err := os.Readlink(abs)
		if err != nil {
			break
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(abs), target)
		}
		abs, followed = filepath.Clean(target), true
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(real, filepath.Base(abs))
	}
	if followed {
		// Neither the target nor its folder exists yet: the path the
		// links lead to is what a write would create.
		return abs
	}
	return ""
}

// maxLinkHops bounds the links resolveLinks follows by hand, as the
// kernel bounds them (a loop of links ends there).
const maxLinkHops = 40

// judgeWrites is the pass of the rules with writes over the files written:
// the first rule that matches one of them decides.
func (p *Policy) judgeWrites(rules []*writeRule, files []written, cwd string, applies func(*writeRule) bool, unguarded map[fileIn]bool) (Match, bool) {
	if unguarded != nil {
		// A file that no rule's globs match was judged once: "echo ls
		// >> f" a million times costs one look at f.
		kept := files[:0:0]
		for _, f := range files {
			if !unguarded[fileIn{cwd, f.name}] {
				kept = append(kept, f)
			}
		}
		files = kept
	}
	if len(files) == 0 {
		return Match{}, false
	}
	forms := make([][]string, len(files))
	for i, f := range files {
		forms[i] = p.fileForms(f.name, cwd)
	}
	for _, r := range rules {
		if !applies(r) {
			continue
		}
		for i, w := range files {
			f := w.name
			if as := r.matchFile(forms[i], p.ownFiles); as != "" {
				if w.ifDir != "" {
					// cp a b writes b/a only when b is a folder: look,
					// now that the name it would make is a guarded one.
					if d := p.absPath(w.ifDir, cwd); d != "" && !isDir(d) {
						continue
					}
				}
				reason := fmt.Sprintf("writes %s", f)
				if w.via != "" {
					reason = fmt.Sprintf("writes %s (%s)", f, w.via)
				} else if as != f && as != path.Clean(filepath.ToSlash(f)) {
					reason += " (" + as + ")"
				}
				if rr := r.reason(); rr != "" {
					reason = fmt.Sprintf("%s: %s", reason, rr)
				}
				return Match{Effect: r.effect(), Rule: r.label(), Reason: reason}, true
			}
		}
	}
	if unguarded != nil {
	files:
		for i, w := range files {
			if len(unguarded) >= maxUnguarded {
				break
			}
			for _, r := range rules {
				if r.matchFile(forms[i], p.ownFiles) != "" {
					continue files
				}
			}
			unguarded[fileIn{cwd, w.name}] = true
		}
	}
	return Match{}, false
}

// maxUnguarded bounds the files one call remembers as matched by no rule
// (walk.unguarded).
const maxUnguarded = 4096

// unknownDir is the folder after a cd to a folder known only at run time.
const unknownDir = "\x00unknown"

// changeDir follows a cd or pushd, so that the relative files the commands
// after it write are read in the folder it changes to: "cd ~/.claude &&
// tee settings.json". Invocations come in source order; a cd in a subshell
// is followed too, which can only make more files match.
func changeDir(s *subject, dir string) string {
	if s.name != "cd" && s.name != "pushd" {
		return dir
	}
	pos, _ := argWords(s, nil)
	if len(pos) == 0 {
		return "~"
	}
	to := pos[len(pos)-1]
	switch {
	case to == "-" || s.dynamic(len(s.args)-1) && !strings.HasPrefix(to, "$HOME") && !strings.HasPrefix(to, "${HOME}"):
		// Known only at run time: relative names say nothing.
		return unknownDir
	case path.IsAbs(filepath.ToSlash(to)) || strings.HasPrefix(to, "~") || strings.HasPrefix(to, "$"):
		return to
	case dir == "":
		return to
	}
	return filepath.Join(dir, to)
}

// writeCommand returns how to find the files that name, a command known
// to write the files named in its arguments, writes; nil for other
// commands. The copies (cp, mv, ln...) are copyCommand's. A switch, not a
// table: judging a call builds nothing for the commands it does not run.
func writeCommand(name string) func(s *subject) []string {
	switch name {
	case "tee", "sponge", "rm", "unlink", "rmdir":
		return positionalsOf(nil)
	case "truncate":
		return positionalsOf([]string{"-s", "--size", "-r", "--reference"})
	case "touch":
		return positionalsOf([]string{"-r", "--reference", "-d", "--date", "-t"})
	case "shred":
		return positionalsOf([]string{"-n", "--iterations", "-s", "--size", "--random-source"})
	case "chmod", "chgrp":
		return positionalsOf([]string{"--reference"})
	case "chown":
		return positionalsOf([]string{"--reference", "--from"})
	case "vi", "vim":
		return positionalsOf([]string{"-c", "-S", "-u", "-U", "-i", "-w", "-W", "-s", "-t", "-q"})
	case "nvim":
		return positionalsOf([]string{"-c", "-S", "-u", "-i", "-w", "-W", "-s", "-t", "-q"})
	case "ex":
		return positionalsOf([]string{"-c", "-S", "-u", "-i", "-s", "-t"})
	case "ed":
		return positionalsOf([]string{"-p"})
	case "nano":
		return positionalsOf([]string{"-o", "-Q", "-r", "-s", "-T", "-Y", "-X", "-f"})
	case "emacs":
		return positionalsOf([]string{"-l", "--load", "-f", "--funcall", "--eval"})
	case "sed":
		return inPlace([]string{"-e", "--expression", "-f", "--file", "-l", "--line-length"}, "-i", "--in-place", "-I")
	case "perl":
		return inPlace([]string{"-e", "-E", "-M", "-m", "-I", "-x"}, "-i")
	case "yq":
		return inPlace([]string{"-e", "--expression", "--from-file", "-o", "--output-format", "-p", "--input-format", "--indent", "-I"}, "-i", "--inplace")
	case "git":
		return gitWrites
	case "dd":
		return ddOutput
	case "curl":
		return curlOutputs
	case "wget":
		return wgetOutputs
	case "zip":
		return zipWrites
	case "7z", "7za", "7zr":
		return sevenZipWrites
	case "tar", "bsdtar":
		return tarWrites
	case "rename", "prename":
		return renameWrites
	case "awk", "gawk":
		return awkWrites
	case "sort":
		return sortOutput
	case "uniq":
		return uniqOutput
	case "patch":
		return patchWrites
	case "go":
		return goBuildOutput
	}
	if _, ok := compressorOf(name); ok {
		return compressWrites
	}
	return nil
}

// copyCommand returns how name, a command that copies, moves or links its
// sources to a destination (cp SRC... DEST, or -t DIR), takes its words:
// the options that take a value, and whether the sources go (mv); false
// for other commands.
func copyCommand(name string) (copySpec, bool) {
	switch name {
	case "cp", "ln":
		return copySpec{valueOpts: []string{"-S", "--suffix"}}, true
	case "install":
		return copySpec{valueOpts: []string{"-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"}}, true
	case "mv":
		return copySpec{valueOpts: []string{"-S", "--suffix"}, removes: true}, true
	case "scp":
		return copySpec{valueOpts: []string{"-c", "-D", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-X"}}, true
	case "rsync":
		return copySpec{valueOpts: rsyncValueOpts}, true
	}
	return copySpec{}, false
}

// rsyncValueOpts are rsync's options that take a value.
var rsyncValueOpts = []string{"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from", "--include-from", "--files-from", "-T", "--temp-dir", "--partial-dir", "--compare-dest", "--copy-dest", "--link-dest", "--rsync-path", "--chmod", "--chown", "--log-file", "--password-file", "-B", "--block-size", "--port", "--timeout", "--bwlimit"}

// copySpec says how a copy command takes its words.
type copySpec struct {
	valueOpts []string
	removes   bool
}

// args returns a copy command's sources and destination, and whether the
// destination is named as a folder (-t DIR).
func (c copySpec) args(s *subject) (srcs []string, dest string, folder bool) {
	pos, values := argWords(s, append(c.valueOpts[:len(c.valueOpts):len(c.valueOpts)], "-t", "--target-directory"))
	dest = values["-t"]
	if dest == "" {
		dest = values["--target-directory"]
	}
	if dest != "" {
		return pos, dest, true
	}
	if len(pos) < 2 {
		return nil, "", false
	}
	return pos[:len(pos)-1], pos[len(pos)-1], false
}

// writes returns the files a copy writes: the destination and, when it is
// a folder, the copies inside it under their sources' names; a move also
// its sources. A destination that may be a file or a folder (cp a b) is
// looked at only when the name inside it would be a guarded one (see
// written.ifDir); -T makes it the file itself.
func (c copySpec) writes(s *subject) []written {
	srcs, dest, folder := c.args(s)
	if dest == "" {
		return nil
	}
	folder = folder || len(srcs) > 1 || strings.HasSuffix(dest, "/")
	itself := noTargetDir(s)
	out := []written{{name: dest}}
	for _, src := range srcs {
		in := written{name: path.Join(dest, path.Base(filepath.ToSlash(src)))}
		if !folder {
			in.ifDir = dest
		}
		if !itself {
			out = append(out, in)
		}
		if c.removes {
			out = append(out, written{name: src})
		}
	}
	return out
}

// noTargetDir reports whether a copy takes its destination for the file
// itself, never a folder to copy into (-T of cp, mv, ln and install; -T
// is another option to rsync and scp).
func noTargetDir(s *subject) bool {
	return s.name != "rsync" && s.name != "scp" && hasFlag(s, "-T", "--no-target-directory")
}

// writtenFiles returns the files an invocation writes: its output
// redirections and, for a command known to write files, the files its
// arguments name. PowerShell's cmdlets are read by psWrittenFiles.
func writtenFiles(s *subject) []written {
	files := writtenNames(s.writes)
	if s.ps {
		return files
	}
	if f := writeCommand(s.name); f != nil {
		files = append(files, writtenNames(f(s))...)
	}
	if c, ok := copyCommand(s.name); ok {
		files = append(files, c.writes(s)...)
	}
	return files
}

// writesFiles reports whether the write pass has anything to judge in s:
// output redirections, or a command known to write files or folders.
func writesFiles(s *subject) bool {
	if len(s.writes) > 0 {
		return true
	}
	if s.ps {
		return false
	}
	return writerName(s.name)
}

// writerName reports whether a command of that name may write files that
// its arguments name: whether copyCommand, writeCommand or treeCommand
// knows it.
func writerName(name string) bool {
	_, copies := copyCommand(name)
	return copies || writeCommand(name) != nil || treeCommand(name) != nil
}

// argWords returns the words of s that are not options or their values,
// and the values of the options in valueOpts, which are consumed: "-t DIR"
// and "--target-directory=DIR" alike.
func argWords(s *subject, valueOpts []string) (pos []string, values map[string]string) {
	values = map[string]string{}
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if a == "--" {
			pos = append(pos, s.args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		matched := false
		for _, o := range valueOpts {
			switch {
			case a == o && i+1 < len(s.args):
				i++
				values[o] = s.args[i]
			case strings.HasPrefix(o, "--") && strings.HasPrefix(a, o+"="):
				values[o] = a[len(o)+1:]
			case !strings.HasPrefix(o, "--") && strings.HasPrefix(a, o) && len(a) > len(o):
				values[o] = a[len(o):]
			default:
				continue
			}
			matched = true
			break
		}
		if !matched && a[1] != '-' && len(a) > 2 {
			// A cluster of short options (curl -sSo FILE, wget -qO
			// FILE): the first that takes a value takes the rest of
			// the cluster, or the next word, as getopt reads it.
			for j := 2; j < len(a); j++ {
				o := "-" + a[j:j+1]
				if !slices.Contains(valueOpts, o) {
					continue
				}
				if j+1 < len(a) {
					values[o] = a[j+1:]
				} else if i+1 < len(s.args) {
					i++
					values[o] = s.args[i]
				}
				break
			}
		}
	}
	return pos, values
}

func positionalsOf(valueOpts []string) func(s *subject) []string {
	return func(s *subject) []string {
		pos, _ := argWords(s, valueOpts)
		return pos
	}
}

// inPlace reads an editor that rewrites its file arguments when one of
// flags is given (sed -i, perl -pi, yq -i), also as a cluster or with a
// backup suffix attached (-i.bak, -pi).
func inPlace(valueOpts []string, flags ...string) func(s *subject) []string {
	return func(s *subject) []string {
		on := false
		for _, a := range s.args {
			for _, f := range flags {
				short := len(f) == 2 && f[1] != '-'
				// -i.bak and the cluster -pi hold the short flag.
				cluster := short && len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], f[1]) >= 0
				if a == f || strings.HasPrefix(a, f+"=") || cluster {
					on = true
				}
			}
		}
		if !on {
			return nil
		}
		pos, _ := argWords(s, valueOpts)
		return pos
	}
}

// gitWrites reads the git subcommands that write the paths they name:
// checkout and restore (an older .claude/settings.json comes back without
// the hook), rm and mv. Words that are not paths (a branch name) match no
// guarded file.
func gitWrites(s *subject) []string {
	pos, _ := argWords(s, []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "-s", "--source", "-b", "-B", "--orphan", "-m"})
	if len(pos) == 0 {
		return nil
	}
	switch pos[0] {
	case "checkout", "restore", "rm", "checkout-index":
		return pos[1:]
	case "mv":
		sub := *s
		sub.args = pos[1:]
		var out []string
		mv, _ := copyCommand("mv")
		for _, w := range mv.writes(&sub) {
			out = append(out, w.name)
		}
		return out
	}
	return nil
}

// ddOutput reads dd's of=FILE.
func ddOutput(s *subject) []string {
	var out []string
	for _, a := range s.args {
		if f, ok := strings.CutPrefix(a, "of="); ok {
			out = append(out, f)
		}
	}
	return out
}

// curlOutputs reads the files curl writes: -o FILE, and with -O (or
// --remote-name) the last part of each URL's path, in --output-dir.
func curlOutputs(s *subject) []string {
	pos, values := argWords(s, []string{"-o", "--output", "--output-dir", "-d", "--data", "-H", "--header", "-u", "--user", "-X", "--request", "-A", "--user-agent", "-e", "--referer", "-b", "--cookie", "-c", "--cookie-jar", "-F", "--form", "-T", "--upload-file", "-x", "--proxy", "-m", "--max-time", "--connect-timeout", "-w", "--write-out", "-K", "--config", "-r", "--range", "-z", "--time-cond", "--retry", "--cacert", "--cert", "--key", "-E", "--resolve", "--data-raw", "--data-binary", "--data-urlencode", "--json"})
	var out []string
	for _, o := range []string{"-o", "--output"} {
		if v := values[o]; v != "" {
			out = append(out, joinDir(values["--output-dir"], v))
		}
	}
	if len(out) == 0 && hasFlag(s, "-O", "--remote-name", "--remote-name-all") {
		for _, u := range pos {
			if name := urlFileName(u); name != "" {
				out = append(out, joinDir(values["--output-dir"], name))
			}
		}
	}
	return out
}

// wgetOutputs reads the files wget writes: -O FILE, else the last part of
// each URL's path, in -P DIR. A recursive or list download's names come
// from the server (see downloadTrees).
func wgetOutputs(s *subject) []string {
	pos, values := argWords(s, []string{"-O", "--output-document", "-P", "--directory-prefix", "-o", "--output-file", "-a", "--append-output", "-i", "--input-file", "-U", "--user-agent", "--header", "-e", "--execute", "-t", "--tries", "-T", "--timeout", "-l", "--level", "--user", "--password", "-w", "--wait", "-A", "--accept", "-R", "--reject", "-D", "--domains"})
	var out []string
	for _, o := range []string{"-O", "--output-document"} {
		if v := values[o]; v != "" && v != "-" {
			out = append(out, v)
		}
	}
	for _, o := range []string{"-o", "--output-file", "-a", "--append-output"} {
		if v := values[o]; v != "" {
			out = append(out, v)
		}
	}
	if values["-O"] != "" || values["--output-document"] != "" {
		return out
	}
	dir := values["-P"]
	if dir == "" {
		dir = values["--directory-prefix"]
	}
	for _, u := range pos {
		if name := urlFileName(u); name != "" {
			out = append(out, joinDir(dir, name))
		}
	}
	return out
}

// urlFileName returns the name a download of u gets by default: the last
// part of its path, or "" when u is not a URL with one.
func urlFileName(u string) string {
	_, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, _, _ = strings.Cut(rest, "?")
	_, p, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	name := path.Base("/" + p)
	if name == "/" || name == "." {
		return ""
	}
	return name
}

func joinDir(dir, name string) string {
	if dir == "" {
		return name
	}
	return path.Join(filepath.ToSlash(dir), name)
}

// toolWrites returns the files a tool call writes: its file path, every
// other key that names a file it writes, moves or removes (a move's
// source too: moving .rewind.toml away removes it), and the files an
// apply_patch style patch adds, updates, deletes or moves to. A copy's
// source is read, not written.
func toolWrites(tool string, in *toolInput) []string {
	files := append([]string(nil), in.paths...)
	copies := slices.ContainsFunc(toolWords(tool), func(w string) bool { return w == "copy" || w == "cp" || w == "duplicate" })
	var keys []string
	for k := range in.obj {
		if role, ok := fileKeys()[foldMCPKey(k)]; ok && (role != fileSource || !copies) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := in.obj[k].(type) {
		case string:
			if v != "" {
				files = append(files, v)
			}
		case []any:
			for _, e := range v {
				if p, ok := fileOf(e); ok {
					files = append(files, p)
				}
			}
		}
	}
	for _, k := range []string{"input", "patch"} {
		if text, ok := in.obj[k].(string); ok {
			files = append(files, patchFiles(text)...)
		}
	}
	return files
}

// patchFiles returns the files a patch adds, changes, removes or renames:
// a unified diff's --- and +++ lines (without their a/ and b/), git's
// rename lines, and apply_patch's *** headers.
func patchFiles(text string) []string {
	var files []string
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		for _, prefix := range []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", "+++ ", "--- ", "rename from ", "rename to ", "copy to "} {
			rest, ok := strings.CutPrefix(line, prefix)
			if !ok {
				continue
			}
			rest = strings.TrimSpace(rest)
			if prefix == "+++ " || prefix == "--- " {
				// A timestamp may follow the name, after a tab.
				rest, _, _ = strings.Cut(rest, "\t")
				rest = strings.TrimPrefix(strings.TrimPrefix(rest, "a/"), "b/")
				if rest == "/dev/null" {
					continue
				}
			}
			if rest != "" {
				files = append(files, rest)
			}
		}
	}
	return uniq(files)
}

// maxToolFiles bounds the files of one tool call that the rules with
// writes check, each against every glob and after following its links: a
// call that writes more is asked by the rules that apply to the tool.
const maxToolFiles = 1024

// fileSource and fileTarget are the roles of a file tool's keys.
const (
	fileSource = iota
	fileTarget
)

// fileKeys are the keys of file tools that name a file the call writes,
// moves or removes, folded as MCP keys are (see foldMCPKey): the
// filesystem servers' source and destination, from and to, old and new
// paths, and lists of paths.
var fileKeys = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"source": fileSource, "src": fileSource, "from": fileSource, "oldpath": fileSource, "sourcepath": fileSource,
		"sources": fileSource, "frompath": fileSource, "oldname": fileSource, "oldfilepath": fileSource,
		"destination": fileTarget, "dest": fileTarget, "to": fileTarget, "target": fileTarget, "newpath": fileTarget,
		"destinationpath": fileTarget, "targetpath": fileTarget, "topath": fileTarget, "newname": fileTarget,
		"newfilepath": fileTarget, "path": fileTarget, "paths": fileTarget, "filepath": fileTarget, "filepaths": fileTarget,
		"file": fileTarget, "files": fileTarget, "filename": fileTarget, "directory": fileTarget, "dir": fileTarget,
		"notebookpath": fileTarget,
	}
})

// fileOf reads a file name from a list element: a string, or an object's
// path (edit lists such as [{"path": ...}]).
func fileOf(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, v != ""
	case map[string]any:
		for _, k := range []string{"path", "file_path", "filePath", "file"} {
			if s, ok := v[k].(string); ok && s != "" {
				return s, true
			}
		}
	}
	return "", false
}

// ownFileGlobs makes globs of rewind's own files and folders: each path
// itself, and for a folder everything in it.
func ownFileGlobs(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == "" {
			continue
		}
		g := strings.ToLower(escapeGlob(filepath.ToSlash(filepath.Clean(p))))
		out = append(out, g, g+"/**")
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			r := strings.ToLower(escapeGlob(filepath.ToSlash(real)))
			out = append(out, r, r+"/**")
		}
	}
	return out
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
