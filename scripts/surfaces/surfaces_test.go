package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestXformName(t *testing.T) {
	for in, want := range map[string]string{
		"StopInstances":                    "stop-instances",
		"DescribeVpcEndpointServices":      "describe-vpc-endpoint-services",
		"AssociateIamInstanceProfile":      "associate-iam-instance-profile",
		"CreateReplaceRootVolumeTask":      "create-replace-root-volume-task",
		"GetEbsEncryptionByDefault":        "get-ebs-encryption-by-default",
		"DescribeDhcpOptions":              "describe-dhcp-options",
		"ListTagsForResource":              "list-tags-for-resource",
		"DeleteVpnConnectionRoute":         "delete-vpn-connection-route",
		"DescribeFpgaImageAttribute":       "describe-fpga-image-attribute",
		"ModifyInstanceMetadataOptions":    "modify-instance-metadata-options",
		"DescribeInstanceTypeOfferings":    "describe-instance-type-offerings",
		"ImportVMs":                        "import-vms",
		"already-kebab":                    "already-kebab",
		"CreateEgressOnlyInternetGateway":  "create-egress-only-internet-gateway",
		"DisassociateIpamResourceDiscover": "disassociate-ipam-resource-discover",
	} {
		if got := xformName(in); got != want {
			t.Errorf("xformName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestListCommands(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.txt")
	os.WriteFile(path, []byte("# c\n@family x\nvm.power | protect | -off web-01\ninstances  stop | protect\n\n@extra\nvm.power | protect | -on web-01\n"), 0o666)
	got, err := listCommands(path)
	if err != nil || !slices.Equal(got, []string{"vm.power", "instances stop"}) {
		t.Errorf("listCommands = %q, %v", got, err)
	}
}

// TestPveCLI reads a $cmddef table of the shape qm.pm and pct.pm have.
func TestPveCLI(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "src/PVE/CLI"), 0o777)
	os.WriteFile(filepath.Join(dir, "src/PVE/CLI/qm.pm"), []byte(`package PVE::CLI::qm;
our $cmddef = {
    list => [
        "PVE::API2::Qemu",
        'vmlist',
    ],
    stop => ["PVE::API2::Qemu", 'vm_stop', ['vmid'], {%node}, $upid_exit],
    'remote-migrate' => [__PACKAGE__, 'remote_migrate_vm'],
    resize => { alias => 'disk resize' },
    disk => {
        resize => ["PVE::API2::Qemu", 'resize_vm', ['vmid', 'disk', 'size'], {%node}],
        'move' => ["PVE::API2::Qemu", 'move_vm_disk'],
    },
};
1;
`), 0o666)
	s, err := pveCLI(dir, "src/PVE/CLI/qm.pm")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"list", "stop", "remote-migrate", "resize", "disk resize", "disk move"}
	if !slices.Equal(s.commands, want) || !slices.Equal(s.valueOptions, []string{"-*"}) {
		t.Errorf("pveCLI = %q %q, want %q", s.commands, s.valueOptions, want)
	}
	if _, err := pveCLI(dir, "nope.pm"); err == nil {
		t.Error("a missing file: no error")
	}
}

func TestGcloudCommandFile(t *testing.T) {
	for name, want := range map[string]bool{"stop.py": true, "export.yaml": true, "__init__.py": false, "_flags.py": false, "README": false} {
		if got := commandFile(name); got != want {
			t.Errorf("commandFile(%q) = %v, want %v", name, got, want)
		}
	}
}
