// Command surfaces extracts the command surface of a tool that the
// catalog's families judge from the tool's own source: the commands (or
// API operations) it has, and the options that take a value. Its output is
// what policy/testdata/surfaces/*.txt list, each command with the effect
// the catalog gives it; policy's TestSurfaces checks that the catalog
// judges every listed command as its list says.
//
// Usage:
//
//	go run ./scripts/surfaces [-options] [-check LIST] TOOL DIR
//
// TOOL and the source DIR it reads:
//
//	govc            a github.com/vmware/govmomi checkout (cli/**/*.go)
//	aws-ec2         a github.com/boto/botocore checkout (botocore/data/ec2)
//	aws-ssm         the same (botocore/data/ssm)
//	gcloud          a Cloud SDK release (lib/surface/compute, lib/googlecloudsdk)
//	qm              github.com/proxmox/qemu-server (src/PVE/CLI/qm.pm)
//	pct             github.com/proxmox/pve-container (src/PVE/CLI/pct.pm)
//	pvesh-qemu      github.com/proxmox/qemu-server (src/PVE/API2/Qemu*.pm)
//
// The names are printed one per line. -options prints the options that
// take a value instead (for govc, one line a command: its options differ). -check compares the names with the commands of a
// list file and prints those the list lacks ("+ NAME") and those the tool
// no longer has ("- NAME"), exiting 1 when there are any: run it against a
// new release, then judge each new command in the list.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

// surface is what one tool's source says of its commands.
type surface struct {
	commands     []string
	valueOptions []string
}

var tools = map[string]func(dir string) (*surface, error){
	"govc":       govc,
	"aws-ec2":    func(dir string) (*surface, error) { return botocore(dir, "ec2") },
	"aws-ssm":    func(dir string) (*surface, error) { return botocore(dir, "ssm") },
	"qm":         func(dir string) (*surface, error) { return pveCLI(dir, "src/PVE/CLI/qm.pm") },
	"pct":        func(dir string) (*surface, error) { return pveCLI(dir, "src/PVE/CLI/pct.pm") },
	"pvesh-qemu": pveAPI,
	"gcloud":     gcloudSurface,
}

func main() {
	options := flag.Bool("options", false, "print the options that take a value")
	check := flag.String("check", "", "compare with the commands of a list `file`")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: go run ./scripts/surfaces [-options] [-check LIST] TOOL DIR\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 2 {
		flag.Usage()
		os.Exit(2)
	}
	extract, ok := tools[flag.Arg(0)]
	if !ok {
		var names []string
		for n := range tools {
			names = append(names, n)
		}
		slices.Sort(names)
		fmt.Fprintf(os.Stderr, "surfaces: unknown tool %q (want one of %s)\n", flag.Arg(0), strings.Join(names, ", "))
		os.Exit(2)
	}
	s, err := extract(flag.Arg(1))
	if err == nil && len(s.commands) == 0 {
		err = fmt.Errorf("no commands found in %s: is it the right checkout?", flag.Arg(1))
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "surfaces: %v\n", err)
		os.Exit(1)
	}
	names := s.commands
	if *options {
		names = s.valueOptions
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if *check != "" {
		os.Exit(compare(names, *check))
	}
	for _, n := range names {
		fmt.Println(n)
	}
}

// compare prints the names a list file lacks and the commands it has that
// names lacks, and returns the exit code.
func compare(names []string, list string) int {
	listed, err := listCommands(list)
	if err != nil {
		fmt.Fprintf(os.Stderr, "surfaces: %v\n", err)
		return 1
	}
	code := 0
	for _, n := range names {
		if !slices.Contains(listed, n) {
			fmt.Println("+ " + n)
			code = 1
		}
	}
	for _, n := range listed {
		if !slices.Contains(names, n) {
			fmt.Println("- " + n)
			code = 1
		}
	}
	return code
}

// listCommands reads the commands of a list file: the text before the
// first "|" of each line that is not blank, a comment or a directive, up
// to the "@extra" directive, after which a list holds more samples.
func listCommands(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var names []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "@extra" {
			break
		}
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "@") {
			continue
		}
		name, _, _ := strings.Cut(line, "|")
		names = append(names, strings.Join(strings.Fields(name), " "))
	}
	return names, sc.Err()
}
