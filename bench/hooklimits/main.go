// Command hooklimits measures the rewind hook, as a process, on the
// largest events it analyses: each shape of internal/shapes grown until
// its event is just under the 8 MiB the hook accepts. The shell shapes go
// to the Bash tool; the PowerShell shapes go to the host's PowerShell
// tool and, inside pwsh -c '...', to the Bash tool; the MCP shapes are
// calls of the MCP tools they name. For each it prints
// the wall time, the CPU time and the peak memory (max RSS) of the hook
// process, and its decision.
//
//	go run ./bench/hooklimits [-size BYTES] [-shape NAME] [-runs N]
//
// It builds rewind as the README installs it (CGO_ENABLED=0) and runs it
// with an empty state directory and no Zerto configured, so that a call to
// protect is asked about rather than captured: what is measured is the
// analysis. With -runs above 1 it reports the run with the median wall
// time.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/shapes"
)

func main() {
	size := flag.Int("size", hostio.MaxEventSize, "the most bytes of an event")
	only := flag.String("shape", "", "measure only the shapes whose name contains this")
	runs := flag.Int("runs", 1, "runs per shape")
	flag.Parse()
	if err := run(*size, *only, *runs); err != nil {
		fmt.Fprintf(os.Stderr, "hooklimits: %v\n", err)
		os.Exit(1)
	}
}

type result struct {
	wall, cpu time.Duration
	rssKiB    int64
	decision  string
}

func run(size int, only string, runs int) error {
	dir, err := os.MkdirTemp("", "hooklimits")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "rewind")
	build := exec.Command("go", "build", "-o", bin, "./cmd/rewind")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building rewind: %w", err)
	}
	fmt.Printf("machine: %d CPUs, %s, %s/%s\n\n", runtime.NumCPU(), cpuModel(), runtime.GOOS, runtime.GOARCH)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "shape\tcommand\twall\tcpu\tmax RSS\tdecision\t\n")
	type measured struct {
		name  string
		event func() ([]byte, int)
	}
	var all []measured
	for _, s := range shapes.All {
		all = append(all, measured{s.Name, func() ([]byte, int) { return event(s, size, "Bash", nil) }})
	}
	for _, s := range shapes.PowerShell {
		all = append(all, measured{s.Name + " (PowerShell tool)", func() ([]byte, int) { return event(s, size, "PowerShell", nil) }},
			measured{s.Name + " (pwsh -c in Bash)", func() ([]byte, int) { return event(s, size, "Bash", pwshC) }})
	}
	for _, s := range shapes.MCP {
		all = append(all, measured{s.Name + " (" + s.Tool + ")", func() ([]byte, int) { return mcpEvent(s, size) }})
	}
	for _, rn := range all {
		if !strings.Contains(rn.name, only) {
			continue
		}
		ev, cmdLen := rn.event()
		var rs []result
		for range runs {
			r, err := hook(bin, dir, ev)
			if err != nil {
				return fmt.Errorf("%s: %w", rn.name, err)
			}
			rs = append(rs, r)
		}
		slices.SortFunc(rs, func(a, b result) int { return int(a.wall - b.wall) })
		r := rs[len(rs)/2]
		fmt.Fprintf(tw, "%s\t%.1f MiB\t%s\t%s\t%d MiB\t%s\t\n", rn.name, float64(cmdLen)/(1<<20),
			r.wall.Round(time.Millisecond), r.cpu.Round(time.Millisecond), r.rssKiB>>10, r.decision)
	}
	return tw.Flush()
}

// pwshC puts PowerShell code in a pwsh -c command line.
func pwshC(code string) string {
	return "pwsh -NoProfile -c '" + strings.ReplaceAll(code, "'", `'\''`) + "'"
}

// event returns the largest event of shape s for tool that is at most
// size bytes, and the length of its command; wrap, when set, makes the
// command of the shape's code.
func event(s shapes.Shape, size int, tool string, wrap func(string) string) ([]byte, int) {
	lo, hi := 0, size
	var best []byte
	bestLen := 0
	for lo <= hi {
		mid := (lo + hi) / 2
		cmd := s.Make(mid)
		if wrap != nil {
			cmd = wrap(cmd)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		// Agents' hosts send & < > as they are, not as \u0026.
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{
			"session_id": "hooklimits", "hook_event_name": "PreToolUse", "tool_name": tool,
			"tool_input": map[string]string{"command": cmd}, "cwd": "/tmp",
		})
		if ev := buf.Bytes(); len(ev) <= size {
			best, bestLen, lo = ev, len(cmd), mid+1
		} else {
			hi = mid - 1
		}
	}
	return best, bestLen
}

// mcpEvent returns the largest event of the MCP shape s that is at most
// size bytes, and the length of its tool input.
func mcpEvent(s shapes.MCPShape, size int) ([]byte, int) {
	lo, hi := 0, size
	var best []byte
	bestLen := 0
	for lo <= hi {
		mid := (lo + hi) / 2
		input := s.Make(mid)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]any{
			"session_id": "hooklimits", "hook_event_name": "PreToolUse", "tool_name": s.Tool,
			"tool_input": json.RawMessage(input), "cwd": "/tmp",
		})
		if ev := buf.Bytes(); len(ev) <= size {
			best, bestLen, lo = ev, len(input), mid+1
		} else {
			hi = mid - 1
		}
	}
	return best, bestLen
}

func hook(bin, dir string, ev []byte) (result, error) {
	// The peak memory comes from /usr/bin/time, a small parent: Linux
	// counts in a child's max RSS what its parent held when it forked, and
	// this process holds megabytes of events.
	timeOut := filepath.Join(dir, "time.out")
	cmd := exec.Command("/usr/bin/time", "-o", timeOut, "-f", "%M", bin, "hook")
	cmd.Stdin = bytes.NewReader(ev)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Env = []string{
		"HOME=" + dir, "REWIND_STATE_DIR=" + filepath.Join(dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "config"), "XDG_CACHE_HOME=" + filepath.Join(dir, "cache"),
	}
	cmd.Dir = dir
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return result{}, err
	}
	r := result{wall: time.Since(start), decision: "none"}
	if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.cpu = time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	b, err := os.ReadFile(timeOut)
	if err != nil {
		return result{}, err
	}
	if _, err := fmt.Sscan(string(b), &r.rssKiB); err != nil {
		return result{}, fmt.Errorf("reading /usr/bin/time's output %q: %w", b, err)
	}
	var answer struct {
		Out struct {
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
		} `json:"hookSpecificOutput"`
	}
	if json.Unmarshal(out.Bytes(), &answer) == nil && answer.Out.Decision != "" {
		r.decision = answer.Out.Decision
		if strings.Contains(answer.Out.Reason, "limit of the analysis") || strings.Contains(answer.Out.Reason, "past a limit") {
			r.decision += " (past a limit)"
		}
	}
	return r, nil
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "unknown CPU"
}
