package policy

import (
	"fmt"
	"slices"
	"strings"
	"sync"
)

// A git MCP server's tools move the working tree as git's commands do:
// git_reset {"mode": "hard", "ref": "A"}, git_checkout {"branch_name": "A"},
// git_stash {"action": "pop"}. A tool of a server or name that says git,
// whose other words are one of the commands gitTrees reads, is read as
// that command — its target, paths and flags from the input's usual keys,
// in the repository its path key names — and judged by the same rules.
// An input whose target is not a plain word is a target not known.

// gitToolVerbs are the tool names' words, without "git", and the git
// subcommand each is.
var gitToolVerbs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"reset": "reset", "checkout": "checkout", "switch": "switch", "restore": "restore", "merge": "merge",
		"pull": "pull", "rebase": "rebase", "cherry pick": "cherry-pick", "cherrypick": "cherry-pick",
		"revert": "revert", "stash": "stash", "stash pop": "stash pop", "stash apply": "stash apply",
		"stash push": "stash push", "stash save": "stash push", "clean": "clean", "switch branch": "switch",
		"checkout branch": "checkout", "reset hard": "reset --hard", "hard reset": "reset --hard",
	}
})

// Keys of a git tool's input, folded as MCP keys are.
var (
	gitRepoKeys   = []string{"repopath", "repositorypath", "repo", "repository", "cwd", "workingdirectory", "workingdir", "workdir", "projectpath", "directory", "dir", "root", "gitdir"}
	gitTargetKeys = []string{"target", "ref", "revision", "rev", "commit", "commitish", "committish", "treeish", "sha", "hash", "tag", "branch", "branchname", "branchorpath", "name", "to", "onto", "upstream", "source", "from", "startpoint", "base", "basebranch", "stash", "commits", "branches", "refs"}
	gitPathKeys   = []string{"paths", "files", "pathspec", "pathspecs", "filepaths", "file"}
)

// gitToolCommand reads a tool call as the git command it runs, and the
// folder it runs in.
func (p *Policy) gitToolCommand(tool string, in *toolInput, cwd string) (subject, string, bool) {
	name, ok := readMCPName(tool)
	if !ok {
		return subject{}, "", false
	}
	words := slices.DeleteFunc(slices.Clone(name.words), func(w string) bool { return w == "git" })
	if len(words) == len(name.words) && !slices.Contains(name.serverWords, "git") {
		return subject{}, "", false
	}
	verb, ok := gitToolVerbs()[strings.Join(words, " ")]
	if !ok {
		return subject{}, "", false
	}
	keys := map[string]any{}
	for k, v := range in.obj {
		keys[foldMCPKey(k)] = v
	}
	str := func(list []string) (string, bool, bool) {
		for _, k := range list {
			v, there := keys[k]
			if !there {
				continue
			}
			switch v := v.(type) {
			case string:
				if v != "" {
					return v, true, true
				}
			case fmt.Stringer: // json.Number: a stash's index
				return v.String(), true, true
			case []any:
				if len(v) == 1 {
					if s, ok := v[0].(string); ok {
						return s, true, true
					}
				}
				return "", true, false
			default:
				return "", true, false
			}
		}
		return "", false, true
	}
	flag := func(list ...string) bool {
		for _, k := range list {
			if b, ok := keys[k].(bool); ok && b {
				return true
			}
		}
		return false
	}
	dir := cwd
	repoKeys := gitRepoKeys
	if verb != "restore" && verb != "checkout" {
		repoKeys = append(repoKeys[:len(repoKeys):len(repoKeys)], "path")
	}
	if d, there, ok := str(repoKeys); there && ok {
		dir = d
	}
	args := strings.Fields(verb)
	target, hasTarget, plain := str(gitTargetKeys)
	if hasTarget && (!plain || strings.HasPrefix(target, "-")) {
		// A list of commits, an object: not a word git would take.
		args = []string{"pull"}
		hasTarget = false
	}
	mode, _, _ := str([]string{"mode", "action", "operation", "command", "subcommand", "type"})
	mode = strings.ToLower(strings.TrimPrefix(mode, "--"))
	switch args[0] {
	case "reset":
		if mode == "hard" || mode == "merge" || mode == "keep" || flag("hard") {
			args = append(args, "--"+cmpOr(mode, "hard"))
		}
	case "stash":
		if len(args) == 1 && mode != "" {
			args = append(args, mode)
		}
		if flag("includeuntracked", "untracked", "u") {
			args = append(args, "-u")
		}
		if flag("all", "includeignored") {
			args = append(args, "-a")
		}
		if hasTarget && isDigits(target) {
			target = "stash@{" + target + "}"
		}
	case "clean":
		if flag("force", "f") || keys["force"] == nil {
			args = append(args, "-f")
		}
		if flag("directories", "dirs", "d", "removedirectories", "includedirectories") {
			args = append(args, "-d")
		}
		if flag("ignored", "x", "includeignored") {
			args = append(args, "-x")
		}
		if flag("onlyignored") {
			args = append(args, "-X")
		}
		if flag("dryrun", "n") {
			args = append(args, "-n")
		}
	case "checkout", "switch":
		if flag("force", "discardchanges") {
			args = append(args, "-f")
		}
		if flag("create", "createbranch", "newbranch", "b") {
			start, _, ok := str([]string{"startpoint", "base", "basebranch", "from"})
			if !ok || start == "" {
				start = "HEAD"
			}
			return subject{name: "git", args: append(args, "-b", "new", start)}, dir, true
		}
	case "merge", "rebase", "cherry-pick", "revert":
		if flag("abort") {
			args = append(args, "--abort")
		}
		if flag("continue") {
			args = append(args, "--continue")
		}
	}
	if hasTarget {
		if args[0] == "restore" {
			args = append(args, "--source="+target)
		} else {
			args = append(args, target)
		}
	}
	if args[0] == "restore" || args[0] == "checkout" {
		var paths []string
		for _, k := range append(gitPathKeys, "path") {
			switch v := keys[k].(type) {
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
		if len(paths) > 0 {
			args = append(append(args, "--"), paths...)
		} else if args[0] == "restore" {
			args = append(args, ".")
		}
	}
	return subject{name: "git", args: args}, dir, true
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// judgeGitTool judges the files a git MCP tool writes, as the git command
// it runs would write them.
func (p *Policy) judgeGitTool(c Call, in *toolInput) (Match, bool) {
	s, dir, ok := p.gitToolCommand(c.Tool, in, c.Cwd)
	if !ok {
		return Match{}, false
	}
	w := walk{dir: dir}
	m := p.judgeCommandWrites(&s, Match{}, &w)
	if m.Rule == "" {
		return Match{}, false
	}
	m.Kind, m.Source = KindTool, c.Tool
	m.Reason = strings.Replace(m.Reason, "(git ", "("+c.Tool+" as git ", 1)
	return m, true
}
