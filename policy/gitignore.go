package policy

import (
	"path"
	"path/filepath"
	"strings"
)

// git clean and git stash -u leave the files git ignores (unless -x), so
// whether .claude/settings.local.json goes depends on the ignore rules:
// the .gitignore files from the top of the working tree down to the
// file's folder (a deeper one first), .git/info/exclude, and the file
// core.excludesFile names (in the repository's config or the user's;
// ~/.config/git/ignore by default), as gitignore(5) says. A folder that
// is ignored hides what is in it. Rules are read when the call is judged;
// a call that may change them first (a write to a .gitignore or a git
// config, git config, git -c) is judged as if nothing were ignored.

// maxIgnoreFile bounds an ignore file read.
const maxIgnoreFile = 1 << 20

// ignoreRule is one line of an ignore file.
type ignoreRule struct {
	pattern  string // as matchPath takes it
	negate   bool
	dirOnly  bool
	anchored bool
}

// gitIgnore reads a working tree's ignore rules.
type gitIgnore struct {
	top    string
	perDir map[string][]ignoreRule
	global [][]ignoreRule // info/exclude, then core.excludesFile
}

func newGitIgnore(top, home string) *gitIgnore {
	g := &gitIgnore{top: top, perDir: map[string][]ignoreRule{}}
	gitDir := filepath.Join(top, ".git")
	if data, err := readSmall(gitDir, 4096); err == nil {
		if dir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(top, dir)
			}
			gitDir = dir
			if c, err := readSmall(filepath.Join(dir, "commondir"), 4096); err == nil {
				cd := strings.TrimSpace(string(c))
				if !filepath.IsAbs(cd) {
					cd = filepath.Join(dir, cd)
				}
				gitDir = cd
			}
		}
	}
	g.global = append(g.global, readIgnoreFile(filepath.Join(gitDir, "info", "exclude")))
	excludes := ""
	for _, cfg := range []string{filepath.Join(gitDir, "config"), filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
		if v := configValue(cfg, "core", "excludesfile"); v != "" {
			excludes = v
			break
		}
	}
	if excludes == "" && home != "" {
		excludes = filepath.Join(home, ".config", "git", "ignore")
	}
	if rest, ok := strings.CutPrefix(excludes, "~/"); ok {
		excludes = filepath.Join(home, rest)
	}
	if excludes != "" && filepath.IsAbs(excludes) {
		g.global = append(g.global, readIgnoreFile(excludes))
	}
	return g
}

// configValue reads one key of a section of a git config file, the first
// place it is set; includes are not followed.
func configValue(file, section, key string) string {
	data, err := readSmall(file, maxIgnoreFile)
	if err != nil {
		return ""
	}
	in := false
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			name := strings.ToLower(strings.Trim(line, "[] \t"))
			in = name == section
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if ok && strings.EqualFold(strings.TrimSpace(k), key) {
			v = strings.TrimSpace(v)
			if i := strings.IndexAny(v, "#;"); i >= 0 && !strings.HasPrefix(v, `"`) {
				v = strings.TrimSpace(v[:i])
			}
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// readIgnoreFile reads the rules of an ignore file, in order.
func readIgnoreFile(name string) []ignoreRule {
	data, err := readSmall(name, maxIgnoreFile)
	if err != nil {
		return nil
	}
	var out []ignoreRule
	for line := range strings.SplitSeq(string(data), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.HasSuffix(line, `\ `) {
			line = strings.TrimSuffix(line, `\ `) + " "
		} else {
			line = strings.TrimRight(line, " \t")
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var r ignoreRule
		switch {
		case strings.HasPrefix(line, "!"):
			r.negate, line = true, line[1:]
		case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly, line = true, strings.TrimSuffix(line, "/")
		}
		if strings.Contains(line, "/") {
			r.anchored, line = true, strings.TrimPrefix(line, "/")
		}
		if line == "" {
			continue
		}
		r.pattern = strings.ReplaceAll(line, "[!", "[^")
		if !r.anchored {
			r.pattern = "**/" + r.pattern
		}
		out = append(out, r)
	}
	return out
}

// ignored reports whether the file at rel (relative to the top, slashes)
// is ignored: it or a folder above it.
func (g *gitIgnore) ignored(rel string) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i <= len(parts); i++ {
		if g.match(strings.Join(parts[:i], "/"), i < len(parts)) {
			return true
		}
	}
	return false
}

// match reports whether the rules ignore the path p itself.
func (g *gitIgnore) match(p string, isDir bool) bool {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if d == "." {
			d = ""
		}
		rules, ok := g.perDir[d]
		if !ok {
			rules = readIgnoreFile(filepath.Join(g.top, filepath.FromSlash(d), ".gitignore"))
			g.perDir[d] = rules
		}
		rel := p
		if d != "" {
			rel = strings.TrimPrefix(p, d+"/")
		}
		if ignored, decided := decide(rules, rel, isDir); decided {
			return ignored
		}
		if d == "" {
			break
		}
	}
	for _, rules := range g.global {
		if ignored, decided := decide(rules, p, isDir); decided {
			return ignored
		}
	}
	return false
}

// decide applies the rules of one file to rel: the last that matches
// decides.
func decide(rules []ignoreRule, rel string, isDir bool) (ignored, decided bool) {
	for i := len(rules) - 1; i >= 0; i-- {
		r := rules[i]
		if r.dirOnly && !isDir {
			continue
		}
		if matchPath(r.pattern, rel) {
			return !r.negate, true
		}
	}
	return false, false
}
