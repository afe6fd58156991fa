package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// ownedFile is a file rewind writes whole for a host that runs hooks from
// files of their own (OpenCode's plugins, Kiro CLI's hook files, Cline's
// hook scripts): an install writes it, an uninstall removes it.
type ownedFile struct {
	// content is the file that runs the hook command line cmd, which the
	// host gives timeout to answer; failClosed says whether a hook that
	// never answered refuses the call.
	content func(cmd string, timeout time.Duration, failClosed bool) []byte
	// parse reads back what a file of rewind's runs; ok is false for a
	// file that is not rewind's.
	parse func(data []byte) (h ownedHook, ok bool)
	mode  fs.FileMode
}

// ownedHook is what a file of rewind's runs.
type ownedHook struct {
	command    string
	timeout    time.Duration
	failClosed bool
}

// ownedMarker starts the line that marks a file as rewind's.
const ownedMarker = "rewind: "

// openCodePlugin is rewind's OpenCode plugin. OpenCode's plugins are
// JavaScript modules whose tool.execute.before hook refuses a call by
// throwing; the plugin hands each call to the hook command, and each
// result to it after the call (tool.execute.after, which OpenCode runs
// for the calls that succeed), as JSON on stdin (see hostio's OpenCode
// events). A hook that cannot be run, runs out of time or answers what is
// not JSON refuses the call, unless installed with --fail-open.
var openCodePlugin = &ownedFile{
	mode: 0o644,
	content: func(cmd string, timeout time.Duration, failClosed bool) []byte {
		words, _ := json.Marshal(shellWords(cmd))
		return []byte(fmt.Sprintf(`// %sOpenCode plugin written by `+"`rewind install --host opencode`"+`; `+"`rewind uninstall --host opencode`"+` removes it.
// Each tool call is judged by rewind's hook before it runs (a call that
// would change a VM Zerto protects gets a checkpoint first, or does not
// run), and its outcome is logged after it.
import { spawnSync } from "node:child_process";

const COMMAND = %s;
const TIMEOUT_MS = %d;
const FAIL_CLOSED = %t;

const started = new Map();

function hook(event, input, args, directory, extra) {
  const payload = JSON.stringify({ event, tool: input.tool, sessionID: input.sessionID, callID: input.callID, args, directory, ...extra });
  return spawnSync(COMMAND[0], COMMAND.slice(1), { input: payload, encoding: "utf8", timeout: TIMEOUT_MS, maxBuffer: 8 << 20 });
}

export const Rewind = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    started.set(input.callID, Date.now());
    const r = hook("tool.execute.before", input, output.args, directory, {});
    let answer = null;
    if (!r.error && r.status === 0) {
      try {
        answer = JSON.parse(r.stdout.trim() || "{}");
      } catch {}
    }
    if (answer === null) {
      started.delete(input.callID);
      if (!FAIL_CLOSED) return;
      const why = r.error ? r.error.message : r.status === 0 ? "its answer is not JSON" : "it exited with " + r.status;
      throw new Error("rewind: the hook did not answer (" + why + "), so the call does not run. Fix: put rewind-hook on the PATH OpenCode starts with, and run rewind doctor");
    }
    if (answer.block) {
      started.delete(input.callID);
      throw new Error(answer.reason || "rewind: denied");
    }
  },
  "tool.execute.after": async (input, output) => {
    const t = started.get(input.callID);
    started.delete(input.callID);
    hook("tool.execute.after", input, input.args, directory, { metadata: output && output.metadata, durationMs: t === undefined ? undefined : Date.now() - t });
  },
});
`, ownedMarker, words, timeout.Milliseconds(), failClosed))
	},
	parse: func(data []byte) (ownedHook, bool) {
		if !bytes.HasPrefix(data, []byte("// "+ownedMarker)) {
			return ownedHook{}, false
		}
		var h ownedHook
		var words []string
		if m := jsConst("COMMAND").FindSubmatch(data); m == nil || json.Unmarshal(m[1], &words) != nil {
			return ownedHook{}, false
		}
		h.command = shellJoin(words)
		if m := jsConst("TIMEOUT_MS").FindSubmatch(data); m != nil {
			ms, _ := strconv.ParseInt(string(m[1]), 10, 64)
			h.timeout = time.Duration(ms) * time.Millisecond
		}
		if m := jsConst("FAIL_CLOSED").FindSubmatch(data); m != nil {
			h.failClosed = string(m[1]) == "true"
		}
		return h, true
	},
}

// jsConst matches the line `const NAME = VALUE;`.
func jsConst(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?m)^const ` + name + ` = (.*);$`)
}

// shellJoin joins words into a command line, quoting each as it needs.
func shellJoin(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// kiroHooks is rewind's hooks file for Kiro CLI: standalone hook files,
// which apply to every agent of the workspace (or, in ~/.kiro/hooks, of
// the user), each a list of hooks.
var kiroHooks = &ownedFile{
	mode: 0o644,
	content: func(cmd string, timeout time.Duration, _ bool) []byte {
		type action struct {
			Type    string `json:"type"`
			Command string `json:"command"`
		}
		type hook struct {
			Name    string `json:"name"`
			Trigger string `json:"trigger"`
			Action  action `json:"action"`
			Timeout int64  `json:"timeout"`
			Enabled bool   `json:"enabled"`
		}
		b, _ := json.MarshalIndent(struct {
			Version string `json:"version"`
			Hooks   []hook `json:"hooks"`
		}{"v1", []hook{{Name: "rewind", Trigger: "PreToolUse", Action: action{"command", cmd}, Timeout: int64(timeout / time.Second), Enabled: true}}}, "", "  ")
		return append(b, '\n')
	},
	parse: func(data []byte) (ownedHook, bool) {
		var f struct {
			Hooks []struct {
				Name    string `json:"name"`
				Trigger string `json:"trigger"`
				Action  struct {
					Command string `json:"command"`
				} `json:"action"`
				Timeout float64 `json:"timeout"`
			} `json:"hooks"`
		}
		if json.Unmarshal(data, &f) != nil {
			return ownedHook{}, false
		}
		for _, h := range f.Hooks {
			if _, ok := RewindHook(h.Action.Command); ok && h.Trigger == "PreToolUse" {
				return ownedHook{command: h.Action.Command, timeout: time.Duration(h.Timeout * float64(time.Second))}, true
			}
		}
		return ownedHook{}, false
	},
}

// clineScript is rewind's PreToolUse hook script for Cline, which runs
// the executable file of each hook's name in .clinerules/hooks. Cline
// refuses the call when the hook fails, times out or prints an object it
// cannot read; with --fail-open the script answers for a hook that could
// not run.
var clineScript = &ownedFile{
	mode: 0o755,
	content: func(cmd string, _ time.Duration, failClosed bool) []byte {
		run := "exec " + cmd
		if !failClosed {
			run = cmd + " || echo '{\"cancel\": false}'"
		}
		return []byte("#!/bin/sh\n# " + ownedMarker + "Cline's PreToolUse hook, written by `rewind install --host cline`;\n" +
			"# `rewind uninstall --host cline` removes it. Cline refuses the call when\n" +
			"# this hook fails, times out or prints no answer it can read.\n" + run + "\n")
	},
	parse: func(data []byte) (ownedHook, bool) {
		if !bytes.Contains(data, []byte("# "+ownedMarker)) {
			return ownedHook{}, false
		}
		for _, line := range strings.Split(string(data), "\n") {
			if cmd, ok := strings.CutPrefix(line, "exec "); ok {
				return ownedHook{command: cmd, failClosed: true}, true
			}
			if cmd, ok := strings.CutSuffix(line, ` || echo '{"cancel": false}'`); ok {
				return ownedHook{command: cmd}, true
			}
		}
		return ownedHook{}, false
	},
}
