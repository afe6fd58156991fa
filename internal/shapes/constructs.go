package shapes

import "strings"

// constructs are the shapes of the constructs whose code bash or a tool
// runs although no literal command shows it (brace expansion, aliases,
// descriptors, text expanded again, tool options, interpreters): each is
// read by code of its own, which must stay as cheap as the rest.
var constructs = []Shape{
	{Name: "brace-words", unit: "{a,b}{c,d} ", suffix: "; govc vm.destroy web-01"},
	{Name: "deep-braces", prefix: "echo ", unit: "{a,", close: "}", suffix: "b"},
	{Name: "glob-names", unit: "./[g]ovc x\n"},
	{Name: "alias-chain", prefix: "alias a='command '\n", unit: "a ", suffix: "ls"},
	{Name: "descriptors", unit: "exec 3<<<ls; source /dev/fd/3\n"},
	{Name: "subscripts", unit: "unset 'a[$(ls)]'\n"},
	{Name: "ssh-options", prefix: "ssh ", unit: "-o ProxyCommand=ls ", suffix: "web-01 uptime"},
	{Name: "git-configs", prefix: "git ", unit: "-c core.pager=ls ", suffix: "log"},
	{Name: "tmux-commands", prefix: "tmux ", unit: "run-shell ls \\; ", suffix: "ls"},
	{Name: "python-heredoc", prefix: "python3 - <<'EOF'\n", unit: "import os; os.system('ls')\n", suffix: "EOF"},
	{Name: "python-nested-calls", prefix: "python3 -c 'import os\n", unit: "os.system(", suffix: "\"ls\"'"},
	{Name: "python-getattr", prefix: "python3 -c 'import os\n", unit: "getattr(os, ", suffix: "\"system\"'"},
	{Name: "node-requires", prefix: "node -e \"", unit: "require('child_process').execSync('ls'); ", suffix: "\""},
	{Name: "perl-quotes", prefix: "perl -e '", unit: "print qq{a} . qx{ls}; ", suffix: "'"},
	{Name: "sftp-batch", prefix: "sftp -b - web-01 <<'EOF'\n", unit: "get x\n", suffix: "EOF"},
	{Name: "crontab-lines", prefix: "crontab - <<'EOF'\n", unit: "* * * * * ls\n", suffix: "EOF"},
	// A script written once and run on every line, and a descriptor
	// sourced on every line: each run parses the text again.
	{Name: "script-reruns", prefix: "cat > r <<'E'\n" + strings.Repeat("true\n", 1000) + "E\n", unit: "bash r\n", suffix: "ssh web-01 sudo reboot"},
	{Name: "descriptor-reruns", prefix: "exec 3<<'E'\n" + strings.Repeat("true\n", 1000) + "E\n", unit: ". /dev/fd/3\n", suffix: "ssh web-01 sudo reboot"},
	{Name: "appends", unit: "echo ls >> f\n", suffix: "bash f; ssh web-01 sudo reboot"},
	// Lines the parser reads otherwise than bash, which are mended and
	// parsed again: comments ending in a backslash, heredoc delimiters
	// with $'...', and a comment joining every line to the next.
	{Name: "comment-joins", unit: "ls #\\\nls\n", suffix: "ssh web-01 sudo reboot"},
	{Name: "heredoc-delimiters", unit: "cat <<$'E\\x4fF'\nx\nEOF\n", suffix: "ssh web-01 sudo reboot"},
	{Name: "comment-chain", unit: "ls #\\\n", suffix: "ssh web-01 sudo reboot"},
	// Code read in other dialects, and by readers of their own.
	{Name: "sh-dialects", unit: "sh -c \"echo \\$'x' &>/dev/null ((ls))\"\n"},
	{Name: "zsh-qualifiers", unit: "ls *(e:'ls':) ./*(+ls)\n"},
	{Name: "fish-code", prefix: "fish -c \"", unit: "echo (ls) 'a\\' b' \\$x; ", suffix: "\""},
	{Name: "csh-code", prefix: "tcsh -c \"", unit: "echo `ls` 'a' \\$x; ", suffix: "\""},
	{Name: "cmd-lines", unit: "cmd /c \"echo x'&ver&'\"\n"},
	{Name: "ssh-windows", unit: "ssh web-01 \"grep 'a|b' f\"\n"},
	{Name: "makefile", prefix: "make -f - <<'EOF'\n", unit: "t: d\n\t$(CC) -o $@ $< $(shell ls)\n", suffix: "EOF"},
	{Name: "tcl-code", prefix: "tclsh <<'EOF'\n", unit: "exec ls [exec ls] {exec ls}\n", suffix: "EOF"},
	{Name: "vim-commands", prefix: "vim -es", unit: " -c '!ls'", suffix: " f"},
}

func init() {
	// Kept apart from All's literal so that the shapes of the analysis
	// and of these constructs grow independently.
	All = append(All, constructs...)
}
