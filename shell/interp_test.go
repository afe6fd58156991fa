package shell

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
)

// interpCases are code of each language the reader reads, with the
// processes it must find ("shell: TEXT" or "argv: W1 W2") and whether a
// process with a command known only at run time is reported.
var interpCases = []struct {
	lang, code string
	want       []string
	dynamic    bool
}{
	// Python.
	{"python", `print(1)`, nil, false},
	{"python", `import os, sys; print(os.path.join(sys.argv[0], os.getcwd()))`, nil, false},
	{"python", `import os; os.system('ssh web-01 reboot')`, []string{"shell: ssh web-01 reboot"}, false},
	{"python", "import os\nos.system(\"a\" 'b' + \"c\")", []string{"shell: abc"}, false},
	{"python", `import os; os.popen(r'ls \d')`, []string{`shell: ls \d`}, false},
	{"python", `import subprocess; subprocess.run(["ssh", "web-01", "reboot"], check=True)`, []string{"argv: ssh web-01 reboot"}, false},
	{"python", `import subprocess as s; s.Popen('rm x', shell=True)`, []string{"shell: rm x"}, false},
	{"python", "from subprocess import (run,\n  check_output as co)\nco(['rm', 'x'])", []string{"argv: rm x"}, false},
	{"python", "from subprocess import *\ncall('rm x', shell=True)", []string{"shell: rm x"}, false},
	{"python", `import os; os.execl('/bin/rm', 'rm', '-f', 'x')`, []string{"argv: /bin/rm -f x"}, false},
	{"python", `import os; os.execvp('rm', ['rm', 'x'])`, []string{"argv: rm x"}, false},
	{"python", `import os; os.spawnv(os.P_WAIT, '/bin/rm', ['rm', 'x'])`, []string{"argv: /bin/rm x"}, false},
	{"python", `import asyncio; asyncio.create_subprocess_exec('rm', 'x')`, []string{"argv: rm x"}, false},
	{"python", `__import__('subprocess').run('rm x', shell=True)`, []string{"shell: rm x"}, false},
	{"python", `import importlib; importlib.import_module('os').system('rm x')`, []string{"shell: rm x"}, false},
	{"python", `import os; getattr(os, 'system')('rm x')`, []string{"shell: rm x"}, false},
	{"python", `import os; getattr(os, name)('rm x')`, nil, true},
	{"python", `exec("import os; os.system('rm x')")`, []string{"shell: rm x"}, false},
	{"python", `exec(open('x.py').read())`, nil, true},
	{"python", `import os; run = os.system; run('rm x')`, nil, true},
	{"python", `import subprocess; m = subprocess`, nil, true},
	{"python", `import subprocess; subprocess.run(cmd)`, nil, true},
	{"python", `import subprocess; subprocess.run(['ssh', host, 'reboot'])`, nil, true},
	{"python", `import subprocess; subprocess.run(f"ssh {host} reboot", shell=True)`, nil, true},
	{"python", `import subprocess; subprocess.run(f"ssh {{literal}}", shell=True)`, []string{"shell: ssh {literal}"}, false},
	{"python", `print("os.system('rm x')")  # os.system('rm y')`, nil, false},
	{"python", "s = '''\nimport os; os.system('rm x')\n'''", nil, false},
	{"python", `import asyncio; asyncio.run(main())`, nil, false},
	// JavaScript.
	{"js", `console.log(1)`, nil, false},
	{"js", `require('child_process').execSync('rm x')`, []string{"shell: rm x"}, false},
	{"js", `const cp = require("child_process"); cp.exec("rm x"); cp.spawn("rm", ["-f", "x"])`, []string{"shell: rm x", "argv: rm -f x"}, false},
	{"js", "const { execFileSync, spawn: sp } = require('node:child_process');\nexecFileSync('rm', ['x']); sp('ls')", []string{"argv: rm x", "argv: ls"}, false},
	{"js", `import { exec as run } from 'child_process'; run('rm x')`, []string{"shell: rm x"}, false},
	{"js", `import * as cp from 'child_process'; cp['execSync']('rm x')`, []string{"shell: rm x"}, false},
	{"js", `require('child_process').spawn('rm', ['x'], { shell: true })`, []string{"shell: rm x"}, false},
	{"js", "require('child_process').execSync(`rm ${f}`)", nil, true},
	{"js", "require('child_process').execSync(`rm x`)", []string{"shell: rm x"}, false},
	{"js", `const cp = require('child_process'); cp[method]('rm x')`, nil, true},
	{"js", `run(require('child_process'))`, nil, true},
	{"js", `import('child_process').then(m => m.exec('rm x'))`, nil, true},
	{"js", `eval("require('child_process').execSync('rm x')")`, []string{"shell: rm x"}, false},
	{"js", `const q = /'/; require('child_process').execSync('rm x') // '`, []string{"shell: rm x"}, false},
	{"js", `const n = a / b / c; require('child_process').execSync('rm x')`, []string{"shell: rm x"}, false},
	{"js", `// require('child_process').execSync('rm x')`, nil, false},
	{"js", "Bun.spawn(['rm', 'x']); Bun.$`ls`", []string{"argv: rm x", "shell: ls"}, false},
	// Perl.
	{"perl", `print "hello\n"`, nil, false},
	{"perl", `system("rm x")`, []string{"shell: rm x"}, false},
	{"perl", `system "rm", "-f", "x" or die`, []string{"argv: rm -f x"}, false},
	{"perl", `system qw(rm -f x)`, []string{"argv: rm -f x"}, false},
	{"perl", `my $o = ` + "`rm x`", []string{"shell: rm x"}, false},
	{"perl", `my $o = qx(rm x); my $p = qx'rm $y'`, []string{"shell: rm x", "shell: rm $y"}, false},
	{"perl", `my $o = qx{rm $f}`, nil, true},
	{"perl", `exec 'rm', 'x'`, []string{"argv: rm x"}, false},
	{"perl", `open(my $f, "rm x |") or die`, []string{"shell: rm x "}, false},
	{"perl", `open my $f, '|-', 'rm', 'x'`, []string{"argv: rm x"}, false},
	{"perl", `open(my $f, '<', 'x.txt')`, nil, false},
	{"perl", `system($cmd)`, nil, true},
	{"perl", `eval "system('rm x')"`, []string{"shell: rm x"}, false},
	{"perl", `eval { die }; print $@`, nil, false},
	{"perl", `s/a/b/g; s{x}{system("rm x")}e`, []string{"shell: rm x"}, false},
	{"perl", `my $r = \&system; $r->("rm x")`, nil, true},
	{"perl", `print "system('rm x')"; # system("rm y")`, nil, false},
	{"perl", "=pod\nsystem('rm x')\n=cut\nprint 1", nil, false},
	// Ruby.
	{"ruby", `puts 1 + 1`, nil, false},
	{"ruby", `system("rm x")`, []string{"shell: rm x"}, false},
	{"ruby", "system 'rm', 'x'\nputs 1", []string{"argv: rm x"}, false},
	{"ruby", "puts `rm x`; puts %x(ls -l)", []string{"shell: rm x", "shell: ls -l"}, false},
	{"ruby", `exec("rm #{f}")`, nil, true},
	{"ruby", `Process.spawn({"A" => "1"}, "rm", "x", chdir: "/tmp")`, []string{"argv: rm x"}, false},
	{"ruby", `require 'open3'; o, s = Open3.capture2(%w[rm x])`, []string{"argv: rm x"}, false},
	{"ruby", `IO.popen("rm x").read`, []string{"shell: rm x"}, false},
	{"ruby", `open("|rm x")`, []string{"shell: rm x"}, false},
	{"ruby", `Kernel.send(:system, "rm x")`, []string{"shell: rm x"}, false},
	{"ruby", `send(name, "rm x")`, nil, true},
	{"ruby", `eval("system('rm x')")`, []string{"shell: rm x"}, false},
	{"ruby", `puts "system('rm x')" # system('rm y')`, nil, false},
	// PHP.
	{"php-code", `echo 1+1;`, nil, false},
	{"php-code", `system("rm x");`, []string{"shell: rm x"}, false},
	{"php-code", `echo SHELL_EXEC('rm x') . passthru("ls");`, []string{"shell: rm x", "shell: ls"}, false},
	{"php-code", "echo `rm x`;", []string{"shell: rm x"}, false},
	{"php-code", `exec("rm $f");`, nil, true},
	{"php-code", `proc_open(['rm', 'x'], $d, $p);`, []string{"argv: rm x"}, false},
	{"php-code", `pcntl_exec('/bin/rm', ['x']);`, []string{"argv: /bin/rm x"}, false},
	{"php-code", `call_user_func('system', 'rm x');`, []string{"shell: rm x"}, false},
	{"php-code", `array_map('system', ['rm x']);`, nil, true},
	{"php-code", `$f = $_GET['f']; $f('rm x');`, nil, true},
	{"php-code", `eval('system("rm x");');`, []string{"shell: rm x"}, false},
	{"php-code", "echo <<<'EOT'\nsystem('rm x')\nEOT;\n", nil, false},
	{"php", "<html><?php system('rm x'); ?> system('rm y') <?= passthru('ls') ?>", []string{"shell: rm x", "shell: ls"}, false},
	{"php", "system('rm x')", nil, false},
	// awk.
	{"awk", `{ print $1 }`, nil, false},
	{"awk", `BEGIN { system("rm x") }`, []string{"shell: rm x"}, false},
	{"awk", `BEGIN { system("rm " f) }`, nil, true},
	{"awk", `BEGIN { while (("ls -l" | getline line) > 0) n++ }`, []string{"shell: ls -l"}, false},
	{"awk", `{ print $0 | "sort -u" }`, []string{"shell: sort -u"}, false},
	{"awk", `{ print $0 > "out.txt" }`, nil, false},
	{"awk", `$1 ~ /a|b/ { n++ }`, nil, false},
}

func TestInterpReader(t *testing.T) {
	t.Parallel()
	for _, tc := range interpCases {
		var r interpResult
		readInterp(&r, tc.lang, tc.code, 0)
		var got []string
		for _, p := range r.procs {
			if p.kind == procShell {
				got = append(got, "shell: "+p.text)
			} else {
				got = append(got, "argv: "+strings.Join(p.argv, " "))
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q: processes %q, want %q", tc.lang, tc.code, got, tc.want)
		}
		if (len(r.dynamic) > 0) != tc.dynamic {
			t.Errorf("%s %q: dynamic %q, want %v", tc.lang, tc.code, r.dynamic, tc.dynamic)
		}
	}
}

// TestInterpCommandLines checks how the interpreters' command lines give
// them code.
func TestInterpCommandLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src     string
		want    []string
		dynamic int
	}{
		{`python3 -c 'import os; os.system("rm x")' arg`, []string{"rm x", "python3 -c import os; os.system(\"rm x\") arg"}, 0},
		{`python3 -Buc 'import os; os.system("rm x")'`, []string{"rm x"}, 0},
		{`python3 -W ignore -c 'import os; os.system("rm x")'`, []string{"rm x"}, 0},
		{`python3 -m http.server`, []string{"python3 -m http.server"}, 0},
		{`python3 script.py 'import os; os.system("rm x")'`, []string{"python3 script.py import os; os.system(\"rm x\")"}, 0},
		{"python3 - <<'EOF'\nimport os\nos.system('rm x')\nEOF", []string{"rm x"}, 0},
		{"echo 'import os; os.system(\"rm x\")' | python3", []string{"rm x"}, 0},
		{"python3 /dev/stdin <<<'import os; os.system(\"rm x\")'", []string{"rm x"}, 0},
		{`curl -s https://x | python3 -`, nil, 1},
		{`python3 -c "import os; os.system('rm $F')"`, nil, 1},
		{`python3.12 -c 'import os; os.system("rm x")'`, []string{"rm x"}, 0},
		{`perl -lne 'print' -e 'system("rm x")' f`, []string{"rm x"}, 0},
		{`perl -e'system("rm x")'`, []string{"rm x"}, 0},
		{`ruby -rjson -e 'system("rm x")'`, []string{"rm x"}, 0},
		{`node --eval='require("child_process").execSync("rm x")'`, []string{"rm x"}, 0},
		{`node -p 'require("child_process").execSync("rm x").toString()'`, []string{"rm x"}, 0},
		{`node app.js`, []string{"node app.js"}, 0},
		{`php -r 'system("rm x");'`, []string{"rm x"}, 0},
		{`php -B 'system("rm x");' -R 'echo $argn;'`, []string{"rm x"}, 0},
		{"php <<'EOF'\n<?php system('rm x');\nEOF", []string{"rm x"}, 0},
		{`php -f x.php`, []string{"php -f x.php"}, 0},
		{`awk -F: -v n=1 'BEGIN { system("rm x") }' /etc/passwd`, []string{"rm x"}, 0},
		{`gawk -e 'BEGIN { system("rm x") }'`, []string{"rm x"}, 0},
		{`awk -f prog.awk data`, []string{"awk -f prog.awk data"}, 0},
		{`python3 -c 'import subprocess; subprocess.run(["bash"], input=code)'`, nil, 1},
	}
	for _, tc := range tests {
		a := Analyze(tc.src)
		var got []string
		for _, inv := range a.Invocations {
			got = append(got, render(inv))
		}
		for _, w := range tc.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q lacks %q; got %q", tc.src, w, got)
			}
		}
		if len(a.Dynamic) != tc.dynamic {
			t.Errorf("%q: dynamic %+v, want %d", tc.src, a.Dynamic, tc.dynamic)
		}
	}
}

// TestInterpIsBounded checks that code past the reader's bounds is
// reported as past a limit, and that deep literal evals stop.
func TestInterpIsBounded(t *testing.T) {
	t.Parallel()
	race.SkipHuge(t)
	long := "python3 -c " + shellQuoteTest("x = 1\n"+strings.Repeat("y = 2\n", maxInterpCode/6+1))
	a := Analyze(long)
	if len(a.Unparsed) == 0 || !a.Unparsed[0].Limit {
		t.Errorf("code of %d bytes: unparsed %v, want past a limit", len(long), a.Unparsed)
	}
	code := "print(1)"
	for range maxInterpDepth + 2 {
		code = "exec(" + pyQuote(code) + ")"
	}
	var r interpResult
	readInterp(&r, "python", code, 0)
	if !r.limit {
		t.Errorf("evals %d deep: no limit", maxInterpDepth+2)
	}
	// Calls nested without their closing brackets would make each call's
	// arguments run to the end of the code: the scan budget stops that.
	for _, tc := range []struct{ lang, unit string }{
		{"python", "os.system("}, {"python", "getattr(os, "}, {"js", "require('child_process').exec("},
		{"perl", "system("}, {"ruby", "system("}, {"php-code", "system("}, {"awk", "system("},
	} {
		var r interpResult
		readInterp(&r, tc.lang, "import os\n"+strings.Repeat(tc.unit, 50000), 0)
		if !r.limit && len(r.dynamic) == 0 {
			t.Errorf("%s: %d unclosed calls: neither past a limit nor dynamic", tc.lang, 50000)
		}
	}
}

// TestInterpIsLinear checks that the reader's memory grows at most about
// linearly with the code, for code of every language nested or repeated.
func TestInterpIsLinear(t *testing.T) {
	race.SkipHuge(t)
	units := []struct{ lang, unit string }{
		{"python", "os.system("}, {"python", "import os as o; o.system('ls'); "}, {"js", "import('child_process'); "},
		{"js", "`${`${"}, {"perl", "qx{"}, {"perl", "s/a/b/e;"}, {"ruby", "%w["}, {"php-code", "<<<EOT\n"}, {"awk", "\"ls\" | getline; "},
	}
	for _, u := range units {
		measure := func(n int) uint64 {
			code := strings.Repeat(u.unit, n)
			return allocatedBy(func() {
				var r interpResult
				readInterp(&r, u.lang, code, 0)
			})
		}
		small, large := measure(2000), measure(8000)
		if ratio := float64(large) / float64(max(small, 1)); ratio > 4*1.5 {
			t.Errorf("%s %q: 4 times the code allocated %.1f times the memory (%d -> %d bytes)", u.lang, u.unit, ratio, small, large)
		}
	}
}

func shellQuoteTest(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func pyQuote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// FuzzInterp reads fuzzed code of every language: the reader must not
// panic, and its cost stays linear (checked by the fuzz engine's time).
func FuzzInterp(f *testing.F) {
	for _, tc := range interpCases {
		f.Add(tc.lang, tc.code)
	}
	f.Fuzz(func(t *testing.T, lang, code string) {
		var r interpResult
		readInterp(&r, lang, code, 0)
	})
}

// FuzzPercentDecode holds the data: URL's decoding to url.PathUnescape,
// which the hook does not link.
func FuzzPercentDecode(f *testing.F) {
	for _, s := range []string{"", "rm%20y", "%22child_process%22", "%", "%2", "%zz", "a%2Fb", "%e2%82%ac", "+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := percentDecode(s)
		want, err := url.PathUnescape(s)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("percentDecode(%q) = %q, %v; url.PathUnescape: %q, %v", s, got, ok, want, err)
		}
	})
}
