package policy

import (
	"slices"
	"strings"
	"testing"
)

// TestRunTimeTargets: a host known only at run time is asked about and
// never reported as a target, while a loop over hosts written in the
// command names each of them; prose quoting either passes.
func TestRunTimeTargets(t *testing.T) {
	t.Parallel()
	pol, err := New(Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cmd     string
		effect  Effect
		targets []string
		reason  string // a part of the verdict's reason
	}{
		{`ssh web-01 sudo reboot`, Protect, []string{"web-01"}, ""},
		{`ssh "$HOST" sudo reboot`, Ask, nil, `the host "$HOST" is decided at run time`},
		{`ssh ops@$HOST 'sudo systemctl restart nginx'`, Ask, nil, `the host ops@$HOST is decided at run time`},
		{`ssh "$(pick-host)" sudo reboot`, Ask, nil, `the host "$(pick-host)" is decided at run time`},
		{`ssh "$HOST" uptime`, None, nil, ""},
		{`for vm in app-01 app-02; do ssh "$vm" sudo reboot; done`, Protect, []string{"app-01", "app-02"}, ""},
		{`for vm in app-01 app-02; do ssh "$vm" uptime; done`, None, nil, ""},
		{`for vm in $(cat hosts); do ssh "$vm" sudo reboot; done`, Ask, nil, `the host "$vm" is decided at run time`},
		{`for vm in app-01 app-02; do vm=db-01; ssh "$vm" sudo reboot; done`, Ask, nil, `the host "$vm" is decided at run time`},
		// Prose that quotes them is data.
		{`git commit -m 'for vm in app-01 app-02; do ssh "$vm" sudo reboot; done'`, None, nil, ""},
		{`echo 'ssh "$HOST" sudo reboot'`, None, nil, ""},
	} {
		v := pol.ClassifyCommand(tc.cmd)
		if v.Effect != tc.effect || !slices.Equal(v.Targets, tc.targets) || !strings.Contains(v.Reason, tc.reason) {
			t.Errorf("%s:\n got %s %q %q\nwant %s %q, reason with %q", tc.cmd, v.Effect, v.Targets, v.Reason, tc.effect, tc.targets, tc.reason)
		}
	}
}

func TestRunTimeHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host string
		want bool
	}{
		{"web-01", false},
		{"web-01.lab.local", false},
		{"192.168.7.14", false},
		{"fe80::1%eth0", false},
		{"$HOST", true},
		{`"$HOST"`, true},
		{"${hosts[0]}", true},
		{"$(pick)", true},
		{"`pick`", true},
		{"web-*", true},
	} {
		if got := runTimeHost(tc.host); got != tc.want {
			t.Errorf("runTimeHost(%q) = %v, want %v", tc.host, got, tc.want)
		}
	}
}

func TestVMName(t *testing.T) {
	t.Parallel()
	tc := TargetsConfig{
		Aliases:     map[string]string{"192.168.7.14": "app-03", "WEB1": "web-01", "db": "db-01"},
		StripDomain: true,
	}
	for _, c := range []struct{ target, want string }{
		{"192.168.7.14", "app-03"},
		{"web1", "web-01"}, // aliases match host names in any case
		{"db.lab.local", "db-01"},
		{"web-02.lab.local", "web-02"},
		{"10.0.0.1", "10.0.0.1"}, // an address keeps its dots
		{"web-02", "web-02"},
	} {
		if got := tc.VMName(c.target); got != c.want {
			t.Errorf("VMName(%q) = %q, want %q", c.target, got, c.want)
		}
	}
	plain := TargetsConfig{}
	if got := plain.VMNames([]string{"web-02.lab.local", "x"}); !slices.Equal(got, []string{"web-02.lab.local", "x"}) {
		t.Errorf("without [targets], VMNames = %q", got)
	}
}
