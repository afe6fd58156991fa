package shell

// Invocation is one command that would execute: its normalised name, its
// argument words, the host it runs on and the data it receives.
type Invocation struct {
	// Name is the command name as the shell would look it up, normalised:
	// "/usr/bin/gh", "\gh", "\"gh\"" and "g''h" all become "gh".
	Name string `json:"name"`
	// Path is the command as written when that is a path ("/tmp/x",
	// "./bin/tool"), which the name was taken from: it says which file
	// runs. It is empty for a name looked up in $PATH.
	Path string `json:"path,omitempty"`
	// Args are the argument words after the name, with quotes removed. A
	// word with a part known only at run time ($VAR, $(...), globs are
	// static) keeps its source text and is marked in ArgDynamic.
	Args []string `json:"args"`
	// ArgDynamic, when not nil, has one entry per Args element, true where
	// the word holds a part known only at run time.
	ArgDynamic []bool `json:"arg_dynamic,omitempty"`
	// Host is the host the command runs on when it came from the remote
	// command of ssh; it is empty for a local command.
	Host string `json:"host,omitempty"`
	// Payload holds the texts the command receives as data, known
	// statically: heredoc and here-string stdin, static text piped into it
	// (also by a { ...; } group or a subshell, or read by xargs), the
	// static output of a <(...) argument it reads as a file, and the
	// values of body-like flags (--body, -b, --message, -m, --title, -t,
	// body=, message= and title= fields, and "$(cat <<'EOF' ... EOF)" as
	// such a value).
	Payload []string `json:"payload,omitempty"`
	// Writes lists the files the command's output redirections write to,
	// its own and those of the statements around it ("{ a; b; } > f"),
	// as static text or, when known only at run time, as source text.
	// /dev/null and duplicated descriptors (>&2) are not writes.
	Writes []string `json:"writes,omitempty"`
	// Reads lists the files the command's input redirections read, its
	// own and those of the statements around it ("cat < f", "while read
	// l; do ...; done < f", "exec 3< f"), as static text or, when known
	// only at run time, as source text. Bash expands a pattern there to
	// the one file it matches. /dev/null is not listed.
	Reads []string `json:"reads,omitempty"`
	// Env lists the variables the command is given in its environment,
	// as NAME=VALUE: the assignments before it and those env and sudo
	// set, outermost first, and the text of a value known only at run
	// time. Variables exported by earlier commands are not listed.
	Env []string `json:"env,omitempty"`
	// Analysed is set on an ssh invocation whose remote code, the command
	// after the host, -o RemoteCommand or a script on its stdin, was
	// analysed: its commands are reported on their own, with Host set, and
	// what is known only at run time as Dynamic. An interactive session, or
	// a script read from a file, leaves it unset. The policy reads it; it
	// is not part of the JSON form.
	Analysed bool `json:"-"`
	// Remote is the code of an analysed remote command, as the host's
	// login shell reads it, for the policy to read also as cmd.exe and
	// PowerShell read it (a Windows host's login shell). It is not part
	// of the JSON form.
	Remote string `json:"-"`
	// Via lists the wrappers and shells the command was reached through,
	// outermost first, such as "sudo", "bash -c", "$(...)", "ssh web-01".
	Via []string `json:"via,omitempty"`
}

// Dynamic is a command position whose name is decided at run time, such as
// "$CMD arg" or "$(pick) arg", or code handed to a shell that is not static
// ("bash -c \"$X\"", "eval $X").
type Dynamic struct {
	// Source is the source text of the command.
	Source string `json:"source"`
	// Host is the host it runs on, as in Invocation.
	Host string   `json:"host,omitempty"`
	Via  []string `json:"via,omitempty"`
}

// Unparsed is text the analysis could not parse. Bash runs a script line by
// line, so the complete lines before a syntax error are still analysed and
// only the rest is reported here.
type Unparsed struct {
	// Text is the part of the source that was not analysed.
	Text string `json:"text"`
	// Err is the parser's message, with its line and column.
	Err  string   `json:"error"`
	Host string   `json:"host,omitempty"`
	Via  []string `json:"via,omitempty"`
	// Limit is set when the text is not analysed because it is past a
	// limit of the analysis, such as nesting too deep to follow, rather
	// than because it is not valid shell: it may well run.
	Limit bool `json:"limit,omitempty"`
}

// Analysis is the result of analysing one command string.
type Analysis struct {
	// Invocations are the commands that would run, in source order.
	Invocations []Invocation `json:"invocations"`
	// Dynamic lists the commands whose name cannot be known statically.
	Dynamic []Dynamic `json:"dynamic,omitempty"`
	// Unparsed lists the parts that could not be parsed.
	Unparsed []Unparsed `json:"unparsed,omitempty"`
}
