package install

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

// Installed is one rewind hook found in a host's settings.
type Installed struct {
	Host hostio.Host
	// Path is the settings file, Event the hook event it is under; Post
	// marks a post-tool event, whose hook only logs how a call ended.
	Path  string
	Event string
	Post  bool
	// Command is the hook's command line, Binary the rewind binary it runs.
	Command string
	Binary  string
	// Timeout is how long the host lets the hook run: the hook's own
	// timeout, or the host's default when it has none (TimeoutSet false).
	// It is 0 when the host's documentation names no default.
	Timeout    time.Duration
	TimeoutSet bool
	// Matcher is the matcher of the hook's group, for hosts that have one;
	// HasMatcher is false for hosts that run the hook for every call.
	Matcher    string
	HasMatcher bool
	// Failure says what the host does with a call whose hook never
	// answered (see FailureState).
	Failure FailureState
	// CodexKey and CodexHash are, for a Codex hook, the key under which
	// Codex records its trust in the hook and the hash of the hook's
	// definition it compares (see CodexTrust).
	CodexKey, CodexHash string
}

// FailureState is what a host does with a call whose hook could not
// start, timed out or crashed.
type FailureState int

const (
	// FailsOpen: the call runs, and the host has no setting to change it.
	FailsOpen FailureState = iota
	// FailsOpenBySetting: the call runs; the hook's entry could ask the
	// host to block it (onFailure, failClosed), and does not.
	FailsOpenBySetting
	// FailsClosed: the host blocks the call.
	FailsClosed
	// FailsClosedButTimeout: the host blocks the call, but runs it when
	// the hook timed out.
	FailsClosedButTimeout
)

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
	if hf.owned != nil {
		h, ok := hf.owned.parse(data)
		if !ok {
			return nil, nil
		}
		var out []Installed
		for _, ev := range hf.events {
			in := hf.installed(ev, h.command, nil)
			in.Timeout, in.TimeoutSet = h.timeout, h.timeout > 0
			if hf.failure != failOpen && !h.failClosed {
				in.Failure = FailsOpenBySetting
			}
			out = append(out, in)
		}
		return out, nil
	}
	if _, err := parseObject(hf.path, data); err != nil {
		return nil, err
	}
	d, err := parseText(data)
	if err != nil {
		return nil, &ParseError{File: hf.path, Err: err}
	}
	var found []Installed
	hf.eachOurs(d, func(path []any, e *object) {
		evKey := path[len(hf.hooksPath)].(string)
		ev := hookEvent{key: evKey}
		for _, k := range hf.events {
			if k.key == evKey {
				ev = k
			}
		}
		var cmd string
		for _, k := range hf.commandKeys {
			if v, ok := e.get(k); ok && json.Unmarshal(v, &cmd) == nil && cmd != "" {
				break
			}
		}
		var group *object
		if hf.grouped {
			group, _ = decodeObject(d.raw(d.find(path[:len(path)-2]...)))
		}
		in := hf.installed(ev, cmd, group)
		if hf.timeoutKey != "" {
			if v, ok := e.get(hf.timeoutKey); ok {
				var n float64
				if json.Unmarshal(v, &n) == nil {
					in.Timeout, in.TimeoutSet = time.Duration(n*float64(hf.timeoutUnit)), true
				}
			}
		}
		if hf.failure == failSwitch {
			if v, ok := e.get(hf.failKey); !ok || !sameJSON(v, mustMarshal(hf.failValue)) {
				in.Failure = FailsOpenBySetting
			}
		}
		if hf.host == hostio.Codex {
			in.CodexKey = codexKey(hf.path, ev, path[len(path)-3].(int), path[len(path)-1].(int))
			in.CodexHash = codexHash(ev, group, e)
		}
		found = append(found, in)
	})
	return found, nil
}

// installed is an Installed of hf's for event ev running cmd, with the
// host's defaults.
func (hf *hookFile) installed(ev hookEvent, cmd string, group *object) Installed {
	bin, _ := RewindHook(cmd)
	in := Installed{Host: hf.host, Path: hf.path, Event: ev.key, Post: ev.post, Command: cmd, Binary: bin,
		Timeout: hf.defaultTimeout, HasMatcher: hf.grouped}
	if group != nil {
		if v, ok := group.get("matcher"); ok {
			_ = json.Unmarshal(v, &in.Matcher)
		}
	}
	switch hf.failure {
	case failSwitch:
		in.Failure = FailsClosed
	case failClosed:
		in.Failure = FailsClosed
	case failClosedButTimeout:
		in.Failure = FailsClosedButTimeout
	}
	return in
}

// Uncovered returns the tools of cfg's policy that the hook's matcher lets
// past the hook, unjudged: the shell, an MCP tool, and the tools the
// [[tool]] rules of the catalog and the config name (those without
// wildcards: Write, Edit...).
func (in Installed) Uncovered(cfg *policy.Config) []string {
	if !in.HasMatcher || in.Post {
		return nil
	}
	samples := []string{"Bash", "mcp__server__tool"}
	switch in.Host {
	case hostio.Claude:
		samples = append(samples, "PowerShell")
	case hostio.Gemini:
		samples = []string{"run_shell_command", "mcp_server_tool", "mcp__server__tool"}
	}
	others := policy.ReadTools(in.Host != hostio.Gemini)
	for _, name := range policy.HookTools(cfg) {
		if strings.ContainsAny(name, "*?[\\") || slices.Contains(others, name) {
			continue // a wildcard, or another host's read tool
		}
		if in.Host == hostio.Gemini {
			switch name {
			case "Write":
				name = "write_file"
			case "Edit":
				name = "replace"
			}
		}
		samples = append(samples, name)
	}
	var out []string
	for _, s := range samples {
		if !MatcherMatches(in.Matcher, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// MatcherMatches reports whether a hook matcher selects tool, the way Claude
// Code reads matchers (and Codex and Gemini CLI, for the forms rewind
// writes): "", "*" match every tool; a matcher of only letters, digits, "_",
// "-", "|", "," and spaces is a list of exact names; anything else is an
// unanchored regular expression. A matcher that does not compile matches
// nothing.
func MatcherMatches(matcher, tool string) bool {
	if matcher == "" || matcher == "*" {
		return true
	}
	if strings.Trim(matcher, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-|, ") == "" {
		for _, name := range strings.FieldsFunc(matcher, func(r rune) bool { return r == '|' || r == ',' }) {
			if strings.TrimSpace(name) == tool {
				return true
			}
		}
		return false
	}
	re, err := regexp.Compile(matcher)
	return err == nil && re.MatchString(tool)
}
