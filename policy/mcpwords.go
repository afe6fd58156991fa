package policy

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// MCPConfig holds the [mcp] table: the words of a tool's name and the keys
// of its input by which a tool of an MCP server that no rule lists is
// judged (see judgeMCP). Each table maps a class to its words; a config's
// words add to the catalog's, and a word a config puts in another class
// moves there.
type MCPConfig struct {
	// Verbs are the words that say what a tool does, by class: read,
	// change, machine (a change only a machine undergoes: power,
	// reboot), create, destroy and exec (the tool runs a command).
	Verbs map[string][]string `toml:"verbs"`
	// Nouns are the words that say what a tool acts on, by class: vm,
	// disk, snapshot, part (a part of a VM, such as its network
	// adapter), hosts (the tool runs a playbook or task on hosts), exec
	// (the tool runs a command), remote (its commands run on another
	// host) and powershell (its commands are PowerShell).
	Nouns map[string][]string `toml:"nouns"`
	// Keys are the input keys by what their value holds: vm (names the
	// VM), name (names the VM of a tool whose noun is a VM and that does
	// not create one), host (the host an exec tool's command runs on),
	// command, args and flags (an exec tool's command, its arguments and
	// its options), action (a word that says what the tool does) and
	// type (the kind of resource). Keys are compared in lower case
	// without "_", "-" and ".", so vm_name stands for vmName and vm-name.
	Keys map[string][]string `toml:"keys"`
	// Types are values of a type key that name a VM, disk or snapshot
	// kind ("AWS::EC2::Instance"), by noun class, compared ignoring case.
	Types map[string][]string `toml:"types"`
	// Phrases are two words in a row that are read as one verb of a
	// class: libvirt's "destroy domain" is a power-off, a change.
	Phrases map[string][]string `toml:"phrases"`
	// Programs maps a word of a tool's name to the command line program
	// the tool runs, which its command is judged as: "gcloud" = "gcloud".
	Programs map[string]string `toml:"programs"`
	// FlagPrefix is, per program, what starts an option made of a key of
	// a flags object ("-" for govc); the default is "--".
	FlagPrefix map[string]string `toml:"flag_prefix"`
}

// The classes of the [mcp] table's words and keys.
var (
	mcpVerbClasses  = []string{"read", "change", "machine", "create", "destroy", "exec"}
	mcpNounClasses  = []string{"vm", "disk", "snapshot", "part", "hosts", "exec", "remote", "powershell"}
	mcpKeyClasses   = []string{"vm", "name", "host", "command", "args", "flags", "action", "type"}
	mcpTypeClasses  = []string{"vm", "disk", "snapshot"}
	mcpDefaultFlags = "--"
)

// empty reports whether the table sets nothing.
func (c *MCPConfig) empty() bool {
	return len(c.Verbs)+len(c.Nouns)+len(c.Keys)+len(c.Types)+len(c.Phrases)+len(c.Programs)+len(c.FlagPrefix) == 0
}

// mcp checks the [mcp] table: known classes, and words that are words.
func (v *validator) mcp(c *MCPConfig) {
	check := func(table string, m map[string][]string, classes []string, words int) {
		seen := map[string]string{}
		for _, class := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(classes, class) {
				v.fail("mcp."+table, -1, class, "unknown class %q (want one of %s)", class, strings.Join(classes, ", "))
				continue
			}
			for _, w := range m[class] {
				fold := strings.ToLower(w)
				if table == "keys" {
					fold = foldMCPKey(w)
				}
				if other, ok := seen[fold]; ok && other != class {
					v.fail("mcp."+table, -1, class, "%q is in %s too", w, other)
				}
				seen[fold] = class
				if n := len(strings.Fields(w)); n != words || strings.TrimSpace(w) != w {
					want := "one word"
					if words == 2 {
						want = "two words"
					}
					v.fail("mcp."+table, -1, class, "%q: want %s", w, want)
				}
			}
		}
	}
	check("verbs", c.Verbs, mcpVerbClasses, 1)
	check("nouns", c.Nouns, mcpNounClasses, 1)
	check("keys", c.Keys, mcpKeyClasses, 1)
	check("phrases", c.Phrases, mcpVerbClasses, 2)
	for _, class := range slices.Sorted(maps.Keys(c.Types)) {
		if !slices.Contains(mcpTypeClasses, class) {
			v.fail("mcp.types", -1, class, "unknown class %q (want one of %s)", class, strings.Join(mcpTypeClasses, ", "))
		}
		for _, t := range c.Types[class] {
			if strings.TrimSpace(t) == "" {
				v.fail("mcp.types", -1, class, "empty type")
			}
		}
	}
	for _, w := range slices.Sorted(maps.Keys(c.Programs)) {
		if len(strings.Fields(w)) != 1 || len(strings.Fields(c.Programs[w])) != 1 {
			v.fail("mcp.programs", -1, w, "want a word of the tool's name and the program's name, got %q = %q", w, c.Programs[w])
		}
	}
	for p, prefix := range c.FlagPrefix {
		if prefix != "-" && prefix != "--" && prefix != "/" {
			v.fail("mcp.flag_prefix", -1, p, "want \"-\", \"--\" or \"/\", got %q", prefix)
		}
	}
}

// layOver lays a trusted project's [mcp] table over c, the user's: its
// words join c's, and a word it puts in another class leaves c's.
func (c *MCPConfig) layOver(proj *MCPConfig) {
	for _, pair := range []struct {
		dst *map[string][]string
		src map[string][]string
		key bool
	}{{&c.Verbs, proj.Verbs, false}, {&c.Nouns, proj.Nouns, false}, {&c.Keys, proj.Keys, true},
		{&c.Types, proj.Types, false}, {&c.Phrases, proj.Phrases, false}} {
		if len(pair.src) == 0 {
			continue
		}
		fold := strings.ToLower
		if pair.key {
			fold = foldMCPKey
		}
		out := map[string][]string{}
		for class, words := range *pair.dst {
			for _, w := range words {
				moved := false
				for pc, pw := range pair.src {
					moved = moved || pc != class && slices.ContainsFunc(pw, func(x string) bool { return fold(x) == fold(w) })
				}
				if !moved {
					out[class] = append(out[class], w)
				}
			}
		}
		for class, words := range pair.src {
			out[class] = append(out[class], words...)
		}
		*pair.dst = out
	}
	for _, pair := range []struct {
		dst *map[string]string
		src map[string]string
	}{{&c.Programs, proj.Programs}, {&c.FlagPrefix, proj.FlagPrefix}} {
		if len(pair.src) > 0 {
			m := maps.Clone(*pair.dst)
			if m == nil {
				m = map[string]string{}
			}
			maps.Copy(m, pair.src)
			*pair.dst = m
		}
	}
}

// mcpWords is the [mcp] tables of a policy's configs, compiled: every word
// in lower case and every key folded (see foldMCPKey).
type mcpWords struct {
	verb     map[string]string
	noun     map[string]string
	key      map[string]string
	types    map[string]string
	phrase   map[[2]string]string
	program  map[string]string
	flagPref map[string]string
}

// add lays c over w: c's words join w's, and a word of c in another class
// moves there.
func (w *mcpWords) add(c *MCPConfig) {
	if w.verb == nil {
		*w = mcpWords{verb: map[string]string{}, noun: map[string]string{}, key: map[string]string{},
			types: map[string]string{}, phrase: map[[2]string]string{}, program: map[string]string{}, flagPref: map[string]string{}}
	}
	for class, words := range c.Verbs {
		for _, x := range words {
			w.verb[strings.ToLower(x)] = class
		}
	}
	for class, words := range c.Nouns {
		for _, x := range words {
			w.noun[strings.ToLower(x)] = class
		}
	}
	for class, keys := range c.Keys {
		for _, k := range keys {
			w.key[foldMCPKey(k)] = class
		}
	}
	for class, types := range c.Types {
		for _, t := range types {
			w.types[strings.ToLower(t)] = class
		}
	}
	for class, phrases := range c.Phrases {
		for _, ph := range phrases {
			if f := strings.Fields(strings.ToLower(ph)); len(f) == 2 {
				w.phrase[[2]string{f[0], f[1]}] = class
			}
		}
	}
	for word, prog := range c.Programs {
		w.program[strings.ToLower(word)] = prog
	}
	maps.Copy(w.flagPref, c.FlagPrefix)
}

// clone returns a copy of w that add can change without changing w.
func (w *mcpWords) clone() *mcpWords {
	if w == nil || w.verb == nil {
		return &mcpWords{}
	}
	return &mcpWords{verb: maps.Clone(w.verb), noun: maps.Clone(w.noun), key: maps.Clone(w.key),
		types: maps.Clone(w.types), phrase: maps.Clone(w.phrase), program: maps.Clone(w.program), flagPref: maps.Clone(w.flagPref)}
}

// foldMCPKey folds an input key the way the [mcp] table's keys are
// compared: lower case, without "_", "-" and "." but a leading "_", which
// marks a positional argument (govc tools' _args).
func foldMCPKey(k string) string {
	plain := true
	for i := 0; i < len(k) && plain; i++ {
		c := k[i]
		plain = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' && i == 0
	}
	if plain {
		return k
	}
	var b strings.Builder
	b.Grow(len(k))
	for i, r := range strings.ToLower(k) {
		if r != '_' && r != '-' && r != '.' || i == 0 && r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mcpRules lists the [mcp] tables in force for `rewind catalog`: the
// config's own, then the catalog's (unless its family is turned off),
// one entry per class with its words as the condition.
func (p *Policy) mcpRules(own string) []RuleInfo {
	out := mcpInfo(&p.cfg.MCP, own, "", "")
	if !p.tightens && !p.disabled(mcpFamily) {
		out = append(out, mcpInfo(&catalogConfig().MCP, catalogOrigin, catalogOrigin+":", mcpFamily)...)
	}
	return out
}

// mcpInfo describes an [mcp] table, one entry per class.
func mcpInfo(c *MCPConfig, origin, prefix, family string) []RuleInfo {
	var out []RuleInfo
	add := func(table string, m map[string][]string, reason func(class string) string) {
		for _, class := range slices.Sorted(maps.Keys(m)) {
			effect := None
			if table == "verbs" {
				effect = mcpVerbEffect()[class]
			}
			out = append(out, RuleInfo{Kind: "mcp", Origin: origin, Family: family, Name: fmt.Sprintf("%smcp %s.%s", prefix, table, class),
				Effect: effect, Reason: reason(class), Conditions: []string{list(m[class])}})
		}
	}
	add("verbs", c.Verbs, mcpVerbReason)
	add("nouns", c.Nouns, func(class string) string { return "words that name " + mcpNounMeaning()[class] })
	add("keys", c.Keys, func(class string) string { return "input keys that hold " + mcpKeyMeaning()[class] })
	add("types", c.Types, func(class string) string { return "resource types that name a " + class })
	add("phrases", c.Phrases, func(class string) string { return "two words read as one " + class + " verb" })
	if len(c.Programs) > 0 {
		var progs []string
		for _, w := range slices.Sorted(maps.Keys(c.Programs)) {
			progs = append(progs, w+"="+c.Programs[w])
		}
		out = append(out, RuleInfo{Kind: "mcp", Origin: origin, Family: family, Name: prefix + "mcp programs",
			Reason: "a tool named so runs that program: its command is judged as the program's", Conditions: progs})
	}
	return out
}

// mcpVerbEffect is the effect a class of verbs gives a tool that names a
// VM, as `rewind catalog` shows it.
var mcpVerbEffect = sync.OnceValue(func() map[string]Effect {
	return map[string]Effect{"change": Protect, "machine": Protect, "exec": Protect, "destroy": Deny}
})

func mcpVerbReason(class string) string {
	switch class {
	case "read":
		return "reads: never asks"
	case "change", "machine":
		return "changes the VM it names (a checkpoint first); asked when the input names none"
	case "create":
		return "creates a VM (nothing to checkpoint yet), or a disk or snapshot of the VM it names"
	case "destroy":
		return "a checkpoint cannot bring back a deleted VM, disk or snapshot"
	case "exec":
		return "runs a command: the command is judged as in a shell, on the host the input names"
	}
	return ""
}

var mcpNounMeaning = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"vm": "a VM", "disk": "a disk", "snapshot": "a snapshot", "part": "a part of a VM",
		"hosts": "playbooks and tasks run on hosts", "exec": "a command the tool runs",
		"remote": "a server whose commands run on another host", "powershell": "PowerShell commands",
	}
})

var mcpKeyMeaning = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"vm": "the VM", "name": "the VM of a tool whose noun is a VM", "host": "the host a command runs on",
		"command": "the command a tool runs", "args": "a command's arguments", "flags": "a command's options",
		"action": "the word that says what the tool does", "type": "the kind of resource",
	}
})
