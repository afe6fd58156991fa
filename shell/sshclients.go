package shell

import (
	"strings"
	"sync"
)

// ssh and the programs built on it (scp, sftp, rsync, autossh, mosh,
// Dropbear's dbclient, PuTTY's plink) run code in three places: the remote
// command on the host; local commands that options name (ProxyCommand,
// LocalCommand, KnownHostsCommand, plink's -proxycmd, dbclient's -J, the
// ssh command rsync -e and scp -S run, the local sftp server of -D); and
// the remote program that rsync --rsync-path, sftp -s and mosh --server
// name. Options also rename the host (-o HostName) or read a config file
// that may do anything (-F). The analysis reads them all: local code is
// analysed where the client runs, remote code on the host it connects to,
// and the host reported is the one it connects to, or decided at run time.

var (
	sshOpts  = opts{short: "BbcDEeFIiJLlmOoPpQRSWw"}
	scpOpts  = opts{short: "cDFiJloPSX"}
	sftpOpts = opts{short: "BbcDFiJloPRSsX"}
)

// ssh reports the ssh invocation with the host it connects to and
// analyses the remote command, or a script on stdin, as code running on
// that host, and the local commands its options name as code running
// here. Like OpenSSH it reads options after the host too, unless a "--"
// came before the host, and takes -o RemoteCommand as the command when the
// command line has none.
func (a *analyzer) ssh(c *code, src string, args []field, in *input) {
	i, seen := sshOpts.parse(args)
	if i >= len(args) {
		a.invoke(c, c.host, "ssh", args, in)
		return
	}
	dest := args[i]
	remote := args[i+1:]
	if i == 0 || args[i-1].dyn || args[i-1].val != "--" {
		j, more := sshOpts.parse(remote)
		seen = append(seen, more...)
		remote = remote[j:]
	}
	connects := !seen.has("-V", "-G", "-O")
	if isTransport(dest) {
		// git or rsync runs this ssh with a host and command of its
		// own: only what its options run is this command's.
		if connects {
			a.sshLocal(c, src, seen, transportPlaceholder)
			if renamesHost(seen) {
				a.dynamic(c, src)
			}
		}
		return
	}
	host := sshHost(dest)
	if connects {
		a.sshLocal(c, src, seen, host)
		host = a.sshTarget(c, src, host, seen)
	}
	self := a.invoke(c, host, "ssh", args, in)
	if seen.has("-N", "-W", "-O", "-V", "-G") {
		return
	}
	if len(remote) == 0 {
		if cmd, ok := sshConfig(seen, "remotecommand"); ok && (cmd.dyn || !strings.EqualFold(cmd.val, "none")) {
			remote = []field{cmd}
		}
	}
	a.remoteSession(c, self, "ssh "+host, src, host, remote, in)
}

// remoteSession analyses the remote command of a session with host, or
// the script its remote shell reads on stdin, and marks the client's
// invocation, self, as analysed when either was read.
func (a *analyzer) remoteSession(c *code, self int, step, src, host string, remote []field, in *input) {
	via := appendVia(c.via, step)
	if len(remote) > 0 {
		a.out.Invocations[self].Analysed = true
		parts := make([]string, len(remote))
		for i, f := range remote {
			parts[i] = f.skel
		}
		a.out.Invocations[self].Remote = strings.Join(parts, " ")
		a.codeOn(c, host, via, src, remote, in)
		return
	}
	// Without a command the remote login shell reads stdin as a script.
	if a.stdinCode(c, host, via, step, src, in) {
		a.out.Invocations[self].Analysed = true
		a.out.Invocations[self].Remote = in.code
	}
}

// isTransport reports whether f stands for the host and command that a
// program running an ssh command adds (see transport).
func isTransport(f field) bool {
	return f.dyn && f.val == transportPlaceholder
}

// sshConfig returns the value of the first -o option for key among ssh's
// options ("Key=VALUE" or "Key VALUE", the key in any case), as OpenSSH
// takes the first value it obtains.
func sshConfig(seen options, key string) (field, bool) {
	for _, o := range seen {
		v := o.val
		// The key is static in approx even where the value is not.
		if o.name != "-o" || len(v.approx) <= len(key) || !strings.EqualFold(v.approx[:len(key)], key) {
			continue
		}
		sep := v.approx[len(key)]
		if sep != '=' && sep != ' ' && sep != '\t' {
			continue
		}
		cut := func(s string) string {
			if len(s) > len(key) && strings.EqualFold(s[:len(key)], key) {
				return strings.TrimLeft(s[len(key):], "= \t")
			}
			return s
		}
		return field{val: cut(v.val), approx: cut(v.approx), skel: cut(v.skel), dyn: v.dyn}, true
	}
	return field{}, false
}

// sshLocalCommands are the ssh_config keys whose value is a command ssh
// runs locally with the user's shell.
var sshLocalCommands = []struct{ key, label string }{
	{"proxycommand", "ssh -o ProxyCommand"},
	{"localcommand", "ssh -o LocalCommand"},
	{"knownhostscommand", "ssh -o KnownHostsCommand"},
}

// sshLocal analyses what ssh's options run here: the commands of
// ProxyCommand, LocalCommand and KnownHostsCommand (with %h as host),
// and reports as dynamic a config file (-F) or a library (-I,
// PKCS11Provider, SecurityKeyProvider) whose code the command string does
// not show, and jump hosts that are decided at run time or hold shell
// syntax, which older ssh passes to a shell.
func (a *analyzer) sshLocal(c *code, src string, seen options, host string) {
	for _, k := range sshLocalCommands {
		v, ok := sshConfig(seen, k.key)
		if !ok || !v.dyn && strings.EqualFold(v.val, "none") {
			continue
		}
		a.codeFields(c, k.label, src, []field{sshTokens(v, host, seen)}, nil)
	}
	if f, ok := seen.get("-F"); ok && !nullConfig(f.val) {
		a.dynamic(c, src)
	}
	for _, key := range []string{"include", "pkcs11provider", "securitykeyprovider"} {
		if v, ok := sshConfig(seen, key); ok && (v.dyn || !strings.EqualFold(v.val, "none")) {
			a.dynamic(c, src)
		}
	}
	if seen.has("-I") {
		a.dynamic(c, src)
	}
	jumps := []field{}
	for _, o := range seen {
		if o.name == "-J" {
			jumps = append(jumps, o.val)
		}
	}
	if v, ok := sshConfig(seen, "proxyjump"); ok {
		jumps = append(jumps, v)
	}
	for _, j := range jumps {
		if j.dyn || strings.ContainsAny(j.val, shellSyntax) {
			a.dynamic(c, src)
		}
	}
}

// shellSyntax are the characters that make a word more than one plain
// word to a shell.
const shellSyntax = "$`;|&<>()\n'\"\\ \t"

// codeSyntax are the characters with which a shell word runs code or
// more than its command: substitutions, lists, pipes and redirections.
const codeSyntax = "$`;|&<>()\n"

// nullConfig reports whether an ssh -F value reads no config at all.
func nullConfig(f field) bool {
	return !f.dyn && (f.val == "/dev/null" || strings.EqualFold(f.val, "none"))
}

// renamesHost reports whether ssh's options may make it connect to
// another host than the one written: -o HostName, or a config file.
func renamesHost(seen options) bool {
	if _, ok := sshConfig(seen, "hostname"); ok {
		return true
	}
	f, ok := seen.get("-F")
	return ok && !nullConfig(f.val)
}

// sshTarget returns the host ssh connects to for the destination host:
// -o HostName's value, in which %h stands for host and %% for %, or host.
// A value decided at run time, or with another token, is reported as such
// a host.
func (a *analyzer) sshTarget(c *code, src, host string, seen options) string {
	v, ok := sshConfig(seen, "hostname")
	if !ok {
		return host
	}
	if v.dyn {
		return v.val
	}
	var b strings.Builder
	for i := 0; i < len(v.val); i++ {
		if v.val[i] != '%' {
			b.WriteByte(v.val[i])
			continue
		}
		if i+1 < len(v.val) {
			i++
			switch v.val[i] {
			case 'h':
				b.WriteString(host)
				continue
			case '%':
				b.WriteByte('%')
				continue
			}
		}
		// Another token, known when ssh reads it.
		return "(HostName " + v.val + ")"
	}
	return b.String()
}

// sshTokens puts the host, port and user into the %-tokens of a local
// command, as ssh does before it runs the command.
func sshTokens(v field, host string, seen options) field {
	port := "22"
	if p, ok := seen.get("-p"); ok && !p.val.dyn {
		port = p.val.val
	}
	user := "user"
	if l, ok := seen.get("-l"); ok && !l.val.dyn {
		user = l.val.val
	}
	r := strings.NewReplacer("%%", "%", "%h", host, "%n", host, "%p", port, "%r", user)
	return field{val: r.Replace(v.val), approx: r.Replace(v.approx), skel: r.Replace(v.skel), dyn: v.dyn}
}

// sshHost returns the host of an ssh destination: [user@]host or
// ssh://[user@]host[:port].
func sshHost(f field) string {
	s := f.val
	uri := strings.HasPrefix(s, "ssh://")
	s = strings.TrimPrefix(s, "ssh://")
	if !f.dyn {
		if at := strings.LastIndexByte(s, '@'); at >= 0 {
			s = s[at+1:]
		}
	}
	if uri {
		if colon := strings.LastIndexByte(s, ':'); colon >= 0 && !strings.HasSuffix(s, "]") {
			s = s[:colon]
		}
		s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	}
	return s
}

// autossh runs ssh with the words after its own options (-M PORT, -f, -V).
func (a *analyzer) autossh(c *code, args []field, in *input) bool {
	i, seen := autosshOpts.parse(args)
	if seen.has("-V") {
		return false
	}
	// autossh takes its options before ssh's; the ones it does not know
	// are ssh's, so it hands on every word from the first of those.
	rest := args[i:]
	for k := 0; k < i; k++ {
		if o := args[k].val; !args[k].dyn && o != "-f" && !strings.HasPrefix(o, "-M") && (k == 0 || args[k-1].val != "-M") {
			rest = args[k:]
			break
		}
	}
	a.then(c.with("autossh"), append([]field{staticField("ssh")}, rest...), in)
	return true
}

var autosshOpts = opts{short: "M"}

// dbclientOpts are the options of Dropbear's client that take a value.
var dbclientOpts = opts{short: "pliLRWKIJcmboB"}

// dbclient reads Dropbear's client: dbclient [options]
// [user@]host[/port][,[user@]host[/port]...] [command]. The last hop is
// the host; -J names a local program to connect through.
func (a *analyzer) dbclient(c *code, src string, args []field, in *input) {
	i, seen := dbclientOpts.parse(args)
	if j, ok := seen.get("-J"); ok {
		a.codeFields(c, "dbclient -J", src, []field{j.val}, nil)
	}
	if i >= len(args) {
		a.invoke(c, c.host, "dbclient", args, in)
		return
	}
	host := sshHost(args[i])
	if !args[i].dyn {
		hops := strings.Split(host, ",")
		host = stripUser(hops[len(hops)-1])
		host, _, _ = strings.Cut(host, "/")
	}
	self := a.invoke(c, host, "dbclient", args, in)
	if seen.has("-N", "-B", "-V") {
		return
	}
	a.remoteSession(c, self, "dbclient "+host, src, host, args[i+1:], in)
}

// plinkValues are PuTTY plink's options that take a value; its options
// are whole words after one dash.
var plinkValues = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-load": true, "-P": true, "-l": true, "-proxycmd": true, "-sshlog": true, "-sshrawlog": true,
		"-i": true, "-hostkey": true, "-pwfile": true, "-pw": true, "-L": true, "-R": true, "-D": true,
		"-m": true, "-sercfg": true, "-nc": true, "-cert": true,
	}
})

// plink reads plink [options] [user@]host [command]: -proxycmd is a local
// command; -m reads the remote command from a file; -load takes the host
// from a saved session when none is written.
func (a *analyzer) plink(c *code, name, src string, args []field, in *input) {
	i := 0
	var seen options
	for i < len(args) {
		f := args[i]
		if f.dyn || len(f.val) < 2 || f.val[0] != '-' {
			break
		}
		i++
		o := option{name: f.val}
		if plinkValues()[f.val] && i < len(args) {
			o.val = args[i]
			i++
		}
		seen = append(seen, o)
	}
	if p, ok := seen.get("-proxycmd"); ok {
		host := ""
		if i < len(args) {
			host = sshHost(args[i])
		}
		r := strings.NewReplacer("%host", host, "%port", "22", "%%", "%")
		v := p.val
		a.codeFields(c, "plink -proxycmd", src, []field{{val: r.Replace(v.val), approx: r.Replace(v.approx), skel: r.Replace(v.skel), dyn: v.dyn}}, nil)
	}
	if i >= len(args) {
		host := c.host
		if seen.has("-load") {
			// The saved session names the host.
			a.dynamic(c, src)
		}
		a.invoke(c, host, name, args, in)
		return
	}
	host := sshHost(args[i])
	self := a.invoke(c, host, name, args, in)
	if seen.has("-N", "-nc", "-m", "-s") {
		return
	}
	a.remoteSession(c, self, "plink "+host, src, host, args[i+1:], in)
}

var moshOpts = opts{short: "p", long: []string{"client", "server", "ssh", "predict", "port", "bind-server", "family", "experimental-remote-ip", "predict-overwrite"}}

// mosh reads mosh [options] [--] [user@]host [--] [command...]: the
// command runs on the host, --ssh is the ssh command it connects with,
// --server the program it starts there.
func (a *analyzer) mosh(c *code, src string, args []field, in *input) {
	i, seen := moshOpts.parse(args)
	if i >= len(args) {
		a.invoke(c, c.host, "mosh", args, in)
		return
	}
	host := sshHost(args[i])
	remote := args[i+1:]
	j, more := moshOpts.parse(remote)
	seen = append(seen, more...)
	remote = remote[j:]
	if s, ok := seen.get("--ssh"); ok {
		a.transport(c, "mosh --ssh", src, s.val)
	}
	self := a.invoke(c, host, "mosh", args, in)
	if s, ok := seen.get("--server"); ok && (s.val.dyn || baseName(s.val.val) != "mosh-server") {
		a.codeOn(c, host, appendVia(c.via, "mosh --server"), src, []field{s.val}, nil)
	}
	if len(remote) > 0 {
		a.out.Invocations[self].Analysed = true
		a.codeOn(c, host, appendVia(c.via, "mosh "+host), src, remote, nil)
	}
}

// sshTools reads the options scp, sftp and rsync -e share with ssh: the
// local commands of -o, -S (the ssh program), -D (a local sftp server),
// and the host -o HostName names instead of host, which it returns ("" when
// none does).
func (a *analyzer) sshTools(c *code, label, src string, seen options, host string) string {
	a.sshLocal(c, src, seen, host)
	if s, ok := seen.get("-S"); ok {
		a.transport(c, label+" -S", src, s.val)
	}
	if d, ok := seen.get("-D"); ok {
		a.codeFields(c, label+" -D", src, []field{d.val}, nil)
	}
	if _, ok := sshConfig(seen, "hostname"); ok {
		return a.sshTarget(c, src, host, seen)
	}
	return ""
}

// scp reads scp [options] source... target: the options it passes to ssh,
// and a remote path holding shell syntax, which the legacy protocol (-O,
// and every scp before OpenSSH 9.0) hands to the remote shell as part of
// "scp -f PATH" for a source and "scp -t PATH" for the target.
func (a *analyzer) scp(c *code, src string, args []field, in *input) {
	i, seen := scpOpts.parse(args)
	operands := args[i:]
	first := ""
	for _, f := range operands {
		if h, _, ok := RemotePath(f.val); ok && !f.dyn {
			first = h
			break
		}
	}
	override := a.sshTools(c, "scp", src, seen, first)
	host := c.host
	if override != "" {
		host = override
	}
	a.invoke(c, host, "scp", args, in)
	for k, f := range operands {
		h, path, ok := RemotePath(f.approx)
		if !ok {
			continue
		}
		if override != "" {
			h = override
		}
		if f.dyn {
			if seen.has("-O") {
				a.dynamic(c, src)
			}
			continue
		}
		if !strings.ContainsAny(path, codeSyntax) {
			continue
		}
		mode := "scp -f "
		if k == len(operands)-1 {
			mode = "scp -t "
		}
		a.codeAt(c, mode+path, h, appendVia(c.via, "scp "+h), nil)
	}
}

// sftp reads sftp [options] [user@]host[:path]: its ssh options, the
// remote server -s names when it is a path, and the batch of commands it
// runs from -b FILE or stdin. A batch whose commands only read, with its
// local "!command" lines analysed as code here, marks the invocation
// analysed; one that writes, or that is read from a file, leaves it to
// the rules.
func (a *analyzer) sftp(c *code, src string, args []field, in *input) {
	i, seen := sftpOpts.parse(args)
	if i >= len(args) {
		a.invoke(c, c.host, "sftp", args, in)
		return
	}
	dest := args[i]
	host, path := sftpDest(dest)
	if o := a.sshTools(c, "sftp", src, seen, host); o != "" {
		host = o
	}
	self := a.invoke(c, host, "sftp", args, in)
	if s, ok := seen.get("-s"); ok && (s.val.dyn || strings.Contains(s.val.val, "/")) {
		a.codeOn(c, host, appendVia(c.via, "sftp -s"), src, []field{s.val}, nil)
	}
	batch := in
	if b, ok := seen.get("-b"); ok {
		switch f, isFile := a.scriptFile(b.val, in); {
		case !b.val.dyn && b.val.val == "-":
		case isFile:
			batch = f
		default:
			// A batch file the command string does not show.
			return
		}
	} else if path != "" && in == nil {
		// sftp host:file fetches the file.
		a.out.Invocations[self].Analysed = true
		return
	}
	switch {
	case batch == nil || batch.kind == inFile:
		return
	case batch.kind == inDynamic:
		a.dynamic(c, src)
		return
	}
	if a.sftpBatch(c, src, batch.text) {
		a.out.Invocations[self].Analysed = true
	}
}

// sftpDest returns the host and path of an sftp destination:
// [user@]host[:path] or sftp://[user@]host[:port][/path].
func sftpDest(f field) (host, path string) {
	if f.dyn {
		return f.val, ""
	}
	if h, p, ok := RemotePath(f.val); ok {
		return h, p
	}
	return stripUser(f.val), ""
}

// sftpReads are the sftp commands that change nothing on the host.
var sftpReads = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"bye": true, "cd": true, "df": true, "exit": true, "get": true, "reget": true, "help": true,
		"?": true, "lcd": true, "lls": true, "lmkdir": true, "lpwd": true, "ls": true, "dir": true,
		"lumask": true, "progress": true, "pwd": true, "quit": true, "version": true,
	}
})

// maxBatchLines bounds the lines of an sftp batch read.
const maxBatchLines = 4096

// sftpBatch analyses an sftp batch: "!command" lines are local code, the
// others sftp commands. It reports whether every command only reads.
func (a *analyzer) sftpBatch(c *code, src, text string) bool {
	reads := true
	lines := strings.Split(text, "\n")
	if len(lines) > maxBatchLines {
		a.unparsed(text, "sftp batch too long", c.host, c.via)
		return false
	}
	for _, l := range lines {
		l = strings.TrimLeft(strings.TrimSpace(l), "-@")
		switch {
		case l == "" || l[0] == '#':
		case l[0] == '!':
			if cmd := strings.TrimSpace(l[1:]); cmd != "" {
				a.codeAt(c, cmd, c.host, appendVia(c.via, "sftp !"), nil)
			} else {
				// "!" alone starts an interactive shell.
				a.dynamic(c, src)
			}
		default:
			word, _, _ := strings.Cut(l, " ")
			reads = reads && sftpReads()[strings.ToLower(word)]
		}
	}
	return reads
}

// rsyncValues are rsync's options that take a value as the next word.
var rsyncOpts = opts{short: "eBfTM@", long: []string{
	"rsh", "rsync-path", "filter", "exclude", "include", "exclude-from", "include-from", "files-from",
	"temp-dir", "partial-dir", "compare-dest", "copy-dest", "link-dest", "chmod", "chown", "log-file",
	"password-file", "block-size", "port", "timeout", "bwlimit", "remote-option", "max-size", "min-size",
	"max-delete", "modify-window", "suffix", "backup-dir", "compress-choice", "compress-level",
	"checksum-choice", "out-format", "log-file-format", "sockopts", "usermap", "groupmap", "iconv",
	"protocol", "address", "contimeout", "stop-after", "stop-at", "outbuf", "info", "debug",
	"skip-compress", "max-alloc", "write-batch", "only-write-batch", "read-batch", "early-input",
}}

// rsync reads rsync's remote shell (-e, --rsh) as a transport, and the
// remote program --rsync-path names as code on each remote host: bash
// runs "PROGRAM --server --sender ..." there for a source, "PROGRAM
// --server ..." for the target. Its options may come among the operands.
func (a *analyzer) rsync(c *code, src string, args []field, in *input) {
	var seen options
	var operands []field
	for rest := args; len(rest) > 0; {
		i, more := rsyncOpts.parse(rest)
		seen = append(seen, more...)
		if i > 0 && !rest[i-1].dyn && rest[i-1].val == "--" {
			operands = append(operands, rest[i:]...)
			break
		}
		if i < len(rest) {
			operands = append(operands, rest[i])
			i++
		}
		rest = rest[i:]
	}
	a.invoke(c, c.host, "rsync", args, in)
	for _, o := range seen {
		if o.name == "-e" || o.name == "--rsh" {
			a.transport(c, "rsync "+o.name, src, o.val)
		}
	}
	prog, ok := seen.get("--rsync-path")
	if !ok {
		return
	}
	for k, f := range operands {
		h, _, isRemote := RemotePath(f.approx)
		if !isRemote || strings.Contains(f.approx, "::") || strings.HasPrefix(f.approx, "rsync://") {
			continue
		}
		server := []field{prog.val, staticField("--server")}
		if k < len(operands)-1 {
			server = append(server, staticField("--sender"))
		}
		if f.dyn {
			h = f.val
		}
		a.codeOn(c, h, appendVia(c.via, "rsync --rsync-path"), src, server, nil)
	}
}

// RemotePath splits a remote path as scp, sftp and rsync write it:
// [user@]host:path, host::module, [user@][v6addr]:path, and
// scp://, sftp:// and rsync:// URIs ([user@]host[:port][/path]). A colon
// after a slash makes a local path, as it does for scp.
func RemotePath(word string) (host, path string, ok bool) {
	for _, scheme := range []string{"scp://", "rsync://", "sftp://", "ssh://"} {
		if rest, found := strings.CutPrefix(word, scheme); found {
			rest, path, _ = strings.Cut(rest, "/")
			h := stripUser(rest)
			if strings.HasPrefix(h, "[") {
				if end := strings.IndexByte(h, ']'); end > 0 {
					h = h[1:end]
				}
			} else if i := strings.LastIndexByte(h, ':'); i >= 0 {
				h = h[:i]
			}
			return h, path, h != ""
		}
	}
	if strings.HasPrefix(word, "[") {
		// [user@]host with an IPv6 address: [fe80::1]:path.
		end := strings.Index(word, "]:")
		if end < 0 {
			return "", "", false
		}
		return word[1:end], word[end+2:], end > 1
	}
	colon := strings.IndexByte(word, ':')
	if colon <= 0 {
		return "", "", false
	}
	if slash := strings.IndexByte(word, '/'); slash >= 0 && slash < colon {
		return "", "", false
	}
	h := stripUser(word[:colon])
	return h, strings.TrimPrefix(word[colon+1:], ":"), h != ""
}

func stripUser(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return s[i+1:]
	}
	return s
}
