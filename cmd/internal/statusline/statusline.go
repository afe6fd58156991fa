// Package statusline is rewind's status line for Claude Code: one short
// line, below the prompt, that says whether rewind guards this session,
// how many rewind points the session has, and the last decision.
//
// Claude Code runs the status line's command after each assistant message
// (at most every 300 ms), with the session's details as JSON on stdin, and
// shows the first line it prints. So it must be as light as the hook: the
// package links what rewind-hook links (policy, install's reading of the
// settings, audit) and no Zerto client, and reads only the newest part of
// the decision log. Both rewind-hook statusline and rewind statusline run
// it; docs/performance.md has its cost.
package statusline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/install"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/policy"
)

// maxInput bounds what is read of stdin: Claude Code's status-line JSON
// is a few kilobytes.
const maxInput = 1 << 20

// recentBytes is how much of the end of the decision log is read: a
// session's recent decisions, at a cost that does not grow with the log.
const recentBytes = 1 << 20

// Input is the part of Claude Code's status-line JSON that the line uses.
type Input struct {
	SessionID string `json:"session_id"`
	Cwd       string `json:"cwd"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
}

// dir is the project folder whose settings Claude Code reads.
func (in *Input) dir() string {
	for _, d := range []string{in.Workspace.ProjectDir, in.Workspace.CurrentDir, in.Cwd} {
		if filepath.IsAbs(d) {
			return d
		}
	}
	return ""
}

// Options are what a status line is made from, besides its input.
type Options struct {
	Getenv func(string) string
	// Color marks the line with ANSI colours, which Claude Code shows.
	Color bool
}

// Run reads Claude Code's status-line JSON from stdin and writes rewind's
// line on stdout. It always exits 0 with a line: a status line that fails
// shows nothing, and a person would not know why.
func Run(stdin io.Reader, stdout io.Writer, o Options) int {
	var in Input
	data, _ := io.ReadAll(io.LimitReader(stdin, maxInput))
	if len(strings.TrimSpace(string(data))) > 0 && json.Unmarshal(data, &in) != nil {
		fmt.Fprintln(stdout, "rewind: the status line's input is not JSON")
		return 0
	}
	if in.dir() == "" {
		if wd, err := os.Getwd(); err == nil {
			in.Cwd = wd
		}
	}
	fmt.Fprintln(stdout, Line(&in, o))
	return 0
}

// Line is the status line for a session.
func Line(in *Input, o Options) string {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	p := painter(o.Color)
	guard, ok := guarding(in.dir(), o.Getenv)
	if !ok {
		return p(red, "rewind ✗") + " " + guard
	}
	parts := []string{p(green, "rewind ✓") + " " + guard}
	if !zertoConfigured(in.dir(), o.Getenv) {
		parts = append(parts, p(yellow, "no Zerto: VM changes are asked"))
	}
	t := tally(in.SessionID, o.Getenv)
	switch n := t.RewindPoints; n {
	case 0:
		parts = append(parts, "no rewind point yet")
	case 1:
		parts = append(parts, "1 rewind point")
	default:
		parts = append(parts, fmt.Sprintf("%d rewind points", n))
	}
	if r := t.Last; r != nil {
		call := r.Excerpt
		if call == "" {
			call = r.Tool
		}
		parts = append(parts, fmt.Sprintf("last %s %s %s", r.Time.Local().Format("15:04"),
			p(audit.DecisionColor(r.Decision), audit.Cut(r.Decision, 16)), audit.Cut(call, 40)))
	}
	return strings.Join(parts, " · ")
}

// guarding says whether Claude Code runs a rewind hook in dir that
// resolves to a program, and in which settings.
func guarding(dir string, getenv func(string) string) (string, bool) {
	home := getenv("HOME")
	if dir == "" || home == "" {
		return "cannot tell: no project folder or home", false
	}
	found, errs := install.Find(install.Env{Dir: dir, Home: home})
	var broken string
	for _, h := range found {
		if h.Host != hostio.Claude {
			continue
		}
		if _, err := exec.LookPath(h.Binary); err != nil {
			broken = fmt.Sprintf("hook runs %s, which is missing · rewind doctor", h.Binary)
			continue
		}
		where := "user"
		if rel, err := filepath.Rel(dir, h.Path); err == nil && !strings.HasPrefix(rel, "..") {
			where = "project"
		}
		return "guarding (" + where + " hook)", true
	}
	switch {
	case broken != "":
		return broken, false
	case len(errs) > 0:
		var pe *install.ParseError
		if errors.As(errs[0], &pe) {
			return "cannot read " + pe.File + " · rewind doctor", false
		}
		return "cannot read the settings · rewind doctor", false
	}
	return "not guarding here · rewind install", false
}

// zertoConfigured says whether a ZVM is set for calls in dir: without
// one, a change to a VM is asked rather than protected.
func zertoConfigured(dir string, getenv func(string) string) bool {
	if getenv("REWIND_ZVM_URL") != "" {
		return true
	}
	cfg, err := policy.Find("", dir, getenv)
	var le *policy.LoadError
	if errors.As(err, &le) {
		cfg = le.Fallback
	}
	return cfg != nil && cfg.Zerto.URL != ""
}

// tally counts the session's recent decisions.
func tally(session string, getenv func(string) string) audit.Tally {
	if session == "" {
		return audit.Tally{}
	}
	dir, err := dirs.State(getenv)
	if err != nil {
		return audit.Tally{}
	}
	t, _ := audit.Open(dir).Tally(session, recentBytes)
	return t
}

const (
	red    = "\x1b[1;31m"
	green  = "\x1b[1;32m"
	yellow = "\x1b[33m"
)

func painter(color bool) func(sgr, s string) string {
	return func(sgr, s string) string {
		if !color || sgr == "" {
			return s
		}
		return sgr + s + "\x1b[0m"
	}
}
