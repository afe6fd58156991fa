package cli

import (
	"testing"

	"github.com/rewind-dev/rewind/policy"
)

// honestWork is what agents run all day. None of it changes a VM, and the
// built-in catalog must let all of it through silently: a guard that asks
// about honest work gets switched off.
var honestWork = []string{
	`git status && git diff --stat`,
	`git log --oneline -20 --grep 'govc vm.destroy'`,
	`git add -A && git commit -m "catalog: deny govc vm.destroy, protect ssh web-01 reboot"`,
	"git commit -F- <<'EOF'\nssh: protect `ssh web-01 sudo reboot`\n\nAlso: govc vm.power -off, Stop-VM -VM web-01.\nEOF",
	"git commit -m \"$(cat <<'EOF'\nDocument ansible-playbook site.yml -l web-01\nEOF\n)\"",
	`gh pr create --title 'Guard scp to hosts' --body 'scp app.conf web-01:/etc/ and rsync -a x web-01:/srv now protect the host'`,
	"gh pr create --body-file - <<'EOF'\n```sh\ngovc vm.destroy web-01\npwsh -c 'Remove-VM -VM web-01'\n```\nEOF",
	`grep -rn 'govc vm.power' docs/ | head`,
	`rg -n "ssh .* reboot" --type go`,
	`cat > docs/runbook.md <<'EOF'
# Runbook
1. ssh web-01 sudo systemctl restart nginx
2. govc vm.power -reset web-01
EOF`,
	`echo "to power off: govc vm.power -off web-01"`,
	`printf '%s\n' 'ansible-playbook site.yml --limit db-01'`,
	`python3 -c "print('govc vm.destroy web-01')"`,
	`node -e "console.log('ssh web-01 reboot')"`,
	`jq '.commands[] | select(.name == "govc vm.destroy")' rules.json`,
	`sed -n '1,40p' README.md`,
	`find . -name '*.go' -newer go.mod | xargs wc -l`,
	`go test -race ./... 2>&1 | tail -20`,
	`go build -o /tmp/rewind ./cmd/rewind && /tmp/rewind explain -- 'govc vm.destroy x'`,
	`npm ci && npm test -- --watch=false`,
	`docker ps --format '{{.Names}}'`,
	`kubectl get pods -A -o wide`,
	`curl -fsS https://example.invalid/health | jq .status`,
	`ssh web-01 uptime`,
	`ssh admin@web-01 'df -h; free -m; systemctl status nginx --no-pager; journalctl -u nginx -n 50'`,
	`ssh web-01 cat /etc/nginx/nginx.conf > nginx.conf`,
	`scp web-01:/var/log/nginx/error.log ./logs/`,
	`rsync -av web-01:/srv/www/ ./backup/`,
	`govc ls /dc1/vm && govc vm.info -json web-01 | jq .`,
	`govc find / -type m -name 'web-*'`,
	`ansible-playbook site.yml --check --diff -l web-01`,
	`ansible all -m ping`,
	`pwsh -c "Get-VM -Name web-01 | Select-Object Name, PowerState"`,
	`for f in *.md; do wc -w "$f"; done`,
	`if [ -f go.mod ]; then go mod verify; fi`,
	`tail -f /var/log/syslog | grep --line-buffered rewind`,
	`ls -la ~/.config/rewind 2>/dev/null || echo none`,
	`make -n build`,
	`# govc vm.destroy web-01 would be denied`,
	`man govc`,
	`which govc ssh ansible-playbook`,
	"cat <<EOF > deploy.sh\ngovc vm.destroy web-01\nEOF",
	`git commit -m "$(printf 'govc vm.destroy x')"`,
	`git diff --name-only | xargs gofmt -l`,
	`find . -name '*.go' -exec grep -l 'govc vm.power' {} +`,
	`parallel gzip ::: *.log`,
	`diff <(sort a.txt) <(sort b.txt)`,
	`tee >(sha256sum > sum.txt) < build.tar > /dev/null`,
	`trap 'rm -f "$tmp"' EXIT`,
	"ssh -T web-01 <<'EOF'\nuptime\ndf -h\nEOF",
	`ssh -o RemoteCommand='journalctl -n 20' web-01`,
	`ssh -J bastion web-01 'systemctl status nginx'`,
	`ansible all -i hosts, --module-name ping`,
	`govc import.spec app.ova | jq .`,
	"{ echo '## Notes'; echo 'govc vm.destroy is denied'; } >> NOTES.md",
	`time go test ./...`,
}

func TestHonestWorkPasses(t *testing.T) {
	pol, err := policy.New(policy.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range honestWork {
		if v := pol.ClassifyCommand(cmd); v.Effect != policy.None {
			t.Errorf("%s\n  got %s (rule %q: %s)", cmd, v.Effect, v.Rule, v.Reason)
		}
	}
}
