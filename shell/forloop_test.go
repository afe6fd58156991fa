package shell

import (
	"slices"
	"strings"
	"testing"
)

// forLoopCases are loops over static words, whose variable is then known
// in the body, and loops whose variable stays a run-time word.
var forLoopCases = []analyzeCase{
	{name: "loop over hosts", src: `for vm in app-01 app-02; do ssh "$vm" sudo reboot; done`,
		want: []string{"app-01: reboot", "app-02: reboot", "app-01: ssh app-01 sudo reboot"}},
	{name: "braced and unquoted", src: `for h in web-01 root@web-02; do ssh ${h} 'systemctl restart nginx'; done`,
		want: []string{"web-01: systemctl restart nginx", "web-02: systemctl restart nginx"}},
	{name: "part of a word", src: `for n in 1 2; do ssh "app-0$n.lab" reboot; done`,
		want: []string{"app-01.lab: reboot", "app-02.lab: reboot"}},
	{name: "in code handed to a shell", src: `for h in a b; do bash -c "ssh $h reboot"; done`,
		want: []string{"a: reboot", "b: reboot"}},
	{name: "nested loops", src: `for a in 1 2; do for b in x y; do ssh "$b-$a" reboot; done; done`,
		want: []string{"x-1: reboot", "y-1: reboot", "x-2: reboot", "y-2: reboot"}},
	{name: "local command", src: `for vm in web-01 web-02; do govc vm.power -off -vm "$vm"; done`,
		want: []string{"govc vm.power -off -vm web-01", "govc vm.power -off -vm web-02"}},
	{name: "prose quoting a loop", src: `git commit -m "for vm in a b; do ssh $vm reboot; done"`,
		not: []string{"ssh", "reboot"}},

	// The variable stays a run-time word.
	{name: "words from a substitution", src: `for vm in $(cat hosts); do ssh "$vm" reboot; done`,
		want: []string{"cat hosts", `"$vm": reboot`}},
	{name: "glob words", src: `for f in *.log; do rm "$f"; done`, want: []string{`rm "$f"`}},
	{name: "brace words", src: `for h in app-0{1,2}; do ssh $h reboot; done`, want: []string{`$h: reboot`}},
	{name: "body assigns", src: `for vm in a b; do vm=c; ssh $vm reboot; done`, want: []string{`$vm: reboot`}},
	{name: "body reads into it", src: `for vm in a b; do read vm; ssh $vm reboot; done`, want: []string{`$vm: reboot`}},
	{name: "default expansion", src: `for vm in a; do ssh ${vm:-x} reboot; done`, want: []string{`${vm:-x}: reboot`}},
	{name: "positional parameters", src: `for vm; do ssh $vm reboot; done`, want: []string{`$vm: reboot`}},
	{name: "too many words", src: `for v in a b c d e f g h i j k l m n o p q; do ssh $v reboot; done`, want: []string{`$v: reboot`}},
	{name: "variable unused", src: `for v in a b; do uptime; done`, want: []string{"uptime"}},
}

func TestForLoop(t *testing.T) {
	for _, tc := range forLoopCases {
		t.Run(tc.name, func(t *testing.T) {
			got := Analyze(tc.src)
			var rendered, names []string
			for _, inv := range got.Invocations {
				rendered = append(rendered, render(inv))
				names = append(names, inv.Name)
			}
			for _, w := range tc.want {
				if !slices.Contains(rendered, w) {
					t.Errorf("Analyze(%q) lacks %q; got %q", tc.src, w, rendered)
				}
			}
			for _, n := range tc.not {
				if slices.Contains(names, n) {
					t.Errorf("Analyze(%q) found %q; got %q", tc.src, n, rendered)
				}
			}
		})
	}
}

func TestForLoopIsBounded(t *testing.T) {
	// Nested loops of 16 words each would walk the body 16^4 times.
	var b strings.Builder
	for _, v := range []string{"a", "b", "c", "d"} {
		b.WriteString("for " + v + " in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do ")
	}
	b.WriteString(`ssh "$a$b$c$d" reboot`)
	b.WriteString(strings.Repeat("; done", 4))
	got := Analyze(b.String())
	if n := len(got.Invocations); n > 2*(maxLoopPasses+1) {
		t.Errorf("%d invocations, want the passes bounded by %d", n, maxLoopPasses)
	}
}

func FuzzForLoop(f *testing.F) {
	for _, tc := range forLoopCases {
		f.Add(tc.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		a := Analyze(src)
		for _, inv := range a.Invocations {
			if inv.ArgDynamic != nil && len(inv.ArgDynamic) != len(inv.Args) {
				t.Errorf("ArgDynamic %v for args %q", inv.ArgDynamic, inv.Args)
			}
		}
	})
}
