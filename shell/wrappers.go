package shell

import (
	"slices"
	"strings"
	"sync"
)

// wrapper describes a command that runs another command given as its
// operands, or code given as an option's value, or a shell that reads its
// standard input. The wrappers with shapes of their own (sudo, env, ssh,
// xargs, watch and the like) are handled in run; this table holds the many
// that differ only in their options.
type wrapper struct {
	// opts are the options before the command; the letters and long names
	// listed take a value.
	opts opts
	// skip is the number of operands before the command: setsid's is 0,
	// chroot's NEWROOT and flock's lock file are 1.
	skip int
	// code names the option whose value is code run by a shell, as in
	// "flock FILE -c CODE" and "script -c CODE": its letter (or 0) and
	// long names, separated by "|".
	code     byte
	codeLong string
	// codeAfter is how many operands the code option may follow.
	codeAfter int
	// none lists the options with which the wrapper runs no command.
	none []string
	// dynamic lists the options with which the command it runs is known
	// only at run time (bwrap --args reads its words from a descriptor).
	dynamic []string
	// noCommand says that its operands are not a command (nix-shell's are
	// packages and files): only the code option runs one.
	noCommand bool
	// shell says that without a command it starts a shell, which reads the
	// commands on its standard input.
	shell bool
	// joined says that the operands are joined into one string and run by
	// sh -c, as sg does.
	joined bool
}

// wrappers are the plain wrappers, by command name.
var wrappers = sync.OnceValue(func() map[string]wrapper {
	return map[string]wrapper{
		"setsid":   {},
		"unbuffer": {},
		"chroot":   {opts: opts{long: []string{"userspec", "groups"}}, skip: 1, shell: true},
		"flock":    {opts: opts{short: "wE", long: []string{"timeout", "wait", "conflict-exit-code"}}, skip: 1, code: 'c', codeLong: "command", codeAfter: 1},
		// BSD script takes the command after the file; util-linux takes -c.
		"script":           {opts: opts{short: "EIOBTmot", long: []string{"echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit", "timing"}}, skip: 1, code: 'c', codeLong: "command", codeAfter: 1, shell: true},
		"runuser":          {opts: opts{short: "gGsuw", long: []string{"group", "supp-group", "shell", "user", "whitelist-environment"}}, code: 'c', codeLong: "command", codeAfter: 1, shell: true},
		"sg":               {skip: 1, code: 'c', codeAfter: 1, joined: true, shell: true},
		"newgrp":           {skip: 1, shell: true},
		"sshpass":          {opts: opts{short: "fdpP"}},
		"taskset":          {skip: 1, none: []string{"-p", "--pid"}},
		"chrt":             {opts: opts{short: "TPD", long: []string{"sched-runtime", "sched-period", "sched-deadline"}}, skip: 1, none: []string{"-p", "--pid", "-m", "--max"}},
		"nsenter":          {opts: opts{short: "tSG", long: []string{"target", "setuid", "setgid"}}, shell: true},
		"unshare":          {opts: opts{short: "SGRw", long: []string{"setuid", "setgid", "root", "wd", "propagation", "setgroups", "map-user", "map-group", "map-users", "map-groups", "kill-child"}}, shell: true},
		"pkexec":           {opts: opts{long: []string{"user"}}, shell: true},
		"fakeroot":         {opts: opts{short: "lsi", long: []string{"lib", "faked"}}, shell: true},
		"caffeinate":       {opts: opts{short: "tw"}},
		"torsocks":         {opts: opts{short: "uapP", long: []string{"user", "pass", "address", "port"}}},
		"proxychains":      {opts: opts{short: "f"}},
		"proxychains4":     {opts: opts{short: "f"}},
		"cgexec":           {opts: opts{short: "g"}},
		"firejail":         {},
		"dbus-run-session": {opts: opts{long: []string{"config-file", "dbus-daemon"}}},
		"xvfb-run":         {opts: opts{short: "efnpsw", long: []string{"error-file", "auth-file", "server-num", "xauth-protocol", "server-args", "wait"}}},
		"strace":           {opts: opts{short: "abeEIoOpPsSUX"}},
		"systemd-run":      {opts: opts{short: "pEuMHs", long: []string{"unit", "property", "description", "slice", "uid", "gid", "nice", "working-directory", "setenv", "machine", "host", "service-type", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive", "on-calendar", "timer-property", "path-property", "socket-property", "expand-environment", "slice-inherit"}}},
		"ssh-agent":        {opts: opts{short: "aEOPt"}, none: []string{"-k"}},
		"dbus-launch":      {opts: opts{long: []string{"config-file", "autolaunch"}}},
		"valgrind":         {},
		"ltrace":           {opts: opts{short: "aADeFlnosuwx"}, none: []string{"-p"}},
		"catchsegv":        {},
		"chpst":            {opts: opts{short: "ugUbenlL/mdopfcr"}},
		"numactl":          {opts: opts{short: "NmpiC", long: []string{"cpunodebind", "membind", "preferred", "interleave", "physcpubind"}}},
		"prlimit":          {opts: opts{short: "p", long: []string{"pid"}}, none: []string{"-p", "--pid"}},
		"eatmydata":        {},
		"nocache":          {},
		"chronic":          {},
		"ifne":             {},
		"daemonize":        {opts: opts{short: "ceEoplu"}},
		"run0":             {opts: opts{short: "ugDE", long: []string{"user", "group", "chdir", "setenv", "property", "description", "slice", "nice", "unit", "machine", "background", "shell-prompt-prefix"}}, shell: true},
		"bwrap": {opts: opts{long: []string{
			"args", "argv0", "unshare-user-try", "userns", "userns2", "pidns", "uid", "gid", "hostname", "chdir", "unsetenv",
			"lock-file", "sync-fd", "remount-ro", "exec-label", "file-label", "proc", "dev", "tmpfs", "mqueue", "dir",
			"seccomp", "add-seccomp-fd", "block-fd", "userns-block-fd", "info-fd", "json-status-fd", "cap-add", "cap-drop",
			"perms", "size", "overlay-src", "tmp-overlay", "ro-overlay",
		}, longN: map[string]int{
			"setenv": 2, "bind": 2, "bind-try": 2, "dev-bind": 2, "dev-bind-try": 2, "ro-bind": 2, "ro-bind-try": 2,
			"file": 2, "bind-data": 2, "ro-bind-data": 2, "symlink": 2, "chmod": 2, "bind-fd": 2, "ro-bind-fd": 2, "overlay": 3,
		}}, dynamic: []string{"--args"}},
		"rlwrap":    {opts: opts{short: "bCDefgHlOpPqsStwz", long: []string{"break-chars", "command-name", "history-no-dupes", "extra-char-after-completion", "file", "forget-matching", "history-filename", "logfile", "one-shot-rx", "prompt-colour", "pre-given", "quote-characters", "histsize", "substitute-prompt", "set-term-name", "wait-before-prompt", "filter"}}},
		"faketime":  {opts: opts{long: []string{"date-prog"}}, skip: 1},
		"npx":       {opts: opts{short: "p", long: []string{"package", "call"}}, code: 'c', codeLong: "call"},
		"pnpx":      {opts: opts{long: []string{"package"}}},
		"bunx":      {opts: opts{short: "p", long: []string{"package"}}},
		"nix-shell": {opts: opts{short: "pIAE", long: []string{"packages", "attr", "include", "arg", "argstr", "expr", "option", "keep", "unset"}, longN: map[string]int{"arg": 2, "argstr": 2, "option": 2}}, code: 0, codeLong: "run|command", codeAfter: 1 << 30, noCommand: true, shell: true},
	}
})

// subWrapper is how a tool of subWrappers runs a command.
type subWrapper struct {
	// sub is the subcommand, or several separated by "|".
	sub  string
	skip int
	opts opts
	// code names the options whose value is shell code, separated by
	// "|" (npm exec -c CODE).
	code string
	// argv names the options after which the command starts, separated
	// by "|" (nix develop -c CMD ARGS); without one, nothing runs.
	argv string
}

// subWrappers are tools whose subcommand runs a command: "op run -- CMD",
// "aws-vault exec PROFILE -- CMD", "uv run CMD". Their options are many
// and change between versions, so a "--" decides where the command starts
// when there is one; otherwise the listed options take a value.
var subWrappers = sync.OnceValue(func() map[string]subWrapper {
	return map[string]subWrapper{
		"op":         {sub: "run", opts: opts{long: []string{"env-file", "account", "config"}}},
		"aws-vault":  {sub: "exec", skip: 1, opts: opts{long: []string{"duration", "mfa-token", "region", "backend"}}},
		"doppler":    {sub: "run", opts: opts{short: "pc", long: []string{"project", "config", "token", "scope", "command"}}},
		"infisical":  {sub: "run", opts: opts{long: []string{"env", "path", "token", "projectId", "command"}}},
		"dotenvx":    {sub: "run", opts: opts{short: "f", long: []string{"env-file", "env"}}},
		"direnv":     {sub: "exec", skip: 1},
		"uv":         {sub: "run", opts: opts{short: "p", long: []string{"with", "python", "project", "directory", "env-file", "extra", "group", "package", "index", "with-requirements"}}},
		"poetry":     {sub: "run", opts: opts{short: "C", long: []string{"directory", "project"}}},
		"pipenv":     {sub: "run"},
		"pdm":        {sub: "run", opts: opts{short: "p", long: []string{"project"}}},
		"hatch":      {sub: "run"},
		"bundle":     {sub: "exec"},
		"mise":       {sub: "exec|x", opts: opts{short: "C", long: []string{"cd"}}},
		"asdf":       {sub: "exec"},
		"conda":      {sub: "run", opts: opts{short: "np", long: []string{"name", "prefix", "cwd"}}},
		"mamba":      {sub: "run", opts: opts{short: "np", long: []string{"name", "prefix", "cwd"}}},
		"micromamba": {sub: "run", opts: opts{short: "np", long: []string{"name", "prefix", "cwd"}}},
		"pixi":       {sub: "run|exec", opts: opts{short: "es", long: []string{"environment", "manifest-path", "spec"}}},
		"npm":        {sub: "exec|x", opts: opts{short: "pw", long: []string{"package", "workspace"}}, code: "-c|--call"},
		"pnpm":       {sub: "exec|dlx", opts: opts{long: []string{"package", "filter"}}, code: "-c|--shell-mode"},
		"yarn":       {sub: "exec|dlx", opts: opts{short: "p", long: []string{"package"}}},
		"nix":        {sub: "develop|shell", opts: opts{short: "f", long: []string{"file", "expr", "profile", "override-input", "arg", "argstr", "option"}}, argv: "-c|--command"},
	}
})

// wrapped handles a command of the wrappers table. It reports false when
// the wrapper runs nothing the command string shows, so that it is reported
// as a plain invocation.
func (a *analyzer) wrapped(c *code, name, src string, w wrapper, args []field, in *input) bool {
	if name == "sg" && len(args) > 0 && len(args[0].val) > 1 && args[0].val[0] == '-' {
		// sg takes no option before the group: this is ast-grep.
		return false
	}
	if w.code != 0 || w.codeLong != "" {
		for _, long := range strings.Split(w.codeLong, "|") {
			if code, ok := w.opts.codeOption(args, w.codeAfter, w.code, long); ok {
				label := name + " --" + long
				if w.code != 0 {
					label = name + " -" + string(w.code)
				}
				a.codeFields(c, label, src, []field{code}, in)
				return true
			}
		}
	}
	i, seen := w.opts.parse(args)
	if seen.has(w.none...) {
		return false
	}
	if seen.has(w.dynamic...) {
		a.dynamic(c, src)
		return false
	}
	if w.noCommand {
		i = len(args)
	}
	if name == "runuser" && !seen.has("-u", "--user") {
		// "runuser [-] USER" starts USER's shell; only -u takes a command.
		return a.stdinCode(c, c.host, appendVia(c.via, name), name, src, in)
	}
	if name == "sg" && i < len(args) && args[i].val == "-" && !args[i].dyn {
		i++
	}
	i += w.skip
	if i < len(args) {
		if w.joined {
			a.codeFields(c, name, src, args[i:], in)
		} else {
			a.then(c.with(name), args[i:], in)
		}
		return true
	}
	if w.shell {
		return a.stdinCode(c, c.host, appendVia(c.via, name), name, src, in)
	}
	return false
}

// subWrapped handles the tools of subWrappers.
func (a *analyzer) subWrapped(c *code, name, src string, args []field, in *input) bool {
	w := subWrappers()[name]
	if len(args) == 0 || args[0].dyn || !slices.Contains(strings.Split(w.sub, "|"), args[0].val) {
		return false
	}
	label := name + " " + args[0].val
	args = args[1:]
	for j, f := range args {
		if f.dyn {
			continue
		}
		if f.val == "--" {
			break
		}
		name, val, hasVal := strings.Cut(f.val, "=")
		if w.code != "" && slices.Contains(strings.Split(w.code, "|"), name) {
			code := staticField(val)
			if !hasVal {
				if j+1 >= len(args) {
					return false
				}
				code = args[j+1]
			}
			a.codeFields(c, label+" "+name, src, []field{code}, in)
			return true
		}
		if w.argv != "" && slices.Contains(strings.Split(w.argv, "|"), f.val) {
			if j+1 >= len(args) {
				return false
			}
			a.then(c.with(label), args[j+1:], in)
			return true
		}
	}
	if w.argv != "" {
		return false
	}
	i := -1
	for j, f := range args {
		if !f.dyn && f.val == "--" {
			i = j + 1
			break
		}
	}
	if i < 0 {
		i, _ = w.opts.parse(args)
		i += w.skip
	}
	if i >= len(args) {
		return false
	}
	a.then(c.with(label), args[i:], in)
	return true
}

// codeOption returns the value of an option whose value is code: -c CODE,
// -cCODE, a cluster ending in the letter (-lc CODE), --long=CODE or
// --long CODE. The option may follow up to skip operands, as in
// "su USER -c CODE" and "flock FILE -c CODE"; o tells the options that take
// a value, so that a value is not taken for an operand.
func (o opts) codeOption(args []field, skip int, letter byte, long string) (field, bool) {
	operands := 0
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.val
		switch {
		case f.dyn || s == "-":
			continue
		case len(s) < 2 || s[0] != '-':
			if operands++; operands > skip {
				return field{}, false
			}
			continue
		case s == "--":
			return field{}, false
		case strings.HasPrefix(s, "--"):
			name, val, hasVal := strings.Cut(s[2:], "=")
			isCode := long != "" && name == long
			switch {
			case isCode && hasVal:
				return staticField(val), true
			case isCode && i+1 < len(args):
				return args[i+1], true
			case !hasVal && slices.Contains(o.long, name):
				i++
			}
			continue
		}
		for j := 1; j < len(s); j++ {
			switch {
			case s[j] == letter && j < len(s)-1:
				return staticField(s[j+1:]), true
			case s[j] == letter:
				if i+1 < len(args) {
					return args[i+1], true
				}
				return field{}, false
			case strings.IndexByte(o.short, s[j]) >= 0:
				if j == len(s)-1 {
					i++
				}
				j = len(s)
			}
		}
	}
	return field{}, false
}

var parallelOpts = opts{short: "aCdEIjLnNPS", long: []string{"arg-file", "colsep", "delimiter", "eof", "jobs", "max-lines", "max-args", "max-replace-args", "sshlogin", "sshloginfile", "results", "joblog", "tmpdir", "timeout", "delay", "retries", "env", "tag-string", "tagstring", "basefile", "workdir", "memfree", "load", "halt", "transferfile", "return"}}

// parallel handles GNU parallel: its command template runs with arguments
// from the ::: lists or stdin, each job through a shell; without a
// template each argument, or each line of stdin, is a command.
func (a *analyzer) parallel(c *code, src string, args []field, in *input) bool {
	i, _ := parallelOpts.parse(args)
	sep := len(args)
	for j := i; j < len(args); j++ {
		if v := args[j].val; !args[j].dyn && (v == ":::" || v == "::::" || v == ":::+" || v == "::::+") {
			sep = j
			break
		}
	}
	if sep > i {
		// The template's replacement strings, or the arguments appended
		// to a template without one, are known only at run time.
		tmpl := args[i:sep]
		found := false
		for _, tok := range []string{"{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}"} {
			for _, w := range tmpl {
				found = found || !w.dyn && strings.Contains(w.val, tok)
			}
			tmpl = replaceWords(tmpl, tok, nil)
		}
		tmpl = slices.Clone(tmpl)
		if !found {
			tmpl = append(tmpl, xargsInput)
		}
		// parallel quotes what it puts in: an argument, not code, unless
		// it is the command itself.
		for k := 1; k < len(tmpl); k++ {
			tmpl[k].dyn = k < sep-i && args[i+k].dyn
		}
		a.codeFields(c, "parallel", src, tmpl, nil)
		return true
	}
	if sep < len(args) {
		for _, f := range args[sep+1:] {
			if v := f.val; !f.dyn && strings.HasPrefix(v, ":::") {
				break
			}
			a.codeFields(c, "parallel", src, []field{f}, nil)
		}
		return true
	}
	return a.stdinCode(c, c.host, appendVia(c.via, "parallel"), "parallel", src, in)
}

// wrapperName reports whether name is a command of wrappers or
// subWrappers (a test holds it to the tables): a switch, so that a command
// that is neither builds no table.
func wrapperName(name string) bool {
	switch name {
	case "asdf", "aws-vault", "bundle", "bunx", "bwrap", "caffeinate", "catchsegv", "cgexec", "chpst",
		"chronic", "chroot", "chrt", "conda", "daemonize", "dbus-launch", "dbus-run-session", "direnv",
		"doppler", "dotenvx", "eatmydata", "fakeroot", "faketime", "firejail", "flock", "hatch", "ifne",
		"infisical", "ltrace", "mamba", "micromamba", "mise", "newgrp", "nix", "nix-shell", "nocache",
		"npm", "npx", "nsenter", "numactl", "op", "pdm", "pipenv", "pixi", "pkexec", "pnpm", "pnpx",
		"poetry", "prlimit", "proxychains", "proxychains4", "rlwrap", "run0", "runuser", "script",
		"setsid", "sg", "ssh-agent", "sshpass", "strace", "systemd-run", "taskset", "torsocks",
		"unbuffer", "unshare", "uv", "valgrind", "xvfb-run", "yarn":
		return true
	}
	return false
}

// vimName reports whether name is a program that reads Ex commands: vim
// and its kin.
func vimName(name string) bool {
	switch name {
	case "evim", "ex", "gview", "gvim", "mvim", "nvi", "nvim", "vi", "view", "vim", "vimdiff":
		return true
	}
	return false
}
