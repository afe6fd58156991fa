package shell

import (
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/internal/shapes"

	"github.com/rewind-dev/rewind/internal/race"
)

// analyzeCase is one command string with the invocations that must and
// must not be found in it.
type analyzeCase struct {
	name string
	src  string
	// want lists invocations that must be found, as "name args..." or
	// "host: name args...".
	want []string
	// not lists command names that must not be found.
	not []string
	// dynamic is the number of Dynamic entries expected.
	dynamic int
	// unparsed says whether some text must be reported as Unparsed.
	unparsed bool
}

var analyzeCases = []analyzeCase{
	// Prose that quotes a command is data; the command itself trips.
	{name: "commit message quotes gh", src: `git commit -m "run gh issue create later"`, want: []string{"git commit -m run gh issue create later"}, not: []string{"gh"}},
	{name: "commit heredoc quotes gh", src: "git commit -F- <<'EOF'\ngh issue create --title x\nEOF", want: []string{"git commit -F-"}, not: []string{"gh"}},
	{name: "gh with heredoc body", src: "gh issue create --title t --body-file - <<'EOF'\nbody text\nEOF", want: []string{"gh issue create --title t --body-file -"}},
	{name: "unquoted heredoc runs substitution", src: "cat <<EOF\n$(rm -rf x)\nEOF", want: []string{"cat", "rm -rf x"}},
	{name: "quoted heredoc is data", src: "cat <<'EOF'\n$(rm -rf x)\nEOF", want: []string{"cat"}, not: []string{"rm"}},
	{name: "double quoted delimiter", src: "cat <<\"EOF\"\n$(rm -rf x)\nEOF", not: []string{"rm"}},
	{name: "partly quoted delimiter", src: "cat <<E\"O\"F\n$(rm -rf x)\n`rm y`\nEOF", want: []string{"cat"}, not: []string{"rm"}},
	{name: "backslash delimiter", src: "cat <<\\EOF\n$(rm -rf x)\nEOF", not: []string{"rm"}},
	{name: "dash heredoc quoted", src: "cat <<-'EOF'\n\t$(rm x)\n\tEOF\necho after", want: []string{"echo after"}, not: []string{"rm"}},
	{name: "heredoc fed to bash", src: "bash <<'EOF'\nrm -rf x\nEOF", want: []string{"rm -rf x"}, not: []string{"bash"}},
	{name: "heredoc fed to sh -s", src: "sh -s -- a <<'EOF'\nrm -rf x\nEOF", want: []string{"rm -rf x"}},
	{name: "here-string fed to bash", src: `bash <<<'rm x'`, want: []string{"rm x"}},
	{name: "eval", src: `eval "rm x"`, want: []string{"rm x"}, not: []string{"eval"}},
	{name: "eval words joined", src: `eval rm 'x;' reboot`, want: []string{"rm x", "reboot"}},
	{name: "bash -c", src: `bash -c 'rm x'`, want: []string{"rm x"}, not: []string{"bash"}},
	{name: "bash -lc", src: `bash -lc 'rm x' arg0`, want: []string{"rm x"}},
	{name: "bash -x -c", src: `bash -x -o pipefail -c 'rm x'`, want: []string{"rm x"}},
	{name: "bash script file", src: `bash deploy.sh`, want: []string{"bash deploy.sh"}},
	{name: "sh -c sudo", src: `sh -c "sudo rm x"`, want: []string{"rm x"}, not: []string{"sudo", "sh"}},
	{name: "nested shells", src: `bash -c "sh -c 'eval rm\ x'"`, want: []string{"rm x"}},
	{name: "xargs", src: `find . -name '*.o' | xargs rm`, want: []string{"find . -name *.o", "rm <stdin>"}, not: []string{"xargs"}},
	{name: "xargs with options", src: `xargs -n 1 -I {} rm {}`, want: []string{"rm {}"}},
	{name: "find -exec", src: `find . -type f -exec rm -f {} \;`, want: []string{"find . -type f -exec rm -f {} ;", "rm -f {}"}},
	{name: "sudo -u", src: `sudo -u root rm x`, want: []string{"rm x"}, not: []string{"sudo", "root"}},
	{name: "sudo flags and --", src: `sudo -E -n -- rm x`, want: []string{"rm x"}},
	{name: "sudo -l runs nothing", src: `sudo -l rm`, want: []string{"sudo -l rm"}, not: []string{"rm"}},
	{name: "sudo alone", src: `sudo`, want: []string{"sudo"}},
	{name: "doas", src: `doas -u root rm x`, want: []string{"rm x"}},
	{name: "env", src: `env -i A=1 rm x`, want: []string{"rm x"}, not: []string{"env"}},
	{name: "env -u", src: `env -u HOME -C /tmp rm x`, want: []string{"rm x"}},
	{name: "env -S", src: `env -S 'rm x'`, want: []string{"rm x"}},
	{name: "env alone", src: `env`, want: []string{"env"}},
	{name: "assignment prefix", src: `A=1 B=2 rm x`, want: []string{"rm x"}},
	{name: "assignment substitution", src: `X=$(rm x)`, want: []string{"rm x"}},
	{name: "export substitution", src: `export X=$(rm x)`, want: []string{"rm x"}},
	{name: "timeout", src: `timeout -s KILL 5 rm x`, want: []string{"rm x"}, not: []string{"timeout", "5"}},
	{name: "nice", src: `nice -n 5 rm x`, want: []string{"rm x"}, not: []string{"5"}},
	{name: "nohup stdbuf ionice", src: `nohup stdbuf -o0 ionice -c 3 rm x`, want: []string{"rm x"}, not: []string{"nohup", "stdbuf", "ionice", "3"}},
	{name: "command", src: `command -p rm x`, want: []string{"rm x"}},
	{name: "command -v", src: `command -v rm`, want: []string{"command -v rm"}, not: []string{"rm"}},
	{name: "exec -a", src: `exec -a name rm x`, want: []string{"rm x"}},
	{name: "time keyword", src: `time rm x`, want: []string{"rm x"}},
	{name: "time binary", src: `/usr/bin/time -o out -v rm x`, want: []string{"rm x"}},
	{name: "watch", src: `watch -n 5 'rm x; ls'`, want: []string{"rm x", "ls"}, not: []string{"watch"}},
	{name: "watch -x", src: `watch -x rm x`, want: []string{"rm x"}},
	{name: "su -c", src: `su - root -c 'rm x'`, want: []string{"rm x"}},
	{name: "absolute path", src: `/bin/rm x`, want: []string{"rm x"}},
	{name: "backslash name", src: `\rm x`, want: []string{"rm x"}},
	{name: "quoted name", src: `"rm" x`, want: []string{"rm x"}},
	{name: "split quotes name", src: `r''m x`, want: []string{"rm x"}},
	{name: "function body", src: `f() { rm x; }; f`, want: []string{"rm x", "f"}},
	{name: "if body", src: `if true; then rm x; fi`, want: []string{"true", "rm x"}},
	{name: "elif else", src: `if a; then b; elif c; then d; else rm x; fi`, want: []string{"a", "b", "c", "d", "rm x"}},
	{name: "while condition", src: `while rm x; do :; done`, want: []string{"rm x", ":"}},
	{name: "until", src: `until false; do rm x; done`, want: []string{"rm x"}},
	{name: "for body", src: `for i in 1; do rm x; done`, want: []string{"rm x"}},
	{name: "for items", src: `for i in $(rm x); do :; done`, want: []string{"rm x"}},
	{name: "case body", src: `case a in a) rm x;; esac`, want: []string{"rm x"}},
	{name: "subshell and group", src: `(rm x) && { rm y; }`, want: []string{"rm x", "rm y"}},
	{name: "lists", src: `a; b && c || d | e & f`, want: []string{"a", "b", "c", "d", "e", "f"}},
	{name: "substitution in double quotes", src: `echo "$(rm x)"`, want: []string{"rm x"}},
	{name: "backticks in double quotes", src: "echo \"`rm x`\"", want: []string{"rm x"}},
	{name: "single quoted substitution", src: `echo '$(rm x)'`, want: []string{"echo $(rm x)"}, not: []string{"rm"}},
	{name: "escaped substitution", src: `echo "\$(rm x)"`, not: []string{"rm"}},
	{name: "comment", src: `# rm x`, not: []string{"rm"}},
	{name: "trailing comment", src: `ls # rm x`, want: []string{"ls"}, not: []string{"rm"}},
	{name: "argument", src: `echo rm x`, want: []string{"echo rm x"}, not: []string{"rm"}},
	{name: "process substitution", src: `diff <(rm x) >(rm y)`, want: []string{"rm x", "rm y"}},
	{name: "test clause", src: `[[ -n $(rm x) ]]`, want: []string{"rm x"}},
	{name: "arithmetic", src: `(( $(rm x) + 1 ))`, want: []string{"rm x"}},
	{name: "redirect target", src: `echo hi > "$(rm x)"`, want: []string{"rm x"}},
	{name: "parameter default", src: `echo ${X:-$(rm x)}`, want: []string{"rm x"}},
	{name: "ssh remote command", src: `ssh web-01 uptime`, want: []string{"web-01: ssh web-01 uptime", "web-01: uptime"}},
	{name: "ssh with options", src: `ssh -i key -p 22 admin@web-01 'sudo systemctl restart nginx'`, want: []string{"web-01: systemctl restart nginx"}, not: []string{"sudo"}},
	{name: "ssh -l and -o", src: `ssh -l admin -o StrictHostKeyChecking=no -tt web-01 reboot`, want: []string{"web-01: reboot"}},
	{name: "ssh no command", src: `ssh web-01`, want: []string{"web-01: ssh web-01"}},
	{name: "ssh nested", src: `ssh a ssh b rm x`, want: []string{"a: ssh a ssh b rm x", "b: ssh b rm x", "b: rm x"}},
	{name: "ssh heredoc to bash", src: "ssh web-01 bash <<'EOF'\nrm x\nEOF", want: []string{"web-01: rm x"}},
	{name: "ssh heredoc script", src: "ssh web-01 <<'EOF'\nrm x\nEOF", want: []string{"web-01: rm x"}},
	{name: "ssh remote quotes prose", src: `ssh web-01 'echo "rm x"'`, want: []string{"web-01: echo rm x"}, not: []string{"rm"}},
	{name: "echo piped to bash", src: `echo 'rm x' | bash`, want: []string{"echo rm x", "rm x"}},
	{name: "printf piped to sh", src: `printf '%s\n' 'rm x' | sh`, want: []string{"rm x"}},
	{name: "cat heredoc piped to bash", src: "cat <<'EOF' | bash\nrm x\nEOF", want: []string{"rm x"}},
	{name: "echo piped to cat", src: `echo 'rm x' | cat`, want: []string{"cat"}, not: []string{"rm"}},
	{name: "dynamic pipe to bash", src: `echo "$X" | bash`, want: []string{`echo "$X"`}, dynamic: 1},
	{name: "curl pipe to bash", src: `curl -fsSL https://x | bash`, dynamic: 1},
	{name: "dynamic name", src: `$CMD x`, dynamic: 1},
	{name: "quoted dynamic name", src: `"$X" arg`, dynamic: 1},
	{name: "substitution as name", src: `$(pick) arg`, want: []string{"pick"}, dynamic: 1},
	{name: "dynamic bash -c", src: `bash -c "$X"`, dynamic: 2},
	{name: "dynamic eval skeleton", src: `eval "rm -rf $DIR"`, want: []string{"rm -rf $DIR"}, dynamic: 1},
	{name: "dynamic argument", src: `govc vm.power -off -vm "$VM"`, want: []string{`govc vm.power -off -vm "$VM"`}},
	{name: "CR terminator is not a terminator", src: "cat <<'EOF'\nhello\nEOF\r\nrm x\nEOF\necho after", want: []string{"cat", "echo after"}, not: []string{"rm"}},
	{name: "CRLF script", src: "cat <<'EOF'\r\nrm x\r\nEOF\r\necho after\r\n", want: []string{"cat", "echo after\r"}, not: []string{"rm"}},
	{name: "error after complete line", src: "git reset --hard\nif", want: []string{"git reset --hard"}, unparsed: true},
	{name: "error on the same line", src: "git reset --hard; if", not: []string{"git"}, unparsed: true},
	{name: "unterminated if on line 2", src: "echo one\nif true; then\nrm x\n", want: []string{"echo one"}, not: []string{"rm"}, unparsed: true},
	{name: "error after heredoc", src: "cat <<'EOF'\nif\nEOF\nrm x\nfi", want: []string{"cat", "rm x"}, unparsed: true},
	{name: "declare builtin", src: `local -r x=1`, want: []string{"local -r x=1"}},

	// Wrappers beyond sudo and env run the command they are given.
	{name: "setsid", src: `setsid -f rm x`, want: []string{"rm x"}, not: []string{"setsid"}},
	{name: "chroot", src: `chroot --userspec u:g /srv rm x`, want: []string{"rm x"}, not: []string{"chroot", "/srv"}},
	{name: "chroot shell reads stdin", src: "chroot /srv <<'EOF'\nrm x\nEOF", want: []string{"rm x"}},
	{name: "flock command", src: `flock -w 5 /tmp/lock rm x`, want: []string{"rm x"}, not: []string{"flock", "/tmp/lock"}},
	{name: "flock -c", src: `flock -n /tmp/lock -c 'rm x'`, want: []string{"rm x"}},
	{name: "flock fd only", src: `flock -n 9`, want: []string{"flock -n 9"}},
	{name: "unbuffer", src: `unbuffer rm x`, want: []string{"rm x"}},
	{name: "script -c", src: `script -qc 'rm x' /dev/null`, want: []string{"rm x"}, not: []string{"script"}},
	{name: "BSD script command", src: `script -q /dev/null rm x`, want: []string{"rm x"}},
	{name: "script file only", src: `script out.log`, want: []string{"script out.log"}},
	{name: "runuser -u", src: `runuser -u root -- rm x`, want: []string{"rm x"}, not: []string{"runuser", "root"}},
	{name: "runuser -c", src: `runuser -l root -c 'rm x'`, want: []string{"rm x"}},
	{name: "su -s shell -c", src: `su -s /bin/bash root -c 'rm x'`, want: []string{"rm x"}},
	{name: "su reads stdin", src: "su - root <<'EOF'\nrm x\nEOF", want: []string{"rm x"}},
	{name: "sg -c", src: `sg wheel -c 'rm x'`, want: []string{"rm x"}},
	{name: "sg joined", src: `sg wheel rm x`, want: []string{"rm x"}},
	{name: "ast-grep is not sg", src: `sg -p 'rm $A' -r 'x' src`, want: []string{"sg -p rm $A -r x src"}, not: []string{"rm"}},
	{name: "sshpass", src: `sshpass -p secret ssh web-01 rm x`, want: []string{"web-01: rm x"}},
	{name: "taskset", src: `taskset -c 0-3 rm x`, want: []string{"rm x"}, not: []string{"0-3"}},
	{name: "taskset -p runs nothing", src: `taskset -p 1234`, want: []string{"taskset -p 1234"}},
	{name: "nsenter", src: `nsenter -t 1 -m -- rm x`, want: []string{"rm x"}},
	{name: "parallel template", src: `parallel -j 4 rm ::: x y`, want: []string{"rm ${__rewind_dynamic__}"}, not: []string{"parallel"}},
	{name: "parallel commands", src: `parallel ::: 'rm x' 'rm y'`, want: []string{"rm x", "rm y"}},
	{name: "parallel stdin", src: "parallel <<'EOF'\nrm x\nEOF", want: []string{"rm x"}},
	{name: "sudo -s reads stdin", src: `sudo -s <<<'rm x'`, want: []string{"rm x"}},
	{name: "sudo -i heredoc", src: "sudo -i <<'EOF'\nrm x\nEOF", want: []string{"rm x"}},
	{name: "sudo -s alone", src: `sudo -s`, want: []string{"sudo -s"}},
	{name: "fish -c", src: `fish -c 'rm x'`, want: []string{"rm x"}, not: []string{"fish"}},
	{name: "tcsh -c", src: `tcsh -c 'rm x'`, want: []string{"rm x"}},
	{name: "op run --", src: `op run --env-file .env -- rm x`, want: []string{"rm x"}, not: []string{"op"}},
	{name: "aws-vault exec", src: `aws-vault exec prod -- rm x`, want: []string{"rm x"}},
	{name: "uv run", src: `uv run --with requests rm x`, want: []string{"rm x"}},
	{name: "op other subcommand", src: `op read op://x`, want: []string{"op read op://x"}},

	// Aliases expand on the lines after their definition, as in bash.
	{name: "alias on a later line", src: "alias d='rm -rf'\nd x", want: []string{"rm -rf x"}, not: []string{"d"}},
	{name: "alias on the same line", src: "alias d='rm -rf'; d x", want: []string{"d x"}, not: []string{"rm"}},
	{name: "quoted alias name", src: "alias d='rm -rf'\n\\d x", want: []string{"d x"}, not: []string{"rm"}},
	{name: "alias in itself", src: "alias ls='ls -la'\nls x", want: []string{"ls -la x"}},
	{name: "alias loop", src: "alias a=b b=a\na x", want: []string{"a x"}},
	{name: "dynamic alias", src: "alias d=\"$X\"\nd x", dynamic: 1},

	// ssh reads options after the host, and -o RemoteCommand.
	{name: "ssh options after host", src: `ssh web-01 -p 2222 -t uptime`, want: []string{"web-01: uptime"}, not: []string{"-p", "-t"}},
	{name: "ssh -- after host", src: `ssh web-01 -- rm x`, want: []string{"web-01: rm x"}},
	{name: "ssh -- before host", src: `ssh -- web-01 -t x`, want: []string{"web-01: -t x"}},
	{name: "ssh RemoteCommand", src: `ssh -o RemoteCommand='rm x' web-01`, want: []string{"web-01: rm x"}},
	{name: "ssh RemoteCommand none", src: `ssh -oRemoteCommand=none web-01`, want: []string{"web-01: ssh -oRemoteCommand=none web-01"}},

	// Static output of groups and process substitutions is static text.
	{name: "group piped to bash", src: `{ echo 'rm x'; echo ls; } | bash`, want: []string{"rm x", "ls"}, not: []string{"bash"}},
	{name: "subshell piped to sh", src: `(echo 'rm x') | sh`, want: []string{"rm x"}, not: []string{"sh"}},
	{name: "bash runs a process substitution", src: `bash <(echo 'rm x')`, want: []string{"rm x"}, not: []string{"bash"}},
	{name: "source of a process substitution", src: `source <(echo 'rm x')`, want: []string{"rm x"}, not: []string{"source"}},
	{name: "dot of a process substitution", src: `. <(printf 'rm x\n')`, want: []string{"rm x"}},
	{name: "stdin from a process substitution", src: `bash < <(echo 'rm x')`, want: []string{"rm x"}, not: []string{"bash"}},
	{name: "bash runs a dynamic process substitution", src: `bash <(curl -s u)`, want: []string{"curl -s u"}, not: []string{"bash"}, dynamic: 1},
	{name: "source of a file", src: `source env.sh`, want: []string{"source env.sh"}},
	{name: "shell in an output process substitution", src: `exec 3> >(bash)`, not: []string{"bash"}, dynamic: 1},
	{name: "trap action", src: `trap 'rm x' EXIT`, want: []string{"rm x"}, not: []string{"trap"}},
	{name: "trap reset", src: `trap - EXIT`, want: []string{"trap - EXIT"}},
	{name: "trap listing", src: `trap -p`, want: []string{"trap -p"}},

	// Words that xargs, find and parallel fill in are known only at run
	// time, or from static input.
	{name: "xargs appends static input", src: `printf 'a\nb c\n' | xargs rm`, want: []string{"rm a b c"}},
	{name: "xargs replaces static input", src: `printf 'a\nb\n' | xargs -I{} rm -f {}`, want: []string{"rm -f a", "rm -f b"}},
	{name: "xargs input to sh -c", src: `echo 'rm x' | xargs sh -c`, want: []string{"rm"}, not: []string{"sh"}},
}

// render formats an invocation the way analyzeCase.want spells it.
func render(inv Invocation) string {
	s := strings.Join(append([]string{inv.Name}, inv.Args...), " ")
	if inv.Host != "" {
		s = inv.Host + ": " + s
	}
	return s
}

func TestAnalyze(t *testing.T) {
	for _, tc := range slices.Concat(analyzeCases, unknowableCases) {
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
			if len(got.Dynamic) != tc.dynamic {
				t.Errorf("Analyze(%q) dynamic = %+v, want %d entries", tc.src, got.Dynamic, tc.dynamic)
			}
			if (len(got.Unparsed) > 0) != tc.unparsed {
				t.Errorf("Analyze(%q) unparsed = %+v, want %v", tc.src, got.Unparsed, tc.unparsed)
			}
		})
	}
}

func find(a *Analysis, name string) (Invocation, bool) {
	for _, inv := range a.Invocations {
		if inv.Name == name {
			return inv, true
		}
	}
	return Invocation{}, false
}

func writes(want ...string) func(t *testing.T, inv Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if !slices.Equal(inv.Writes, want) {
			t.Errorf("writes %q, want %q", inv.Writes, want)
		}
	}
}

func reads(want ...string) func(t *testing.T, inv Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if !slices.Equal(inv.Reads, want) {
			t.Errorf("reads %q, want %q", inv.Reads, want)
		}
	}
}

func TestDetails(t *testing.T) {
	tests := []struct {
		name, src, cmd string
		check          func(t *testing.T, inv Invocation)
	}{
		{"heredoc payload", "gh issue create --body-file - <<'EOF'\ndo not revisit\nEOF", "gh", payload("do not revisit\n")},
		{"unquoted heredoc payload", "gh issue create -F - <<EOF\nhi \\$HOME $USER\nEOF", "gh", payload("hi $HOME $USER\n")},
		{"body flag", `gh issue create --title T --body 'B text'`, "gh", payload("T", "B text")},
		{"body equals", `gh pr create --body="B text"`, "gh", payload("B text")},
		{"message attached", `git commit -m"fix it"`, "git", payload("fix it")},
		{"message cluster", `git commit -am 'fix it'`, "git", payload("fix it")},
		{"body attached", `gh issue create -b'B text' -t'T'`, "gh", payload("B text", "T")},
		{"cat heredoc as value", "git commit -m \"$(cat <<'EOF'\nline one\nline two\nEOF\n)\"", "git", payload("line one\nline two")},
		{"quoted heredoc beginning with an escaped newline", "gh issue create -F - <<'EOF'\n\\\nx\nEOF", "gh", payload("\\\nx\n")},
		{"piped static text", `echo 'do not revisit' | gh issue create --body-file -`, "gh", payload("do not revisit\n")},
		{"here-string", `gh issue comment 1 -F - <<<"text"`, "gh", payload("text\n")},
		{"dynamic value keeps static text", `gh issue create -b "see $URL now"`, "gh", payload("see $URL now")},
		{"arg dynamic", `govc vm.power -off -vm "$VM"`, "govc", func(t *testing.T, inv Invocation) {
			if !slices.Equal(inv.ArgDynamic, []bool{false, false, false, true}) || inv.Args[3] != `"$VM"` {
				t.Errorf("args %q dynamic %v", inv.Args, inv.ArgDynamic)
			}
		}},
		{"static args have no dynamic flags", `rm -rf x`, "rm", func(t *testing.T, inv Invocation) {
			if inv.ArgDynamic != nil {
				t.Errorf("ArgDynamic = %v, want nil", inv.ArgDynamic)
			}
		}},
		{"via sudo on host", `ssh web-01 'sudo systemctl restart nginx'`, "systemctl", via("ssh web-01", "sudo")},
		{"via bash -c in substitution", `echo $(bash -c 'rm x')`, "rm", via("$(...)", "bash -c")},
		{"via heredoc to bash", "bash <<'EOF'\nrm x\nEOF", "rm", via("bash <<")},
		{"via pipe", `echo 'rm x' | sh`, "rm", via("| sh")},
		{"ssh host from uri", `ssh ssh://root@db-1:2222 uptime`, "uptime", host("db-1")},
		{"ssh host keeps domain", `ssh root@web1.lab.local uptime`, "uptime", host("web1.lab.local")},
		{"writes", `echo hi > /etc/motd 2>&1`, "echo", writes("/etc/motd")},
		{"writes append and all", `cat a >> log &>out`, "cat", writes("log", "out")},
		{"writes of a group", `{ uptime; df; } > report`, "df", writes("report")},
		{"writes >& file", `echo x >&out.txt`, "echo", writes("out.txt")},
		{"writes >| file", `echo x >| forced`, "echo", writes("forced")},
		{"writes dynamic file", `echo x > "$F"`, "echo", writes(`"$F"`)},
		{"no writes to /dev/null or descriptors", `ls >/dev/null 2>&1 >&2`, "ls", writes()},
		{"no writes from input", `cat < /etc/hosts`, "cat", writes()},
		{"reads", `cat < /etc/hosts`, "cat", reads("/etc/hosts")},
		{"reads of a loop", "while read -r l; do echo \"$l\"; done < ~/.cache/rew*/t", "echo", reads("~/.cache/rew*/t")},
		{"reads by exec", `exec 3< secret`, "exec", reads("secret")},
		{"reads and writes", `cat 0<> f`, "cat", reads("f")},
		{"no reads from heredocs, /dev/null or substitutions", "cat <<<x < /dev/null; wc -l < <(ls)", "wc", reads()},
		{"writes on host", `ssh web-01 'cat > /etc/app.conf'`, "cat", writes("/etc/app.conf")},
		{"local writes stay local", `ssh web-01 df -h > report.txt`, "df", writes()},
		{"writes through bash -c", `bash -c 'uptime' > up.txt`, "uptime", writes("up.txt")},
		{"piped group", `{ echo do not; echo revisit; } | gh issue create --body-file -`, "gh", payload("do not\nrevisit\n")},
		{"process substitution as body file", `gh issue create --body-file <(echo 'do not revisit')`, "gh", payload("do not revisit\n")},
		{"process substitution after =", `gh issue create --body-file=<(printf 'x')`, "gh", payload("x")},
		{"key=value body field", `gh api repos/o/r/issues -f title=T -f 'body=B text'`, "gh", payload("T", "B text")},
		{"xargs input is payload", "xargs gh issue create -b <<'EOF'\ndo not revisit\nEOF", "gh", payload("do not revisit\n", "do")},
		{"xargs input unknown", `find . | xargs rm`, "rm", dynArgs(true)},
		{"xargs replace unknown", `xargs -I{} govc vm.power -off {}`, "govc", dynArgs(false, false, true)},
		{"find -exec path unknown", `find . -exec govc vm.power -off {} +`, "govc", dynArgs(false, false, true)},
		{"parallel argument unknown", `parallel govc vm.power -off {} ::: a b`, "govc", dynArgs(false, false, true)},
		{"ssh remote command analysed", `ssh -o RemoteCommand=uptime web-01`, "ssh", analysed(true)},
		{"ssh stdin script analysed", "ssh -T web-01 <<'EOF'\nuptime\nEOF", "ssh", analysed(true)},
		{"ssh interactive", `ssh web-01`, "ssh", analysed(false)},
		{"ssh script from a file", `ssh web-01 < s.sh`, "ssh", analysed(false)},
		{"quotes removed", `echo "a\"b" 'c d' $'e\tf' g\ h`, "echo", func(t *testing.T, inv Invocation) {
			if want := []string{`a"b`, "c d", "e\tf", "g h"}; !slices.Equal(inv.Args, want) {
				t.Errorf("args %q, want %q", inv.Args, want)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := Analyze(tt.src)
			inv, ok := find(a, tt.cmd)
			if !ok {
				t.Fatalf("Analyze(%q) lacks %s: %+v", tt.src, tt.cmd, a.Invocations)
			}
			tt.check(t, inv)
		})
	}
}

func payload(want ...string) func(*testing.T, Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if !slices.Equal(inv.Payload, want) {
			t.Errorf("payload %q, want %q", inv.Payload, want)
		}
	}
}

func dynArgs(want ...bool) func(*testing.T, Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if !slices.Equal(inv.ArgDynamic, want) {
			t.Errorf("args %q dynamic %v, want %v", inv.Args, inv.ArgDynamic, want)
		}
	}
}

func analysed(want bool) func(*testing.T, Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if inv.Analysed != want {
			t.Errorf("analysed %v, want %v", inv.Analysed, want)
		}
	}
}

func via(want ...string) func(*testing.T, Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if !slices.Equal(inv.Via, want) {
			t.Errorf("via %q, want %q", inv.Via, want)
		}
	}
}

func host(want string) func(*testing.T, Invocation) {
	return func(t *testing.T, inv Invocation) {
		t.Helper()
		if inv.Host != want {
			t.Errorf("host %q, want %q", inv.Host, want)
		}
	}
}

// TestAgainstBash runs scripts through bash and checks that "echo RAN" is
// found by the analysis exactly when bash prints RAN.
func TestAgainstBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not found")
	}
	scripts := []string{
		"echo RAN\nif",
		"echo RAN; if",
		"echo RAN\nif true; then\necho no\n",
		"if true; then\necho RAN\nfi\nfor",
		"echo RAN && (",
		"cat <<'EOF'\nif\nEOF\necho RAN\nfi",
		"cat <<EOF\n$(echo RAN >&2)\nEOF",
		"cat <<'EOF'\n$(echo RAN)\nEOF",
		"cat <<E\"O\"F\n$(echo RAN)\nEOF",
		"cat <<\\EOF\n`echo RAN`\nEOF",
		"cat <<EOF\nx\nEOF\r\necho RAN\nEOF\n",
		"cat <<EOF\r\nx\r\nEOF\r\necho RAN",
		"echo 'echo RAN' | bash",
		"bash <<'EOF'\necho RAN\nEOF",
		"eval 'echo RAN'",
		"git_commit_msg='echo RAN'",
		"echo RAN\n)",
		"f() {\necho RAN\n}\nf",
		"echo RAN\ncase x in\n",
	}
	for _, script := range scripts {
		out, _ := exec.Command(bash, "-c", script).CombinedOutput()
		ran := slices.Contains(strings.Split(string(out), "\n"), "RAN")
		found := false
		for _, inv := range Analyze(script).Invocations {
			found = found || inv.Name == "echo" && slices.Contains(inv.Args, "RAN")
		}
		if found != ran {
			t.Errorf("script %q: analysis found echo RAN = %v, bash printed RAN = %v (output %q)", script, found, ran, out)
		}
	}
}

func TestPathological(t *testing.T) {
	const n = 5000
	tests := []struct {
		name     string
		src      string
		unparsed bool
		want     string
	}{
		{"deep substitution", strings.Repeat("echo $(", n) + "rm x" + strings.Repeat(")", n), true, ""},
		{"shallow substitution", strings.Repeat("echo $(", 100) + "rm x" + strings.Repeat(")", 100), false, "rm"},
		{"nested quotes", strings.Repeat(`"$(echo `, 10000) + strings.Repeat(`)"`, 10000), true, ""},
		{"nested if", strings.Repeat("if true; then ", 200) + "rm x" + strings.Repeat("; fi", 200), false, "rm"},
		{"deep if", strings.Repeat("if true; then ", n) + "rm x" + strings.Repeat("; fi", n), true, ""},
		{"huge heredoc", "cat <<'EOF'\n" + strings.Repeat("rm -rf / $(reboot)\n", 1<<16) + "EOF\nls", false, "ls"},
		{"long pipeline", strings.Repeat("cat | ", 20000) + "rm x", false, "rm"},
		{"long and list", strings.Repeat("true && ", 20000) + "rm x", false, "rm"},
		{"long arithmetic", "echo $((" + strings.Repeat("1+", 20000) + "$(rm x)))", false, "rm"},
		{"deep eval", nestedEval(5000), true, ""},
		{"many lines before an error", strings.Repeat("ls x\n", 50000) + "rm x; if", true, "ls"},
		{"unterminated everything", strings.Repeat("if (\n", 3000), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			race.SkipHugeInput(t, len(tt.src))
			a := Analyze(tt.src)
			if (len(a.Unparsed) > 0) != tt.unparsed {
				t.Errorf("unparsed = %d entries, want %v", len(a.Unparsed), tt.unparsed)
			}
			if tt.want != "" {
				if _, ok := find(a, tt.want); !ok {
					t.Errorf("%s not found", tt.want)
				}
			}
			if _, ok := find(a, "reboot"); ok {
				t.Errorf("heredoc text analysed as code")
			}
		})
	}
}

// nestedEval returns rm x run through n levels of eval, each of which
// parses its words again. Unlike nested quoting its size is linear in n.
func nestedEval(n int) string {
	return strings.Repeat("eval ", n) + "rm x"
}

func TestNestingLimit(t *testing.T) {
	a := Analyze(nestedEval(maxReparse))
	if _, ok := find(a, "rm"); !ok || len(a.Unparsed) != 0 {
		t.Errorf("%d levels of eval: %+v", maxReparse, a)
	}
	a = Analyze(nestedEval(maxReparse + 1))
	if _, ok := find(a, "rm"); ok || len(a.Unparsed) != 1 || a.Unparsed[0].Err != "nesting too deep" {
		t.Errorf("%d levels of eval: %+v", maxReparse+1, a)
	}
}

func TestUnparsedText(t *testing.T) {
	a := Analyze("ls\ncat <<'EOF'\nx\nEOF\necho one; if\necho two")
	if len(a.Unparsed) != 1 {
		t.Fatalf("unparsed %+v", a.Unparsed)
	}
	if got, want := a.Unparsed[0].Text, "echo one; if\necho two"; got != want {
		t.Errorf("unparsed text %q, want %q", got, want)
	}
	if !strings.Contains(a.Unparsed[0].Err, ":") {
		t.Errorf("error %q lacks a position", a.Unparsed[0].Err)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, tc := range slices.Concat(analyzeCases, unknowableCases) {
		f.Add(tc.src)
	}
	// Seeds stay small: the fuzzer minimises each input it finds
	// interesting, running it again for each byte it tries to drop, and
	// with inputs of many kilobytes that takes it minutes in which it
	// reports 0 execs/s. FuzzShapes grows small inputs into large ones.
	for _, s := range shapes.All {
		f.Add(s.Make(256))
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkAnalysis(t, Analyze(src))
	})
}

var benchCommands = []string{
	`git status`,
	`ls -la /var/log | grep -i error | head -20`,
	`cd /srv/app && git pull && make test`,
	`ssh -i ~/.ssh/id web-01 'sudo systemctl restart nginx && systemctl status nginx'`,
	"gh issue create --title 'Flaky test' --body \"$(cat <<'EOF'\nThe test fails on CI.\n\nSteps: run gh issue create\nEOF\n)\"",
	`govc vm.power -off -vm "$VM" && govc snapshot.create -vm "$VM" before-change`,
}

func BenchmarkAnalyze(b *testing.B) {
	for _, src := range benchCommands {
		b.Run(strings.Fields(src)[0], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Analyze(src)
			}
		})
	}
}

func BenchmarkPathological(b *testing.B) {
	inputs := map[string]string{
		"deep_subst":   strings.Repeat("echo $(", 900) + "x" + strings.Repeat(")", 900),
		"heredoc_1MiB": "cat <<'EOF'\n" + strings.Repeat("0123456789abcdef $(rm x) `y`\n", 1<<20/30) + "EOF",
		"pipeline":     strings.Repeat("cat | ", 20000) + "wc",
		"eval_5000":    nestedEval(5000),
	}
	for name, src := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Analyze(src)
			}
		})
	}
}

// TestCostIsLinear doubles pathological inputs and checks that the memory
// the analysis allocates at most about doubles too. Bytes allocated are
// deterministic where time is not, so this holds on a loaded machine.
func TestCostIsLinear(t *testing.T) {
	race.SkipHuge(t)
	shapes := map[string]func(n int) string{
		"nested substitution": func(n int) string { return strings.Repeat("echo $(", n) + "x" + strings.Repeat(")", n) },
		"nested quotes":       func(n int) string { return strings.Repeat(`"$(echo `, n) + strings.Repeat(`)"`, n) },
		"heredoc":             func(n int) string { return "cat <<EOF\n" + strings.Repeat("line $(date) `id` $HOME\n", n) + "EOF" },
		"pipeline":            func(n int) string { return strings.Repeat("cat | ", n) + "wc" },
		"and chain":           func(n int) string { return strings.Repeat("true && ", n) + "rm x" },
		"bash -c in loop":     func(n int) string { return strings.Repeat("for i in 1; do bash -c 'sudo rm x'; done; ", n) },
		"nested ifs":          func(n int) string { return strings.Repeat("if true; then ", n) + "rm x" + strings.Repeat("; fi", n) },
	}
	for name, shape := range shapes {
		t.Run(name, func(t *testing.T) {
			small, large := allocated(shape(200)), allocated(shape(400))
			if ratio := float64(large) / float64(small); ratio > 2.6 {
				t.Errorf("doubling the input multiplied the memory by %.1f (%d -> %d bytes)", ratio, small, large)
			}
		})
	}
}

func TestViaIsBounded(t *testing.T) {
	a := Analyze(strings.Repeat("sudo bash -c \"$(", 40) + "rm x" + strings.Repeat(")\"", 40))
	inv, ok := find(a, "rm")
	if !ok {
		t.Fatalf("rm not found: %+v", a)
	}
	if len(inv.Via) > maxVia || !slices.Contains(inv.Via, elidedVia) || inv.Via[0] != "$(...)" {
		t.Errorf("Via = %q, want at most %d steps, the outermost first, with %q", inv.Via, maxVia, elidedVia)
	}
}

func allocated(src string) uint64 {
	return allocatedBy(func() { Analyze(src) })
}

// allocatedBy returns the bytes f allocates.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
