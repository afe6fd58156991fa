package policy

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rewind-dev/rewind/internal/race"
)

// familyCases are calls of every family: a change with its targets, a read,
// and the deletes and unplanned changes that get deny or ask. family names
// the families whose rules decide the case, separated by spaces. They seed
// FuzzFamilies too.
var familyCases = []struct {
	family  string
	cmd     string
	want    Effect
	targets []string
}{
	// winrm: PowerShell remoting, CIM/WMI, winrs.
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName web-01 -ScriptBlock { Restart-Service W3SVC }'", Protect, []string{"web-01"}},
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName:web-01 -ScriptBlock { Get-Service W3SVC }'", None, nil},
	{"winrm", "pwsh -c 'Invoke-Command -Cn web-01, web-02 { Stop-Process -Name w3wp }'", Protect, []string{"web-01", "web-02"}},
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName $servers { Restart-Service W3SVC }'", Ask, nil},
	{"winrm", "pwsh -c 'Invoke-Command -ConnectionUri http://web-01:5985/wsman { Restart-Service W3SVC }'", Protect, []string{"web-01"}},
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName jump { Invoke-Command -ComputerName web-01 { Restart-Service W3SVC } }'", Protect, []string{"web-01"}},
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName web-01 { Remove-VM -Name web-02 }'", Deny, []string{"web-02"}},
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName web-01 { iex \"Restart-Service W3SVC\" }'", Protect, []string{"web-01"}},
	{"winrm", "pwsh -c 'Invoke-Command -ComputerName web-01 { Get-Content C:\\app.conf } | Out-File app.conf'", None, nil},
	{"winrm", "pwsh -c 'Get-Service | ForEach-Object { Write-Output $_.Name }'", None, nil},
	{"winrm", "pwsh -c 'Get-VM web-01 | ForEach-Object { Restart-VM -VM $_ }'", Ask, nil},
	{"winrm", "pwsh -c 'Set-Service -ComputerName web-01 -Name W3SVC -StartupType Disabled'", Protect, []string{"web-01"}},
	{"winrm", "pwsh -c 'Restart-Computer'", None, nil},
	{"winrm", "winrs -r:web-01 -u:admin -p:secret ipconfig /all", None, nil},
	{"winrm", "winrs /r:web-01 shutdown /r /t 0", Protect, []string{"web-01"}},
	{"winrm", "winrs -remote:web-01.corp.local \"net stop w3svc\"", Protect, []string{"web-01.corp.local"}},
	{"winrm", "winrs -r:$HOST ipconfig", None, nil},
	{"winrm", "winrs \"-r:$HOST\" net stop w3svc", Ask, nil},
	{"winrm", "winrs ipconfig /release", None, nil},
	{"winrm", "winrs -r:$HOST net stop w3svc", Ask, nil},
	{"winrm", "evil-winrm -i web-01 -u admin -p secret", Protect, []string{"web-01"}},
	// psexec.
	{"psexec", "psexec '\\\\web-01' -u corp\\admin -p secret -i 1 tasklist", None, nil},
	{"psexec", "psexec //web-01 -s net stop w3svc", Protect, []string{"web-01"}},
	{"psexec", "psexec '\\\\*' -s ipconfig /flushdns", Ask, nil},
	{"psexec", "psexec -s cmd /c whoami", None, nil},
	{"psexec", "psexec -s cmd /c dir c:\\x", None, nil},
	{"psexec", "psexec -s cmd /c shutdown /r", None, nil},
	{"psexec", "psexec -s '\\\\web-01' net stop w3svc", Protect, []string{"web-01"}},
	{"psexec", "psexec \"\\\\$TARGET\" net stop w3svc", Ask, nil},
	{"psexec", "psexec $TARGET net stop w3svc", Ask, nil},
	{"psexec", "psexec $TARGET ipconfig", None, nil},
	{"psexec govc", "psexec -s cmd /c \"govc vm.destroy web-02\"", Deny, []string{"web-02"}},
	{"psexec", "impacket-smbexec corp/admin@web-01", Protect, []string{"web-01"}},
	{"psexec", "PSEXEC.EXE '\\\\web-01'", Protect, []string{"web-01"}},
	{"winrm", "WinRS.exe -r:web-01 hostname", None, nil},
	{"winrm", "ssh win-01 'PowerShell.exe -Command Get-Service'", None, nil},
	{"psexec", "psexec.py -shell-type powershell corp/admin@web-01 Restart-Service W3SVC", Protect, []string{"web-01"}},
	// hyperv.
	{"hyperv", "pwsh -c 'Start-VM web-01; Save-VM -Name web-02'", Protect, []string{"web-01", "web-02"}},
	{"hyperv", "pwsh -c 'Get-VM -Name web-01 | Set-VMNetworkAdapter -StaticMacAddress 00155D000001'", Protect, []string{"web-01"}},
	{"hyperv", "pwsh -c 'Add-VMHardDiskDrive -VMName web-01 -Path D:\\disk2.vhdx'", Protect, []string{"web-01"}},
	{"hyperv", "pwsh -c 'Rename-VM -Name web-01 -NewName web-01-old'", Protect, []string{"web-01"}},
	{"hyperv", "pwsh -c 'Remove-VM web-01 -Force'", Deny, []string{"web-01"}},
	{"hyperv", "pwsh -c 'Get-VMNetworkAdapter -VMName web-01; Export-VM -Name web-01 -Path E:\\export'", None, nil},
	// azure.
	{"azure", "az vm stop -g rg -n web-01", Protect, []string{"web-01"}},
	{"azure", "az vm redeploy -g rg --name web-01", Protect, []string{"web-01"}},
	{"azure", "az vm disk attach -g rg --vm-name web-01 --name data1", Protect, []string{"web-01"}},
	{"azure", "az vm delete --ids /subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01", Deny, []string{"web-01"}},
	{"azure", "az vm list-ip-addresses -g rg && az vm run-command list --vm-name web-01 && az vm extension show --vm-name web-01 -n ext", None, nil},
	{"azure", "az vm run-command invoke --ids /subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01 --command-id RunShellScript --scripts 'rm -rf /tmp/cache'", Protect, []string{"web-01"}},
	{"azure", "az vm run-command create --name patch --vm-name web-01 -g rg --script 'cat /etc/os-release'", None, nil},
	{"azure", "az vm run-command invoke -g rg -n web-01 --command-id RunShellScript --scripts \"$SCRIPT\"", Protect, []string{"web-01"}},
	{"azure", "az vm create -g rg -n web-09 --image Ubuntu2204", None, nil},
	// azure-powershell.
	{"azure-powershell", "pwsh -c 'Stop-AzVM -ResourceGroupName rg -Name web-01 -Force'", Protect, []string{"web-01"}},
	{"azure-powershell", "pwsh -c 'Set-AzVMExtension -ResourceGroupName rg -VMName web-01 -Name ext -Publisher p -ExtensionType t -TypeHandlerVersion 1.0'", Protect, []string{"web-01"}},
	{"azure-powershell", "pwsh -c 'Remove-AzVM -ResourceGroupName rg -Name web-01 -Force'", Deny, []string{"web-01"}},
	{"azure-powershell", "pwsh -c 'Remove-AzResourceGroup -Name rg -Force'", Deny, nil},
	{"azure-powershell", "pwsh -c 'Remove-AzDisk -ResourceGroupName rg -DiskName d1 -Force'", Ask, nil},
	{"azure-powershell", "pwsh -c 'Get-AzVM -ResourceGroupName rg -Name web-01; New-AzVM -ResourceGroupName rg -Name web-09'", None, nil},
	// gcloud.
	{"gcloud", "gcloud compute instances start web-01 --zone us-central1-a --async", Protect, []string{"web-01"}},
	{"gcloud", "gcloud compute instances add-metadata web-01 --metadata startup-script='reboot'", Protect, []string{"web-01"}},
	{"gcloud", "gcloud alpha compute instances delete web-01", Deny, []string{"web-01"}},
	{"gcloud", "gcloud compute instances get-serial-port-output web-01", None, nil},
	{"gcloud", "gcloud compute instances update-container web-01 --container-image gcr.io/p/app:2", Protect, []string{"web-01"}},
	{"gcloud", "gcloud beta compute ssh web-01 --command 'cat /etc/hosts'", None, nil},
	{"gcloud", "gcloud compute ssh $VM --command 'sudo reboot'", Ask, nil},
	{"gcloud", "gcloud compute instances create web-09 --machine-type e2-small", None, nil},
	// aws.
	{"aws", "aws ec2 reboot-instances --instance-ids i-0abc1234,i-0def5678", Protect, []string{"i-0abc1234", "i-0def5678"}},
	{"aws", "aws ec2 stop-instances --instance-ids arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc1234", Protect, []string{"i-0abc1234"}},
	{"aws", "aws ec2 terminate-instances --instance-ids $(aws ec2 describe-instances --query 'Reservations[].Instances[].InstanceId' --output text)", Deny, nil},
	{"aws", "aws ec2 stop-instances --instance-ids $IDS", Ask, nil},
	{"aws", "aws ec2 describe-instance-status --instance-ids i-0abc1234", None, nil},
	{"aws", "aws ssm send-command --instance-ids i-0abc1234 --document-name AWS-RunShellScript --parameters commands='uptime'", None, nil},
	{"aws", "aws ssm send-command --instance-ids i-0abc1234 --document-name AWS-RunShellScript --parameters file://params.json", Protect, []string{"i-0abc1234"}},
	{"aws", "aws ec2-instance-connect ssh --instance-id i-0abc1234", Protect, []string{"i-0abc1234"}},
	// virsh and proxmox.
	{"virsh", "virsh -c qemu+ssh://root@kvm1/system destroy web-01", Protect, []string{"web-01"}},
	{"virsh", "virsh undefine web-01 --remove-all-storage", Deny, []string{"web-01"}},
	{"virsh", "virsh domstats web-01 && virsh snapshot-list web-01", None, nil},
	{"proxmox", "qm reset 100 && pvesh create /nodes/pve1/qemu/101/status/reboot", Protect, []string{"100", "101"}},
	{"proxmox", "qm destroy 100 --purge", Deny, []string{"100"}},
	{"proxmox", "pct destroy 200 && pvesh get /nodes/pve1/qemu/100/config", None, nil},
	// Structured values, files and wildcards.
	{"aws", "aws ssm start-automation-execution --document-name AWS-TerminateEC2Instance --parameters InstanceId=i-0abc1234", Deny, []string{"i-0abc1234"}},
	{"aws", "aws ec2 create-snapshots --instance-specification InstanceId=i-0abc1234 && aws ec2 modify-instance-credit-specification --instance-credit-specifications InstanceId=i-0abc1234,CpuCredits=unlimited", Protect, []string{"i-0abc1234"}},
	{"aws", "aws ec2 stop-instances --cli-input-json file://stop.json", Ask, nil},
	{"aws", "aws ec2 delete-volume --volume-id vol-0abc", Ask, nil},
	{"azure", "az disk delete -g rg -n web-01-os --yes && az snapshot delete -g rg -n s1", Ask, nil},
	{"azure", "az vmss restart -g rg -n web-ss", Ask, nil},
	{"azure", "az rest --method post --url https://management.azure.com/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01/restart?api-version=2024-07-01", Protect, []string{"web-01"}},
	{"gcloud", "gcloud compute disks delete data-1 --zone us-central1-a", Ask, nil},
	{"gcloud", "gcloud compute instances set-name web-01 --new-name web-02", Protect, []string{"web-01"}},
	{"govc", "govc vm.power -off '/dc1/vm/web-*'", Ask, nil},
	{"govc", "govc vm.unregister web-01", Deny, []string{"web-01"}},
	// terraform and pulumi.
	{"terraform", "terraform apply", Ask, nil},
	{"terraform", "tofu destroy", Deny, nil},
	{"terraform", "terragrunt run-all destroy", Deny, nil},
	{"terraform", "terraform fmt -check && terraform output -json && terraform state list", None, nil},
	{"pulumi", "pulumi update --skip-preview", Ask, nil},
	{"pulumi", "pulumi down -s dev --yes", Deny, nil},
	{"pulumi", "pulumi refresh --yes && pulumi stack ls", None, nil},
	// Prose that quotes any of them is data.
	{"", "git commit -m 'winrs -r:web-01 shutdown /r; az vm delete -n web-01; terraform destroy'", None, nil},
	{"", "gh issue create --title 'aws ec2 terminate-instances' --body \"$(cat <<'EOF'\npsexec \\\\web-01 shutdown /r\npulumi destroy --yes\nEOF\n)\"", None, nil},
	{"", "cat > runbook.md <<'EOF'\npwsh -c 'Invoke-Command -ComputerName web-01 { Restart-Computer }'\ngcloud compute instances delete web-01\nEOF", None, nil},
}

func TestFamilies(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	for _, tt := range familyCases {
		t.Run(tt.cmd, func(t *testing.T) {
			v := p.ClassifyCommand(tt.cmd)
			if v.Effect != tt.want || !slices.Equal(v.Targets, tt.targets) {
				t.Errorf("got %s %q (%s: %s), want %s %q", v.Effect, v.Targets, v.Rule, v.Reason, tt.want, tt.targets)
			}
		})
	}
}

// TestFamiliesListed checks that every family the cases use is in the
// catalog, and that every catalog rule names a family.
func TestFamiliesListed(t *testing.T) {
	t.Parallel()
	known := Families()
	for _, tt := range familyCases {
		for _, f := range strings.Fields(tt.family) {
			if !slices.Contains(known, f) {
				t.Errorf("family %q is not in the catalog (%v)", f, known)
			}
		}
	}
	cfg := catalogConfig()
	for _, r := range cfg.Commands {
		if r.Family == "" {
			t.Errorf("command rule %q%v has no family", r.Match, r.Cmdlets)
		}
	}
	for _, r := range cfg.Tools {
		if r.Family == "" {
			t.Errorf("tool rule %q has no family", r.Name)
		}
	}
	for _, tc := range catalogTestCases() {
		for _, f := range strings.Fields(tc.Family) {
			if !slices.Contains(known, f) {
				t.Errorf("test %q names the unknown family %q", tc.Command+tc.Tool, f)
			}
		}
	}
}

// TestDisableFamily turns each family off in turn: the self-tests still
// pass (a family's tests go with it), the family's changes pass silently,
// and the other families still judge theirs.
func TestDisableFamily(t *testing.T) {
	t.Parallel()
	for _, fam := range Families() {
		if fam == remoteFamily || fam == rewindFamily {
			continue
		}
		t.Run(fam, func(t *testing.T) {
			t.Parallel()
			p := newPolicy(t, "[catalog]\ndisable = [\""+fam+"\"]\n")
			// The whole self-test once per family is some 250,000
			// calls judged in one goroutine each: without -race (see
			// internal/race).
			if !race.Enabled {
				for _, r := range p.SelfTest() {
					if !r.OK {
						t.Error(r)
					}
				}
			}
			for _, r := range p.Rules() {
				if r.Family == fam {
					t.Errorf("rule %s of the disabled family is still in effect", r.Name)
				}
			}
			for _, tt := range familyCases {
				if tt.family == "" || tt.want == None {
					continue
				}
				v := p.ClassifyCommand(tt.cmd)
				if !slices.Contains(strings.Fields(tt.family), fam) && v.Effect != tt.want {
					t.Errorf("%s: got %s (%s), want %s: another family's rule changed", tt.cmd, v.Effect, v.Rule, tt.want)
				}
			}
		})
	}
	off := map[string]string{
		"winrm":            "winrs -r:web-01 net stop w3svc",
		"psexec":           "psexec //web-01 -s net stop w3svc",
		"hyperv":           "pwsh -c 'Checkpoint-VM -Name web-01'",
		"azure":            "az vm stop -g rg -n web-01",
		"azure-powershell": "pwsh -c 'Stop-AzVM -ResourceGroupName rg -Name web-01'",
		"gcloud":           "gcloud compute ssh web-01 --command 'sudo reboot'",
		"aws":              "aws ssm send-command --instance-ids i-1 --document-name AWS-RunShellScript --parameters commands=reboot",
		"terraform":        "terraform destroy",
		"pulumi":           "pulumi up",
		"ssh":              "ssh web-01 sudo reboot",
		"scp":              "scp app.conf web-01:/etc/",
		"rsync":            "rsync -a site/ web-01:/var/www/",
		"govc":             "govc vm.power -off web-01",
		"ansible":          "ansible-playbook site.yml -l web-01",
		"powercli":         "pwsh -c 'New-HardDisk -VM web-01 -CapacityGB 10'",
		"virsh":            "virsh shutdown web-01",
		"proxmox":          "qm stop 100",
		"mcp":              "",
	}
	for fam, cmd := range off {
		if cmd == "" {
			continue
		}
		on := newPolicy(t, "")
		if v := on.ClassifyCommand(cmd); v.Effect == None {
			t.Errorf("%s: none with every family on", cmd)
		}
		p := newPolicy(t, "[catalog]\ndisable = [\""+fam+"\"]\n")
		if v := p.ClassifyCommand(cmd); v.Effect != None {
			t.Errorf("%s with %s disabled: got %s (%s: %s), want none", cmd, fam, v.Effect, v.Rule, v.Reason)
		}
	}
	// The mcp family's former name turns it off too.
	for _, name := range []string{"mcp", "mcp-vsphere"} {
		p := newPolicy(t, "[catalog]\ndisable = [\""+name+"\"]\n")
		if v := p.Classify(Call{Tool: "mcp__vsphere__power_off_vm", Input: []byte(`{"vm_name":"web-01"}`)}); v.Effect != None {
			t.Errorf("mcp tool with %s disabled: got %s", name, v.Effect)
		}
		// rewind's own server is judged as ever.
		if v := p.Classify(Call{Tool: "mcp__rewind__zerto_rewind", Input: []byte(`{"id":"x","mode":"restore"}`)}); v.Effect != Ask {
			t.Errorf("rewind's restore with %s disabled: got %s", name, v.Effect)
		}
	}
}

func TestDisableErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		config, want string
	}{
		{"[catalog]\ndisable = [\"gclod\"]\n", `test.toml:2: catalog.disable: unknown family "gclod" (want one of ansible, aws, `},
		{"[catalog]\ndisable = [\"remote\"]\n", `test.toml:2: catalog.disable: family "remote" judges the commands every other family runs on a host; it cannot be disabled`},
		{"[catalog]\ndisable = [\"rewind\"]\n", `test.toml:2: catalog.disable: family "rewind" guards rewind itself; it cannot be disabled`},
		{"[catalog]\ndisable = \"aws\"\n", `test.toml:2: catalog.disable: want a list of strings`},
		{"[catalog]\nenable = [\"aws\"]\n", `test.toml:2: catalog.enable: unknown key`},
	}
	for _, tt := range tests {
		_, err := Parse("test.toml", []byte(tt.config))
		var ce *ConfigError
		if err == nil || !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%q: got %v, want %s...", tt.config, err, tt.want)
		}
	}
}

func TestResourceName(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01", "web-01"},
		{"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/VirtualMachines/web-01/", "web-01"},
		{"https://www.googleapis.com/compute/v1/projects/p/zones/z/instances/web-01", "web-01"},
		{"projects/p/zones/z/instances/web-01", "web-01"},
		{"arn:aws:ec2:eu-west-1:123456789012:instance/i-0abc", "i-0abc"},
		{"/subscriptions/0/resourceGroups/rg/providers/Microsoft.Network/networkInterfaces/nic1", "nic1"},
		{"web-01", "web-01"},
		{"i-0abc", "i-0abc"},
	}
	for _, tt := range tests {
		if got := resourceName(tt.in); got != tt.want {
			t.Errorf("resourceName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSSMCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`commands=["df -h","uptime"]`, []string{"df -h", "uptime"}, true},
		{`commands=uptime`, []string{"uptime"}, true},
		{`commands=[uptime,df]`, []string{"uptime", "df"}, true},
		{`{"commands":["reboot"],"workingDirectory":["/"]}`, []string{"reboot"}, true},
		{`{"commands":"reboot"}`, []string{"reboot"}, true},
		{`{"executionTimeout":["60"]}`, nil, false},
		{`file://params.json`, nil, false},
		{`{bad`, nil, false},
	}
	for _, tt := range tests {
		got, ok := ssmCommands(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("ssmCommands(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzFamilies checks that no command crashes the families' readers, and
// that any command quoted in a commit message stays data.
func FuzzFamilies(f *testing.F) {
	for _, tt := range familyCases {
		f.Add(tt.cmd)
	}
	p, err := New(Default())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		p.ClassifyCommand(cmd)
		if !utf8.ValidString(cmd) {
			// The shell parser refuses invalid UTF-8: unparsed text
			// that names a command is asked about, quoted or not.
			return
		}
		if v := p.ClassifyCommand("git commit -m " + shellQuote(cmd)); v.Effect != None {
			t.Errorf("quoted %q: got %s (%s: %s)", cmd, v.Effect, v.Rule, v.Reason)
		}
	})
}

// TestPowerShellStatements checks how statements that start with a value
// are read: a value runs nothing, an assignment runs its pipeline, and a
// variable run by & or . or called as a method is known only at run time.
func TestPowerShellStatements(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	tests := []struct {
		cmd     string
		want    Effect
		targets []string
	}{
		{"pwsh -c 'Get-VM | ForEach-Object { $_.Name }'", None, nil},
		{"pwsh -c '$vms = Get-VM -Name web-*; $vms.Count'", None, nil},
		{"pwsh -c '$r = Stop-VM -VM web-01 -Confirm:$false'", Protect, []string{"web-01"}},
		{"pwsh -c '[int]$n += Restart-VM web-02'", Protect, []string{"web-02"}},
		{"pwsh -c '$vm = Get-VM web-01; $vm.ExtensionData.PowerOffVM()'", Ask, nil},
		{"pwsh -c '& $cmd'", Ask, nil},
		{"pwsh -c '. $script'", Ask, nil},
		{"pwsh -c '$cmd web-01'", Ask, nil},
		{"pwsh -c '$servers = @(\"web-01\", \"web-02\"); $servers'", None, nil},
		{"pwsh -c 'Invoke-Command -ComputerName web-01 { param($name) Get-Service $name } -ArgumentList W3SVC'", None, nil},
		{"pwsh -c 'Invoke-Command -ComputerName web-01 { param($name) Restart-Service $name } -ArgumentList W3SVC'", Protect, []string{"web-01"}},
		{"pwsh -c '$vms | Stop-VM'", Ask, nil},
		{"pwsh -c 'Invoke-Command -ComputerName (Get-Content hosts.txt) { Restart-Service W3SVC }'", Ask, nil},
		{"pwsh -c 'Invoke-Command -ComputerName $(Get-Content hosts.txt) { Get-Service W3SVC }'", None, nil},
		{"pwsh -c '$h = @{ a = $(Remove-VM web-01) }'", Deny, []string{"web-01"}},
		{"pwsh -c 'Invoke-Command -ComputerName web-01 { Get-Service | Select-Object @{ n = \"N\"; e = { $_.Name } } }'", None, nil},
		{"pwsh -c '(Get-VM web-01).ExtensionData.PowerOffVM()'", Ask, nil},
		{"pwsh -c 'Stop-VM -VM (Get-VM web-01) -Confirm:$false'", Ask, nil},
		{"pwsh -c 'if ($x) { Stop-VM web-01 } else { Get-VM }'", Protect, []string{"web-01"}},
		{"pwsh -c 'Write-Output (Restart-VM web-02)'", Protect, []string{"web-02"}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			v := p.ClassifyCommand(tt.cmd)
			if v.Effect != tt.want || !slices.Equal(v.Targets, tt.targets) {
				t.Errorf("got %s %q (%s: %s), want %s %q", v.Effect, v.Targets, v.Rule, v.Reason, tt.want, tt.targets)
			}
		})
	}
}

// BenchmarkFamilies judges every family case once per iteration: the cost
// of the readers of remote code (reach.go) and of PowerShell script blocks.
func BenchmarkFamilies(b *testing.B) {
	p := newPolicy(b, "")
	for b.Loop() {
		for _, tt := range familyCases {
			p.ClassifyCommand(tt.cmd)
		}
	}
}

// TestDisableTrust: only the user's config or a trusted project config
// turns a family off; an untrusted project config's disable is ignored and
// said so.
func TestDisableTrust(t *testing.T) {
	t.Parallel()
	l := newLab(t, labUserConfig)
	path := l.projectConfig("[catalog]\ndisable = [\"govc\", \"aws\"]\n")
	const cmd = "govc vm.power -off web-01"
	cfg, p := l.find()
	if v := p.ClassifyCommand(cmd); v.Effect != Protect {
		t.Errorf("untrusted disable: %s (%s), want protect", v.Effect, v.Rule)
	}
	if len(cfg.Catalog.Disable) != 0 {
		t.Errorf("untrusted disable applied: %q", cfg.Catalog.Disable)
	}
	if _, ignored := cfg.Untrusted(); !strings.Contains(strings.Join(ignored, "; "), `catalog.disable = ["govc","aws"] (turning a catalog family off loosens the guard)`) {
		t.Errorf("ignored %q", ignored)
	}
	if _, _, err := Trust(path, l.getenv); err != nil {
		t.Fatal(err)
	}
	cfg, p = l.find()
	if v := p.ClassifyCommand(cmd); v.Effect != None {
		t.Errorf("trusted disable: %s (%s), want none", v.Effect, v.Rule)
	}
	if !slices.Equal(cfg.Catalog.Disable, []string{"govc", "aws"}) {
		t.Errorf("trusted disable: %q", cfg.Catalog.Disable)
	}
}
