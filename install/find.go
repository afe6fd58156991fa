package install

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"
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
	// Matcher is the matcher of the hook's group, for hosts that have one;
	// HasMatcher is false for hosts that run the hook for every call.
	Matcher    string
	HasMatcher bool
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
		type entry struct {
			raw     json.RawMessage
			matcher string
		}
		var entries []entry
		for _, item := range arr {
			if !hf.grouped {
				entries = append(entries, entry{raw: item})
				continue
			}
			if g, err := decodeObject(item); err == nil {
				var m string
				if v, ok := g.get("matcher"); ok {
					_ = json.Unmarshal(v, &m)
				}
				inner, _, _ := g.childArray("", "hooks")
				for _, h := range inner {
					entries = append(entries, entry{raw: h, matcher: m})
				}
			}
		}
		for _, en := range entries {
			e, ok := hf.ours(en.raw)
			if !ok {
				continue
			}
			var cmd string
			v, _ := e.get(hf.commandKey)
			_ = json.Unmarshal(v, &cmd)
			bin, _ := RewindHook(cmd)
			in := Installed{Host: hf.host, Path: hf.path, Event: ev, Command: cmd, Binary: bin, Timeout: hf.defaultTimeout,
				Matcher: en.matcher, HasMatcher: hf.grouped}
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

// Uncovered returns the tools of cfg's policy that the hook's matcher lets
// past the hook, unjudged: the shell, an MCP tool, and the tools the
// [[tool]] rules of the catalog and the config name (those without
// wildcards: Write, Edit...).
func (in Installed) Uncovered(cfg *policy.Config) []string {
	if !in.HasMatcher {
		return nil
	}
	samples := []string{"Bash", "mcp__server__tool"}
	if in.Host == hostio.Gemini {
		samples = []string{"run_shell_command", "mcp_server_tool", "mcp__server__tool"}
	}
	for _, name := range policy.HookTools(cfg) {
		if strings.ContainsAny(name, "*?[\\") {
			continue
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
		if !MatcherMatches(in.Matcher, s) {
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
