package policy

import (
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The shell expands a pattern in the names a writer is given before the
// writer runs: `rm -rf ~/.local/*` removes ~/.local/state, and with it
// rewind's state folder; `rm -f ~/.config/*/config.toml` removes rewind's
// config. Such a name is expanded against the disk as bash would expand
// it, within a bound, and each file it names is judged as written.
//
// Bash leaves files whose names begin with a dot to patterns that begin
// with one, unless dotglob is on (shopt -s dotglob, GLOBIGNORE, BASHOPTS)
// or the shell is zsh with GLOB_DOTS; a call that mentions one of these
// anywhere has its patterns match dot files too. A part in parentheses
// (extglob, zsh's qualifiers) matches any name, and "**" any number of
// folders, as with globstar and in zsh.

// Bounds on expanding the patterns of one call: the folder entries read,
// and the names the patterns may match. Past them a pattern may name
// anything, and its command is asked.
const (
	maxGlobDirents = 64 << 10
	maxGlobMatches = 4096
)

// globBudget is what expanding patterns may still cost a call.
type globBudget struct {
	dirents, matches int
}

// globs returns what expanding patterns may still cost the call.
func (w *walk) globs() *globBudget {
	if w.globLeft == nil {
		w.globLeft = &globBudget{dirents: maxGlobDirents, matches: maxGlobMatches}
	}
	return w.globLeft
}

// hasGlob reports whether a name holds a pattern the shell expands.
func hasGlob(name string) bool { return strings.ContainsAny(name, "*?[") }

// mentionsGlobDots reports whether code mentions a way to make patterns
// match dot files or ignore case (nocaseglob, zsh's NO_CASE_GLOB), with
// which patterns match both ways: dotglob, globignore, bashopts, globdots,
// setopt or caseglob, in any case and with underscores anywhere, as zsh
// reads an option's name (GLOB_DOTS, globdots and G_L_O_B_DOTS alike). It
// runs on every command string, a commit message of megabytes included,
// so it looks for the words' rarer letters (the 'b' of "glob", the 'p' of
// "opt", one of which each word holds) with IndexByte and reads the text
// around each, rather than folding the whole text; globs_test.go holds it
// to the folding.
func mentionsGlobDots(code string) bool {
	for _, anchor := range []byte("bBpP") {
		for i := 0; ; i++ {
			j := strings.IndexByte(code[i:], anchor)
			if j < 0 {
				break
			}
			i += j
			if globDotsAt(code, i) {
				return true
			}
		}
	}
	return false
}

// globDotsAt reports whether one of globDotsWords is in code around the
// 'b' of its "glob" or the 'p' of its "opt" at i.
func globDotsAt(code string, i int) bool {
	if code[i]|0x20 == 'b' {
		start := foldedBefore(code, i, "glo")
		if start < 0 {
			return false
		}
		return foldedBefore(code, start, "dot") >= 0 || foldedBefore(code, start, "case") >= 0 ||
			foldedAfter(code, i+1, "ignore") || foldedAfter(code, i+1, "dots")
	}
	start := foldedBefore(code, i, "o")
	if start < 0 || !foldedAfter(code, i+1, "t") {
		return false
	}
	return foldedBefore(code, start, "set") >= 0 || foldedBefore(code, start, "bash") >= 0 && foldedAfter(code, i+1, "ts")
}

// foldedBefore returns where w ends the text before end, in any case and
// with underscores anywhere, starts; or -1 when it does not.
func foldedBefore(s string, end int, w string) int {
	for k := len(w) - 1; k >= 0; k-- {
		for end > 0 && s[end-1] == '_' {
			end--
		}
		if end == 0 || s[end-1]|0x20 != w[k] {
			return -1
		}
		end--
	}
	return end
}

// foldedAfter reports whether the text from start begins with w, in any
// case and with underscores anywhere.
func foldedAfter(s string, start int, w string) bool {
	for k := range len(w) {
		for start < len(s) && s[start] == '_' {
			start++
		}
		if start == len(s) || s[start]|0x20 != w[k] {
			return false
		}
		start++
	}
	return true
}

// expandGlob returns the files an absolute pattern names on the disk, in
// slash form, or false past b. A pattern that names nothing names
// nothing (the shell then passes it as written, which its caller judges
// as a name).
func expandGlob(pattern string, dots bool, b *globBudget) ([]string, bool) {
	parts := strings.Split(filepath.ToSlash(pattern), "/")
	if len(parts) == 0 || parts[0] != "" {
		return nil, true
	}
	cur := []string{"/"}
	for i, part := range parts[1:] {
		last := i == len(parts)-2
		switch {
		case part == "" || part == ".":
			continue
		case !hasGlob(part) && !strings.Contains(part, "("):
			for j, d := range cur {
				cur[j] = path.Join(d, part)
			}
			if !last {
				// A literal folder that is not there ends the pattern.
				kept := cur[:0]
				for _, d := range cur {
					if isDir(d) {
						kept = append(kept, d)
					}
				}
				cur = kept
			} else {
				kept := cur[:0]
				for _, d := range cur {
					if exists(d) {
						kept = append(kept, d)
					}
				}
				cur = kept
			}
		case part == "**":
			var next []string
			for _, d := range cur {
				sub, ok := globTree(d, dots, b)
				if !ok {
					return nil, false
				}
				next = append(next, sub...)
			}
			cur = next
		default:
			var next []string
			for _, d := range cur {
				names, ok := readNames(d, b)
				if !ok {
					return nil, false
				}
				for _, n := range names {
					if globMatch(part, n, dots) {
						next = append(next, path.Join(d, n))
					}
				}
			}
			cur = next
		}
		if len(cur) > b.matches {
			return nil, false
		}
		if len(cur) == 0 {
			return nil, true
		}
	}
	b.matches -= len(cur)
	return cur, true
}

// globMatch matches one part of a pattern against a name as the shell
// does: a leading dot only by a leading dot, unless dots; a part with
// parentheses matches any name.
func globMatch(part, name string, dots bool) bool {
	if name == "." || name == ".." {
		return false
	}
	if strings.Contains(part, "(") {
		return true
	}
	if !dots && strings.HasPrefix(name, ".") && !strings.HasPrefix(part, ".") {
		return false
	}
	if dots {
		part, name = strings.ToLower(part), strings.ToLower(name)
	}
	ok, err := path.Match(part, name)
	return ok || err != nil
}

// globTree returns dir and every folder below it, as "**" names them.
func globTree(dir string, dots bool, b *globBudget) ([]string, bool) {
	out := []string{dir}
	for i := 0; i < len(out); i++ {
		d := out[i]
		f, err := os.Open(d)
		if err != nil {
			continue
		}
		for {
			list, err := f.ReadDir(256)
			b.dirents -= len(list)
			if b.dirents < 0 {
				f.Close()
				return nil, false
			}
			for _, e := range list {
				if e.IsDir() && (dots || !strings.HasPrefix(e.Name(), ".")) {
					out = append(out, path.Join(d, e.Name()))
				}
			}
			if len(out) > b.matches {
				f.Close()
				return nil, false
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return out, true
}

// readNames returns the names of the entries of folder dir.
func readNames(dir string, b *globBudget) ([]string, bool) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, true
	}
	defer f.Close()
	var names []string
	for {
		list, err := f.Readdirnames(256)
		b.dirents -= len(list)
		if b.dirents < 0 {
			return nil, false
		}
		names = append(names, list...)
		if err != nil {
			return names, true
		}
	}
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
