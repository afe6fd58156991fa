package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// pveCLI reads the $cmddef table of a Proxmox command line tool (qm in
// qemu-server's src/PVE/CLI/qm.pm, pct in pve-container's
// src/PVE/CLI/pct.pm): its commands, with the subcommands of its groups
// ("disk resize", "guest exec") and its aliases ("resize" for "disk
// resize"). Proxmox's CLIHandler reads every option with a value, an
// optional one for booleans, so the tool's value options are all of them.
func pveCLI(dir, file string) (*surface, error) {
	f, err := os.Open(filepath.Join(dir, file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	key := regexp.MustCompile(`^( +)'?([a-z][a-z0-9_-]*)'?\s*=>\s*(.*)$`)
	s := &surface{valueOptions: []string{"-*"}}
	in, group := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "our $cmddef = {") {
			in = true
			continue
		}
		if !in {
			continue
		}
		if line == "};" {
			break
		}
		m := key.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		indent, name, rest := len(m[1]), m[2], m[3]
		switch {
		case indent == 4 && strings.HasPrefix(rest, "{") && !strings.Contains(rest, "alias"):
			group = name
		case indent == 4:
			group = ""
			s.commands = append(s.commands, name)
		case indent == 8 && group != "":
			s.commands = append(s.commands, group+" "+name)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !in {
		return nil, fmt.Errorf("%s: no $cmddef table", file)
	}
	return s, nil
}

// pveAPI reads the API of a Proxmox VM as qemu-server registers it
// (src/PVE/API2/Qemu.pm and the guest agent's Qemu/Agent.pm), as the pvesh
// commands that call it: "create /nodes/{node}/qemu/{vmid}/status/stop"
// for a POST, set for a PUT, delete for a DELETE, get for a GET.
func pveAPI(dir string) (*surface, error) {
	verbs := map[string]string{"GET": "get", "POST": "create", "PUT": "set", "DELETE": "delete"}
	s := &surface{}
	method := regexp.MustCompile(`method\s*=>\s*'([A-Z]+)'`)
	path := regexp.MustCompile(`path\s*=>\s*'([^']*)'`)
	for _, f := range []struct{ file, prefix string }{
		{"src/PVE/API2/Qemu.pm", "/nodes/{node}/qemu"},
		{"src/PVE/API2/Qemu/Agent.pm", "/nodes/{node}/qemu/{vmid}/agent"},
	} {
		data, err := os.ReadFile(filepath.Join(dir, f.file))
		if err != nil {
			return nil, err
		}
		for _, block := range strings.Split(string(data), "register_method(")[1:] {
			m, p := method.FindStringSubmatch(block), path.FindStringSubmatch(block)
			if m == nil || p == nil {
				continue
			}
			s.commands = append(s.commands, verbs[m[1]]+" "+strings.TrimSuffix(f.prefix+"/"+p[1], "/"))
		}
		if strings.HasSuffix(f.file, "Agent.pm") {
			// The agent's commands, registered from its table:
			// 'fsfreeze-freeze' => { method => 'POST', ... }.
			cmd := regexp.MustCompile(`(?m)^    '([a-z-]+)' => \{\s*method => '([A-Z]+)'`)
			for _, m := range cmd.FindAllStringSubmatch(string(data), -1) {
				s.commands = append(s.commands, verbs[m[2]]+" "+f.prefix+"/"+m[1])
			}
		}
	}
	return s, nil
}
