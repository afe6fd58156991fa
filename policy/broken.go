package policy

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// looseRules reads the rules of a config file that failed to load, so that
// a mistake in one value does not switch the user's other rules off: every
// call that any rule of the file could have matched is asked, whatever the
// rule's effect. It errs on the side of asking:
//
//   - A rule keeps only what names the command or tool: its match words (or
//     cmdlets) and its tool name glob. Its conditions (args_any, args_none,
//     payload_contains, paths, on, exact...) only narrow a rule, so they are
//     dropped. A word or glob that is not valid stands for any word.
//   - A [[command]] or [[tool]] without a readable match or name stands
//     for every command or every tool. A [[server]]'s tools are all asked.
//   - When the file is not valid TOML, the text is read line by line: every
//     `match =`, `name =` and `cmdlets =` value found is taken as a rule of
//     the [[table]] it follows (a name outside [[tool]] and [[server]] is
//     taken as a tool glob too), quoted or not, and a [[command]] or
//     [[tool]] header with no such value after it stands for everything.
//
// A file that cannot be read at all gives no rules: the catalog and the
// other config still judge, and the hook says the file is broken.
func looseRules(name string, data []byte) *Config {
	cfg := &Config{Path: name, loose: true}
	if len(data) == 0 {
		return cfg
	}
	l := loose{cfg: cfg, name: filepath.Base(name)}
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err == nil {
		l.fromTables(m)
	} else {
		l.fromLines(string(data))
	}
	return cfg
}

type loose struct {
	cfg  *Config
	name string
}

func (l *loose) reason(what string) string {
	return fmt.Sprintf("%s has an error, and its rule %s could apply to this call", l.name, what)
}

// command adds an ask rule for match words, or for cmdlets.
func (l *loose) command(match string, cmdlets []string) {
	words := strings.Fields(match)
	for i, w := range words {
		if checkGlob(w) != nil {
			words[i] = "*"
		}
	}
	var globs []string
	for _, c := range cmdlets {
		if checkGlob(c) != nil {
			c = "*"
		}
		globs = append(globs, c)
	}
	r := CommandRule{Effect: Ask}
	switch {
	case len(globs) > 0:
		r.Cmdlets = globs
		r.Reason = l.reason(fmt.Sprintf("for the cmdlets %q", strings.Join(cmdlets, ", ")))
	case len(words) > 0:
		r.Match = strings.Join(words, " ")
		r.Reason = l.reason(fmt.Sprintf("%q", match))
	default:
		r.Match = "*"
		r.Reason = l.reason("with no readable match")
	}
	l.cfg.Commands = append(l.cfg.Commands, r)
}

// tool adds an ask rule for a tool name glob.
func (l *loose) tool(name string, ok bool) {
	r := ToolRule{Name: name, Effect: Ask, Reason: l.reason(fmt.Sprintf("for the tool %q", name))}
	if !ok || checkGlob(name) != nil {
		r.Name, r.Reason = "*", l.reason("with no readable tool name")
	}
	l.cfg.Tools = append(l.cfg.Tools, r)
}

func (l *loose) server(name string) {
	if name != "" && !strings.Contains(name, "__") {
		l.cfg.Servers = append(l.cfg.Servers, ServerRule{Name: name})
	}
}

// fromTables reads the rule tables of a file that is valid TOML.
func (l *loose) fromTables(m map[string]any) {
	for _, t := range tables(m["command"]) {
		match, _ := t["match"].(string)
		var cmdlets []string
		if list, ok := t["cmdlets"].([]any); ok {
			for _, c := range list {
				if s, ok := c.(string); ok {
					cmdlets = append(cmdlets, s)
				} else {
					cmdlets = append(cmdlets, "*")
				}
			}
		} else if _, ok := t["cmdlets"]; ok {
			cmdlets = []string{"*"}
		}
		l.command(match, cmdlets)
	}
	for _, t := range tables(m["tool"]) {
		name, ok := t["name"].(string)
		l.tool(name, ok)
	}
	for _, t := range tables(m["server"]) {
		if name, ok := t["name"].(string); ok {
			l.server(name)
		} else {
			l.tool("mcp__*", true)
		}
	}
	// A rule table of another shape ([command] as a table, not an
	// array of tables) still means rules were meant.
	for _, key := range []string{"command", "tool"} {
		if v, ok := m[key]; ok && len(tables(v)) == 0 {
			if key == "command" {
				l.command("", nil)
			} else {
				l.tool("", false)
			}
		}
	}
}

func tables(v any) []map[string]any {
	var out []map[string]any
	switch v := v.(type) {
	case []map[string]any:
		return v
	case []any:
		for _, e := range v {
			if t, ok := e.(map[string]any); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

// The expressions of the loose reading are compiled on first use: only a
// broken config needs them, and the hook must not pay for them on every call.
var (
	headerRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*\[\[?\s*([A-Za-z0-9_."' -]*?)\s*\]?\]`)
	})
	keyRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|[\s{,])(match|name|cmdlets)\s*=\s*(.*)$`) })
	quotedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"((?:[^"\\]|\\.)*)"?|'([^']*)'?`) })
)

// fromLines reads rules out of a file that is not valid TOML.
func (l *loose) fromLines(text string) {
	table := ""
	found := true // whether the current rule table had a match or name
	end := func() {
		if found {
			return
		}
		switch table {
		case "command":
			l.command("", nil)
		case "tool":
			l.tool("", false)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if h := headerRE().FindStringSubmatch(line); h != nil && !strings.Contains(line, "=") {
			end()
			table = strings.Trim(h[1], `"' `)
			found = table != "command" && table != "tool"
			continue
		}
		k := keyRE().FindStringSubmatch(line)
		if k == nil {
			continue
		}
		key, rest := k[1], strings.TrimSpace(k[2])
		values := looseValues(rest)
		switch {
		case key == "cmdlets":
			found = true
			if len(values) == 0 {
				values = []string{"*"}
			}
			l.command("", values)
		case key == "match":
			found = true
			if len(values) == 0 {
				values = []string{""}
			}
			l.command(values[0], nil)
		case key == "name" && table == "server":
			for _, v := range values {
				l.server(v)
			}
		case key == "name" && table == "test":
		case key == "name":
			found = true
			if len(values) == 0 {
				l.tool("", false)
			}
			for _, v := range values {
				l.tool(v, true)
			}
		}
	}
	end()
}

// looseValues reads the strings of a value: quoted strings (also one left
// open), else the bare text up to a comment.
func looseValues(rest string) []string {
	var out []string
	for _, q := range quotedRE().FindAllStringSubmatch(rest, -1) {
		v := q[1] + q[2]
		v = strings.ReplaceAll(v, `\"`, `"`)
		if strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		bare, _, _ := strings.Cut(rest, "#")
		bare = strings.Trim(strings.TrimSpace(bare), "[]{},")
		if bare != "" {
			out = append(out, bare)
		}
	}
	return out
}
