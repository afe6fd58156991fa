package policy

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// structuredCases are arguments and the values of a key they hold; they
// seed FuzzStructuredField.
var structuredCases = []struct {
	arg, key string
	want     []string
	unknown  bool
}{
	{`InstanceId=i-1`, "InstanceId", []string{"i-1"}, false},
	{`InstanceIds=i-1,i-2`, "InstanceIds", []string{"i-1", "i-2"}, false},
	{`InstanceId=[i-1,i-2],Force=true`, "InstanceId", []string{"i-1", "i-2"}, false},
	{`instanceid=i-1`, "InstanceId", []string{"i-1"}, false},
	{`Key=InstanceIds,Values=i-1,i-2`, "InstanceIds", []string{"i-1", "i-2"}, false},
	{`Key=tag:Role,Values=web`, "InstanceIds", nil, false},
	{`Key=tag:InstanceIds,Values=web`, "InstanceIds", nil, true},
	{`"InstanceIds": [i-1]`, "InstanceIds", nil, true},
	{`{InstanceIds: [i-1]}`, "InstanceIds", nil, true},
	{`InstanceId`, "InstanceId", nil, false},
	{`{"Other":1,"Note":"InstanceIds later"}`, "InstanceIds", nil, true},
	{`InstanceSpecification={InstanceId=i-1,ExcludeBootVolume=true}`, "InstanceId", []string{"i-1"}, false},
	{`{"InstanceIds":["i-1","i-2"],"Force":true}`, "InstanceIds", []string{"i-1", "i-2"}, false},
	{`{"Parameters":{"InstanceId":["i-1"]}}`, "InstanceId", []string{"i-1"}, false},
	{`[{"InstanceId":"i-1"},{"InstanceId":"i-2"}]`, "InstanceId", []string{"i-1", "i-2"}, false},
	{`{"InstanceId":{"Ref":"x"}}`, "InstanceId", nil, true},
	{`{"InstanceIds":[]}`, "InstanceIds", nil, true},
	{"InstanceIds: [i-1, i-2]", "InstanceIds", []string{"i-1", "i-2"}, false},
	{"InstanceIds:\n- i-1\n- 'i-2'\nForce: true\n", "InstanceIds", []string{"i-1", "i-2"}, false},
	{"Parameters:\n  InstanceId: i-1\n", "InstanceId", []string{"i-1"}, false},
	{"ids: &x [i-1]\nInstanceIds: *x\n", "InstanceIds", nil, true},
	{"InstanceIds: !Ref ids\n", "InstanceIds", nil, true},
	{"InstanceId: \"web-*\"\n", "InstanceId", []string{"web-*"}, false},
	{`Name=instance-id,Values=i-1`, "InstanceId", nil, false},
	{`--no-reboot`, "InstanceId", nil, false},
	{``, "InstanceId", nil, false},
}

func TestStructuredField(t *testing.T) {
	t.Parallel()
	for _, tc := range structuredCases {
		var got []string
		unknown := structuredField(tc.arg, tc.key, func(v string) { got = append(got, v) })
		if !slices.Equal(got, tc.want) || unknown != tc.unknown {
			t.Errorf("structuredField(%q, %q) = %q, %v; want %q, %v", tc.arg, tc.key, got, unknown, tc.want, tc.unknown)
		}
	}
}

// TestFieldValues reads the key in every argument of a command, with the
// option each value belongs to deciding whether a file may hold it.
func TestFieldValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		dyn     []bool
		want    []string
		unknown bool
	}{
		{[]string{"--parameters", "InstanceId=i-1", "--comment", "x"}, nil, []string{"i-1"}, false},
		{[]string{"--cli-input-json={\"InstanceId\":\"i-1\"}"}, nil, []string{"i-1"}, false},
		{[]string{"--cli-input-json", "file://in.json"}, nil, nil, true},
		{[]string{"--instance-ids", "file://ids.json"}, nil, nil, true},
		{[]string{"--parameters", "fileb://p.json"}, nil, nil, true},
		{[]string{"--public-key-material", "fileb://key.pub"}, nil, nil, false},
		{[]string{"--user-data", "@boot.sh"}, nil, nil, false},
		{[]string{"--parameters", `"InstanceId=$ID"`}, []bool{false, true}, nil, true},
		{[]string{"--parameters", `"$P"`}, []bool{false, true}, nil, true},
		{[]string{"--cli-input-json", `"$(cat in.json)"`}, []bool{false, true}, nil, true},
		{[]string{"--group-name", `"$NAME"`}, []bool{false, true}, nil, false},
		{[]string{`$ARGS`}, []bool{true}, nil, true},
	} {
		s := &subject{name: "aws", args: tc.args, dyn: tc.dyn}
		var got []string
		unknown := fieldValues(s, "InstanceId", func(v string) { got = append(got, v) })
		if !slices.Equal(got, tc.want) || unknown != tc.unknown {
			t.Errorf("fieldValues(%q) = %q, %v; want %q, %v", tc.args, got, unknown, tc.want, tc.unknown)
		}
	}
}

func TestPathValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    []string
		dyn     []bool
		seg     string
		want    []string
		unknown bool
	}{
		{[]string{"create", "/nodes/pve1/qemu/100/status/stop"}, nil, "qemu", []string{"100"}, false},
		{[]string{"set", "nodes/pve1/qemu/101/config", "--memory", "8192"}, nil, "qemu", []string{"101"}, false},
		{[]string{"create", "/nodes/pve1/lxc/200/status/stop"}, nil, "qemu", nil, false},
		{[]string{"--ids", "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/web-01"}, nil, "virtualMachines", []string{"web-01"}, false},
		{[]string{"--url=https://management.azure.com/subscriptions/0/providers/Microsoft.Compute/VIRTUALMACHINES/web-01/powerOff?api-version=1"}, nil, "virtualMachines", []string{"web-01"}, false},
		{[]string{"--ids", "$ID"}, []bool{false, true}, "virtualMachines", nil, true},
		{[]string{"-g", "$RG", "--ids", "/subscriptions/0/x/storageAccounts/st"}, []bool{false, true, false, false}, "virtualMachines", nil, false},
		{[]string{"create", "/nodes/pve1/qemu/$ID/status/stop"}, []bool{false, true}, "qemu", nil, true},
	} {
		s := &subject{args: tc.args, dyn: tc.dyn}
		var pos []int
		for i, a := range tc.args {
			if !isOption(a) && (i == 0 || !isOption(tc.args[i-1])) {
				pos = append(pos, i)
			}
		}
		got, unknown := pathValues(s, pos, tc.seg, false)
		if !slices.Equal(got, tc.want) || unknown != tc.unknown {
			t.Errorf("pathValues(%q, %q) = %q, %v; want %q, %v", tc.args, tc.seg, got, unknown, tc.want, tc.unknown)
		}
	}
}

func TestGlobTarget(t *testing.T) {
	t.Parallel()
	for target, want := range map[string]bool{
		"web-*": true, "web-0?": true, "web-0[12]": true, "/dc1/vm/web-*": true,
		"web-01": false, "i-0abc1234": false, "fe80::1": false, "[fe80::1]": false, "a]b[": false,
	} {
		if got := globTarget(target); got != want {
			t.Errorf("globTarget(%q) = %v, want %v", target, got, want)
		}
	}
}

func TestValueOptionPatterns(t *testing.T) {
	t.Parallel()
	gcloud := []string{"--*", "!--async", "!--no-*"}
	for _, tc := range []struct {
		list []string
		word string
		want bool
	}{
		{gcloud, "--zone", true},
		{gcloud, "--zone=us-central1-a", false},
		{gcloud, "--async", false},
		{gcloud, "--no-graceful-shutdown", false},
		{gcloud, "-q", false},
		{[]string{"-*"}, "--memory", true},
		{[]string{"-*"}, "-memory", true},
		{[]string{"-vm", "-dc"}, "-vm", true},
		{[]string{"-vm", "-dc"}, "-vm.ipath", false},
		{[]string{"!-vm", "-vm"}, "-vm", false},
	} {
		if got := takesValue(tc.list, tc.word, false); got != tc.want {
			t.Errorf("takesValue(%q, %q) = %v, want %v", tc.list, tc.word, got, tc.want)
		}
	}
	if !takesValue([]string{"-Vm*"}, "-vmname", true) {
		t.Error("a PowerShell pattern should match in any case")
	}
	// A pattern's option takes the next word only when it is no option
	// itself, as Getopt::Long reads an optional value.
	r := anyRule
	s := &subject{name: "qm", args: []string{"shutdown", "--forceStop", "--timeout", "30", "100"}, opts: []string{"-*"}}
	if got := r.positionalWords(s, false); !slices.Equal(got, []int{0, 4}) {
		t.Errorf("qm positionals = %v, want [0 4]", got)
	}
	s = &subject{name: "ssh", args: []string{"-o", "-x", "host"}, opts: []string{"-o"}}
	if got := r.positionalWords(s, false); !slices.Equal(got, []int{2}) {
		t.Errorf("a named option takes even a word that looks like one: %v", got)
	}
}

func TestWildMatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, s string
		want       bool
	}{
		{"*Terminate*", "AWS-TerminateEC2Instance", true},
		{"*Terminate*", "arn:aws:ssm:eu-west-1::document/AWS-TerminateEC2Instance", true},
		{"*AWS-RestartEC2Instance", "arn:aws:ssm:eu-west-1::document/AWS-RestartEC2Instance", true},
		{"*AWS-RestartEC2Instance", "AWS-RestartEC2InstanceX", false},
		{"delete*", "DELETE", true},
		{"disk-*", "disk-1000-0", true},
		{"disk-*", "cdrom-3000", false},
		{"?*", "", false},
		{"?*", "x", true},
		{"a*b*c", "a" + strings.Repeat("b", 1000), false},
		{"*a*b*", "ba", false},
		{"*a*b*", "xAxB", true},
		{"*x", strings.Repeat("x", 3), true},
		{"get*", "GETX", true},
		{"get*", "ge", false},
	} {
		if got := wildMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("wildMatch(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

func TestGlobAlternatives(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"stop|start|reset", "start", true},
		{"stop|start|reset", "restart", false},
		{"snapshot-*|checkpoint-*", "checkpoint-create", true},
		{"/nodes/*/qemu/*|nodes/*/qemu/*", "nodes/pve1/qemu/100", true},
		{"/nodes/*/qemu/*|nodes/*/qemu/*", "/nodes/pve1/qemu/100/status", false},
	} {
		if got := glob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("glob(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	if got := sampleWord("stop|start", "x"); got != "stop" {
		t.Errorf("sampleWord of alternatives = %q, want the first", got)
	}
}

// FuzzStructuredField: no argument of any shape makes the reader panic,
// and every value it returns is a part of the argument.
func FuzzStructuredField(f *testing.F) {
	for _, tc := range structuredCases {
		f.Add(tc.arg, tc.key)
	}
	f.Fuzz(func(t *testing.T, arg, key string) {
		if key == "" || !utf8.ValidString(key) {
			return
		}
		structuredField(arg, key, func(v string) {
			if !strings.Contains(arg, v) && !strings.Contains(unquoteAll(arg), v) && !strings.Contains(unquoteAll(perByteValid(arg)), v) {
				t.Fatalf("value %q is not in %q", v, arg)
			}
		})
	})
}

// perByteValid replaces every byte that is not UTF-8 with U+FFFD, as the
// JSON decoder does with a string's bytes.
func perByteValid(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unquoteAll drops JSON's escapes, which a value read from JSON loses.
func unquoteAll(s string) string {
	return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\/`, `/`).Replace(s)
}

// TestSegmentAfterLast: "path:SEGMENT$" takes the segment after SEGMENT
// only where the path ends there, whatever follows in a query, a fragment
// or a trailing slash.
func TestSegmentAfterLast(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w, want string
		ok      bool
	}{
		{"/subscriptions/0/resourceGroups/prod", "prod", true},
		{"https://management.azure.com/subscriptions/0/resourcegroups/prod/?api-version=1&x=a/b", "prod", true},
		{"https://management.azure.com/subscriptions/0/resourcegroups/prod#/providers/x", "prod", true},
		{"/subscriptions/0/resourceGroups/prod/providers/Microsoft.Storage/storageAccounts/st", "", false},
		{"/subscriptions/0/resourceGroups//prod//", "prod", true},
		{"/subscriptions/0/resourceGroups", "", false},
		{"resourceGroups", "", false},
		// Dot segments and %-escapes, as the server reads them.
		{"https://management.azure.com/subscriptions/0/resourcegroups/prod/x/..?api-version=1", "prod", true},
		{"/subscriptions/0/resourceGroups/prod/.", "prod", true},
		{"/subscriptions/0/resourceGroups/decoy/../prod", "prod", true},
		{"/subscriptions/0/resource%47roups/prod", "prod", true},
		{"/subscriptions/0/resourceGroups/prod/providers/x/../y", "", false},
		{"https://resourceGroups/prod", "", false},
	} {
		if got, ok := segmentAfter(tc.w, "resourceGroups", true); got != tc.want || ok != tc.ok {
			t.Errorf("segmentAfter(%q, last) = %q, %v; want %q, %v", tc.w, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct{ w, seg, want string }{
		{"/subscriptions/0/resourceGroups/prod/providers/x", "resourceGroups", "prod"},
		{"/subscriptions/0/resourceGroups/rg/virtualMachines/web-02/../web-01/powerOff", "virtualMachines", "web-01"},
	} {
		if got, ok := segmentAfter(tc.w, tc.seg, false); got != tc.want || !ok {
			t.Errorf("segmentAfter(%q, %s) = %q, %v; want %s", tc.w, tc.seg, got, ok, tc.want)
		}
	}
}
