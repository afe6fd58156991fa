// Command hookbench measures whole-process hook latency side by side: rewind
// hook and the anchor guards, run alternately on the same events in one run,
// so that the machine's noise falls on all of them alike.
//
//	go run ./bench/hookbench [-n 200] [-anchors ../shared/anchors] [-safety-net BIN]
//
// With -safety-net it also runs the npm package cc-safety-net, a command
// guard in TypeScript (npm install --prefix DIR cc-safety-net@2.4.5, then
// -safety-net DIR/node_modules/.bin/cc-safety-net).
//
// It builds rewind (CGO_ENABLED=0, as the README installs it), then runs each guard n times per event and prints the
// median and 90th percentile of the wall time of each, and the ratio of the
// anchor's median to rewind's.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// events are the hook inputs measured: the common case, a read-only command,
// and a prose-quoting commit that a text guard must also get through.
var events = []struct{ name, json string }{
	{"read-only", `{"session_id":"bench","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls -la /var/log && df -h"},"cwd":"/tmp"}`},
	{"commit-quoting", `{"session_id":"bench","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git commit -F- <<'EOF'\nDocument why gh issue create must never say do not revisit\nEOF"},"cwd":"/tmp"}`},
}

type guard struct {
	name string
	argv []string
}

func main() {
	n := flag.Int("n", 200, "runs per guard and event")
	anchors := flag.String("anchors", "../shared/anchors", "folder of the anchor guards")
	python := flag.String("python", "/usr/bin/python3", "the system python3 for seed_guard.py")
	safetyNet := flag.String("safety-net", "", "the cc-safety-net command, to measure it too")
	flag.Parse()
	if err := run(*n, *anchors, *python, *safetyNet); err != nil {
		fmt.Fprintf(os.Stderr, "hookbench: %v\n", err)
		os.Exit(1)
	}
}

func run(n int, anchors, python, safetyNet string) error {
	dir, err := os.MkdirTemp("", "hookbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "rewind")
	// Built as the README installs it: static, without cgo, which spares
	// every hook run the dynamic loader.
	build := exec.Command("go", "build", "-o", bin, "./cmd/rewind")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building rewind: %w", err)
	}
	guards := []guard{{"rewind hook", []string{bin, "hook"}}}
	seed := filepath.Join(anchors, "seed_guard.py")
	if _, err := os.Stat(seed); err == nil {
		guards = append(guards, guard{"seed_guard.py", []string{python, seed}})
	} else {
		fmt.Fprintf(os.Stderr, "hookbench: no %s: measuring rewind without it\n", seed)
	}
	if safetyNet != "" {
		guards = append(guards, guard{"cc-safety-net", []string{safetyNet, "hook", "--claude-code"}})
	}

	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "event\tguard\tmedian\tp90\tvs rewind\n")
	for _, ev := range events {
		times := make([][]time.Duration, len(guards))
		for i := 0; i < n; i++ {
			for g := range guards {
				d, err := once(guards[g].argv, ev.json)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", guards[g].name, ev.name, err)
				}
				times[g] = append(times[g], d)
			}
		}
		base := median(times[0])
		for g := range guards {
			m := median(times[g])
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fx\n", ev.name, guards[g].name,
				round(m), round(pct(times[g], 90)), float64(m)/float64(base))
		}
	}
	return tw.Flush()
}

// once runs one guard on one event and returns its wall time. An exit code
// of 2 is a guard's way to block and counts as a run.
func once(argv []string, event string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(event)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
		err = nil
	}
	if err != nil {
		return 0, fmt.Errorf("%v: %s", err, out.String())
	}
	return d, nil
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
