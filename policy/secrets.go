package policy

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/rewind-dev/rewind/zvm/zvmconf"
)

// The agent must not hold Zerto's keys: the files that hold rewind's Zerto
// secrets and its token cache (Config.SecretFiles) are rewind's, and a call
// of the agent's that reads one is asked, as a write to rewind's own files
// is. A command reads a file it names as an argument or redirects from;
// a command that copies or searches folders whole (cp -r, tar, grep -r...)
// also reads the secrets in a folder above them that it names. A file tool
// reads the path it is given. Reading with an interpreter's own code
// (python -c "open(...)") is not seen: an operating-system boundary keeps
// those files from a hostile agent (docs/threat-model.md).

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
	add(zvmconf.CacheDir(getenv))
	add(expandTilde(getenv("REWIND_ZVM_CLIENT_SECRET_FILE"), homeDir(getenv)))
	add(expandTilde(getenv("REWIND_ZVM_PASSWORD_FILE"), homeDir(getenv)))
	return out
}

// wholeReaders are commands that read the folders they name whole, and
// the flags that make them do so ("" for always).
var wholeReaders = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"cp": {"-r", "-R", "-a", "--recursive", "--archive"}, "scp": {"-r"}, "rsync": {""}, "tar": {""}, "bsdtar": {""},
		"zip": {"-r", "--recurse-paths"}, "7z": {""}, "7za": {""}, "grep": {"-r", "-R", "--recursive", "--dereference-recursive"},
		"rg": {""}, "ag": {""}, "ack": {""}, "rclone": {""}, "restic": {""}, "borg": {""}, "duplicity": {""},
	}
})

// nameOnly are commands that take file names without reading the files.
var nameOnly = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"echo": true, "printf": true, "ls": true, "stat": true, "test": true, "[": true, "basename": true,
		"dirname": true, "realpath": true, "readlink": true, "du": true, "mkdir": true, "which": true,
	}
})

// judgeSecretReads asks about a local command that reads rewind's secret
// files, or folders above them wholly.
func (p *Policy) judgeSecretReads(s *subject, cwd string) (Match, bool) {
	if len(p.cfg.SecretFiles) == 0 || nameOnly()[s.name] {
		return Match{}, false
	}
	whole := false
	if flags, ok := wholeReaders()[s.name]; ok {
		whole = slices.Contains(flags, "") || hasFlag(s, flags...)
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
	}
	return ""
}

// toolReadsSecret asks about a tool call whose input names a path in
// rewind's secret files.
func (p *Policy) toolReadsSecret(in *toolInput, cwd string) (Match, bool) {
	for _, f := range in.paths {
		if p.readsSecret(f, cwd, false) != "" {
			return Match{Effect: Ask, Rule: secretRule, Reason: fmt.Sprintf("reads %s: %s", f, secretReason)}, true
		}
	}
	return Match{}, false
}
