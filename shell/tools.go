package shell

import (
	"strings"
	"sync"
)

// Ordinary tools take commands as option values: git's core.sshCommand,
// core.pager and "!" aliases, tar's --to-command, tmux's shell-command,
// socat's EXEC: address. Commands are code wherever they travel: a literal
// value is analysed as the code it is (with the tool's own words decided
// at run time where the tool adds some), and a value known only at run
// time is dynamic.

// gitKeys are git's configuration keys whose value is a command, by
// kind: shell code, an ssh transport, or a configuration file of more.
// A "*" stands for one part of a key (pager.log, filter.lfs.smudge).
var gitKeys = sync.OnceValue(func() map[string]envKind {
	return map[string]envKind{
		"core.pager": envCode, "pager.*": envCode, "core.editor": envCode, "sequence.editor": envCode,
		"core.askpass": envCode, "core.gitproxy": envCode, "core.fsmonitor": envCode,
		"core.alternaterefscommand": envCode, "diff.external": envCode, "diff.*.command": envCode,
		"diff.*.textconv": envCode, "merge.*.driver": envCode, "filter.*.clean": envCode,
		"filter.*.smudge": envCode, "filter.*.process": envCode, "gpg.program": envCode,
		"gpg.*.program": envCode, "gpg.ssh.defaultkeycommand": envCode, "credential.helper": envCode,
		"credential.*.helper": envCode, "sendemail.sendmailcmd": envCode, "sendemail.smtpserver": envCode,
		"browser.*.cmd": envCode, "man.*.cmd": envCode, "difftool.*.cmd": envCode, "mergetool.*.cmd": envCode,
		"instaweb.httpd": envCode, "remote.*.uploadpack": envCode, "remote.*.receivepack": envCode,
		"uploadpack.packobjectshook": envCode, "alias.*": envCode,
		"core.sshcommand": envTransport,
		"include.path":    envScript, "includeif.*.path": envScript, "core.hookspath": envScript,
	}
})

// gitKey returns what git's configuration key holds (see gitKeys).
func gitKey(key string) envKind {
	key = strings.ToLower(key)
	if k, ok := gitKeys()[key]; ok {
		return k
	}
	first, rest, ok := strings.Cut(key, ".")
	if !ok {
		return envNone
	}
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		// section.subsection.name: the subsection may hold dots.
		if k, ok := gitKeys()[first+".*"+rest[i:]]; ok {
			return k
		}
	}
	return gitKeys()[first+".*"]
}

// gitBool reports whether a configuration value is a boolean, which
// pager.* and core.fsmonitor also take.
func gitBool(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// gitValue analyses the value git's configuration key is given.
func (a *analyzer) gitValue(c *code, src, key string, value field) {
	kind := gitKey(key)
	if kind == envNone {
		if !value.dyn && strings.HasPrefix(value.val, "ext::") {
			a.gitExt(c, src, value.val)
		}
		return
	}
	label := "git " + strings.ToLower(key)
	if value.dyn {
		a.dynamic(c, src)
		return
	}
	v := value.val
	lower := strings.ToLower(key)
	switch {
	case gitBool(v) && (strings.HasPrefix(lower, "pager.") || lower == "core.fsmonitor"):
		return
	case strings.HasPrefix(lower, "alias."):
		if code, ok := strings.CutPrefix(v, "!"); ok {
			a.codeFields(c, label, src, []field{staticField(code)}, nil)
		} else {
			// An alias of git's own words, options such as -c
			// included.
			a.codeFields(c, label, src, []field{staticField("git " + v)}, nil)
		}
		return
	case strings.HasPrefix(lower, "credential."):
		// A helper is "!code", a path, or the name of a git-credential-
		// program.
		if code, ok := strings.CutPrefix(v, "!"); ok {
			a.codeFields(c, label, src, []field{staticField(code)}, nil)
		} else if strings.Contains(v, "/") {
			a.codeFields(c, label, src, []field{staticField(v)}, nil)
		}
		return
	}
	switch kind {
	case envCode:
		a.codeFields(c, label, src, []field{value}, nil)
	case envTransport:
		a.transport(c, label, src, value)
	case envScript:
		a.dynamic(c, src)
	}
}

// gitExt analyses an ext:: remote, which git runs as a command: its words
// are separated by spaces, "% " is a space, "%%" a percent sign, and %s
// and %S stand for the service it runs.
func (a *analyzer) gitExt(c *code, src, url string) {
	cmd := strings.TrimPrefix(url, "ext::")
	var words []field
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, staticField(b.String()))
			b.Reset()
		}
	}
	for i := 0; i < len(cmd); i++ {
		switch ch := cmd[i]; {
		case ch == ' ':
			flush()
		case ch == '%' && i+1 < len(cmd):
			i++
			switch cmd[i] {
			case 's', 'S':
				b.WriteString("git-upload-pack")
			case 'G', 'V':
				i++ // %G and %V take the rest of the word as their value.
				for i < len(cmd) && cmd[i] != ' ' {
					i++
				}
			default:
				b.WriteByte(cmd[i])
			}
		default:
			b.WriteByte(ch)
		}
	}
	flush()
	if len(words) > 0 {
		a.run(c.with("git ext::"), src, words, nil)
	}
}

var gitOpts = opts{short: "Cc", long: []string{"git-dir", "work-tree", "namespace", "config-env", "super-prefix", "list-cmds", "attr-source"}}

// git reads git's global options (-c KEY=VALUE, --config-env, --exec-path)
// and the options and arguments of its subcommands that are commands:
// clone, fetch, pull, push, ls-remote and archive's remote programs,
// rebase --exec, bisect run, submodule foreach, filter-branch's filters,
// difftool --extcmd, grep -O, send-email --sendmail-cmd, "git config KEY
// VALUE" for the keys of gitKeys, and ext:: remotes.
func (a *analyzer) git(c *code, src string, args []field) {
	i, seen := gitOpts.parse(args)
	for _, o := range seen {
		switch o.name {
		case "-c":
			if key, value, ok := cutAssignment(o.val); ok {
				a.gitValue(c, src, key, value)
			}
		case "--config-env":
			// The value is read from an environment variable.
			if key, _, ok := strings.Cut(o.val.val, "="); ok && !o.val.dyn && gitKey(key) != envNone {
				a.dynamic(c, src)
			}
		case "--exec-path":
			// git runs its subcommands from that folder.
			if o.val.val != "" || o.val.dyn {
				a.dynamic(c, src)
			}
		}
	}
	if i >= len(args) || args[i].dyn {
		return
	}
	sub, rest := args[i].val, args[i+1:]
	for _, f := range rest {
		if !f.dyn && strings.HasPrefix(f.val, "ext::") {
			a.gitExt(c, src, f.val)
		}
	}
	switch sub {
	case "config":
		a.gitConfig(c, src, rest)
	case "clone", "fetch", "pull", "push", "ls-remote", "archive", "remote":
		a.gitRemoteProgram(c, src, sub, rest)
	case "rebase":
		for _, o := range optionValues(rest, []string{"-x", "--exec"}) {
			a.codeFields(c, "git rebase --exec", src, []field{o}, nil)
		}
	case "bisect":
		if len(rest) > 1 && !rest[0].dyn && rest[0].val == "run" {
			a.then(c.with("git bisect run"), rest[1:], nil)
		}
	case "submodule":
		a.gitForeach(c, src, rest)
	case "filter-branch":
		for _, o := range optionValues(rest, []string{"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter", "--commit-filter", "--tag-name-filter"}) {
			a.codeFields(c, "git filter-branch", src, []field{o}, nil)
		}
	case "difftool":
		for _, o := range optionValues(rest, []string{"-x", "--extcmd"}) {
			a.codeFields(c, "git difftool --extcmd", src, []field{o}, nil)
		}
	case "grep":
		for _, o := range optionValues(rest, []string{"--open-files-in-pager"}) {
			a.codeFields(c, "git grep -O", src, []field{o}, nil)
		}
		for _, f := range rest {
			if v, ok := strings.CutPrefix(f.val, "-O"); ok && !f.dyn && v != "" {
				a.codeFields(c, "git grep -O", src, []field{staticField(v)}, nil)
			}
		}
	case "send-email":
		for _, o := range optionValues(rest, []string{"--sendmail-cmd", "--smtp-server"}) {
			if o.dyn || strings.ContainsAny(o.val, "/ ") {
				a.codeFields(c, "git send-email", src, []field{o}, nil)
			}
		}
	}
}

// optionValues returns the values of the long or short options names in
// args: "--opt VALUE", "--opt=VALUE", "-x VALUE", "-xVALUE".
func optionValues(args []field, names []string) []field {
	var out []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn {
			continue
		}
		if f.val == "--" {
			break
		}
		for _, n := range names {
			switch {
			case f.val == n && i+1 < len(args):
				out = append(out, args[i+1])
				i++
			case strings.HasPrefix(n, "--") && strings.HasPrefix(f.val, n+"="):
				out = append(out, staticField(f.val[len(n)+1:]))
			case len(n) == 2 && len(f.val) > 2 && strings.HasPrefix(f.val, n) && f.val[1] != '-':
				out = append(out, staticField(f.val[2:]))
			default:
				continue
			}
			break
		}
	}
	return out
}

// gitConfig reads "git config [options] [set] KEY VALUE": a value git
// runs later as a command is code now.
func (a *analyzer) gitConfig(c *code, src string, args []field) {
	var pos []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.dyn:
			pos = append(pos, f)
		case f.val == "-f" || f.val == "--file" || f.val == "--blob" || f.val == "--type" || f.val == "--default" || f.val == "--comment" || f.val == "--value":
			i++
		case strings.HasPrefix(f.val, "-"):
		default:
			pos = append(pos, f)
		}
	}
	if len(pos) > 0 && !pos[0].dyn && (pos[0].val == "set" || pos[0].val == "--add") {
		pos = pos[1:]
	}
	if len(pos) >= 2 {
		if pos[0].dyn {
			a.dynamic(c, src)
			return
		}
		a.gitValue(c, src, pos[0].val, pos[1])
	}
}

// gitRemoteProgram analyses the program clone, fetch, pull, push,
// ls-remote and archive run on the other side (--upload-pack, -u,
// --receive-pack, --exec): on the host of the repository's ssh URL, here
// for a local path, and on a host decided at run time for a remote
// given by name.
func (a *analyzer) gitRemoteProgram(c *code, src, sub string, args []field) {
	progs := optionValues(args, []string{"--upload-pack", "--receive-pack", "--exec"})
	if sub == "clone" {
		progs = append(progs, optionValues(args, []string{"-u"})...)
	}
	if len(progs) == 0 {
		return
	}
	host := "(the host of the git remote)"
	for _, f := range args {
		if f.dyn || strings.HasPrefix(f.val, "-") {
			continue
		}
		switch h, _, ok := RemotePath(f.val); {
		case strings.HasPrefix(f.val, "ssh://") || strings.HasPrefix(f.val, "git+ssh://"):
			host = sshHost(staticField(strings.TrimPrefix(f.val, "git+")))
			host, _, _ = strings.Cut(host, "/")
		case ok && !strings.Contains(f.val, "://"):
			host = h
		case strings.HasPrefix(f.val, "/") || strings.HasPrefix(f.val, ".") || strings.HasPrefix(f.val, "file://"):
			host = c.host
		default:
			continue
		}
		break
	}
	for _, p := range progs {
		via := appendVia(c.via, "git "+sub+" --upload-pack")
		if host != c.host {
			via = appendVia(c.via, "ssh "+host)
		}
		a.codeOn(c, host, via, src, []field{p}, nil)
	}
}

// gitForeach reads "git submodule [--quiet] foreach [--recursive] CMD":
// CMD runs in each submodule through the shell.
func (a *analyzer) gitForeach(c *code, src string, args []field) {
	for i, f := range args {
		if f.dyn || f.val != "foreach" {
			continue
		}
		rest := args[i+1:]
		for len(rest) > 0 && !rest[0].dyn && strings.HasPrefix(rest[0].val, "-") {
			rest = rest[1:]
		}
		if len(rest) > 0 {
			a.codeFields(c, "git submodule foreach", src, rest, nil)
		}
		return
	}
}

// tarCommands are GNU tar's long options whose value is a command, with
// how the value runs; tar accepts any unambiguous prefix of a long option.
var tarCommands = []struct {
	name  string
	kind  envKind
	short byte
}{
	{"--checkpoint-action", envCode, 0},
	{"--to-command", envCode, 0},
	{"--use-compress-program", envCode, 'I'},
	{"--info-script", envCode, 'F'},
	{"--new-volume-script", envCode, 0},
	{"--rsh-command", envTransport, 0},
}

// tarValueLetters are tar's short options that take a value.
const tarValueLetters = "bCfFgHIKLNTVX"

// tar reads GNU tar's options whose value is a command: --to-command,
// --checkpoint-action=exec=CMD, -I/--use-compress-program, -F and
// --info-script, --new-volume-script, and --rsh-command, the remote shell
// for an archive on host:path. Short options may be clustered, and in the
// traditional form ("tar cIf zstd x.tar") the first word holds the
// letters, whose values follow in order.
func (a *analyzer) tar(c *code, src string, args []field) {
	run := func(kind envKind, label string, value field) {
		if kind == envTransport {
			a.transport(c, "tar "+label, src, value)
			return
		}
		if label == "--checkpoint-action" {
			v, ok := strings.CutPrefix(value.approx, "exec=")
			if !ok {
				return
			}
			value = field{val: v, approx: v, skel: strings.TrimPrefix(value.skel, "exec="), dyn: value.dyn}
		}
		a.codeFields(c, "tar "+label, src, []field{value}, nil)
	}
	next := 0 // the next word a traditional cluster's letters take
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn {
			continue
		}
		s := f.val
		switch {
		case s == "--":
			return
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s, "=")
			for _, t := range tarCommands {
				if len(name) < 5 || !strings.HasPrefix(t.name, name) {
					continue
				}
				switch {
				case hasVal:
					run(t.kind, t.name, staticField(val))
				case i+1 < len(args):
					i++
					run(t.kind, t.name, args[i])
				}
				break
			}
		case strings.HasPrefix(s, "-") || i == 0:
			letters := strings.TrimPrefix(s, "-")
			traditional := i == 0 && !strings.HasPrefix(s, "-")
			if traditional {
				next = 1
			}
			for j := 0; j < len(letters); j++ {
				l := letters[j]
				if strings.IndexByte(tarValueLetters, l) < 0 {
					continue
				}
				var value field
				switch {
				case traditional:
					if next >= len(args) {
						return
					}
					value = args[next]
					next++
				case j < len(letters)-1:
					value = staticField(letters[j+1:])
					j = len(letters)
				case i+1 < len(args):
					i++
					value = args[i]
				default:
					continue
				}
				for _, t := range tarCommands {
					if t.short == l {
						run(t.kind, t.name, value)
					}
				}
			}
			if traditional {
				i = max(i, next-1)
			}
		}
	}
}

// tmuxCommand describes a tmux command that runs a shell command: its
// options that take a value, and how its arguments run.
type tmuxCommand struct {
	opts string
	// args says what its operands are: "command" for a shell command
	// (one word run by the shell, or several run as they are), "keys"
	// for keys typed into a pane, "if" for if-shell's command and tmux
	// commands, "tmux" for tmux commands, "file" for a file of them.
	args string
}

var tmuxCommands = sync.OnceValue(func() map[string]tmuxCommand {
	return map[string]tmuxCommand{
		"new-session": {"cefFnstxy", "command"}, "new": {"cefFnstxy", "command"},
		"new-window": {"ceFnt", "command"}, "neww": {"ceFnt", "command"},
		"split-window": {"celtF", "command"}, "splitw": {"celtF", "command"},
		"respawn-pane": {"cet", "command"}, "respawnp": {"cet", "command"},
		"respawn-window": {"cet", "command"}, "respawnw": {"cet", "command"},
		"display-popup": {"bcdehsStTwxy", "command"}, "popup": {"bcdehsStTwxy", "command"},
		"run-shell": {"dct", "command"}, "run": {"dct", "command"},
		"pipe-pane": {"t", "command"}, "pipep": {"t", "command"},
		"send-keys": {"cNt", "keys"}, "send": {"cNt", "keys"},
		"if-shell": {"t", "if"}, "if": {"t", "if"},
		"set-hook": {"t", "tmux"}, "bind-key": {"NT", "tmux"}, "bind": {"NT", "tmux"},
		"source-file": {"t", "file"}, "source": {"t", "file"},
	}
})

var tmuxOpts = opts{short: "cfLST"}

// tmux reads tmux [options] COMMAND [args] [\; COMMAND ...]: -c's shell
// command, the shell commands of new-session, new-window, split-window,
// respawn-*, display-popup, run-shell and pipe-pane, the keys send-keys
// types into a pane (run by its shell once a newline or Enter is typed),
// if-shell's condition, and "#(command)" in formats, all as code here. A
// config file (-f) or source-file is a file of tmux commands the command
// string does not show.
func (a *analyzer) tmux(c *code, src string, args []field) {
	i, seen := tmuxOpts.parse(args)
	if o, ok := seen.get("-c"); ok {
		a.codeFields(c, "tmux -c", src, []field{o.val}, nil)
	}
	if o, ok := seen.get("-f"); ok && !nullConfig(o.val) {
		a.dynamic(c, src)
	}
	for _, f := range args {
		a.tmuxFormats(c, src, f)
	}
	a.tmuxCommands(c, src, args[i:], 0)
}

// tmuxFormats analyses the shell commands "#(command)" in a tmux format.
func (a *analyzer) tmuxFormats(c *code, src string, f field) {
	s := f.approx
	for {
		i := strings.Index(s, "#(")
		if i < 0 {
			return
		}
		s = s[i+2:]
		end := strings.IndexByte(s, ')')
		if end < 0 {
			end = len(s)
		}
		if f.dyn {
			a.dynamic(c, src)
			return
		}
		a.codeFields(c, "tmux #()", src, []field{staticField(s[:end])}, nil)
	}
}

// maxTmuxDepth bounds tmux commands nested in tmux commands.
const maxTmuxDepth = 4

// tmuxCommands reads a list of tmux commands separated by ";".
func (a *analyzer) tmuxCommands(c *code, src string, args []field, depth int) {
	if depth > maxTmuxDepth {
		a.unparsed(src, errTooDeep.Error(), c.host, c.via)
		return
	}
	for len(args) > 0 {
		end := len(args)
		for k, f := range args {
			if !f.dyn && f.val == ";" {
				end = k
				break
			}
		}
		cmd := args[:end]
		if end < len(args) {
			args = args[end+1:]
		} else {
			args = nil
		}
		if len(cmd) == 0 {
			continue
		}
		if cmd[0].dyn {
			a.dynamic(c, src)
			continue
		}
		t, ok := tmuxCommands()[cmd[0].val]
		if !ok {
			continue
		}
		i, _ := opts{short: t.opts}.parse(cmd[1:])
		ops := cmd[1+i:]
		label := "tmux " + cmd[0].val
		switch t.args {
		case "command":
			switch len(ops) {
			case 0:
			case 1:
				a.codeFields(c, label, src, ops, nil)
			default:
				a.run(c.with(label), src, ops, nil)
			}
		case "keys":
			a.codeFields(c, label, src, []field{tmuxKeys(ops)}, nil)
		case "if":
			if len(ops) > 0 {
				a.codeFields(c, label, src, ops[:1], nil)
			}
			for _, o := range ops[min(1, len(ops)):] {
				a.tmuxCommandString(c, src, o, depth)
			}
		case "tmux":
			// set-hook NAME COMMAND, bind-key KEY COMMAND [ARGS]
			if len(ops) > 1 {
				if len(ops) == 2 {
					a.tmuxCommandString(c, src, ops[1], depth)
				} else {
					a.tmuxCommands(c, src, ops[1:], depth+1)
				}
			}
		case "file":
			if len(ops) > 0 && !nullConfig(ops[len(ops)-1]) {
				a.dynamic(c, src)
			}
		}
	}
}

// tmuxCommandString analyses a tmux command given as one string, which
// tmux splits into words as a shell does.
func (a *analyzer) tmuxCommandString(c *code, src string, f field, depth int) {
	if f.dyn {
		a.dynamic(c, src)
		return
	}
	words := shellWords(f.val)
	fields := make([]field, len(words))
	for i, w := range words {
		fields[i] = staticField(w)
	}
	a.tmuxCommands(c, src, fields, depth+1)
}

// tmuxKeys returns the text send-keys types: its arguments, with the keys
// Enter, C-m, C-j and KPEnter as newlines.
func tmuxKeys(keys []field) field {
	var b, approx, skel strings.Builder
	dyn := false
	for _, k := range keys {
		s := k.val
		switch s {
		case "Enter", "C-m", "C-j", "KPEnter", "^M", "^J":
			s = "\n"
		}
		if k.dyn {
			dyn = true
			approx.WriteString(k.approx)
			skel.WriteString(k.skel)
		} else {
			approx.WriteString(s)
			skel.WriteString(s)
		}
		b.WriteString(s)
	}
	return field{val: b.String(), approx: approx.String(), skel: skel.String(), dyn: dyn}
}

// shellWords splits s into words as a shell does for quotes and blanks,
// with no expansions, for tools that split their own strings (tmux).
func shellWords(s string) []string {
	var words []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote == '\'':
			b.WriteByte(ch)
		case ch == '\\' && i+1 < len(s) && quote != '\'':
			i++
			b.WriteByte(s[i])
			in = true
		case quote == '"':
			b.WriteByte(ch)
		case ch == '\'' || ch == '"':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// screenValues are the letters of screen's options that take a value.
const screenValues = "cehpsSTt"

// screen reads screen [options] [command [args]]: the command runs in a
// new window, -s names the shell it runs, -c a config file, and -X sends
// a screen command to a running session: "stuff TEXT" types TEXT (code
// once a newline is typed), "exec" and "screen" run commands.
func (a *analyzer) screen(c *code, src string, args []field) {
	var seen options
	i := 0
options:
	for i < len(args) {
		f := args[i]
		if f.dyn || len(f.val) < 2 || f.val[0] != '-' {
			break
		}
		i++
		switch f.val {
		case "-ls", "-list", "-wipe", "-fn", "-fa", "-ln":
			seen = append(seen, option{name: f.val})
			continue
		case "-Logfile":
			if i < len(args) {
				seen = append(seen, option{name: f.val, val: args[i]})
				i++
			}
			continue
		}
		// Options cluster: -dmS NAME.
		for j := 1; j < len(f.val); j++ {
			o := option{name: "-" + f.val[j:j+1]}
			if strings.IndexByte(screenValues, f.val[j]) >= 0 {
				if j < len(f.val)-1 {
					o.val = staticField(f.val[j+1:])
				} else if i < len(args) {
					o.val = args[i]
					i++
				}
				seen = append(seen, o)
				break
			}
			seen = append(seen, o)
			if f.val[j] == 'X' {
				break options
			}
		}
	}
	if o, ok := seen.get("-c"); ok && !nullConfig(o.val) {
		a.dynamic(c, src)
	}
	if o, ok := seen.get("-s"); ok {
		a.run(c.with("screen -s"), src, []field{o.val}, nil)
	}
	rest := args[i:]
	if !seen.has("-X") {
		if len(rest) > 0 {
			a.run(c.with("screen"), src, rest, nil)
		}
		return
	}
	if len(rest) == 0 || rest[0].dyn {
		if len(rest) > 0 {
			a.dynamic(c, src)
		}
		return
	}
	switch rest[0].val {
	case "stuff":
		if len(rest) > 1 {
			text := rest[1]
			if !text.dyn {
				text = staticField(screenEscapes(text.val))
			}
			a.codeFields(c, "screen -X stuff", src, []field{text}, nil)
		}
	case "exec", "screen":
		ops := rest[1:]
		for len(ops) > 0 && !ops[0].dyn && strings.HasPrefix(ops[0].val, "-") {
			ops = ops[1:]
		}
		if len(ops) > 0 {
			a.run(c.with("screen -X "+rest[0].val), src, ops, nil)
		}
	}
}

// screenEscapes decodes the ^X and backslash escapes screen reads in a
// string it stuffs: ^M and \n are newlines.
func screenEscapes(s string) string {
	r := strings.NewReplacer("^M", "\n", "^J", "\n", `\n`, "\n", `\r`, "\n", `\015`, "\n", `\012`, "\n")
	return r.Replace(s)
}

// socat reads the EXEC: and SYSTEM: addresses of socat: EXEC runs a
// program with its words, SYSTEM a shell command. An address ends at its
// first unescaped comma, where its options begin.
func (a *analyzer) socat(c *code, src string, args []field) {
	for _, f := range args {
		lower := strings.ToLower(f.approx)
		var kind string
		switch {
		case strings.HasPrefix(lower, "exec:"):
			kind = "exec:"
		case strings.HasPrefix(lower, "system:"):
			kind = "system:"
		default:
			continue
		}
		if f.dyn {
			a.dynamic(c, src)
			continue
		}
		cmd := f.val[len(kind):]
		if end := unescapedComma(cmd); end >= 0 {
			cmd = cmd[:end]
		}
		cmd = strings.ReplaceAll(cmd, `\,`, ",")
		a.codeFields(c, "socat "+strings.ToUpper(kind), src, []field{staticField(cmd)}, network("socat"))
	}
}

// network is the stdin of a program a tool connects to a socket: text
// known only at run time, so that a shell there runs code nobody wrote
// in the command string.
func network(tool string) *input {
	return &input{kind: inDynamic, via: tool}
}

func unescapedComma(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ',':
			return i
		}
	}
	return -1
}

// netcat reads the programs nc, ncat and netcat connect to their socket:
// -e PROGRAM (and ncat's --exec) runs a program, -c and --sh-exec a shell
// command.
func (a *analyzer) netcat(c *code, name, src string, args []field) {
	for _, v := range optionValues(args, []string{"-e", "--exec"}) {
		a.run(c.with(name+" -e"), src, []field{v}, network(name))
	}
	for _, v := range optionValues(args, []string{"-c", "--sh-exec"}) {
		a.codeFields(c, name+" -c", src, []field{v}, network(name))
	}
	for _, v := range optionValues(args, []string{"--lua-exec"}) {
		if v.dyn || v.val != "" {
			a.dynamic(c, src)
		}
	}
}

// fdExec reads fd's -x/--exec and -X/--exec-batch: the command after it,
// up to ";", runs with each path found.
func (a *analyzer) fdExec(c *code, src string, args []field) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		if f.dyn || f.val != "-x" && f.val != "--exec" && f.val != "-X" && f.val != "--exec-batch" {
			continue
		}
		j := i + 1
		for j < len(args) && (args[j].dyn || args[j].val != ";") {
			j++
		}
		if j > i+1 {
			a.steps += findWeight
			a.run(c.with("fd "+f.val), src, replaceWords(args[i+1:j], "{}", nil), nil)
		}
		i = j
	}
}

var atOpts = opts{short: "qftT"}

// at reads at and batch: the commands they read on stdin (or from -f FILE,
// which the command string does not show) run later, here, with sh.
// -l, -r, -c, -d and atq, atrm only list, remove or print jobs.
func (a *analyzer) at(c *code, name, src string, args []field, in *input) {
	_, seen := atOpts.parse(args)
	if seen.has("-l", "-r", "-d", "-c", "-V") {
		return
	}
	if f, ok := seen.get("-f"); ok {
		if file, ok := a.scriptFile(f.val, in); ok {
			a.stdinCode(c, c.host, c.via, name+" -f", src, file)
			return
		}
		a.dynamic(c, src)
		return
	}
	a.stdinCode(c, c.host, c.via, name, src, in)
}

var crontabOpts = opts{short: "uc"}

// crontab reads crontab [-u user] FILE|-: the table it installs runs its
// commands later, here. A table read on stdin is read line by line; a
// file the command string does not show is dynamic. -l, -r and -e list,
// remove or edit the table.
func (a *analyzer) crontab(c *code, src string, args []field, in *input) {
	i, seen := crontabOpts.parse(args)
	if seen.has("-l", "-r", "-e", "-V", "-T") {
		return
	}
	table := in
	if i < len(args) && (args[i].dyn || args[i].val != "-") {
		f, ok := a.scriptFile(args[i], in)
		if !ok {
			a.dynamic(c, src)
			return
		}
		table = f
	}
	switch {
	case table == nil || table.kind == inFile:
		a.dynamic(c, src)
	case table.kind == inDynamic:
		a.dynamic(c, src)
		a.crontabLines(c, src, table.code)
	default:
		a.crontabLines(c, src, table.text)
	}
}

// maxCrontabLines bounds the lines of a crontab read.
const maxCrontabLines = 4096

// crontabLines analyses the commands of a user crontab: each line that is
// not a comment or an assignment has five time fields (or an @keyword)
// and then a command, which runs up to its first unescaped %.
func (a *analyzer) crontabLines(c *code, src, text string) {
	lines := strings.Split(text, "\n")
	if len(lines) > maxCrontabLines {
		a.unparsed(text, "crontab too long", c.host, c.via)
		return
	}
	for _, l := range lines {
		l = strings.TrimLeft(l, " \t")
		if l == "" || l[0] == '#' {
			continue
		}
		fields := 5
		if l[0] == '@' {
			fields = 1
		} else if name, _, ok := strings.Cut(l, "="); ok && validName(strings.TrimSpace(name)) {
			continue
		}
		rest := l
		for k := 0; k < fields; k++ {
			rest = strings.TrimLeft(rest, " \t")
			end := strings.IndexAny(rest, " \t")
			if end < 0 {
				rest = ""
				break
			}
			rest = rest[end:]
		}
		cmd := strings.TrimSpace(rest)
		for k := 0; k < len(cmd); k++ {
			if cmd[k] == '\\' {
				k++
			} else if cmd[k] == '%' {
				cmd = cmd[:k]
				break
			}
		}
		if cmd != "" {
			a.codeAt(c, cmd, c.host, appendVia(c.via, "crontab"), nil)
		}
	}
}
