// Package shell analyses a shell command string into the commands that would
// run, the way bash would run them.
//
// In rewind's data flow the classify step hands the command of a shell tool
// call to [Analyze] and matches the policy's command rules against the
// [Invocation] values it returns. The analysis is exact rather than textual:
// only words in command position are commands, so a commit message, a quoted
// heredoc or an issue body that mentions "gh issue create" is data and never
// trips a rule, while the same text in a $(...) substitution, an unquoted
// heredoc's substitution or code handed to another shell does.
//
// The source is parsed with mvdan.cc/sh/v3/syntax in its bash dialect and
// walked. Where that parser differs from bash, the analysis follows bash:
//
//   - A heredoc whose delimiter has any quoted part (<<'EOF', <<"EOF",
//     <<E"O"F, <<\EOF) is data throughout.
//   - A carriage return is an ordinary word character, so a line "EOF\r"
//     does not end a body delimited by EOF.
//   - After a syntax error the complete lines before the failing command
//     still run and are analysed; the rest is reported as [Unparsed].
//
// Reporting conventions, which the policy relies on:
//
//   - Wrappers (sudo, doas, env, command, builtin, exec, nice, nohup, time,
//     timeout, stdbuf, ionice, xargs, watch, busybox, VAR=value prefixes,
//     and the table in wrappers.go: setsid, chroot, flock, unbuffer, script,
//     runuser, sg, sshpass, taskset, nsenter, unshare, systemd-run and more,
//     and subcommands such as "op run", "aws-vault exec", "uv run") are not
//     invocations of their own: only the command they run is reported,
//     with the wrapper recorded in Via. A wrapper that runs nothing, such as
//     "sudo -l", "env" or "command -v rm", is reported as a plain invocation.
//   - Code runners (bash -c, fish -c, sh <<EOF, echo ... | bash, eval,
//     su -c, flock -c, script -c, parallel, watch, and sudo -s, su or chroot
//     fed a script on stdin) are likewise not invocations: the code they run
//     is analysed and its commands are reported with Via such as "bash -c".
//     A shell that runs a script file or starts interactively is a plain
//     invocation.
//   - An alias defined by the command string (also through BASH_ALIASES)
//     expands, on the lines after its definition as in bash, into its
//     value followed by the rest of the command, which is analysed again;
//     a value ending in a blank makes the next word an alias too. A name
//     "hash -p" binds runs its program.
//   - Words are brace-expanded as bash does. A name matched against files
//     (a glob in command position, or among a wrapper's words), $"...",
//     and aliases, hashed names, builtins or subscripts decided at run
//     time are reported in Dynamic.
//   - ssh is always reported as an invocation with Host set to the host it
//     connects to (user@ stripped, -o HostName applied), and its remote
//     command (after options that may also follow the host, or -o
//     RemoteCommand, or a script on its stdin) is analysed as code whose
//     invocations carry the same Host and Via "ssh HOST"; the ssh
//     invocation is then marked Analysed. The local commands of its
//     options (ProxyCommand, LocalCommand, KnownHostsCommand) are analysed
//     as code here. autossh, dbclient, plink, mosh and sftp are reported
//     the same way, scp and rsync with Host set only when -o HostName
//     renames their hosts; legacy scp's remote paths, rsync --rsync-path
//     and sftp -s are code on the host (sshclients.go). find is reported
//     too, and each -exec command as well, with Via "find -exec".
//   - Code travels in options and variables: git's command keys, tar's
//     --to-command, tmux, screen, socat, nc -e, sed's e command, the
//     variables of envVars (PAGER, PROMPT_COMMAND, GIT_SSH_COMMAND, BASH_ENV
//     ...), the subscripts bash evaluates, prompt strings, and jobs at and
//     crontab schedule: a literal value is analysed as code, one known only
//     at run time is Dynamic (tools.go, reexpand.go).
//   - A script a shell, source or an interpreter reads from /dev/stdin, a
//     descriptor or a file the command string wrote is analysed as code
//     (descriptors.go). Interpreters (python, perl, ruby, node, php, awk)
//     have their code read for the processes it starts, which are analysed
//     as commands (interp.go); the interpreter is reported too.
//   - Every invocation lists the variables it is given, in Env.
//   - Static text reaches a command as stdin or as a file: from a heredoc,
//     a here-string, a pipe from echo, printf, cat or a { ...; } group or
//     subshell of them, or a <(...) of those, so "bash <(echo CODE)",
//     "source <(...)" and "bash < <(...)" run CODE. The words xargs reads
//     are appended to its command, or replace the -I string; when its
//     input is not static they, like find's {} and parallel's {}, are
//     arguments known only at run time (ArgDynamic). trap's action is code.
//   - A for loop over a few static words ("for vm in app-01 app-02") whose
//     body only reads its variable is analysed once per word, the variable
//     bound to it, so "ssh $vm reboot" runs on app-01 and on app-02.
//     Otherwise the variable, like any other, is known only at run time.
//   - Code that is only known at run time (a command name such as $CMD or
//     $(pick), "bash -c \"$X\"", "eval $X", "curl ... | bash") is reported in
//     Dynamic. Where the code text is partly static, its static skeleton is
//     analysed as well, so "bash -c \"rm -rf $DIR\"" reports rm too.
//
// The cost is linear in the input, and the memory is bounded by one
// command line: the source is parsed and walked a statement at a time, and
// [Scan] hands on the findings of each line once it is complete. What is
// past a limit is reported as Unparsed with Limit set, never guessed at:
// structure nested deeper than the parser's call depth allows (measured on
// the stack, so brackets and keywords in quoted text, comments and heredoc
// bodies do not count), a line that would cost more than 64 MiB to analyse,
// a simple command unwrapped through more than 64 wrappers, code handed
// to shells more than 16 levels deep or more than 4096 times, and
// interpreter code past its reader's bounds. docs/limits.md has the
// figures.
//
// The package's tables of commands, options and words are built on first
// use (sync.OnceValue), not as package variables: the hook starts a
// process for every tool call, and a call builds only the tables of the
// commands it holds.
package shell
