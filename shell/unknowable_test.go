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
}
