package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/internal/dirs"
)

// The agent must not hold Zerto's keys: the files that hold rewind's Zerto
// secrets and its token cache (Config.SecretFiles) are rewind's, and a call
// of the agent's that reads one is asked, as a write to rewind's own files
// is. A command reads a file it names as an argument or redirects from,
// and curl the files it sends (-F f=@FILE, --data-binary @FILE, -T FILE);
// a command that copies or searches folders whole (cp -r, tar, grep -r,
// find -exec cat...) also reads the secrets in a folder above them that it
// names. A file tool reads the path it is given, and a search tool (Grep,
// Glob) the folder, or the call's folder, whole. PowerShell's readers
// (Get-Content, Select-String, Copy-Item...) read the paths they are given.
// Reading with an interpreter's own code (python -c "open(...)") is not
// seen: an operating-system boundary keeps those files from a hostile
// agent (docs/threat-model.md).

// secretRule names the built-in check in verdicts.
const secretRule = "catalog:reads rewind's secrets"

const secretReason = "rewind's Zerto secrets and tokens are the operator's: the agent must not hold Zerto's keys"

// secretFiles returns the files and folders that hold rewind's Zerto
// secrets where it runs: its token cache folder and the secret files the
// environment names.
func secretFiles(getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if p != "" && filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	if dir, err := dirs.Cache(getenv); err == nil {
		add(dir)
	}
	add(expandTilde(getenv("REWIND_ZVM_CLIENT_SECRET_FILE"), homeDir(getenv)))
	add(expandTilde(getenv("REWIND_ZVM_PASSWORD_FILE"), homeDir(getenv)))
	return out
}

// readsWhole reports whether command s reads the folders it names whole:
// the archivers, copiers and searchers below always, cp, scp, zip and grep
// with a recursive flag, find when it runs a reading command on what it
// finds. These and nameOnly are switches, not maps: the hook asks them of
// nearly every command, and a map built on first use costs each hook
// process tens of microseconds of first touches.
func readsWhole(s *subject) bool {
	switch s.name {
	case "rsync", "tar", "bsdtar", "7z", "7za", "rg", "ag", "ack", "rclone", "restic", "borg", "duplicity":
		return true
	case "cp":
		return hasFlag(s, "-r", "-R", "-a", "--recursive", "--archive")
	case "scp":
		return hasFlag(s, "-r")
	case "zip":
		return hasFlag(s, "-r", "--recurse-paths")
	case "grep":
		return hasFlag(s, "-r", "-R", "--recursive", "--dereference-recursive")
	case "find":
		return findReads(s)
	}
	return false
}

// nameOnly reports whether command name takes file names without reading
// the files (rm removes a token cache rewind makes again, and reads
// nothing).
func nameOnly(name string) bool {
	switch name {
	case "echo", "printf", "ls", "stat", "test", "[", "basename", "dirname", "realpath", "readlink", "du",
		"mkdir", "which", "rm", "rmdir", "unlink":
		return true
	}
	return false
}

// judgeSecretReads asks about a local command that reads rewind's secret
// files, or folders above them wholly: named as its arguments or read by
// its input redirections, whose patterns bash expands ("cat <
// ~/.cache/rew*/zvm-tokens/t.json").
func (p *Policy) judgeSecretReads(s *subject, cwd string) (Match, bool) {
	if len(p.cfg.SecretFiles) == 0 {
		return Match{}, false
	}
	for _, r := range s.reads {
		if p.readsSecret(r, cwd, false) != "" {
			return Match{Effect: Ask, Rule: secretRule, Reason: fmt.Sprintf("reads %s: %s", r, secretReason)}, true
		}
	}
	if nameOnly(s.name) {
		return Match{}, false
	}
	whole := readsWhole(s)
	for _, f := range sentFiles(s) {
		if f := p.readsSecret(f, cwd, false); f != "" {
			return Match{Effect: Ask, Rule: secretRule, Reason: fmt.Sprintf("sends %s: %s", f, secretReason)}, true
		}
	}
	// A bare name is a file in the folder the command runs in, which can
	// reach the secrets only from a folder in or above them: most calls
	// run in a project and need not look at their words one by one.
	near := false
	if c := p.absPath(cwd, ""); c != "" {
		for _, sec := range p.cfg.SecretFiles {
			if within(strings.ToLower(sec), strings.ToLower(c)) || within(strings.ToLower(c), strings.ToLower(sec)) {
				near = true
			}
		}
	}
	for i, a := range s.args {
		if s.dynamic(i) || a == "" || strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			continue
		}
		if !near && !strings.ContainsAny(a, "/~$\\") {
			continue
		}
		if _, v, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			a = v
		}
		if f := p.readsSecret(a, cwd, whole); f != "" {
			return Match{Effect: Ask, Rule: secretRule, Reason: fmt.Sprintf("reads %s: %s", f, secretReason)}, true
		}
	}
	return Match{}, false
}

// readsSecret returns the secret file or folder a named path reads, or "":
// the path is one or lies in one, or, for a whole reader, holds one.
func (p *Policy) readsSecret(name, cwd string, whole bool) string {
	abs := p.absPath(name, cwd)
	if abs == "" {
		return ""
	}
	// Names are compared as written, made absolute, in lower case (as
	// the file systems of macOS and Windows compare them); links are not
	// followed, which would cost every argument of every command a look
	// at the disk: making a link to them is itself a call that names them.
	lf := strings.ToLower(abs)
	for _, sec := range p.cfg.SecretFiles {
		ls := strings.ToLower(sec)
		if within(ls, lf) || whole && within(lf, ls) && lf != "/" {
			return name
		}
		if strings.ContainsAny(lf, "*?[") && patternReaches(lf, ls, whole) {
			return name
		}
	}
	return ""
}

// patternReaches reports whether a path pattern the shell expands
// (cat ~/.cache/rew*/zvm-tokens/*) names files in the secret folder sec,
// or, for a whole reader, a folder above it: part by part, the pattern
// matches sec's path, as deep as the shorter of the two.
func patternReaches(pattern, sec string, whole bool) bool {
	pp := strings.Split(filepath.ToSlash(pattern), "/")
	sp := strings.Split(filepath.ToSlash(sec), "/")
	if len(pp) < len(sp) && !whole {
		return false
	}
	for k := range min(len(pp), len(sp)) {
		if pp[k] == sp[k] {
			continue
		}
		if ok, err := path.Match(pp[k], sp[k]); !ok && err == nil {
			return false
		}
	}
	return true
}

// toolReadsSecret asks about a tool call whose input names a path in
// rewind's secret files, or, for a search tool, a folder above them (its
// default, the call's folder, too).
func (p *Policy) toolReadsSecret(tool string, in *toolInput, cwd string) (Match, bool) {
	if len(p.cfg.SecretFiles) == 0 {
		return Match{}, false
	}
	whole := readTools()[tool]
	paths := append([]string(nil), in.paths...)
	for _, k := range []string{"paths", "absolute_path", "filePath", "dir_path", "directory", "file_paths"} {
		switch v := in.obj[k].(type) {
		case string:
			paths = append(paths, v)
		case []any:
			for _, e := range v {
				if s, ok := e.(string); ok {
					paths = append(paths, s)
				}
			}
		}
	}
	if whole {
		if pat, ok := in.obj["pattern"].(string); ok && strings.ContainsAny(pat, "/~") {
			// Glob's pattern may name the folder itself: ~/.cache/**.
			if i := strings.IndexAny(pat, "*?[{"); i >= 0 {
				pat = pat[:i]
			}
			paths = append(paths, pat)
		}
		if len(paths) == 0 {
			paths = append(paths, ".")
		}
	}
	for _, f := range paths {
		if f == "" {
			continue
		}
		if p.readsSecret(f, cwd, whole) != "" {
			return Match{Effect: Ask, Rule: secretRule, Reason: fmt.Sprintf("reads %s: %s", f, secretReason)}, true
		}
	}
	return Match{}, false
}

// readTools are the hosts' tools that read a file or search folders, by
// the names rewind sees them under (docs/hosts.md): Claude Code's, and the
// other hosts' that their hooks do not bring to Claude Code's names. They
// are judged for rewind's secrets, so rewind install sends them to the
// hook (see HookTools); true marks the tools that search the folder they
// are given whole.
var readTools = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		// Claude Code.
		"Read": false, "NotebookRead": false, "LS": false, "Grep": true, "Glob": true,
		// Gemini CLI.
		"read_file": false, "read_many_files": false, "list_directory": false, "glob": true, "search_file_content": true,
		// Kiro CLI, Cline, OpenCode, Copilot CLI.
		"fs_read": false, "search_files": true, "list_files": false, "read": false, "grep": true, "list": false, "view": false,
	}
})

// curlFileOpts are curl's options whose value names a file curl sends (as
// @FILE or <FILE in -F), and whether the whole value is the file.
var curlFileOpts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-F": false, "--form": false, "--form-string": false, "-d": false, "--data": false, "--data-binary": false,
		"--data-urlencode": false, "--json": false, "-H": false, "--header": false, "--proxy-header": false,
		"-T": true, "--upload-file": true, "-K": true, "--config": true,
	}
})

// sentFiles returns the files a command sends (reads and hands on) by
// options: curl's -F name=@FILE and name=<FILE, -d/--data-binary/--json
// @FILE, --data-urlencode [name]@FILE, -H @FILE, -T FILE and -K FILE;
// wget's --post-file and --body-file; httpie's field@FILE and @FILE.
func sentFiles(s *subject) []string {
	var out []string
	switch s.name {
	case "curl":
		opts := make([]string, 0, len(curlFileOpts()))
		for o := range curlFileOpts() {
			opts = append(opts, o)
		}
		slices.Sort(opts)
		for i := range s.args {
			_, values := argWords(&subject{args: s.args[i:min(i+2, len(s.args))]}, opts)
			for o, v := range values {
				if curlFileOpts()[o] {
					if v != "-" && v != "." {
						out = append(out, v)
					}
					continue
				}
				if o == "-F" || o == "--form" {
					_, v, _ = strings.Cut(v, "=")
					if f, ok := strings.CutPrefix(v, "<"); ok {
						out = append(out, cutFormType(f))
						continue
					}
				}
				if o == "--data-urlencode" {
					if j := strings.IndexByte(v, '@'); j >= 0 && !strings.Contains(v[:j], "=") {
						v = v[j:]
					}
				}
				if f, ok := strings.CutPrefix(v, "@"); ok && f != "-" {
					out = append(out, cutFormType(f))
				}
			}
		}
	case "wget":
		_, values := argWords(s, []string{"--post-file", "--body-file"})
		for _, v := range values {
			out = append(out, v)
		}
	case "http", "https", "xh", "xhs":
		for i, a := range s.args {
			if s.dynamic(i) || strings.HasPrefix(a, "-") {
				continue
			}
			if f, ok := strings.CutPrefix(a, "@"); ok {
				out = append(out, f)
			} else if j := strings.Index(a, "@"); j > 0 && !strings.ContainsAny(a[:j], ":/=") {
				out = append(out, a[j+1:])
			} else if j := strings.Index(a, "=@"); j > 0 {
				out = append(out, a[j+2:])
			}
		}
	}
	return out
}

// cutFormType drops the ;type= and ;filename= that may follow a form's
// file.
func cutFormType(f string) string {
	f, _, _ = strings.Cut(f, ";")
	return f
}

// findReads reports whether find runs a command on what it finds that
// reads it (-exec cat {} +): any command but one that only takes names.
func findReads(s *subject) bool {
	for i, a := range s.args {
		switch a {
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(s.args) {
				if cmd := filepath.Base(s.args[i+1]); !nameOnly(cmd) && !findRemovesOnly(cmd) {
					return true
				}
			}
		}
	}
	return false
}

// findRemovesOnly reports whether find may run command name on what it
// finds without reading it.
func findRemovesOnly(name string) bool {
	switch name {
	case "rm", "rmdir", "unlink", "chmod", "chown", "chgrp", "touch":
		return true
	}
	return false
}
