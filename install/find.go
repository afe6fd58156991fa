package install

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// Installed is one rewind hook found in a host's settings.
type Installed struct {
	Host hostio.Host
	// Path is the settings file, Event the hook event it is under.
	Path  string
	Event string
	// Command is the hook's command line, Binary the rewind binary it runs.
	Command string
	Binary  string
	// Timeout is how long the host lets the hook run: the hook's own
	// timeout, or the host's default when it has none (TimeoutSet false).
	// It is 0 when the host has no timeout setting rewind knows of.
	Timeout    time.Duration
	TimeoutSet bool
}

// Find returns the rewind hooks installed for every host at every scope
// under env, and an error for each settings file that cannot be read.
func Find(env Env) ([]Installed, []error) {
	var found []Installed
	var errs []error
	seen := map[string]bool{}
	for _, h := range hostio.Hosts {
		for _, s := range []Scope{Project, Local, User} {
			t, err := targetFor(h, s, env, policy.Default())
			if err != nil || t.hooks == nil || seen[t.hooks.path] {
				continue
			}
			seen[t.hooks.path] = true
			in, err := t.hooks.find()
			if err != nil {
				errs = append(errs, err)
			}
			found = append(found, in...)
		}
	}
	return found, errs
}

// find reads hf's file and returns rewind's hooks in it.
func (hf *hookFile) find() ([]Installed, error) {
	data, err := os.ReadFile(hf.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	root, err := parseObject(hf.path, data)
	if err != nil {
		return nil, err
	}
	hooks, _, err := root.childObject("", "hooks")
	if err != nil {
		return nil, &ParseError{File: hf.path, Err: err}
	}
	var found []Installed
	for _, ev := range hf.events {
		arr, _, err := hooks.childArray("hooks.", ev)
		if err != nil {
			return found, &ParseError{File: hf.path, Err: err}
		}
		var entries []json.RawMessage
		for _, item := range arr {
			if !hf.grouped {
				entries = append(entries, item)
				continue
			}
			if g, err := decodeObject(item); err == nil {
				inner, _, _ := g.childArray("", "hooks")
				entries = append(entries, inner...)
			}
		}
		for _, raw := range entries {
			e, ok := hf.ours(raw)
			if !ok {
				continue
			}
			var cmd string
			v, _ := e.get(hf.commandKey)
			_ = json.Unmarshal(v, &cmd)
			bin, _ := RewindHook(cmd)
			in := Installed{Host: hf.host, Path: hf.path, Event: ev, Command: cmd, Binary: bin, Timeout: hf.defaultTimeout}
			if hf.timeoutKey != "" {
				if v, ok := e.get(hf.timeoutKey); ok {
					var n float64
					if json.Unmarshal(v, &n) == nil {
						in.Timeout, in.TimeoutSet = time.Duration(n*float64(hf.timeoutUnit)), true
					}
				}
			}
			found = append(found, in)
		}
	}
	return found, nil
}
