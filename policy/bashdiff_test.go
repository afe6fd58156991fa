package policy

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

type bashCase struct {
	name  string
	cmd   string
	runs  bool
	needs []string
	// real lists the stubs left out, so that the real program runs.
	real []string
}

// bashCases are constructs whose code bash runs although no literal
// command shows it, each with a harmless sibling that runs nothing. The
// differential test runs each with real bash, PATH holding logging stubs
// of the commands an agent could reach a VM with, and checks rewind's
// verdict against what bash really ran: when a stub ran, the verdict is
// not none; when none ran, it is none.
//
// In cmd, {{stubs}} stands for the folder of stubs and {{work}} for the
// folder bash runs in, which holds a copy of each stub too (for patterns
// such as ./[g]ovc). runs says whether bash runs a stub, which the test
// checks first, so that a case that no longer shows what it says fails.
// needs lists the programs besides bash the case needs; it is skipped
// without them.
var bashCases = []bashCase{
	// Brace expansion makes the command name from literal text.
	{"braces make the command", "{ssh,web-01,reboot}", true, nil, nil},
	{"braces make the name", "s{s,}h web-01 reboot", true, nil, nil},
	{"an empty brace word drops out", "{,}ssh web-01 reboot", true, nil, nil},
	{"braces after a wrapper", "sudo() { \"$@\"; }; sudo {ssh,web-01} reboot", true, nil, nil},
	{"braces in a subcommand", "govc vm.{destroy,info} web-01", true, nil, nil},
	{"braces in an argument", "echo {ssh,web-01,reboot}", false, nil, nil},
	{"quoted braces", "\"{ssh,web-01,reboot}\" 2>/dev/null || true", false, nil, nil},
	// A pattern in command position names whatever files match.
	{"glob in a path", "{{stubs}}/ss? web-01 reboot", true, nil, nil},
	{"bracket glob", "./[g]ovc vm.destroy web-01", true, nil, nil},
	{"star glob", "./gov* vm.destroy web-01", true, nil, nil},
	{"glob in a wrapper's word", "env -u s[cf]* echo web-01", true, nil, nil},
	{"glob as an argument", "ls {{stubs}}/ss? >/dev/null", false, nil, nil},
	{"escaped glob", "echo \\[g\\]ovc", false, nil, nil},
	{"test bracket", "[ -x ./govc ] && echo yes", false, nil, nil},

	// Names bash resolves through aliases and hashed paths.
	{"alias ending in a blank", "shopt -s expand_aliases\nalias a='command ' b='ssh web-01 reboot'\na b", true, nil, nil},
	{"alias through its array", "shopt -s expand_aliases\nBASH_ALIASES[x]='ssh web-01 reboot'\nx", true, nil, nil},
	{"aliases as a list", "shopt -s expand_aliases\nBASH_ALIASES=([x]='ssh web-01 reboot')\nx", true, nil, nil},
	{"hashed path", "hash -p {{stubs}}/ssh foo; foo web-01 reboot", true, nil, nil},
	{"hashed path used by an earlier function", "f() { foo web-01 reboot; }; hash -p {{stubs}}/ssh foo; f", true, nil, nil},
	{"hashed harmless path", "hash -p /bin/echo say; say hi", false, nil, nil},
	{"function through the environment", "env 'BASH_FUNC_ls%%=() { ssh web-01 reboot; }' bash -c ls", true, nil, nil},
	{"alias prose", "echo \"alias b='ssh web-01 reboot'\"", false, nil, nil},

	// Scripts read from standard input or another descriptor.
	{"source stdin", "source /dev/stdin <<<'ssh web-01 reboot'", true, nil, nil},
	{"dot a descriptor", ". /dev/fd/3 3<<<'ssh web-01 reboot'", true, nil, nil},
	{"descriptor set by exec", "exec 3<<<'ssh web-01 reboot'; source /dev/fd/3", true, nil, nil},
	{"bash runs stdin", "bash /dev/stdin <<<'ssh web-01 reboot'", true, nil, nil},
	{"piped to source", "echo 'ssh web-01 reboot' | source /dev/stdin", true, nil, nil},
	{"proc descriptor", "source /proc/self/fd/0 <<<'ssh web-01 reboot'", true, nil, nil},
	{"descriptor of a group", "{ source /dev/fd/4; } 4<<<'ssh web-01 reboot'", true, nil, nil},
	{"stdin of code handed on", "bash -c 'source /dev/stdin' <<<'ssh web-01 reboot'", true, nil, nil},
	{"BASH_ENV", "BASH_ENV=<(echo 'ssh web-01 reboot') bash -c true", true, nil, nil},
	{"script written then run", "cat > x.sh <<'EOF'\ngovc vm.destroy web-02\nEOF\nbash x.sh", true, nil, nil},
	{"fifo fed by echo", "mkfifo p; echo 'govc vm.destroy web-02' > p & bash < p", true, []string{"mkfifo"}, nil},
	{"coproc shell", "coproc bash; echo 'govc vm.destroy web-02' >&\"${COPROC[1]}\"; exec {COPROC[1]}>&-; wait", true, nil, nil},
	{"locale string", "eval $\"govc vm.destroy web-02\"", true, nil, nil},
	{"script written then run by its path", "echo 'ssh web-01 reboot' > run.sh && chmod +x run.sh && ./run.sh", true, nil, nil},
	{"script written then run by env", "echo 'ssh web-01 reboot' > run.sh && chmod +x run.sh && env ./run.sh", true, nil, nil},
	{"script run by its name from PATH", "mkdir -p bin && echo 'ssh web-01 reboot' > bin/deploy && chmod +x bin/deploy && PATH=$PWD/bin:$PATH deploy", true, nil, nil},
	{"script with a shebang", "printf '#!/bin/sh\\nssh web-01 reboot\\n' > r && chmod +x r && ./r", true, nil, nil},
	{"python script run by its path", "printf '#!/usr/bin/env python3\\nimport os\\nos.system(\"ssh web-01 reboot\")\\n' > r && chmod +x r && ./r", true, []string{"python3"}, nil},
	{"script written by tee", "echo 'ssh web-01 reboot' | tee x >/dev/null; bash x", true, nil, nil},
	{"script copied", "echo 'ssh web-01 reboot' > a; cp a b; bash b", true, nil, nil},
	{"script renamed", "echo 'ssh web-01 reboot' > a; mv a b; bash b", true, nil, nil},
	{"script written by dd", "dd of=x status=none <<<'ssh web-01 reboot'; bash x", true, []string{"dd"}, nil},
	{"script written through a descriptor", "exec 3> x; echo 'ssh web-01 reboot' >&3; exec 3>&-; bash x", true, nil, nil},
	{"script concatenated by cat", "echo 'ssh web-01 reboot' > a; cat a > b; bash b", true, nil, nil},
	{"git hook written then run", "git init -q . && printf '#!/bin/sh\\nssh web-01 reboot\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && git -c user.name=n -c user.email=n@x commit -q --allow-empty -m a", true, []string{"git"}, nil},
	{"git hooks folder", "mkdir h && printf '#!/bin/sh\\nssh web-01 reboot\\n' > h/pre-commit && chmod +x h/pre-commit && git init -q . && git -c core.hooksPath=h -c user.name=n -c user.email=n@x commit -q --allow-empty -m a", true, []string{"git"}, nil},
	{"harmless script run by its path", "echo 'echo hi' > run.sh && chmod +x run.sh && ./run.sh", false, nil, nil},
	{"harmless script copied", "printf 'echo hi\\n' > a; cp a b; bash b", false, nil, nil},
	{"script written, read as data", "echo 'ssh web-01 reboot' > notes.txt; cat notes.txt; grep ssh notes.txt", false, nil, nil},
	{"harmless script written then run", "echo 'echo hi' > x.sh; bash x.sh", false, nil, nil},
	{"harmless stdin script", "source /dev/stdin <<<'echo hi'", false, nil, nil},
	{"descriptor read as data", "cat /dev/fd/3 3<<<'ssh web-01 reboot'", false, nil, nil},

	// Text bash expands again: subscripts, arithmetic, prompts.
	{"declare subscript", "declare 'a[$(ssh web-01 reboot)]=1'", true, nil, nil},
	{"unset subscript", "a=(1); unset 'a[$(ssh web-01 reboot)]'", true, nil, nil},
	{"printf -v subscript", "printf -v 'a[$(ssh web-01 reboot)]' x", true, nil, nil},
	{"read subscript", "read 'a[$(ssh web-01 reboot)]' <<< x", true, nil, nil},
	{"test -v subscript", "test -v 'a[$(ssh web-01 reboot)]'", true, nil, nil},
	{"[ -v subscript", "[ -v 'a[$(ssh web-01 reboot)]' ]", true, nil, nil},
	{"test -v later in the expression", "test -n x -a -v 'a[$(ssh web-01 reboot)]'", true, nil, nil},
	{"[[ -v subscript", "[[ -v 'a[$(ssh web-01 reboot)]' ]]", true, nil, nil},
	{"[[ arithmetic operand", "[[ 'a[$(ssh web-01 reboot)]' -eq 1 ]]", true, nil, nil},
	{"let subscript", "let 'x=a[$(ssh web-01 reboot)]'", true, nil, nil},
	{"arithmetic command string", "(( 'a[$(ssh web-01 reboot)]' ))", true, nil, nil},
	{"variable evaluated as arithmetic", "x='a[$(ssh web-01 reboot)]'; (( x ))", true, nil, nil},
	{"indirect expansion", "x='a[$(ssh web-01 reboot)]'; echo ${!x}", true, nil, nil},
	{"quoted index", "a=(1 2); echo ${a['$(ssh web-01 reboot)']}", true, nil, nil},
	{"integer variable", "declare -i x; x='a[$(ssh web-01 reboot)]'", true, nil, nil},
	{"prompt expansion", "x='$(ssh web-01 reboot)'; echo \"${x@P}\"", true, nil, nil},
	{"traced prompt", "PS4='$(ssh web-01 reboot)'; set -x; true", true, nil, nil},
	{"mapfile callback", "mapfile -C 'ssh web-01 reboot' -c 1 <<<x", true, nil, nil},
	{"subscript prose", "echo 'a[$(ssh web-01 reboot)]'", false, nil, nil},
	{"plain unset", "a=(1); unset 'a[0]'", false, nil, nil},
	{"test compares a string", "test 'a[$(ssh web-01 reboot)]' = x", false, nil, nil},
	{"value holding a command", "x='$(ssh web-01 reboot)'; echo \"$x\"", false, nil, nil},

	// Options whose value is a command, run by the real program.
	{"ssh ProxyCommand", "ssh -o ProxyCommand='govc vm.destroy web-02' -o BatchMode=yes -o ConnectTimeout=5 db-01 true", true, []string{"ssh"}, []string{"ssh"}},
	{"ssh -G prints the ProxyCommand", "ssh -G -o ProxyCommand='govc vm.destroy web-02' db-01 >/dev/null", false, []string{"ssh"}, []string{"ssh"}},
	{"scp -S", "scp -S govc 'db-01:/etc/hosts' ./hosts", true, []string{"scp"}, []string{"scp"}},
	{"scp with ssh's ProxyCommand", "scp -o ProxyCommand='govc vm.destroy web-02' -o BatchMode=yes 'db-01:/etc/hosts' ./hosts", true, []string{"scp", "ssh"}, []string{"scp", "ssh"}},
	{"sftp local server", "sftp -D 'govc vm.destroy web-02' -b - db-01 <<<'ls'", true, []string{"sftp"}, []string{"sftp"}},
	{"git ssh command", "GIT_SSH_COMMAND='govc vm.destroy web-02 #' git ls-remote ssh://db-01/repo", true, []string{"git"}, nil},
	{"git ssh command option", "git -c core.sshCommand='govc vm.destroy web-02 #' ls-remote ssh://db-01/repo", true, []string{"git"}, nil},
	{"git ! alias", "git -c alias.x='!govc vm.destroy web-02' x", true, []string{"git"}, nil},
	{"git alias kept in the config", "git init -q . && git config alias.x '!govc vm.destroy web-02' && git x", true, []string{"git"}, nil},
	{"git ext remote", "git -c protocol.ext.allow=always ls-remote 'ext::govc vm.destroy web-02'", true, []string{"git"}, nil},
	{"git rebase --exec", "git init -q . && git -c user.name=n -c user.email=n@x commit -q --allow-empty -m a && git -c user.name=n -c user.email=n@x commit -q --allow-empty -m b && git -c user.name=n -c user.email=n@x rebase -q -x 'govc vm.destroy web-02' HEAD~1", true, []string{"git"}, nil},
	{"git alias of git words", "git -c alias.st='status --short' st >/dev/null 2>&1; true", false, []string{"git"}, nil},
	{"git commit quoting a config", "git init -q . && git -c user.name=n -c user.email=n@x commit -q --allow-empty -m \"git -c alias.x='!govc vm.destroy web-02' x\"", false, []string{"git"}, nil},
	{"tar checkpoint action", "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='govc vm.destroy web-02' .", true, []string{"tar"}, nil},
	{"tar to-command", "tar -cf - ./govc | tar -xf - --to-command='govc vm.destroy web-02'", true, []string{"tar"}, nil},
	{"tar compress program", "tar -I 'govc vm.destroy web-02' -cf x.tar ./govc; true", true, []string{"tar"}, nil},
	{"tar traditional cluster", "tar cIf 'govc vm.destroy web-02' x.tar ./govc; true", true, []string{"tar"}, nil},
	{"tar checkpoint dots", "tar -cf /dev/null --checkpoint=1 --checkpoint-action=dot . 2>/dev/null", false, []string{"tar"}, nil},
	{"ssh-agent runs a command", "ssh-agent govc vm.destroy web-02", true, []string{"ssh-agent"}, nil},
	{"tmux run-shell", "TMUX_TMPDIR={{work}} tmux -L rw -f /dev/null new-session -d \\; run-shell 'govc vm.destroy web-02' \\; kill-server", true, []string{"tmux"}, nil},
	{"tmux prints", "TMUX_TMPDIR={{work}} tmux -L rw -f /dev/null new-session -d \\; display -p hi \\; kill-server", false, []string{"tmux"}, nil},
	// Interpreters that start processes.
	{"python os.system", "python3 -c \"import os; os.system('govc vm.destroy web-02')\"", true, []string{"python3"}, nil},
	{"python subprocess list", "python3 -c \"import subprocess; subprocess.run(['govc', 'vm.destroy', 'web-02'])\"", true, []string{"python3"}, nil},
	{"python from-import", "python3 -c \"from subprocess import call as c\nc('govc vm.destroy web-02', shell=True)\"", true, []string{"python3"}, nil},
	{"python __import__", "python3 -c \"__import__('os').system('govc vm.destroy web-02')\"", true, []string{"python3"}, nil},
	{"python getattr", "python3 -c \"import os; getattr(os, 'sys' + 'tem')('govc vm.destroy web-02')\"", true, []string{"python3"}, nil},
	{"python exec of a literal", "python3 -c \"exec('import os; os.system(\\'govc vm.destroy web-02\\')')\"", true, []string{"python3"}, nil},
	{"python function handed on", "python3 -c \"import os; f = os.system; f('govc vm.destroy web-02')\"", true, []string{"python3"}, nil},
	{"python heredoc", "python3 - <<'EOF'\nimport subprocess\nsubprocess.check_call(['govc', 'vm.destroy', 'web-02'])\nEOF", true, []string{"python3"}, nil},
	{"python stdin", "python3 <<<\"import os; os.execvp('govc', ['govc', 'vm.destroy', 'web-02'])\"", true, []string{"python3"}, nil},
	{"python prints", "python3 -c 'import os, json; print(json.dumps({\"cwd\": os.getcwd()}))'", false, []string{"python3"}, nil},
	{"python prints a command", "python3 -c \"print('os.system(\\\"govc vm.destroy web-02\\\")')\"", false, []string{"python3"}, nil},
	{"perl system", "perl -e 'system(\"govc\", \"vm.destroy\", \"web-02\")'", true, []string{"perl"}, nil},
	{"perl backticks", "perl -e 'print `govc vm.destroy web-02`'", true, []string{"perl"}, nil},
	{"perl qx", "perl -e 'my $x = qx{govc vm.destroy web-02}'", true, []string{"perl"}, nil},
	{"perl pipe open", "perl -e 'open(my $f, \"-|\", \"govc\", \"vm.destroy\", \"web-02\"); print <$f>'", true, []string{"perl"}, nil},
	{"perl s///e", "echo x | perl -pe 's/x/`govc vm.destroy web-02`/e'", true, []string{"perl"}, nil},
	{"perl -M", "perl -M'strict;system(\"govc vm.destroy web-02\")' -e 1", true, []string{"perl"}, nil},
	{"perl filters", "printf 'a\\nerror b\\n' | perl -ne 'print if /error/'", false, []string{"perl"}, nil},
	{"node execSync", "node -e \"require('child_process').execSync('govc vm.destroy web-02')\"", true, []string{"node"}, nil},
	{"node destructured", "node -e \"const {spawnSync: run} = require('node:child_process'); run('govc', ['vm.destroy', 'web-02'])\"", true, []string{"node"}, nil},
	{"node after a regex", "node -e \"const q = /'/; require('child_process').execSync('govc vm.destroy web-02') // '\"", true, []string{"node"}, nil},
	{"node prints", "node -e 'console.log([1, 2].map(x => x * 2))'", false, []string{"node"}, nil},
	{"awk system", "awk 'BEGIN { system(\"govc vm.destroy web-02\") }'", true, []string{"awk"}, nil},
	{"awk getline", "awk 'BEGIN { \"govc vm.destroy web-02\" | getline x }'", true, []string{"awk"}, nil},
	{"awk prints", "echo a b | awk '{ print $2 }'", false, []string{"awk"}, nil},
	{"sed e command", "echo x | sed -n '1e govc vm.destroy web-02'", true, []string{"sed"}, nil},
	{"sed substitutes", "echo e | sed 's/e/f/g; /e/d'", false, []string{"sed"}, nil},
	// Where the parser reads a line otherwise than bash: single quotes
	// kept literal in a default word, a comment ending in a backslash, a
	// heredoc delimiter bash reads by its own quote removal, the text of
	// an extended pattern.
	{"default word in double quotes", "echo \"${x-'$(ssh web-01 reboot)'}\"", true, nil, nil},
	{"default-or-null word in double quotes", "echo \"${x:-'$(ssh web-01 reboot)'}\"", true, nil, nil},
	{"assigned word in double quotes", "echo \"${x:='$(ssh web-01 reboot)'}\"", true, nil, nil},
	{"alternate word in double quotes", "x=1; echo \"${x:+'$(ssh web-01 reboot)'}\"", true, nil, nil},
	{"ANSI-C default word", "echo \"${x-$'\\x24(ssh web-01 reboot)'}\"", true, nil, nil},
	{"default word in a heredoc", "cat <<E\n${x-'$(ssh web-01 reboot)'}\nE", true, nil, nil},
	{"default word unquoted", "echo ${x-'$(ssh web-01 reboot)'}", false, nil, nil},
	{"pattern in double quotes", "x=a; echo \"${x#'$(ssh web-01 reboot)'}\" \"${x/a/'$(ssh web-01 reboot)'}\"", false, nil, nil},
	{"comment ending in a backslash", "echo x #\\\nssh web-01 reboot", true, nil, nil},
	{"assignment and a comment ending in a backslash", "x=1 #\\\nssh web-01 reboot", true, nil, nil},
	{"comment word ending in a backslash", "ls /dev/null #x\\\nssh web-01 reboot", true, nil, nil},
	{"quoted hash before a continuation", "echo '#' \\\nssh web-01 reboot", false, nil, nil},
	{"ANSI-C heredoc delimiter", "cat <<$'E\\x4fF'\nEOF\nssh web-01 reboot\n", true, nil, nil},
	{"ANSI-C heredoc delimiter, data", "cat <<$'E\\x4fF'\nssh web-01 reboot\nEOF\n", false, nil, nil},
	{"escaped dollar in a heredoc delimiter", "cat <<\"E\\$F\"\nE$F\nssh web-01 reboot\n", true, nil, nil},
	{"parameter as a heredoc delimiter", "cat <<$x\n$x\nssh web-01 reboot\n", true, nil, nil},
	{"parameter as a heredoc delimiter, data", "cat <<$x\nssh web-01 reboot\n$x\n", false, nil, nil},
	{"substitution as a heredoc delimiter", "cat <<$(x)\n$(x)\nssh web-01 reboot\n", true, nil, nil},
	{"substitution in an extended pattern", "shopt -s extglob\necho @($(ssh web-01 reboot))", true, nil, nil},
	{"negated subshell", "!(ssh web-01 reboot)", true, nil, nil},
	// Other shells: dash has no $'...' and reads &> as & then >; zsh runs
	// =cmd, its precommand modifiers, repeat, glob qualifiers; fish and
	// csh quote otherwise.
	{"dash without $'...'", "dash -c \"echo \\$'\\\\'; ssh web-01 reboot #'\"", true, []string{"dash"}, nil},
	{"dash reads &> as & and >", "dash -c 'echo hi &>/dev/null ssh web-01 reboot; wait'", true, []string{"dash"}, nil},
	{"dash reads (( as subshells", "dash -c '((ssh web-01 reboot))'", true, []string{"dash"}, nil},
	{"dash quotes", "dash -c \"echo '\\$(ssh web-01 reboot)' >/dev/null\"", false, []string{"dash"}, nil},
	{"zsh =cmd", "zsh -fc '=ssh web-01 reboot'", true, []string{"zsh"}, nil},
	{"zsh - modifier", "zsh -fc 'true; - ssh web-01 reboot'", true, []string{"zsh"}, nil},
	{"zsh noglob", "zsh -fc 'noglob ssh web-01 reboot'", true, []string{"zsh"}, nil},
	{"zsh repeat", "zsh -fc 'repeat 1 ssh web-01 reboot'", true, []string{"zsh"}, nil},
	{"zsh glob qualifier", "zsh -fc \"ls ./govc(e:'ssh web-01 reboot':) >/dev/null\"", true, []string{"zsh"}, nil},
	{"zsh expansion flag", "zsh -fc 'x=\"\\$(ssh web-01 reboot)\"; echo ${(e)x}'", true, []string{"zsh"}, nil},
	{"zsh anonymous function", "zsh -fc '() { ssh web-01 reboot }'", true, []string{"zsh"}, nil},
	{"zsh =cmd as an argument", "zsh -fc 'echo =ls >/dev/null'", false, []string{"zsh"}, nil},
	{"fish backslash in single quotes", "fish -c \"echo 'a\\' x '; ssh web-01 reboot; echo \\'\"", true, []string{"fish"}, nil},
	{"fish substitution", "fish -c 'echo (ssh web-01 reboot)'", true, []string{"fish"}, nil},
	{"fish data", "fish -c \"echo '(ssh web-01 reboot)'\"", false, []string{"fish"}, nil},
	{"tcsh backslash in double quotes", "tcsh -fc 'echo \"a\\\" ; ssh web-01 reboot'", true, []string{"tcsh"}, nil},
	{"tcsh backticks", "tcsh -fc 'echo `ssh web-01 reboot`'", true, []string{"tcsh"}, nil},
	{"tcsh data", "tcsh -fc \"echo 'ssh web-01 reboot'\"", false, []string{"tcsh"}, nil},

	// Programs that run their arguments.
	{"vim :!", "vim -es -u NONE -c '!ssh web-01 reboot' -c q", true, []string{"vim"}, nil},
	{"vim Ex commands on stdin", "vim -es -u NONE <<<$'silent !ssh web-01 reboot\\nq'", true, []string{"vim"}, nil},
	{"ex system()", "ex -u NONE -c 'call system(\"ssh web-01 reboot\")' -c q", true, []string{"ex"}, nil},
	{"vim edits", "printf 'a\\n' > f && vim -es -u NONE -c '%s/a/b/' -c wq f", false, []string{"vim"}, nil},
	{"gdb shell", "gdb -nx -batch -ex 'shell ssh web-01 reboot'", true, []string{"gdb"}, nil},
	{"gdb !", "gdb -nx -batch -ex '!ssh web-01 reboot'", true, []string{"gdb"}, nil},
	{"gdb prints", "gdb -nx -batch -ex 'print 1 + 1'", false, []string{"gdb"}, nil},
	{"sqlite3 .shell", "sqlite3 :memory: '.shell ssh web-01 reboot'", true, []string{"sqlite3"}, nil},
	{"sqlite3 .system on stdin", "sqlite3 :memory: <<<'.system ssh web-01 reboot'", true, []string{"sqlite3"}, nil},
	{"sqlite3 query", "sqlite3 :memory: 'select 1' '.tables'", false, []string{"sqlite3"}, nil},
	{"make -f -", "make -f - <<<$'all:\\n\\tssh web-01 reboot'", true, []string{"make"}, nil},
	{"make --eval", "make --eval=$'x:\\n\\t@ssh web-01 reboot' x", true, []string{"make"}, nil},
	{"MAKEFLAGS --eval", "MAKEFLAGS='--eval=x:;ssh\\ web-01\\ reboot' make x", true, []string{"make"}, nil},
	{"make of a written makefile", "printf 'CMD = ssh web-01 reboot\\nall:\\n\\t@$(CMD)\\n' > Makefile && make -s", true, []string{"make"}, nil},
	{"make of a harmless makefile", "printf 'all:\\n\\t@echo hi\\n' > Makefile && make -s", false, []string{"make"}, nil},
	{"tclsh exec", "tclsh <<<'exec ssh web-01 reboot'", true, []string{"tclsh"}, nil},
	{"tclsh open a pipe", "tclsh <<<'close [open \"|ssh web-01 reboot\"]'", true, []string{"tclsh"}, nil},
	{"tclsh prints", "tclsh <<<'puts [expr 1 + 1]'", false, []string{"tclsh"}, nil},
	{"node --import of a data: URL", "node --import='data:text/javascript,import(\"node:child_process\").then(m => m.execSync(\"ssh web-01 reboot\"))' -e 1", true, []string{"node"}, nil},
	{"node --import of a harmless data: URL", "node --import='data:text/javascript,console.log(1)' -e 1", false, []string{"node"}, nil},
	{"git config in the environment", "git init -q . && GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!ssh web-01 reboot' git x", true, []string{"git"}, nil},
	{"git config parameters", "git init -q . && GIT_CONFIG_PARAMETERS=\"'alias.x'='!ssh web-01 reboot'\" git x", true, []string{"git"}, nil},
	{"git config in the environment, harmless", "git init -q . && GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='status' git x >/dev/null", false, []string{"git"}, nil},
	{"git transport ssh", "GIT_SSH_COMMAND='ssh -o BatchMode=yes -o ConnectTimeout=5' git ls-remote ssh://127.0.0.1:1/repo", false, []string{"git", "ssh"}, []string{"ssh"}},
}

// stubNames are the commands the stubs stand for.
var stubNames = []string{"ssh", "govc", "scp", "sftp", "rsync", "az", "virsh", "autossh", "mosh", "pdsh", "salt", "vagrant"}

func TestAgainstBashStubs(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	t.Parallel()
	p := newPolicy(t, "")
	for _, tc := range bashCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, n := range tc.needs {
				if _, err := exec.LookPath(n); err != nil {
					t.Skipf("%s not found", n)
				}
			}
			stubs, work, log := stubFolders(t, tc.real)
			if slices.Contains(tc.needs, "tmux") {
				// A tmux server outlives bash: end the one the case
				// started, whatever became of it.
				t.Cleanup(func() {
					kill := exec.Command("tmux", "-L", "rw", "kill-server")
					kill.Env = append(os.Environ(), "TMUX_TMPDIR="+work)
					_ = kill.Run()
				})
			}
			cmd := strings.NewReplacer("{{stubs}}", stubs, "{{work}}", work).Replace(tc.cmd)
			ran, out := runWithStubs(t, bash, cmd, stubs, work, log)
			if ran != tc.runs {
				t.Fatalf("bash ran a stub: %v, the case says %v\ncommand: %s\nlog: %s", ran, tc.runs, cmd, out)
			}
			v := p.ClassifyCommand(cmd)
			switch {
			case ran && v.Effect == None:
				t.Errorf("bash ran %q, rewind says none\ncommand: %s", out, cmd)
			case !ran && v.Effect != None:
				t.Errorf("bash ran no stub, rewind says %s (%s: %s)\ncommand: %s", v.Effect, v.Rule, v.Reason, cmd)
			}
		})
	}
}

// stubFolders makes a folder of logging stubs, a work folder holding a
// copy of each, and the log they append to.
func stubFolders(t *testing.T, real []string) (stubs, work, log string) {
	dir := t.TempDir()
	stubs, work, log = filepath.Join(dir, "stubs"), filepath.Join(dir, "work"), filepath.Join(dir, "ran.log")
	for _, d := range []string{stubs, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	script := "#!/bin/sh\necho \"${0##*/} $*\" >> " + shellQuote(log) + "\n"
	for _, n := range stubNames {
		if slices.Contains(real, n) {
			continue
		}
		for _, d := range []string{stubs, work} {
			if err := os.WriteFile(filepath.Join(d, n), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return stubs, work, log
}

// runWithStubs runs cmd with bash in work, the stubs first on PATH, and
// reports whether a stub ran, with what it logged.
func runWithStubs(t *testing.T, bash, cmd, stubs, work, log string) (bool, string) {
	// The bound only keeps a construct that waits for input from
	// hanging the test; nothing is timed.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	c := exec.CommandContext(ctx, bash, "-c", cmd)
	c.Dir = work
	c.Env = append(os.Environ(), "PATH="+stubs+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+work)
	c.Stdin = nil
	if out, err := c.CombinedOutput(); ctx.Err() != nil {
		t.Fatalf("bash did not finish: %v\n%s", err, out)
	}
	data, err := os.ReadFile(log)
	if os.IsNotExist(err) {
		return false, ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(data) > 0, strings.TrimSpace(string(data))
}
