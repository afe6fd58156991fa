package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rogpeppe/go-internal/diff"
)

// Options say what to install where.
type Options struct {
	Host  hostio.Host
	Scope Scope
	Env   Env
	// Binary is the absolute path of the rewind binary the host runs.
	Binary string
	// HookBinary, when set, is the absolute path of rewind-hook, the
	// light hook front installed beside Binary: the hook then runs it
	// rather than `Binary hook`, and starts faster (docs/performance.md).
	HookBinary string
	// Config is the effective config: its hook.budget sets the hook's
	// timeout, its [[tool]] rules widen the matcher. Nil means the defaults.
	Config *policy.Config
}

// Change is one settings file before and after.
type Change struct {
	Path string
	// Old is the file's content, nil when it does not exist.
	Old []byte
	// New is the content to write, nil to remove the file.
	New []byte
}

// Diff returns the change as a unified diff.
func (c Change) Diff() []byte {
	oldName, newName := c.Path, c.Path
	if c.Old == nil {
		oldName = "/dev/null"
	}
	if c.New == nil {
		newName = "/dev/null"
	}
	return diff.Diff(oldName, c.Old, newName, c.New)
}

// Result is a plan: the files that change, the files that are already as
// they should be, and what the person must do by hand.
type Result struct {
	Changes   []Change
	Unchanged []string
	Notes     []string
}

// HookTimeout is the timeout rewind writes for a hook with the given
// budget: the budget, in whole seconds, and a margin of 30 s, so that the
// hook always answers before the host gives up on it (180 s for the default
// 150 s).
func HookTimeout(budget time.Duration) time.Duration {
	return time.Duration(math.Ceil(budget.Seconds()))*time.Second + 30*time.Second
}

// hookCommand is the command line of rewind's hook for host h: bin hook,
// or the front bin alone.
func hookCommand(bin string, h hostio.Host) string {
	c := shellQuote(bin)
	if !isHookFront(bin) {
		c += " hook"
	}
	if h != hostio.Claude {
		c += " --host " + string(h)
	}
	return c
}

// Plan computes what installing rewind changes. It reads the settings files
// but writes nothing; a file that does not parse is an error naming it.
func Plan(o Options) (*Result, error) {
	return plan(o, true)
}

// PlanRemove computes what uninstalling rewind changes: it takes out the
// hooks whose command is a rewind binary's `hook` and the MCP server named
// rewind that runs a rewind binary, and drops the objects and files that
// become empty by that.
func PlanRemove(o Options) (*Result, error) {
	return plan(o, false)
}

func plan(o Options, add bool) (*Result, error) {
	if !filepath.IsAbs(o.Binary) && add {
		return nil, fmt.Errorf("the rewind binary %q is not an absolute path", o.Binary)
	}
	hookBin := o.Binary
	if o.HookBinary != "" {
		if !filepath.IsAbs(o.HookBinary) || !isHookFront(o.HookBinary) {
			return nil, fmt.Errorf("the hook binary %q is not the absolute path of rewind-hook", o.HookBinary)
		}
		hookBin = o.HookBinary
	}
	cfg := o.Config
	if cfg == nil {
		cfg = policy.Default()
	}
	if o.Scope == "" {
		o.Scope = DefaultScope(o.Host)
	}
	t, err := targetFor(o.Host, o.Scope, o.Env, cfg)
	if err != nil {
		return nil, err
	}
	files := map[string]*fileEdit{}
	var order []string
	load := func(path string) (*fileEdit, error) {
		if f, ok := files[path]; ok {
			return f, nil
		}
		f, err := loadFile(path)
		if err != nil {
			return nil, err
		}
		files[path] = f
		order = append(order, path)
		return f, nil
	}
	res := &Result{}
	if t.hooks != nil {
		f, err := load(t.hooks.path)
		if err != nil {
			return nil, err
		}
		if add {
			err = t.hooks.install(f.root, hookBin, HookTimeout(cfg.Hook.Budget))
		} else {
			f.removed, err = t.hooks.uninstall(f.root)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.hooks.path, err)
		}
	}
	if t.mcp != nil {
		f, err := load(t.mcp.path)
		if err != nil {
			return nil, err
		}
		var removed bool
		if add {
			err = t.mcp.install(f.root, o.Binary)
		} else {
			removed, err = t.mcp.uninstall(f.root)
			f.removed = f.removed || removed
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.mcp.path, err)
		}
	}
	if add {
		for _, n := range t.notes {
			res.Notes = append(res.Notes, strings.ReplaceAll(n, "BINARY", o.Binary))
		}
	}
	for _, path := range order {
		f := files[path]
		c, changed := f.change(t.hooks != nil && t.hooks.version && t.hooks.path == path)
		if changed {
			res.Changes = append(res.Changes, c)
		} else {
			res.Unchanged = append(res.Unchanged, path)
		}
	}
	return res, nil
}

// fileEdit is a settings file being edited.
type fileEdit struct {
	path    string
	old     []byte // nil when absent
	root    *object
	removed bool // an uninstall took something out
}

func loadFile(path string) (*fileEdit, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &fileEdit{path: path, root: &object{}}, nil
	case err != nil:
		return nil, err
	}
	root, err := parseObject(path, data)
	if err != nil {
		return nil, err
	}
	return &fileEdit{path: path, old: data, root: root}, nil
}

// change returns the file's change and whether there is one. A file an
// uninstall leaves empty (or holding only "version", for hosts whose hook
// files have one) is removed.
func (f *fileEdit) change(versioned bool) (Change, bool) {
	c := Change{Path: f.path, Old: f.old}
	leftEmpty := f.root.empty()
	if versioned && len(f.root.members) == 1 && f.root.members[0].key == "version" {
		leftEmpty = true
	}
	if f.removed && leftEmpty {
		return c, f.old != nil
	}
	if f.old == nil && f.root.empty() {
		return c, false
	}
	c.New = format(f.root.raw())
	if f.old != nil && sameJSON(f.old, c.New) {
		return c, false
	}
	return c, true
}

// keptConfig returns the --config file that rewind's hook already in hooks
// runs with, "" for none. The user chose it (a stricter policy than the one
// discovery finds, say): installing again with a new binary keeps it.
func (hf *hookFile) keptConfig(hooks *object) string {
	for _, ev := range hf.events {
		arr, _, err := hooks.childArray("hooks.", ev)
		if err != nil {
			continue
		}
		for _, item := range arr {
			candidates := []json.RawMessage{item}
			if hf.grouped {
				if g, err := decodeObject(item); err == nil {
					if inner, ok, err := g.childArray("", "hooks"); err == nil && ok {
						candidates = inner
					}
				}
			}
			for _, c := range candidates {
				e, ok := hf.ours(c)
				if !ok {
					continue
				}
				var cmd string
				if v, ok := e.get(hf.commandKey); ok && json.Unmarshal(v, &cmd) == nil {
					if f := configFlag(shellWords(cmd)); f != "" {
						return f
					}
				}
			}
		}
	}
	return ""
}

// configFlag returns the value of --config (or --config=) in words.
func configFlag(words []string) string {
	for i, w := range words {
		switch {
		case w == "--config" && i+1 < len(words):
			return words[i+1]
		case strings.HasPrefix(w, "--config="):
			return strings.TrimPrefix(w, "--config=")
		}
	}
	return ""
}

// hookEntry is rewind's hook as hf's host writes it, with --config when
// config is not "".
func (hf *hookFile) hookEntry(bin string, timeout time.Duration, config string) json.RawMessage {
	e := &object{}
	if hf.host != hostio.Cursor {
		e.set("type", mustMarshal("command"))
	}
	if hf.name != "" {
		e.set("name", mustMarshal(hf.name))
	}
	cmd := hookCommand(bin, hf.host)
	if config != "" {
		cmd += " --config " + shellQuote(config)
	}
	e.set(hf.commandKey, mustMarshal(cmd))
	if hf.timeoutKey != "" {
		e.set(hf.timeoutKey, mustMarshal(int64(timeout/hf.timeoutUnit)))
	}
	return e.raw()
}

func mustMarshal(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only strings and numbers are marshalled
	}
	return b
}

// install puts rewind's hook into root, once per event: where a group (or
// entry) of rewind's already is, else at the end, so that a second run
// changes nothing and a new binary path or timeout replaces the old.
func (hf *hookFile) install(root *object, bin string, timeout time.Duration) error {
	hooks, _, err := root.childObject("", "hooks")
	if err != nil {
		return err
	}
	entry := hf.hookEntry(bin, timeout, hf.keptConfig(hooks))
	item := entry
	if hf.grouped {
		g := &object{}
		g.set("matcher", mustMarshal(hf.matcher))
		g.set("hooks", rawArray([]json.RawMessage{entry}))
		item = g.raw()
	}
	for _, ev := range hf.events {
		arr, _, err := hooks.childArray("hooks.", ev)
		if err != nil {
			return err
		}
		kept, at, _, err := hf.removeOurs(arr)
		if err != nil {
			return err
		}
		if at < 0 || at > len(kept) {
			at = len(kept)
		}
		kept = append(kept[:at], append([]json.RawMessage{item}, kept[at:]...)...)
		hooks.set(ev, rawArray(kept))
	}
	root.set("hooks", hooks.raw())
	if hf.version {
		if _, ok := root.get("version"); !ok {
			root.setFirst("version", mustMarshal(1))
		}
	}
	return nil
}

// uninstall takes rewind's hooks out of root and reports whether there were
// any. Arrays and the hooks object that this leaves empty go too.
func (hf *hookFile) uninstall(root *object) (bool, error) {
	hooks, ok, err := root.childObject("", "hooks")
	if err != nil || !ok {
		return false, err
	}
	any := false
	for _, ev := range hf.events {
		arr, ok, err := hooks.childArray("hooks.", ev)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		kept, _, n, err := hf.removeOurs(arr)
		if err != nil {
			return false, err
		}
		if n == 0 {
			continue
		}
		any = true
		if len(kept) == 0 {
			hooks.delete(ev)
		} else {
			hooks.set(ev, rawArray(kept))
		}
	}
	if !any {
		return false, nil
	}
	if hooks.empty() {
		root.delete("hooks")
	} else {
		root.set("hooks", hooks.raw())
	}
	return true, nil
}

// removeOurs returns arr without rewind's hooks, the index where a group or
// entry of rewind's alone was (-1 when none), and how many hooks it took
// out. A group that also holds other hooks keeps them.
func (hf *hookFile) removeOurs(arr []json.RawMessage) ([]json.RawMessage, int, int, error) {
	var kept []json.RawMessage
	at, n := -1, 0
	for _, item := range arr {
		if !hf.grouped {
			if _, ok := hf.ours(item); ok {
				if at < 0 {
					at = len(kept)
				}
				n++
				continue
			}
			kept = append(kept, item)
			continue
		}
		g, err := decodeObject(item)
		if err != nil {
			kept = append(kept, item)
			continue
		}
		inner, ok, err := g.childArray("", "hooks")
		if err != nil || !ok {
			kept = append(kept, item)
			continue
		}
		var rest []json.RawMessage
		for _, h := range inner {
			if _, ok := hf.ours(h); ok {
				n++
				continue
			}
			rest = append(rest, h)
		}
		switch {
		case len(rest) == len(inner):
			kept = append(kept, item)
		case len(rest) == 0:
			if at < 0 {
				at = len(kept)
			}
		default:
			g.set("hooks", rawArray(rest))
			kept = append(kept, g.raw())
		}
	}
	return kept, at, n, nil
}

// ours reports whether the hook entry raw runs a rewind binary's hook, and
// returns the entry.
func (hf *hookFile) ours(raw json.RawMessage) (*object, bool) {
	e, err := decodeObject(raw)
	if err != nil {
		return nil, false
	}
	v, ok := e.get(hf.commandKey)
	if !ok {
		return nil, false
	}
	var cmd string
	if json.Unmarshal(v, &cmd) != nil {
		return nil, false
	}
	_, ok = RewindHook(cmd)
	return e, ok
}

// RewindHook reports whether the command line cmd runs `rewind hook` or
// rewind-hook, and returns the binary it names.
func RewindHook(cmd string) (bin string, ok bool) {
	words := shellWords(cmd)
	switch {
	case len(words) >= 1 && isHookFront(words[0]):
	case len(words) >= 2 && words[1] == "hook" && isRewindBinary(words[0]):
	default:
		return "", false
	}
	return words[0], true
}

// isRewindBinary reports whether path names a binary called rewind.
func isRewindBinary(path string) bool {
	base := filepath.Base(strings.ReplaceAll(path, `\`, "/"))
	return base == "rewind" || strings.EqualFold(base, "rewind.exe")
}

// isHookFront reports whether path names rewind-hook, the light hook front.
func isHookFront(path string) bool {
	base := filepath.Base(strings.ReplaceAll(path, `\`, "/"))
	return base == "rewind-hook" || strings.EqualFold(base, "rewind-hook.exe")
}

// mcpEntry is the MCP server entry that runs `rewind mcp`.
func mcpEntry(bin string) json.RawMessage {
	e := &object{}
	e.set("command", mustMarshal(bin))
	e.set("args", mustMarshal([]string{"mcp"}))
	return e.raw()
}

// existingOr returns v when ok, else nil.
func existingOr(v json.RawMessage, ok bool) json.RawMessage {
	if !ok {
		return nil
	}
	return v
}

// mcpEntryOver is rewind's MCP server entry for bin, made from the one the
// settings hold already, when there is one: only the binary changes, so
// what the user added (an env, a cwd, "--config FILE" after "mcp") stays.
func mcpEntryOver(old json.RawMessage, bin string) json.RawMessage {
	e, err := decodeObject(old)
	if old == nil || err != nil {
		return mcpEntry(bin)
	}
	e.set("command", mustMarshal(bin))
	return e.raw()
}

// mcpServerName is the name rewind's MCP server is registered under.
const mcpServerName = "rewind"

// install registers rewind's MCP server in root, at mf's path of keys.
func (mf *mcpFile) install(root *object, bin string) error {
	objs := []*object{root}
	path := ""
	for _, k := range mf.keys {
		c, _, err := objs[len(objs)-1].childObject(path, k)
		if err != nil {
			return err
		}
		objs = append(objs, c)
		path += k + "."
	}
	servers := objs[len(objs)-1]
	if v, ok := servers.get(mcpServerName); ok && !isRewindServer(v) {
		return fmt.Errorf("%s%s is another server than rewind's; rename it or remove it first", path, mcpServerName)
	}
	servers.set(mcpServerName, mcpEntryOver(existingOr(servers.get(mcpServerName)), bin))
	for i := len(mf.keys) - 1; i >= 0; i-- {
		objs[i].set(mf.keys[i], objs[i+1].raw())
	}
	return nil
}

// uninstall takes rewind's MCP server out of root, and the objects on the
// way that this leaves empty.
func (mf *mcpFile) uninstall(root *object) (bool, error) {
	objs := []*object{root}
	path := ""
	for _, k := range mf.keys {
		c, ok, err := objs[len(objs)-1].childObject(path, k)
		if err != nil || !ok {
			return false, err
		}
		objs = append(objs, c)
		path += k + "."
	}
	servers := objs[len(objs)-1]
	v, ok := servers.get(mcpServerName)
	if !ok || !isRewindServer(v) {
		return false, nil
	}
	servers.delete(mcpServerName)
	for i := len(mf.keys) - 1; i >= 0; i-- {
		if objs[i+1].empty() {
			objs[i].delete(mf.keys[i])
		} else {
			objs[i].set(mf.keys[i], objs[i+1].raw())
		}
	}
	return true, nil
}

// isRewindServer reports whether the MCP server entry raw runs a rewind
// binary's `mcp`.
func isRewindServer(raw json.RawMessage) bool {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return false
	}
	return isRewindBinary(e.Command) && len(e.Args) > 0 && e.Args[0] == "mcp"
}

// Apply writes the changes, each atomically: a temporary file in the same
// folder, renamed over the old one, with the old file's mode. A change whose
// New is nil removes the file. A symbolic link is followed, so that the file
// it points at is the one replaced.
func Apply(changes []Change) error {
	for _, c := range changes {
		path := c.Path
		if p, err := filepath.EvalSymlinks(path); err == nil {
			path = p
		}
		if c.New == nil {
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			continue
		}
		if err := writeAtomic(path, c.New); err != nil {
			return err
		}
	}
	return nil
}

func writeAtomic(path string, data []byte) error {
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	} else if filepath.Base(path) == ".claude.json" {
		mode = 0o600
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".rewind-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == ':' || r == '+' || r == '@' ||
			r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a command line into words the way a POSIX shell would
// for the simple lines settings hold: white space separates words, and
// single and double quotes and backslashes quote.
func shellWords(s string) []string {
	var words []string
	var b bytes.Buffer
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				break
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				// Inside double quotes a backslash quotes only these.
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				b.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			inWord = true
			i++
			b.WriteByte(s[i])
		default:
			inWord = true
			b.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}
