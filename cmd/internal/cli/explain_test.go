package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// explainConfig holds the DESIGN's example user rules, tried before the
// built-in catalog.
const explainConfig = `
[[server]]
name = "vsphere"

[[tool]]
name = "Write"
effect = "deny"
paths = ["src/**"]
payload_contains = ["do not revisit"]

[[command]]
match = "gh issue create"
effect = "deny"
payload_contains = ["do not revisit"]
reason = "issue texts must not close a topic"

[[command]]
match = "git push"
args_any = ["--force", "-f"]
args_none = ["--force-with-lease"]
effect = "deny"

[[command]]
match = "git reset"
args_any = ["--hard"]
effect = "deny"

[[command]]
match = "rm"
args_any = ["-r", "-rf", "-fr", "-R"]
effect = "ask"
reason = "recursive delete"
`

type explainOut struct {
	Decision    string   `json:"decision"`
	Targets     []string `json:"targets"`
	Rule        string   `json:"rule"`
	Reason      string   `json:"reason"`
	Invocations []struct {
		Name string   `json:"name"`
		Args []string `json:"args"`
		Host string   `json:"host"`
	} `json:"invocations"`
}

// TestExplainJSON runs `rewind explain --json` on each shape of DESIGN
// sections 2–4, both as a command that runs (it trips) and as prose that
// only quotes it (it stays quiet).
func TestExplainJSON(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, []byte(explainConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cmd     string
		want    string
		targets []string
	}{
		// The seed's regression case.
		{"commit quoting issue create", "git commit -F- <<'EOF'\nNever run gh issue create saying do not revisit\nEOF", "none", nil},
		{"issue create body-file heredoc", "gh issue create --title x --body-file - <<'EOF'\nwe do not revisit this\nEOF", "deny", nil},
		{"issue create body flag", "gh issue create --body 'Do Not Revisit'", "deny", nil},
		{"issue create cat heredoc value", "gh issue create --body \"$(cat <<'EOF'\nplease do not revisit\nEOF\n)\"", "deny", nil},
		{"issue create other body", "gh issue create --body 'worth another look'", "none", nil},
		{"issue create -R", "gh -R org/repo issue create -b 'do not revisit'", "deny", nil},
		{"issue create piped body", "echo 'do not revisit' | gh issue create --body-file -", "deny", nil},
		{"issue create piped group body", "{ echo 'we'; echo 'do not revisit'; } | gh issue create --body-file -", "deny", nil},
		{"issue create body from process substitution", "gh issue create --body-file <(echo 'do not revisit')", "deny", nil},
		{"issue create body read by xargs", "xargs gh issue create -b <<'EOF'\ndo not revisit\nEOF", "deny", nil},
		{"issue new is issue create", "gh issue new --body 'do not revisit'", "deny", nil},
		{"issue new other body", "gh issue new --body 'worth another look'", "none", nil},

		// Command positions.
		{"after &&", "cd repo && git push -f", "deny", nil},
		{"pipeline", "true | git push --force", "deny", nil},
		{"subshell", "(git push -f)", "deny", nil},
		{"group", "{ git push -f; }", "deny", nil},
		{"if body", "if true; then git push -f; fi", "deny", nil},
		{"while body", "while false; do git push -f; done", "deny", nil},
		{"for body", "for r in a b; do git push -f; done", "deny", nil},
		{"case body", "case x in x) git push -f;; esac", "deny", nil},
		{"function", "f() { git push -f; }; f", "deny", nil},
		{"command substitution in double quotes", `echo "$(git push -f)"`, "deny", nil},
		{"backticks in double quotes", "echo \"`git push -f`\"", "deny", nil},
		{"process substitution", "cat <(git push -f)", "deny", nil},
		{"unquoted heredoc substitution", "cat <<EOF\n$(git push -f)\nEOF", "deny", nil},
		{"quoted heredoc substitution", "cat <<'EOF'\n$(git push -f)\nEOF", "none", nil},
		{"partly quoted heredoc delimiter", "cat <<E\"O\"F\n$(git push -f)\nEOF", "none", nil},
		{"escaped heredoc delimiter", "cat <<\\EOF\n$(git push -f)\nEOF", "none", nil},
		{"single quotes", "echo '$(git push -f)'", "none", nil},
		{"comment", "ls # git push -f", "none", nil},
		{"argument", "echo git push -f", "none", nil},
		{"commit message", `git commit -m "then git push -f"`, "none", nil},
		{"grep pattern", "grep -r 'git push -f' .", "none", nil},
		{"force with lease", "git push --force-with-lease", "none", nil},
		{"cluster flag", "git push -fu origin main", "deny", nil},
		{"git options skipped", "git -C repo -c core.x=y push -f", "deny", nil},
		{"reset hard", "git -C repo reset --hard", "deny", nil},

		// Names.
		{"path-qualified name", "/usr/bin/git push -f", "deny", nil},
		{"backslashed name", `\git push -f`, "deny", nil},
		{"quoted name", `"git" push -f`, "deny", nil},
		{"split quotes name", `g''it push -f`, "deny", nil},

		// Wrappers.
		{"sudo", "sudo -u deploy git push -f", "deny", nil},
		{"doas", "doas git push -f", "deny", nil},
		{"env", "env -i HOME=/x git push -f", "deny", nil},
		{"command", "command git push -f", "deny", nil},
		{"exec", "exec git push -f", "deny", nil},
		{"nice", "nice -n 5 git push -f", "deny", nil},
		{"nohup", "nohup git push -f", "deny", nil},
		{"time", "time git push -f", "deny", nil},
		{"timeout", "timeout 30 git push -f", "deny", nil},
		{"stdbuf", "stdbuf -o0 git push -f", "deny", nil},
		{"ionice", "ionice -c 3 git push -f", "deny", nil},
		{"xargs", "echo main | xargs git push -f origin", "deny", nil},
		{"var prefix", "GIT_TRACE=1 git push -f", "deny", nil},

		// Code handed to a shell.
		{"bash -c", "bash -c 'git push -f'", "deny", nil},
		{"sh -c nested sudo", `sh -c "sudo git push -f"`, "deny", nil},
		{"eval", `eval "git push -f"`, "deny", nil},
		{"heredoc to bash", "bash <<'EOF'\ngit push -f\nEOF", "deny", nil},
		{"here-string to bash", "bash <<< 'git push -f'", "deny", nil},
		{"echo piped to bash", "echo 'git push -f' | bash", "deny", nil},
		{"heredoc to cat", "cat <<'EOF' > notes.md\ngit push -f\nEOF", "none", nil},

		// ssh: the remote command runs on the host.
		{"ssh read-only", "ssh web-01 uptime", "none", nil},
		{"ssh read-only list", "ssh admin@web-01 'df -h && free -m && systemctl status nginx'", "none", nil},
		{"ssh change", "ssh -i ~/.ssh/id -p 22 admin@web-01 'sudo systemctl restart nginx'", "protect", []string{"web-01"}},
		{"ssh interactive", "ssh web-01", "protect", []string{"web-01"}},
		{"ssh read-only command writing a file", "ssh web-01 'echo 3 > /proc/sys/vm/drop_caches'", "protect", []string{"web-01"}},
		{"ssh output saved locally", "ssh web-01 journalctl -n 50 > web-01.log", "none", nil},
		{"ssh quoted in commit", `git commit -m "ssh web-01 reboot"`, "none", nil},
		{"ssh remote rule", "ssh jump govc vm.destroy web-02", "deny", nil},

		// Dynamic and unparsed.
		{"dynamic name", "$TOOL push -f", "ask", nil},
		{"dynamic target", `govc vm.power -off -vm "$VM"`, "ask", nil},
		{"dynamic subcommand", `git $SUB --hard`, "ask", nil},
		{"dynamic subcommand without the rule's condition", `git $SUB main`, "none", nil},
		{"dynamic argument of a read-only command", `git log $REF`, "none", nil},
		{"line before syntax error runs", "git reset --hard\nif", "deny", nil},
		// Bash runs nothing of a line with a syntax error, but the text
		// names a command a deny rule matches: the user is asked.
		{"same line as syntax error", "git reset --hard; if", "ask", nil},
		{"syntax error naming no rule's command", "ls -la; if", "none", nil},
		{"CR after terminator", "cat <<'EOF'\nEOF\r\ngit push -f\nEOF", "none", nil},

		// The catalog's VM rules.
		{"govc power", "govc vm.power -off web-01", "protect", []string{"web-01"}},
		{"govc power flag", "govc vm.power -on -vm db-01", "protect", []string{"db-01"}},
		{"govc info", "govc vm.info web-01", "none", nil},
		{"govc destroy", "govc vm.destroy web-01", "deny", nil},
		{"govc quoted", "echo 'govc vm.destroy web-01'", "none", nil},
		{"scp to host", "scp app.conf admin@web-01:/etc/app/", "protect", []string{"web-01"}},
		{"scp from host", "scp admin@web-01:/var/log/app.log .", "none", nil},
		{"rsync to host", "rsync -av ./site/ web-01:/srv/www/", "protect", []string{"web-01"}},
		{"ansible limit", "ansible-playbook site.yml -l web-01,db-01", "protect", []string{"web-01", "db-01"}},
		{"ansible check", "ansible-playbook site.yml --check -l web-01", "none", nil},
		{"powercli", `pwsh -c "Stop-VM -VM web-01 -Confirm:\$false"`, "protect", []string{"web-01"}},
		{"powercli read", `pwsh -c "Get-VM web-01"`, "none", nil},
		{"powercli remove", `pwsh -c "Remove-VM -VM web-01"`, "deny", nil},

		// Second review round.
		{"ansible last -m", "ansible web-01 -m ping -m shell -a reboot", "protect", []string{"web-01"}},
		{"ssh RemoteCommand read-only", "ssh -o RemoteCommand=uptime web-01", "none", nil},
		{"ssh stdin script read-only", "ssh -T web-01 <<'EOF'\nuptime\nEOF", "none", nil},
		{"ssh stdin script change", "ssh -T web-01 <<'EOF'\nreboot\nEOF", "protect", []string{"web-01"}},
		{"xargs target from stdin", "xargs -I{} govc vm.power -off {}", "ask", nil},
		{"xargs static target", "printf 'web-01\\n' | xargs -I{} govc vm.power -off {}", "protect", []string{"web-01"}},
		{"find -exec target", "find . -exec govc vm.power -off {} +", "ask", nil},
		{"bash runs process substitution", "bash <(echo 'govc vm.destroy web-01')", "deny", nil},
		{"group piped to bash", "{ echo 'govc vm.destroy web-01'; } | bash", "deny", nil},
		{"output process substitution shell", "exec 3> >(bash)", "ask", nil},
		{"trap action", "trap 'govc vm.destroy web-01' EXIT", "deny", nil},
		{"govc unknown subcommand", "govc object.rename /dc1/vm/web-01 web-02", "ask", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explainJSONRun(t, cfg, "--", tt.cmd)
			if got.Decision != tt.want {
				t.Fatalf("decision %q, want %q (rule %q, reason %q)", got.Decision, tt.want, got.Rule, got.Reason)
			}
			if tt.targets != nil && !slices.Equal(got.Targets, tt.targets) {
				t.Errorf("targets %q, want %q", got.Targets, tt.targets)
			}
			if got.Decision != "none" && got.Rule == "" {
				t.Errorf("decision %s names no rule", got.Decision)
			}
		})
	}
}

func TestExplainTool(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, []byte(explainConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tool, input, want string
		targets                 []string
	}{
		{"power off", "mcp__vsphere__power_off_vm", `{"vm_name":"web-01"}`, "protect", []string{"web-01"}},
		{"get", "mcp__vsphere__get_vm", `{"vm_name":"web-01"}`, "none", nil},
		{"unlisted tool of a guarded server", "mcp__vsphere__frobnicate", `{}`, "ask", nil},
		{"write denied phrase", "Write", `{"file_path":"src/a.md","content":"We do not revisit this."}`, "deny", nil},
		{"write other path", "Write", `{"file_path":"docs/a.md","content":"We do not revisit this."}`, "none", nil},
		{"write other text", "Write", `{"file_path":"src/a.md","content":"Open question."}`, "none", nil},
		{"read", "Read", `{"file_path":"/etc/hosts"}`, "none", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := explainJSONRun(t, cfg, "--tool", tt.tool, "--input", tt.input)
			if got.Decision != tt.want {
				t.Fatalf("decision %q, want %q (rule %q, reason %q)", got.Decision, tt.want, got.Rule, got.Reason)
			}
			if tt.targets != nil && !slices.Equal(got.Targets, tt.targets) {
				t.Errorf("targets %q, want %q", got.Targets, tt.targets)
			}
		})
	}
}

func explainJSONRun(t *testing.T, cfg string, args ...string) explainOut {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(append([]string{"explain", "--json", "--config", cfg}, args...), strings.NewReader(""), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got explainOut
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("output is not one JSON object: %v\n%s", err, stdout.String())
	}
	if strings.Count(strings.TrimSpace(stdout.String()), "\n") != 0 {
		t.Fatalf("output is more than one line:\n%s", stdout.String())
	}
	return got
}
