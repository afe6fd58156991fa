package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rogpeppe/go-internal/diff"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// Options say what to install where.
type Options struct {
	Host  hostio.Host
	Scope Scope
	Env   Env
	// Binary is the absolute path of the rewind binary. Files of the
	// user's own (the user and local scopes) run it by that path; files a
	// project commits (the project scope) run it by its name, so that
	// they name nothing of this machine's and work on every machine with
	// rewind on its PATH.
	Binary string
	// HookBinary, when set, is the absolute path of rewind-hook, the
	// light hook front installed beside Binary: the hook then runs it
	// rather than `Binary hook`, and starts faster (docs/performance.md).
	// The post-tool hook, which logs how each call ended, is installed
	// only then: it must never start the full binary.
	HookBinary string
	// Config is the effective config: its hook.budget sets the hook's
	// timeout, its [[tool]] rules widen the matcher. Nil means the defaults.
	Config *policy.Config
	// FailOpen asks the host to let a call through when the hook never
	// answered (could not start, timed out, crashed), where the host has
	// that choice; by default it is asked to block the call.
	FailOpen bool
	// StateDir is rewind's state folder, where an install records what
	// it created (objects, files and folders), so that an uninstall takes
	// out exactly that; "" records nothing.
	StateDir string
	// LookPath finds a command on the PATH, as a shell would: nil means
	// exec.LookPath.
	LookPath func(string) (string, error)
}

// Change is one settings file before and after.
type Change struct {
	Path string
	// Old is the file's content, nil when it does not exist.
	Old []byte
	// New is the content to write, nil to remove the file.
	New []byte
	// mode is the mode of a file the change creates.
	mode fs.FileMode
	// created are the paths of the objects and arrays an install adds.
	created [][]string
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
	// Notes are the next steps, in order: the last one is the one that
	// must not be missed (trusting the hook in Codex).
	Notes []string
	// stateDir is where Apply records what it created; remove marks an
	// uninstall.
	stateDir string
	remove   bool
	// binaries are the rewind binaries the hooks installed run, which
	// Apply records for the policy to guard (policy.Config.Binaries).
	binaries []string
}

// HookTimeout is the timeout rewind writes for a hook with the given
// budget: the budget, in whole seconds, and a margin of 30 s, so that the
// hook always answers before the host gives up on it (180 s for the default
// 150 s).
func HookTimeout(budget time.Duration) time.Duration {
	return time.Duration(math.Ceil(budget.Seconds()))*time.Second + 30*time.Second
}

// postTimeout is the timeout of the post-tool hook, which reads the
// config and appends a line.
const postTimeout = 30 * time.Second

// hookCommand is the command line of rewind's hook for host h: bin hook,
// or the front bin alone, with the host.
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

// commandName is how a committed file names the binary at path: by its
// name, which the host finds on the PATH (without ".exe", which Windows
// shells add).
func commandName(path string) string {
	base := filepath.Base(strings.ReplaceAll(path, `\`, "/"))
	if strings.EqualFold(filepath.Ext(base), ".exe") {
		base = base[:len(base)-4]
	}
	return base
}

// Plan computes what installing rewind changes. It reads the settings files
// but writes nothing; a file that does not parse is an error naming it.
func Plan(o Options) (*Result, error) {
	return plan(o, true)
}

// PlanRemove computes what uninstalling rewind changes: it takes out the
// hooks whose command is a rewind binary's `hook` and the MCP server named
// rewind that runs a rewind binary, and the objects and files that an
// install made for them (all that this leaves empty, when nothing says
// what the install made).
func PlanRemove(o Options) (*Result, error) {
	return plan(o, false)
}

// plan is one install (add) or uninstall.
type planner struct {
	o       Options
	t       *target
	cfg     *policy.Config
	prov    *provenance
	hookCmd string // rewind's hook command line
	front   bool   // the light front runs the hook
	files   map[string]*fileEdit
	order   []string
}

func plan(o Options, add bool) (*Result, error) {
	if add && !filepath.IsAbs(o.Binary) {
		return nil, fmt.Errorf("the rewind binary %q is not an absolute path", o.Binary)
	}
	p := &planner{o: o, cfg: o.Config, files: map[string]*fileEdit{}}
	if p.cfg == nil {
		p.cfg = policy.Default()
	}
	if p.o.Scope == "" {
		p.o.Scope = DefaultScope(o.Host)
	}
	hookBin := o.Binary
	if o.HookBinary != "" {
		if !filepath.IsAbs(o.HookBinary) || !isHookFront(o.HookBinary) {
			return nil, fmt.Errorf("the hook binary %q is not the absolute path of rewind-hook", o.HookBinary)
		}
		hookBin, p.front = o.HookBinary, true
	}
	if committed(p.o.Scope) {
		hookBin = commandName(hookBin)
	}
	p.hookCmd = hookCommand(hookBin, o.Host)
	t, err := targetFor(o.Host, p.o.Scope, o.Env, p.cfg)
	if err != nil {
		return nil, err
	}
	p.t = t
	if p.prov, err = loadProvenance(o.StateDir); err != nil {
		return nil, err
	}
	if err := p.hooks(add); err != nil {
		return nil, err
	}
	if t.mcp != nil {
		f, err := p.load(t.mcp.path)
		if err != nil {
			return nil, err
		}
		if add {
			err = t.mcp.install(f, p.mcpBinary())
		} else {
			err = t.mcp.uninstall(f, p.prov)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.mcp.path, err)
		}
	}
	res := &Result{stateDir: o.StateDir, remove: !add}
	if add {
		for _, b := range []string{o.Binary, o.HookBinary} {
			if b != "" {
				res.binaries = append(res.binaries, b)
			}
		}
	}
	for _, path := range p.order {
		f := p.files[path]
		if c, changed := f.change(p.t.hooks, p.prov, add); changed {
			res.Changes = append(res.Changes, c)
		} else {
			res.Unchanged = append(res.Unchanged, path)
		}
	}
	if add {
		res.Notes = p.notes()
	}
	return res, nil
}

// mcpBinary is how the MCP server's entry names rewind: by name in a file
// the project commits, by its path in the user's own.
func (p *planner) mcpBinary() string {
	if committed(p.o.Scope) && p.t.mcp.path != filepath.Join(p.o.Env.Home, ".claude.json") {
		return commandName(p.o.Binary)
	}
	return p.o.Binary
}

// fileEdit is a settings file being edited.
type fileEdit struct {
	path    string
	old     []byte // nil when absent
	doc     *textDoc
	owned   []byte // the new content of a file rewind owns
	created [][]string
	removed bool // an uninstall took something out
}

func (p *planner) load(path string) (*fileEdit, error) {
	if f, ok := p.files[path]; ok {
		return f, nil
	}
	f, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	p.files[path] = f
	p.order = append(p.order, path)
	return f, nil
}

func loadFile(path string) (*fileEdit, error) {
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		doc, _ := parseText(nil)
		return &fileEdit{path: path, doc: doc}, nil
	case err != nil:
		return nil, err
	}
	f := &fileEdit{path: path, old: data}
	return f, nil
}

// parse reads f as JSON settings, once.
func (f *fileEdit) parse() error {
	if f.doc != nil {
		return nil
	}
	if _, err := parseObject(f.path, f.old); err != nil {
		return err // a *ParseError with the line
	}
	doc, err := parseText(f.old)
	if err != nil {
		return &ParseError{File: f.path, Err: err}
	}
	f.doc = doc
	return nil
}

// change returns the file's change and whether there is one. A file an
// uninstall leaves empty (or holding only "version") is removed when the
// install made it, or nothing says it did not.
func (f *fileEdit) change(hf *hookFile, prov *provenance, add bool) (Change, bool) {
	c := Change{Path: f.path, Old: f.old, mode: 0o644, created: f.created}
	if filepath.Base(f.path) == ".claude.json" {
		c.mode = 0o600
	}
	if hf != nil && hf.owned != nil && hf.path == f.path {
		c.mode = hf.owned.mode
		if add {
			c.New = f.owned
			return c, !bytes.Equal(f.old, f.owned)
		}
		return c, f.removed
	}
	if f.doc == nil {
		return c, false
	}
	if !add && f.removed {
		root := f.doc.root
		leftEmpty := len(root.members) == 0 ||
			len(root.members) == 1 && root.members[0].key == "version" && hf != nil && hf.version != nil
		if leftEmpty && prov.mayRemove(f.path, nil) {
			return c, true
		}
	}
	if f.old == nil && len(f.doc.root.members) == 0 {
		return c, false
	}
	c.New = f.doc.text
	return c, !bytes.Equal(f.old, c.New)
}

// hooks plans the hook file's part.
func (p *planner) hooks(add bool) error {
	hf := p.t.hooks
	f, err := p.load(hf.path)
	if err != nil {
		return err
	}
	if hf.owned != nil {
		return p.ownedHooks(hf, f, add)
	}
	if err := f.parse(); err != nil {
		return err
	}
	if add {
		err = hf.install(f, p.entries(hf, f))
	} else {
		f.removed, err = hf.uninstall(f, p.prov)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", hf.path, err)
	}
	return nil
}

// ownedHooks plans a file rewind owns: written whole, removed whole, and
// never one of someone else's.
func (p *planner) ownedHooks(hf *hookFile, f *fileEdit, add bool) error {
	if f.old != nil {
		if _, ours := hf.owned.parse(f.old); !ours {
			if !add {
				return nil
			}
			return fmt.Errorf("%s is not rewind's; move it away to install rewind's hook there", hf.path)
		}
	}
	if add {
		f.owned = hf.owned.content(p.withKeptConfig(hf, f), HookTimeout(p.cfg.Hook.Budget), !p.o.FailOpen)
	} else {
		f.removed = f.old != nil
	}
	return nil
}

// withKeptConfig is the hook command, with the --config FILE that
// rewind's hook in f already runs with, if any. The user chose it (a
// stricter policy than the one discovery finds, say): installing again,
// with another binary or budget, keeps it.
func (p *planner) withKeptConfig(hf *hookFile, f *fileEdit) string {
	var kept string
	switch {
	case hf.owned != nil && f.old != nil:
		if h, ok := hf.owned.parse(f.old); ok {
			kept = configFlag(shellWords(h.command))
		}
	case f.doc != nil:
		hf.eachOurs(f.doc, func(path []any, e *object) {
			for _, k := range hf.commandKeys {
				var cmd string
				if v, ok := e.get(k); ok && json.Unmarshal(v, &cmd) == nil && kept == "" {
					kept = configFlag(shellWords(cmd))
				}
			}
		})
	}
	if kept == "" {
		return p.hookCmd
	}
	return p.hookCmd + " --config " + shellQuote(kept)
}

// entries are rewind's hook entries for each of hf's events; nil for an
// event that gets none: one rewind installed before, or a post-tool event
// when the light front is not there to run it.
func (p *planner) entries(hf *hookFile, f *fileEdit) map[string]*object {
	cmd := p.withKeptConfig(hf, f)
	out := map[string]*object{}
	for _, ev := range hf.events {
		if ev.old || ev.post && !p.front {
			out[ev.key] = nil
			continue
		}
		timeout := HookTimeout(p.cfg.Hook.Budget)
		if ev.post {
			timeout = postTimeout
		}
		e := &object{}
		if hf.typeKey {
			e.set("type", mustMarshal("command"))
		}
		if hf.name != "" {
			e.set("name", mustMarshal(hf.name))
		}
		for _, k := range hf.commandKeys {
			e.set(k, mustMarshal(cmd))
		}
		if hf.timeoutKey != "" {
			e.set(hf.timeoutKey, mustMarshal(int64(timeout/hf.timeoutUnit)))
		}
		if hf.failure == failSwitch && !ev.post && !p.o.FailOpen {
			e.set(hf.failKey, mustMarshal(hf.failValue))
		}
		out[ev.key] = e
	}
	return out
}

// managedKeys are the keys of a hook entry that rewind sets: an install
// sets them and takes out those it no longer writes, and keeps any other
// key a person added.
func (hf *hookFile) managedKeys() []string {
	keys := append([]string{"type", "name", hf.timeoutKey, hf.failKey}, hf.commandKeys...)
	return slices.DeleteFunc(keys, func(k string) bool { return k == "" || k == "name" && hf.name == "" || k == "type" && !hf.typeKey })
}

func mustMarshal(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic(err) // only strings, numbers and booleans are marshalled
	}
	return b
}

// ours reports whether the hook entry raw runs a rewind binary's hook, and
// returns the entry.
func (hf *hookFile) ours(raw json.RawMessage) (*object, bool) {
	e, err := decodeObject(raw)
	if err != nil {
		return nil, false
	}
	for _, k := range hf.commandKeys {
		var cmd string
		if v, ok := e.get(k); ok && json.Unmarshal(v, &cmd) == nil {
			if _, ok := RewindHook(cmd); ok {
				return e, true
			}
		}
	}
	return nil, false
}

// eachOurs calls fn with the path and the content of each of rewind's
// hook entries in d, for every event.
func (hf *hookFile) eachOurs(d *textDoc, fn func(path []any, e *object)) {
	hooks := d.find(anyPath(hf.hooksPath)...)
	if hooks == nil || hooks.kind != '{' {
		return
	}
	for _, ev := range hf.events {
		arr, _ := hooks.member(ev.key)
		if arr == nil || arr.kind != '[' {
			continue
		}
		base := append(anyPath(hf.hooksPath), ev.key)
		for i, item := range arr.elems {
			if !hf.grouped {
				if e, ok := hf.ours(d.raw(item)); ok {
					fn(append(slices.Clone(base), i), e)
				}
				continue
			}
			inner, _ := item.member("hooks")
			if item.kind != '{' || inner == nil || inner.kind != '[' {
				continue
			}
			for j, h := range inner.elems {
				if e, ok := hf.ours(d.raw(h)); ok {
					fn(append(slices.Clone(base), i, "hooks", j), e)
				}
			}
		}
	}
}

func anyPath(keys []string) []any {
	out := make([]any, len(keys))
	for i, k := range keys {
		out[i] = k
	}
	return out
}

// ensureObject returns the object at path in d, making the objects it
// lacks (and recording their paths in f.created).
func (f *fileEdit) ensureObject(path []string) (*jnode, error) {
	d := f.doc
	for i, k := range path {
		parent := d.find(anyPath(path[:i])...)
		child, _ := parent.member(k)
		if child == nil || child.kind == 0 && string(d.raw(child)) == "null" {
			if err := d.setMember(parent, k, json.RawMessage("{}")); err != nil {
				return nil, err
			}
			f.created = append(f.created, slices.Clone(path[:i+1]))
			continue
		}
		if child.kind != '{' {
			return nil, fmt.Errorf("%s is %s, not an object", strings.Join(path[:i+1], "."), kind(d.raw(child)))
		}
	}
	return d.find(anyPath(path)...), nil
}

// install puts rewind's entries into f: for each event, in place of
// rewind's entry where there is one (only what differs changes), else at
// the end; entries of rewind's besides that one go, and so do those of
// events rewind no longer installs.
func (hf *hookFile) install(f *fileEdit, entries map[string]*object) error {
	d := f.doc
	if hf.version != nil {
		if v, _ := d.root.member("version"); v == nil {
			if err := d.setMemberFirst("version", mustMarshal(hf.version)); err != nil {
				return err
			}
		}
	}
	if _, err := f.ensureObject(hf.hooksPath); err != nil {
		return err
	}
	for _, ev := range hf.events {
		want := entries[ev.key]
		evPath := append(slices.Clone(hf.hooksPath), ev.key)
		arr := d.find(anyPath(evPath)...)
		if arr != nil && arr.kind != '[' && string(d.raw(arr)) != "null" {
			return fmt.Errorf("%s is %s, not an array", strings.Join(evPath, "."), kind(d.raw(arr)))
		}
		if want == nil {
			if _, n, err := hf.removeOurs(d, evPath, nil); err != nil || n == 0 {
				if err != nil {
					return err
				}
				continue
			}
			if err := d.deleteIfEmpty(evPath, f.path, nil); err != nil {
				return err
			}
			continue
		}
		item := want
		if hf.grouped {
			item = &object{}
			item.set("matcher", mustMarshal(hf.matcher))
			item.set("hooks", rawArray([]json.RawMessage{want.raw()}))
		}
		if arr == nil || arr.kind != '[' {
			hooks := d.find(anyPath(hf.hooksPath)...)
			if err := d.setMember(hooks, ev.key, rawArray([]json.RawMessage{item.raw()})); err != nil {
				return err
			}
			f.created = append(f.created, evPath)
			continue
		}
		kept, _, err := hf.removeOurs(d, evPath, want)
		if err != nil {
			return err
		}
		if kept == nil {
			if err := d.appendElem(d.find(anyPath(evPath)...), item.raw()); err != nil {
				return err
			}
			continue
		}
		if hf.grouped {
			if err := d.setMember(d.find(kept[:len(kept)-2]...), "matcher", mustMarshal(hf.matcher)); err != nil {
				return err
			}
		}
		if err := hf.update(d, kept, want); err != nil {
			return err
		}
	}
	return nil
}

// removeOurs takes rewind's entries out of the event array at evPath. When
// keepOne is set, the first entry of rewind's that is alone in its group
// (or, for hosts without groups, the first) stays, to be updated in place,
// and its path is returned, with the number of entries taken out. A group
// left without hooks goes.
func (hf *hookFile) removeOurs(d *textDoc, evPath []string, keepOne *object) (kept []any, removed int, err error) {
	arr := d.find(anyPath(evPath)...)
	if arr == nil || arr.kind != '[' {
		return nil, 0, nil
	}
	base := anyPath(evPath)
	// The one to keep: decided first, since deletions move later indexes.
	keepAt := -1
	if keepOne != nil {
		for i, item := range arr.elems {
			if hf.onlyOurs(d, item) {
				keepAt = i
				break
			}
		}
	}
	// From the last to the first, so that a deletion leaves the indexes
	// still to visit as they were; one before the kept entry moves it.
	gone := 0
	deleteItem := func(i int) error {
		if i < keepAt {
			gone++
		}
		return d.deleteElem(d.find(base...), i)
	}
	for i := len(arr.elems) - 1; i >= 0; i-- {
		item := d.find(append(slices.Clone(base), i)...)
		if !hf.grouped {
			if _, ok := hf.ours(d.raw(item)); ok && i != keepAt {
				removed++
				if err := deleteItem(i); err != nil {
					return nil, 0, err
				}
			}
			continue
		}
		inner, _ := item.member("hooks")
		if item.kind != '{' || inner == nil || inner.kind != '[' {
			continue
		}
		hooksPath := append(slices.Clone(base), i, "hooks")
		ours := 0
		for j := len(inner.elems) - 1; j >= 0; j-- {
			h := d.find(append(slices.Clone(hooksPath), j)...)
			if _, ok := hf.ours(d.raw(h)); !ok {
				continue
			}
			ours++
			if i == keepAt && j == 0 {
				continue
			}
			removed++
			if err := d.deleteElem(d.find(hooksPath...), j); err != nil {
				return nil, 0, err
			}
		}
		if inner := d.find(hooksPath...); ours > 0 && len(inner.elems) == 0 {
			if err := deleteItem(i); err != nil {
				return nil, 0, err
			}
		}
	}
	keepAt -= gone
	switch {
	case keepAt < 0:
		return nil, removed, nil
	case hf.grouped:
		return append(slices.Clone(base), keepAt, "hooks", 0), removed, nil
	default:
		return append(slices.Clone(base), keepAt), removed, nil
	}
}

// onlyOurs reports whether item holds rewind's hooks and nothing else: a
// group of rewind's hooks alone or, for hosts without groups, an entry of
// rewind's.
func (hf *hookFile) onlyOurs(d *textDoc, item *jnode) bool {
	if !hf.grouped {
		_, ok := hf.ours(d.raw(item))
		return ok
	}
	inner, _ := item.member("hooks")
	if item.kind != '{' || inner == nil || inner.kind != '[' || len(inner.elems) == 0 {
		return false
	}
	for _, h := range inner.elems {
		if _, ok := hf.ours(d.raw(h)); !ok {
			return false
		}
	}
	return true
}

// update sets the managed keys of the entry at path to want's.
func (hf *hookFile) update(d *textDoc, path []any, want *object) error {
	for _, k := range hf.managedKeys() {
		entry := d.find(path...)
		v, ok := want.get(k)
		if ok {
			if err := d.setMember(entry, k, v); err != nil {
				return err
			}
			continue
		}
		if _, i := entry.member(k); i >= 0 {
			if err := d.deleteMember(entry, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// uninstall takes rewind's hooks out of f and reports whether there were
// any. An event array and the hooks object that this leaves empty go too
// when the install made them (or nothing says it did not).
func (hf *hookFile) uninstall(f *fileEdit, prov *provenance) (bool, error) {
	d := f.doc
	removed := false
	for _, ev := range hf.events {
		evPath := append(slices.Clone(hf.hooksPath), ev.key)
		_, n, err := hf.removeOurs(d, evPath, nil)
		if err != nil {
			return false, err
		}
		if n == 0 {
			continue
		}
		removed = true
		if err := d.deleteIfEmpty(evPath, f.path, prov); err != nil {
			return false, err
		}
	}
	if !removed {
		return false, nil
	}
	for i := len(hf.hooksPath); i > 0; i-- {
		if err := d.deleteIfEmpty(hf.hooksPath[:i], f.path, prov); err != nil {
			return false, err
		}
	}
	return true, nil
}

// deleteIfEmpty deletes the object or array at path when it is empty and
// the install made it (or nothing says it did not).
func (d *textDoc) deleteIfEmpty(path []string, file string, prov *provenance) error {
	n := d.find(anyPath(path)...)
	if n == nil || len(n.members)+len(n.elems) > 0 || n.kind == 0 || !prov.mayRemove(file, path) {
		return nil
	}
	parent := d.find(anyPath(path[:len(path)-1])...)
	_, i := parent.member(path[len(path)-1])
	return d.deleteMember(parent, i)
}

// setMemberFirst adds key to the root as its first member.
func (d *textDoc) setMemberFirst(key string, raw json.RawMessage) error {
	if len(d.root.members) == 0 {
		return d.setMember(d.root, key, raw)
	}
	s := d.styleOf(d.root)
	k, _ := marshal(key)
	entry := append(append(k, s.colon...), render(raw, s)...)
	sep := "," + s.comma
	if s.multiline {
		sep = ",\n" + s.indent
	}
	first := d.root.members[0].keyStart
	return d.splice(first, first, append(entry, sep...))
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

// mcpServerName is the name rewind's MCP server is registered under, and
// Antigravity CLI's name of rewind's hook.
const mcpServerName = "rewind"

// install registers rewind's MCP server in f, at mf's path of keys: only
// the binary of an entry of rewind's changes, so that what the user added
// (an env, a cwd, "--config FILE" after "mcp") stays.
func (mf *mcpFile) install(f *fileEdit, bin string) error {
	if err := f.parse(); err != nil {
		return err
	}
	servers, err := f.ensureObject(mf.keys)
	if err != nil {
		return err
	}
	d := f.doc
	v, _ := servers.member(mcpServerName)
	switch {
	case v == nil:
		e := &object{}
		e.set("command", mustMarshal(bin))
		e.set("args", mustMarshal([]string{"mcp"}))
		return d.setMember(servers, mcpServerName, e.raw())
	case !isRewindServer(d.raw(v)):
		return fmt.Errorf("%s.%s is another server than rewind's; rename it or remove it first", strings.Join(mf.keys, "."), mcpServerName)
	}
	return d.setMember(v, "command", mustMarshal(bin))
}

// uninstall takes rewind's MCP server out of f, and the objects on the way
// that this leaves empty, when the install made them (or nothing says it
// did not).
func (mf *mcpFile) uninstall(f *fileEdit, prov *provenance) error {
	if err := f.parse(); err != nil {
		return err
	}
	d := f.doc
	servers := d.find(anyPath(mf.keys)...)
	if servers == nil || servers.kind != '{' {
		return nil
	}
	v, i := servers.member(mcpServerName)
	if v == nil || !isRewindServer(d.raw(v)) {
		return nil
	}
	if err := d.deleteMember(servers, i); err != nil {
		return err
	}
	f.removed = true
	for k := len(mf.keys); k > 0; k-- {
		if err := d.deleteIfEmpty(mf.keys[:k], f.path, prov); err != nil {
			return err
		}
	}
	return nil
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

// lookPath is o.LookPath, or exec.LookPath.
func (o *Options) lookPath(name string) (string, error) {
	if o.LookPath != nil {
		return o.LookPath(name)
	}
	return exec.LookPath(name)
}

// notes are the next steps after an install, for the host and the scope.
func (p *planner) notes() []string {
	h, hf := p.o.Host, p.t.hooks
	name := h.Name()
	var notes []string
	for _, n := range p.t.notes {
		notes = append(notes, strings.ReplaceAll(n, "BINARY", p.mcpNoteBinary()))
	}
	if committed(p.o.Scope) {
		bin := commandName(p.o.Binary)
		if p.front {
			bin = commandName(p.o.HookBinary)
		}
		found, err := p.o.lookPath(bin)
		switch {
		case err != nil:
			notes = append(notes, fmt.Sprintf("%s is not on your PATH, and %s runs it by name (the file is shared with the project): "+
				"until it is, %s; put %s on the PATH (go install writes to $(go env GOBIN), or $(go env GOPATH)/bin)",
				bin, name, failureNow(hf, p.o.FailOpen), filepath.Dir(p.o.Binary)))
		case !sameFile(found, filepath.Join(filepath.Dir(p.o.Binary), filepath.Base(found))):
			notes = append(notes, fmt.Sprintf("%s on your PATH is %s, not the one beside %s; %s runs the one on the PATH", bin, found, p.o.Binary, name))
		}
	}
	if !p.front && slices.ContainsFunc(hf.events, func(e hookEvent) bool { return e.post }) {
		notes = append(notes, "install rewind-hook beside rewind (go install github.com/rewind-dev/rewind/cmd/...@latest) and run rewind install again "+
			"to log how each call ended: the post-tool hook runs only the light front")
	}
	notes = append(notes, failureNote(hf, p.o.FailOpen))
	notes = append(notes, fmt.Sprintf("the hook reads the ZVM's address and credentials from REWIND_ZVM_URL and REWIND_ZVM_CLIENT_ID/REWIND_ZVM_CLIENT_SECRET "+
		"(or the config's [zerto] table): set them in the environment %s starts from (docs/install.md)", name))
	if h == hostio.Claude && p.o.Scope == Project {
		notes = append(notes, "Claude Code asks each person to approve the MCP servers of .mcp.json: approve rewind when it asks")
	}
	if h == hostio.Copilot && p.o.Scope == Project {
		notes = append(notes, "Copilot loads a repository's hooks only in a folder you trust: in a -p run of an untrusted folder, rewind's hook does not run")
	}
	notes = append(notes, fmt.Sprintf("restart %s (or start a new session) so that it loads the hook", name))
	if h == hostio.Codex {
		notes = append(notes, "Codex runs the hook only once you trust it: open /hooks in Codex and trust rewind's hooks (again after each install that changes them)")
	}
	return slices.DeleteFunc(notes, func(n string) bool { return n == "" })
}

// mcpNoteBinary is how a note about an MCP server to add by hand names
// rewind.
func (p *planner) mcpNoteBinary() string {
	if committed(p.o.Scope) {
		return commandName(p.o.Binary)
	}
	return p.o.Binary
}

// failureNow says what the host does with a call while its hook cannot
// start.
func failureNow(hf *hookFile, failOpen bool) string {
	switch {
	case hf.failure == failClosed || hf.failure == failClosedButTimeout || hf.failure == failSwitch && !failOpen:
		return "it refuses every call the hook would judge"
	}
	return "it runs every call unguarded"
}

// failureNote says how the host treats a hook that never answers.
func failureNote(hf *hookFile, failOpen bool) string {
	name := hf.host.Name()
	switch hf.failure {
	case failSwitch:
		if failOpen {
			return fmt.Sprintf("installed to fail open (--fail-open): a hook %s cannot start, or that times out or crashes, lets the call through unguarded", name)
		}
		return ""
	case failClosed:
		if failOpen {
			return fmt.Sprintf("%s refuses a call whose hook does not answer, and has no setting to let it through: --fail-open changes nothing there", name)
		}
		return ""
	case failClosedButTimeout:
		return fmt.Sprintf("%s refuses a call whose hook fails, but lets it through when the hook times out: keep hook.budget below the timeout rewind writes", name)
	}
	return fmt.Sprintf("%s has no setting to refuse a call whose hook cannot start, times out or crashes: such a call runs unguarded; run rewind doctor after every change to PATH or hook.budget", name)
}

// sameFile reports whether a and b are the same file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// Apply writes the changes, each atomically, and records what an install
// created (see Options.StateDir) or forgets it after an uninstall, whose
// created folders it removes when they are left empty.
func (r *Result) Apply() error {
	prov, err := loadProvenance(r.stateDir)
	if err != nil {
		return err
	}
	var dirs []string // the folders installs made, to remove once empty
	for _, c := range r.Changes {
		if r.remove {
			if c.New == nil {
				dirs = append(dirs, prov.dirs(c.Path)...)
			}
			if err := removeChange(c, prov); err != nil {
				return err
			}
			continue
		}
		made, err := mkdirs(filepath.Dir(c.Path))
		if err != nil {
			return err
		}
		if err := writeAtomic(c.Path, c.New, c.mode); err != nil {
			return err
		}
		prov.add(c.Path, c.Old == nil, c.created, made)
	}
	if len(r.Changes) > 0 {
		prov.addBinaries(r.binaries)
	}
	// Deepest first; only an empty folder goes, so one that still holds
	// another file (or one another install recorded) stays.
	slices.SortFunc(dirs, func(a, b string) int { return len(b) - len(a) })
	for _, dir := range dirs {
		os.Remove(dir)
	}
	return prov.save()
}

// Apply writes the changes as Result.Apply does, recording nothing.
func Apply(changes []Change) error {
	return (&Result{Changes: changes}).Apply()
}

// removeChange applies an uninstall's change: the file rewritten or
// removed.
func removeChange(c Change, prov *provenance) error {
	path := c.Path
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if c.New == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	} else if err := writeAtomic(path, c.New, c.mode); err != nil {
		return err
	}
	prov.forget(c.Path)
	return nil
}

// mkdirs makes dir and its missing parents, and returns those it made,
// deepest first.
func mkdirs(dir string) ([]string, error) {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return made, nil
}

// writeAtomic replaces path with data: a temporary file in the same
// folder, renamed over it, with the old file's mode (mode for a new one).
// A symbolic link is followed, so that the file it points at is replaced.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	dir := filepath.Dir(path)
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

// shellQuote quotes s as one word of a POSIX shell's command line: hosts
// run hook commands with sh.
func shellQuote(s string) string {
	if q, err := syntax.Quote(s, syntax.LangPOSIX); err == nil {
		return q
	}
	// A control character (or a NUL), which POSIX quoting has no escape
	// for: single quotes hold it as it is.
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a command line into the words a POSIX shell would run,
// its quotes removed; a line that does not parse, or would run a command to
// make a word, has none. A variable stays as it is written ($NAME): what it
// stands for is the host's to say when it runs the line (doctor expands
// the project folder's, see its binary check).
func shellWords(s string) []string {
	var words []*syntax.Word
	for w, err := range syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).WordsSeq(strings.NewReader(s)) {
		if err != nil {
			return nil
		}
		words = append(words, w)
	}
	asWritten := func(name string) string {
		if name == "IFS" {
			return "" // unset: words split at white space
		}
		return "$" + name
	}
	fields, err := expand.Fields(&expand.Config{Env: expand.FuncEnviron(asWritten)}, words...)
	if err != nil {
		return nil
	}
	return fields
}
