package policy

import (
	"slices"
	"testing"

	"github.com/rewind-dev/rewind/shell"
)

// readerSubject makes the subject of the first command of cmd, as the
// policy judges it.
func readerSubject(t testing.TB, cmd string) *subject {
	t.Helper()
	a := shell.Analyze(cmd)
	if len(a.Invocations) == 0 {
		t.Fatalf("%q: no command", cmd)
	}
	s := fromInvocation(&a.Invocations[0])
	return &s
}

// TestMoreReach reads the hosts and code of the remote shells, the
// hypervisors' exec commands and the HTTP clients.
func TestMoreReach(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cmd     string
		family  string
		hosts   []string
		unknown bool
		code    string // "" for none read
	}{
		{"tsh ssh -l root web-01 sudo reboot", "teleport", []string{"web-01"}, false, "sudo reboot"},
		{"tsh --proxy tp.example.com ssh root@env=prod uptime", "teleport", nil, true, "uptime"},
		{"tsh ssh -N -L 8080:localhost:80 web-01 x", "teleport", []string{"web-01"}, false, ""},
		{"az ssh vm -g rg -n web-01 -- -t 'sudo reboot'", "azure", []string{"web-01"}, false, "sudo reboot"},
		{"az ssh vm --resource-id /subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-02", "azure", []string{"web-02"}, false, ""},
		{"bolt command run 'systemctl restart nginx' -t ssh://root@web-01:22,winrm://web-02", "bolt", []string{"web-01", "web-02"}, false, "systemctl restart nginx"},
		{"bolt command run uptime --targets 'web*'", "bolt", nil, true, "uptime"},
		{"pyinfra web-01,web-02 exec -- sudo reboot", "pyinfra", []string{"web-01", "web-02"}, false, "sudo reboot"},
		{"pyinfra inventories/prod.py exec -- uptime", "pyinfra", nil, true, "uptime"},
		{"fab -H deploy@web-01:2222 -- uname -a", "fabric", []string{"web-01"}, false, "uname -a"},
		{"knife ssh -m 'web-01 web-02' 'sudo chef-client'", "knife", []string{"web-01", "web-02"}, false, "sudo chef-client"},
		{"knife ssh 'role:web AND chef_environment:prod' uptime", "knife", nil, true, "uptime"},
		{"rsh -l admin web-01 df -h", "rsh", []string{"web-01"}, false, "df -h"},
		{"rlogin web-01", "rsh", []string{"web-01"}, false, ""},
		{"virtctl ssh root@vm/web-01.prod --command 'sudo reboot'", "kubevirt", []string{"web-01"}, false, "sudo reboot"},
		{"kubectl virt ssh vmi/web-01 -c uptime", "kubevirt", []string{"web-01"}, false, "uptime"},
		{"prlctl exec web-01 systemctl restart nginx", "parallels", []string{"web-01"}, false, "systemctl restart nginx"},
		{"hcloud server ssh -u root web-01 sudo reboot", "hcloud", []string{"web-01"}, false, "sudo reboot"},
		{"doctl compute ssh web-01 --ssh-command 'sudo reboot'", "doctl", []string{"web-01"}, false, "sudo reboot"},
		{"multipass exec web-01 -- sudo reboot", "multipass", []string{"web-01"}, false, "sudo reboot"},
		{"openstack server ssh web-01 -- -l ubuntu uptime", "openstack", []string{"web-01"}, false, "uptime"},
		{"xe vm-shutdown vm=web-01 force=true", "xen", []string{"web-01"}, false, ""},
		{"xe vm-shutdown power-state=running --multiple", "xen", nil, true, ""},
	} {
		s := readerSubject(t, tt.cmd)
		r, ok := reachOf(s)
		if !ok {
			t.Errorf("%q: not read", tt.cmd)
			continue
		}
		if r.family != tt.family || !slices.Equal(r.hosts, tt.hosts) || r.unknown != tt.unknown || r.code != tt.code || r.known != (tt.code != "") {
			t.Errorf("%q: family %q hosts %q unknown %v code %q (known %v); want %q %q %v %q",
				tt.cmd, r.family, r.hosts, r.unknown, r.code, r.known, tt.family, tt.hosts, tt.unknown, tt.code)
		}
	}
}

// TestHTTPRequestLines reads the method and URL of curl, wget, HTTPie and
// xh into the command each request is judged as.
func TestHTTPRequestLines(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		cmd, want string // want "" for no request read
	}{
		{"curl -X POST https://pve1:8006/api2/json/nodes/pve1/qemu/100/status/stop", "pvesh create /nodes/pve1/qemu/100/status/stop"},
		{"curl -sSk -XDELETE https://pve1:8006/api2/json/nodes/pve1/qemu/100", "pvesh delete /nodes/pve1/qemu/100"},
		{"curl -k https://pve1:8006/api2/json/nodes/pve1/qemu/100/config", "pvesh get /nodes/pve1/qemu/100/config"},
		{"curl -d newid=101 https://pve1:8006/api2/json/nodes/pve1/qemu/100/clone", "pvesh create /nodes/pve1/qemu/100/clone --newid 101"},
		{"curl -d 'vmid=100&force=1' --data @extra.txt -d '{\"archive\":\"a\",\"unique\":false,\"n\":[1]}' https://pve1:8006/api2/json/nodes/pve1/qemu", "pvesh create /nodes/pve1/qemu --vmid 100 --force 1 --archive a --unique false --\"${REWIND_RUNTIME_VALUE}\""},
		// A body from a file, stdin or a variable holds options known only
		// at run time; HTTPie's key@file and @file too.
		{"curl -X POST -d @restore.json https://pve1:8006/api2/json/nodes/pve1/qemu", "pvesh create /nodes/pve1/qemu --\"${REWIND_RUNTIME_VALUE}\""},
		{"curl -X POST --data-binary @- https://pve1:8006/api2/json/nodes/pve1/qemu", "pvesh create /nodes/pve1/qemu --\"${REWIND_RUNTIME_VALUE}\""},
		{"http POST https://pve1:8006/api2/json/nodes/pve1/qemu vmid=100 @body.json", "pvesh create /nodes/pve1/qemu --vmid 100 --\"${REWIND_RUNTIME_VALUE}\""},
		{"wget --method=POST --body-file=b.json https://pve1:8006/api2/json/nodes/pve1/qemu", "pvesh create /nodes/pve1/qemu --\"${REWIND_RUNTIME_VALUE}\""},
		// A field whose value alone is known only at run time, or read
		// from a file, is that field: its value cannot add another.
		{`http POST https://pve1:8006/api2/json/nodes/pve1/qemu vmid=100 name="$N" sshkeys=@k.pub`, `pvesh create /nodes/pve1/qemu --vmid 100 --name "${REWIND_RUNTIME_VALUE}" --sshkeys "${REWIND_RUNTIME_VALUE}"`},
		{`curl -X POST --data-urlencode "sshkeys=$KEY" -F "name=$N" https://pve1:8006/api2/json/nodes/pve1/qemu`, `pvesh create /nodes/pve1/qemu --sshkeys "${REWIND_RUNTIME_VALUE}" --name "${REWIND_RUNTIME_VALUE}"`},
		{`curl -X POST -d "name=$N" https://pve1:8006/api2/json/nodes/pve1/qemu`, `pvesh create /nodes/pve1/qemu --"${REWIND_RUNTIME_VALUE}"`},
		// Proxmox's API server reads a query's parameters with the
		// body's, for any method, and splits both at "&" and ";".
		{"curl -X POST 'https://pve1:8006/api2/json/nodes/pve1/qemu?vmid=100&force=1' -d 'archive=a;unique=0'", "pvesh create /nodes/pve1/qemu --archive a --unique 0 --vmid 100 --force 1"},
		{"http POST https://pve1:8006/api2/json/nodes/pve1/qemu vmid==100 force==\"$F\" name=x", `pvesh create /nodes/pve1/qemu --name x --vmid 100 --force "${REWIND_RUNTIME_VALUE}"`},
		{`curl -X POST "https://pve1:8006/api2/json/nodes/pve1/qemu?$Q"`, `pvesh create /nodes/pve1/qemu --"${REWIND_RUNTIME_VALUE}"`},
		{`http POST https://pve1:8006/api2/json/nodes/pve1/qemu "$K"==1 name=x`, `pvesh create /nodes/pve1/qemu --name x --"${REWIND_RUNTIME_VALUE}"`},
		{"curl -X POST --url-query vmid=100 --url-query '+force=1' --url-query name@n.txt https://pve1:8006/api2/json/nodes/pve1/qemu", `pvesh create /nodes/pve1/qemu --vmid 100 --force 1 --name "${REWIND_RUNTIME_VALUE}"`},
		{`curl -X POST --url-query "$Q" https://vc01/api/vcenter/vm/vm-1`, `http POST https://vc01/api/vcenter/vm/vm-1 "${REWIND_RUNTIME_QUERY[@]}"`},
		// HTTPie's query items join the URL's query; a query, or an item,
		// known only at run time is any words.
		{"http POST 'https://vc01/api/vcenter/vm/vm-1?a=1' action==unregister", "http POST https://vc01/api/vcenter/vm/vm-1 'a=1' 'action=unregister'"},
		{`http POST https://vc01/api/vcenter/vm/vm-1 action=="$A"`, `http POST https://vc01/api/vcenter/vm/vm-1 "${REWIND_RUNTIME_QUERY[@]}"`},
		{`curl -X POST "https://vc01/api/vcenter/vm/vm-1?action=$A"`, `http POST https://vc01/api/vcenter/vm/vm-1 "${REWIND_RUNTIME_QUERY[@]}"`},
		{"http POST https://management.azure.com/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01/powerOff api-version==2024-07-01",
			"az rest --method POST --url https://management.azure.com/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01/powerOff'?api-version=2024-07-01'"},
		// Options from a startup file or a config file, or variables.
		{"wget -e 'method = DELETE' https://vc01/api/vcenter/vm/vm-1", "http DELETE https://vc01/api/vcenter/vm/vm-1"},
		{"wget -ePost_Data=x https://vc01/api/vcenter/vm/vm-1/power", "http POST https://vc01/api/vcenter/vm/vm-1/power"},
		{"curl -K c.cfg https://vc01/api/vcenter/vm/vm-1", `http "${REWIND_RUNTIME_VALUE}" https://vc01/api/vcenter/vm/vm-1`},
		{"CURL_HOME=. curl https://vc01/api/vcenter/vm/vm-1", `http "${REWIND_RUNTIME_VALUE}" https://vc01/api/vcenter/vm/vm-1`},
		{"CURL_HOME=. curl -q https://vc01/api/vcenter/vm/vm-1", ""},
		{"HOME=/tmp/x wget https://vc01/api/vcenter/vm/vm-1", `http "${REWIND_RUNTIME_VALUE}" https://vc01/api/vcenter/vm/vm-1`},
		{"curl -X DELETE --expand-url 'https://vc01/api/vcenter/vm/{{vm}}'", "http DELETE https://vc01'/api/vcenter/vm/*'"},
		{"curl -T disk.raw https://vc01/api/vcenter/vm/vm-1", "http PUT https://vc01/api/vcenter/vm/vm-1"},
		{"curl -sX POST 'https://VC01/api/vcenter/vm/vm-1/power?action=stop&x=a/b'", "http POST https://vc01/api/vcenter/vm/vm-1/power 'action=stop' 'x=a%2Fb'"},
		{"curl -X DELETE 'https://vc01/api/vcenter/vm/vm-1/hardware/../?q=/hardware/disk/1'", "http DELETE https://vc01/api/vcenter/vm/vm-1 'q=%2Fhardware%2Fdisk%2F1'"},
		{"curl -X DELETE https://vc01/api/vcenter/%76m/vm-1", "http DELETE https://vc01/api/vcenter/vm/vm-1"},
		{"curl -G -d q=1 https://vc01/api/vcenter/vm", ""},
		{"curl -I https://vc01/api/vcenter/vm/vm-1", ""},
		{"curl -X \"$M\" https://vc01/api/vcenter/vm/vm-1", `http "${REWIND_RUNTIME_VALUE}" https://vc01/api/vcenter/vm/vm-1`},
		{"curl -X DELETE \"https://vc01/api/vcenter/vm/$VM\"", "http DELETE https://vc01'/api/vcenter/vm/*'"},
		{"curl -X POST \"$URL\"", ""},
		{"curl -X POST 'https://management.azure.com/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01/powerOff?api-version=2024-07-01'",
			"az rest --method POST --url https://management.azure.com/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01/powerOff'?api-version=2024-07-01'"},
		{"wget --method=DELETE https://engine/ovirt-engine/api/vms/7c1e", "http DELETE https://engine/ovirt-engine/api/vms/7c1e"},
		{"wget --post-data x=1 -O- https://engine/ovirt-engine/api/vms/7c1e/stop", "http POST https://engine/ovirt-engine/api/vms/7c1e/stop"},
		{"wget -qO- https://engine/ovirt-engine/api/vms", ""},
		{"http DELETE https://vc01/api/vcenter/vm/vm-1", "http DELETE https://vc01/api/vcenter/vm/vm-1"},
		{"http https://vc01/api/vcenter/vm/vm-1/power action==stop power=off", "http POST https://vc01/api/vcenter/vm/vm-1/power 'action=stop'"},
		{"http https://vc01/api/vcenter/vm Accept:application/json", ""},
		{"http --offline DELETE https://vc01/api/vcenter/vm/vm-1", ""},
		{"xh delete :8080/api/vcenter/vm/vm-1", "http DELETE https://localhost:8080/api/vcenter/vm/vm-1"},
	} {
		s := readerSubject(t, tt.cmd)
		name := s.name
		r, ok := httpReach(s, name)
		if got := r.code; !ok && tt.want != "" || ok && got != tt.want {
			t.Errorf("%q: read %q (%v), want %q", tt.cmd, got, ok, tt.want)
		}
	}
}

// TestExpectCode reads expect scripts into the commands they run.
func TestExpectCode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ script, want string }{
		{`spawn ssh web-01; expect "$ "; send "sudo reboot\r"`, "ssh web-01 $'sudo reboot\\n'"},
		{"spawn -noecho ssh -l root web-01\nexpect \"#\"\nsend -- \"uptime\\r\"\ninteract", "ssh -l root web-01\nssh -l root web-01 $'uptime\\n'"},
		{`spawn bash; send "ls\r"`, "bash\nls\n"},
		{`spawn python3; send "import os\r"`, "python3\npython3 -c $'import os\\n'"},
		{`spawn passwd; send "$pw\r"`, "passwd"},
		{`exec rm -rf /tmp/x | wc -l > out.txt`, "rm -rf /tmp/x | wc -l > out.txt"},
		{`system "echo {hi}; uptime"`, "'echo {hi}; uptime'"},
		{`spawn $cmd`, runtimeWord},
		{"# spawn ssh web-01\nputs {spawn ssh web-01}", ""},
		{`eval $code`, runtimeWord},
		{`spawn ssh [lindex $argv 0]`, "ssh " + runtimeWord},
	} {
		if got := expectCode(tt.script); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.script, got, tt.want)
		}
	}
}

// FuzzCodeReaders reads fuzzed text as a Jupyter cell, an expect script
// and a URL: none may panic, and what they read stays about as long as
// the text (a few times its length: a word known only at run time is
// a longer placeholder).
func FuzzCodeReaders(f *testing.F) {
	for _, seed := range []string{
		"!ssh {host} reboot\n%%bash\nls", "%%time\n%%capture\n%%time\n%%time\n%%time\nx", "x = !ls\n%sc -l a=ls\nls(x)",
		`spawn ssh web-01; send "a\r"`, "{{{{[[[[\"\\", "https://h/a/../../%2e%2e/b?x=/y#z", ":8080/x", "$U/api2/json/nodes/$N/qemu/1",
	} {
		f.Add(seed)
	}
	w := newPolicy(f, "").words()
	f.Fuzz(func(t *testing.T, text string) {
		n := 0
		for _, part := range w.readIPython(text, 0) {
			n += len(part.text)
		}
		if n > 16*len(text)+64 {
			t.Errorf("the cell %q read as %d bytes of code", text, n)
		}
		if code := expectCode(text); len(code) > 16*len(text)+64 {
			t.Errorf("the script %q read as %d bytes of code", text, len(code))
		}
		for _, dyn := range []bool{false, true} {
			if u, ok := splitURL(text, dyn); ok && len(u.path(0)) > 16*len(text)+64 {
				t.Errorf("the URL %q read as a path of %d bytes", text, len(u.path(0)))
			}
		}
	})
}
