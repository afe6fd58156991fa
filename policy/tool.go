package policy

import (
	"encoding/json"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// toolRule is a ToolRule compiled for matching.
type toolRule struct {
	// src is the rule as its config has it, shared, never changed.
	src     *ToolRule
	label   string
	names   []string
	vmArgs  []string
	payload []string // lower case
}

func compileTool(r *ToolRule, origin string) *toolRule {
	t := &toolRule{src: r, label: "tool " + r.Name, names: strings.Split(r.Name, "|")}
	if origin != "" {
		t.label = origin + ":" + t.label
	}
	if r.VMArg != "" {
		t.vmArgs = strings.Split(r.VMArg, "|")
	}
	for _, p := range r.PayloadContains {
		t.payload = append(t.payload, foldSpace(strings.ToLower(p)))
	}
	return t
}

// toolInput is a decoded tool input with the parts tool rules read.
type toolInput struct {
	obj   map[string]any
	paths []string
	texts []string
}

func decodeToolInput(raw json.RawMessage, cwd string) toolInput {
	var in toolInput
	if len(raw) == 0 {
		return in
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if dec.Decode(&in.obj) != nil {
		return in
	}
	for _, k := range []string{"file_path", "path", "notebook_path"} {
		if p, ok := in.obj[k].(string); ok && p != "" {
			in.paths = append(in.paths, relPath(p, cwd))
		}
	}
	for _, k := range []string{"content", "new_string", "new_source"} {
		if s, ok := in.obj[k].(string); ok {
			in.texts = append(in.texts, s)
		}
	}
	if edits, ok := in.obj["edits"].([]any); ok {
		for _, e := range edits {
			if m, ok := e.(map[string]any); ok {
				if s, ok := m["new_string"].(string); ok {
					in.texts = append(in.texts, s)
				}
			}
		}
	}
	return in
}

// relPath makes p relative to cwd when it lies inside it, so that rules
// written for a project ("src/**") match absolute paths too.
func relPath(p, cwd string) string {
	p = filepath.ToSlash(filepath.Clean(p))
	if cwd == "" || !path.IsAbs(p) {
		return strings.TrimPrefix(p, "./")
	}
	rel, err := filepath.Rel(cwd, filepath.FromSlash(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return p
	}
	return filepath.ToSlash(rel)
}

// match reports whether the rule applies to a call of tool, whose name
// spelled in snake case is snake (see snakeCase).
func (t *toolRule) match(tool, snake string, in *toolInput) bool {
	if !t.nameMatch(tool, snake) {
		return false
	}
	if len(t.src.Paths) > 0 {
		found := false
		for _, p := range in.paths {
			for _, g := range t.src.Paths {
				if matchPath(g, p) {
					found = true
				}
			}
		}
		if !found {
			return false
		}
	}
	if len(t.payload) > 0 && !payloadContains(in.texts, t.payload) {
		return false
	}
	for key, want := range t.src.InputEquals {
		if !inputEquals(in.value(key), want) {
			return false
		}
	}
	return true
}

// value returns the input's value at key, or at a JSON pointer.
func (in *toolInput) value(key string) any {
	if strings.HasPrefix(key, "/") {
		return jsonPointer(in.obj, key)
	}
	if in.obj == nil {
		return nil
	}
	return in.obj[key]
}

// inputEquals reports whether v is want: the same string, or a number or
// boolean written as want. Nothing is folded: a rule that lets one exact
// value pass must not let a near spelling pass that a tool reads otherwise.
func inputEquals(v any, want string) bool {
	switch v := v.(type) {
	case string:
		return v == want
	case json.Number:
		return v.String() == want
	case bool:
		return strconv.FormatBool(v) == want
	}
	return false
}

// nameMatch reports whether one of the rule's name globs (alternatives
// joined by "|", which no tool name holds) matches the tool's name or its
// snake-case spelling.
func (t *toolRule) nameMatch(tool, snake string) bool {
	for _, g := range t.names {
		if ok, _ := path.Match(g, tool); ok {
			return true
		}
		if ok, _ := path.Match(g, snake); ok && snake != tool {
			return true
		}
	}
	return false
}

// targets reads the VM names from the input: the first vm_arg
// alternative that names any wins.
func (t *toolRule) targets(in *toolInput) []string {
	for _, arg := range t.vmArgs {
		v := in.value(arg)
		var out []string
		switch v := v.(type) {
		case string:
			out = addNonEmpty(out, v)
		case json.Number:
			out = addNonEmpty(out, v.String())
		case []any:
			for _, e := range v {
				switch e := e.(type) {
				case string:
					out = addNonEmpty(out, e)
				case json.Number:
					out = addNonEmpty(out, e.String())
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

func addNonEmpty(list []string, s string) []string {
	if s = strings.TrimSpace(s); s == "" {
		return list
	}
	return addUnique(list, s)
}

// jsonPointer resolves an RFC 6901 pointer in a decoded JSON value.
func jsonPointer(v any, ptr string) any {
	for tok := range strings.SplitSeq(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := v.(type) {
		case map[string]any:
			v = c[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// matchPath matches a slash-separated path against a glob in which "**"
// stands for any number of folders, and the other parts follow path.Match.
// It costs the product of the two counts of parts at most, whatever the
// pattern: a project's .gitignore, which the agent writes, is matched so.
func matchPath(pattern, name string) bool {
	if !strings.Contains(pattern, "**") {
		// Part for part: as many parts, each matching its own.
		if strings.Count(pattern, "/") != strings.Count(name, "/") {
			return false
		}
		for pattern != "" || name != "" {
			p, prest, _ := strings.Cut(pattern, "/")
			n, nrest, _ := strings.Cut(name, "/")
			if ok, _ := path.Match(p, n); !ok {
				return false
			}
			pattern, name = prest, nrest
		}
		return true
	}
	pat, parts := strings.Split(pattern, "/"), strings.Split(name, "/")
	// at[j] says whether the pattern's parts so far match the first j
	// parts of the name.
	at := make([]bool, len(parts)+1)
	next := make([]bool, len(parts)+1)
	at[0] = true
	for _, p := range pat {
		clear(next)
		reached := false
		if p == "**" {
			// Any number of folders: every j at or after one reached.
			for j := range at {
				reached = reached || at[j]
				next[j] = reached
			}
		} else {
			for j := range parts {
				if at[j] {
					if ok, _ := path.Match(p, parts[j]); ok {
						next[j+1], reached = true, true
					}
				}
			}
		}
		if !reached {
			return false // no prefix of the name matches any more
		}
		at, next = next, at
	}
	return at[len(parts)]
}

// mcpServer returns the server of an MCP tool name, mcp__SERVER__TOOL.
func mcpServer(tool string) (string, bool) {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	return server, ok && server != ""
}

// snakeCase spells a tool name the way the catalog writes tool names, so
// that one glob covers the spellings MCP servers choose: camelCase and
// kebab-case words become lower-case words joined by "_", and
// "mcp__vcenter__powerOffVM" is "mcp__vcenter__power_off_vm".
func snakeCase(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
			b.WriteByte('_')
		case isUpper(c):
			if i > 0 {
				prev := s[i-1]
				nextLower := i+1 < len(s) && isLower(s[i+1])
				if isLower(prev) || '0' <= prev && prev <= '9' || isUpper(prev) && nextLower {
					b.WriteByte('_')
				}
			}
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// HookTools returns the name globs (path.Match patterns, alternatives
// split) of the [[tool]] rules of the catalog and of cfg that judge tools
// other than MCP tools, such as the file tools whose writes to rewind's own
// config are asked, and then the hosts' read and search tools (Read, Grep,
// Glob...), which rewind judges for its secrets. A host whose hook is
// registered for some tools only must send these to the hook beside its
// shell and MCP tools, or their rules never run. A nil cfg means the
// catalog alone.
func HookTools(cfg *Config) []string {
	var globs []string
	seen := map[string]bool{}
	for _, c := range []*Config{cfg, catalogConfig()} {
		if c == nil {
			continue
		}
		for _, r := range c.Tools {
			for _, g := range strings.Split(r.Name, "|") {
				if g == "" || strings.HasPrefix(g, "mcp_") || seen[g] {
					continue
				}
				seen[g] = true
				globs = append(globs, g)
			}
		}
	}
	for _, name := range append(ReadTools(false), ReadTools(true)...) {
		if !seen[name] {
			globs = append(globs, name)
		}
	}
	return globs
}

// ReadTools returns the read and search tools of the hosts whose hooks
// select tools by a matcher, Claude Code's (which Codex shares) or, with
// gemini, Gemini CLI's: rewind judges them for its secrets (see
// readTools), so the matcher must send them to the hook. HookTools holds
// them all.
func ReadTools(gemini bool) []string {
	if gemini {
		return []string{"read_file", "read_many_files", "list_directory", "glob", "search_file_content"}
	}
	return []string{"Read", "Grep", "Glob", "LS", "NotebookRead"}
}
