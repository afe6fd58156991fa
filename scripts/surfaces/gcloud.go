package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// gcloudGroups are the groups of gcloud compute whose commands change or
// read VMs, their disks and snapshots, and the groups that run them.
var gcloudGroups = []string{
	"instances", "disks", "snapshots", "instance_groups", "images", "machine_images",
	"instant_snapshots", "instant_snapshot_groups", "snapshot_groups", "recoverable_snapshots",
	"os_config",
}

// gcloudSurface reads the command tree of the Google Cloud SDK
// (lib/surface/compute of a google-cloud-sdk release): a group is a folder,
// a command a .py or .yaml file in it, named with "-" for "_". The
// top-level compute commands (ssh, scp, reset-windows-password...) come
// with the groups. The boolean flags are the add_argument and
// base.Argument calls of lib/surface/compute and
// lib/googlecloudsdk/command_lib/compute whose action stores a constant
// (true, false, a const, a count);
// gcloud reads every other flag with a value, so its value options are
// "--*" but those.
func gcloudSurface(dir string) (*surface, error) {
	root := filepath.Join(dir, "lib", "surface", "compute")
	s := &surface{}
	seen := map[string]bool{}
	add := func(rel string) {
		rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".py"), ".yaml")
		name := strings.ReplaceAll(strings.ReplaceAll(rel, string(filepath.Separator), " "), "_", "-")
		if !seen[name] {
			seen[name] = true
			s.commands = append(s.commands, name)
		}
	}
	top, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	for _, e := range top {
		if !e.IsDir() && commandFile(e.Name()) {
			add(e.Name())
		}
	}
	for _, g := range gcloudGroups {
		err := filepath.WalkDir(filepath.Join(root, g), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !commandFile(d.Name()) {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			add(rel)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	booleans, err := gcloudBooleans(dir)
	if err != nil {
		return nil, err
	}
	s.valueOptions = append([]string{"--*"}, booleans...)
	return s, nil
}

func commandFile(name string) bool {
	return !strings.HasPrefix(name, "_") && (strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".yaml"))
}

var (
	argumentCall = regexp.MustCompile(`(?:add_argument|Argument)\(\s*['"](--[a-z0-9-]+)['"]`)
	storeBoolean = regexp.MustCompile(`action\s*=\s*(?:['"](?:store_true|store_false|store_const|count)['"]|arg_parsers\.StoreTrueFalseAction|actions\.Store(?:Boolean|Const)Property)`)
)

// gcloudBooleans returns the boolean flags as value option exclusions
// ("!--async"), with "!--no-*" for the negated forms gcloud makes of them.
// A name that is boolean in one place and takes a value in another is left
// out: it takes a value.
func gcloudBooleans(dir string) ([]string, error) {
	kinds := map[string]map[bool]bool{}
	for _, sub := range []string{"lib/surface/compute", "lib/googlecloudsdk/command_lib/compute", "lib/googlecloudsdk/calliope"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".py") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			text := string(data)
			for _, m := range argumentCall.FindAllStringSubmatchIndex(text, -1) {
				name := text[m[2]:m[3]]
				call := balanced(text[m[1]:])
				if kinds[name] == nil {
					kinds[name] = map[bool]bool{}
				}
				kinds[name][storeBoolean.MatchString(call)] = true
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := []string{"!--no-*", "!--quiet", "!--help", "!--log-http"}
	for name, k := range kinds {
		if k[true] && !k[false] {
			out = append(out, "!"+name)
		}
	}
	return out, nil
}

// balanced returns the text up to the parenthesis that closes a call whose
// opening one comes before text, or all of a bounded prefix.
func balanced(text string) string {
	depth := 1
	for i := 0; i < len(text) && i < 4000; i++ {
		switch text[i] {
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return text[:i]
			}
		}
	}
	return text[:min(len(text), 4000)]
}
