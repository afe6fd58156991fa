// Command hookbench measures the whole-process cost of one hook call, side
// by side in one run: rewind-hook (the light front that rewind install
// sets up), rewind hook (the full binary, which protect calls reach and
// which runs where the front is not installed), the floor (a Go program
// that only decodes the event: bench/floor), the floor's work done in
// rewind-hook's program (rewind-hook built with the floorbench tag, which
// tells the cost of its size and initialisation from that of judging),
// and the anchor guards. Each
// is started the way an agent host starts a hook, through sh -c with the
// event on stdin, and the guards take turns on every round, so that the
// machine's noise falls on all of them alike. It prints medians, 90th
// percentiles and the ratios that hold when absolute times drift: each
// program to the floor and to rewind-hook.
//
//	go run ./bench/hookbench [-n 101] [-safety-net BIN] [-compare BIN] [-markdown]
//	go run ./bench/hookbench -statusline [-n 101] [-markdown]
//
// -statusline measures rewind's status line for Claude Code instead
// (rewind-hook statusline and rewind statusline, which Claude Code runs
// after each message) beside rewind-hook judging the read-only event.
//
// -compare adds another build of rewind, run as BIN hook, to measure a
// change against the build before it. With -markdown it prints the table of docs/performance.md and the README:
// ratios only, under a line naming the machine.
//
// The anchors are bench/anchors/seed_guard.py, a regex guard run with the
// system python3, and, with -safety-net, the npm guard cc-safety-net
// (npm install --prefix DIR cc-safety-net@2.4.5, then -safety-net
// DIR/node_modules/.bin/cc-safety-net).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rewind-dev/rewind/bench/internal/hookrun"
)

// event is one hook input measured.
type event struct {
	name    string
	command string
}

// events are the calls measured: the common case, a long commit message
// that quotes dangerous commands (prose rewind must read past), and a call
// that is denied (which also writes the audit log).
func events() []event {
	var prose strings.Builder
	prose.WriteString("git commit -F - <<'EOF'\nInfra notes: what the agent must never run again\n\n")
	for i := range 2000 {
		fmt.Fprintf(&prose, "%d. do not run `govc vm.destroy web-%02d` or `ssh web-%02d sudo reboot`; gh issue create --body 'do not revisit'\n", i, i%50, i%50)
	}
	prose.WriteString("EOF")
	return []event{
		{"read-only", "ls -la && git status --short | head -n 20"},
		{"prose-heavy (2,000-line commit message)", prose.String()},
		{"denied", "govc vm.destroy -vm web-01"},
	}
}

type guard struct {
	name string
	argv []string
	// rewind marks the guard the ratios are taken against.
	rewind, floor bool
}

func main() {
	n := flag.Int("n", 101, "runs per guard and event")
	python := flag.String("python", "/usr/bin/python3", "the system python3, for seed_guard.py")
	safetyNet := flag.String("safety-net", "", "the cc-safety-net command, to measure it too")
	markdown := flag.Bool("markdown", false, "print the table as Markdown, for the README")
	compare := flag.String("compare", "", "another rewind binary, run as `BIN` hook, to compare with")
	statusLine := flag.Bool("statusline", false, "measure the status line (rewind-hook statusline) beside the hook instead")
	flag.Parse()
	run := func() error { return run(*n, *python, *safetyNet, *compare, *markdown) }
	if *statusLine {
		run = func() error { return runStatusline(*n, *markdown) }
	}
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "hookbench: %v\n", err)
		os.Exit(1)
	}
}

func run(n int, python, safetyNet, compare string, markdown bool) error {
	dir, err := os.MkdirTemp("", "hookbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	guards, err := build(filepath.Join(dir, "bin"), python, safetyNet, compare)
	if err != nil {
		return err
	}
	env, err := hookrun.Env(filepath.Join(dir, "home"))
	if err != nil {
		return err
	}

	fmt.Printf("%s; %d cores; %s; %d runs per program and event, interleaved, through sh -c\n\n",
		cpuModel(), runtime.NumCPU(), runtime.Version(), n)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	row := func(cells ...string) {
		if markdown {
			fmt.Fprintf(tw, "| %s |\n", strings.Join(cells, " | "))
		} else {
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	if markdown {
		row("event", "program", "median × floor", "p90 × floor", "median × rewind-hook")
		row("---", "---", "---:", "---:", "---:")
	} else {
		row("event", "program", "median", "p90", "× floor", "× rewind-hook", "CPU median")
	}
	for _, ev := range events() {
		file := filepath.Join(dir, "event.json")
		if err := writeEvent(file, ev.command); err != nil {
			return err
		}
		if err := sameAnswer(guards, file, env); err != nil {
			return fmt.Errorf("%s: %w", ev.name, err)
		}
		times := make([][]time.Duration, len(guards))
		cpus := make([][]time.Duration, len(guards))
		for range n {
			for g := range guards {
				d, cpu, err := once(guards[g].argv, file, env)
				if err != nil {
					return fmt.Errorf("%s on %s: %w", guards[g].name, ev.name, err)
				}
				times[g] = append(times[g], d)
				cpus[g] = append(cpus[g], cpu)
			}
		}
		var floor, rewind time.Duration
		for g := range guards {
			switch {
			case guards[g].floor:
				floor = median(times[g])
			case guards[g].rewind:
				rewind = median(times[g])
			}
		}
		for g := range guards {
			m, p90 := median(times[g]), pct(times[g], 90)
			if markdown {
				row(ev.name, guards[g].name, ratio(m, floor), ratio(p90, floor), ratio(m, rewind))
				continue
			}
			row(ev.name, guards[g].name, ms(m), ms(p90), ratio(m, floor), ratio(m, rewind), ms(median(cpus[g])))
		}
	}
	return tw.Flush()
}

// build compiles the floor, rewind and rewind-hook as the README installs
// rewind: static, without cgo, which spares every run the dynamic loader;
// rewind-hook beside rewind, as go install puts them.
func build(dir, python, safetyNet, compare string) ([]guard, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, err
	}
	builds := []struct{ out, pkg, tags string }{
		{"floor", "./bench/floor", ""},
		{"floor-linked", "./cmd/rewind-hook", "floorbench"},
		{"rewind", "./cmd/rewind", ""},
		{"rewind-hook", "./cmd/rewind-hook", ""},
	}
	for _, b := range builds {
		cmd := exec.Command("go", "build", "-trimpath", "-tags="+b.tags, "-o", filepath.Join(dir, b.out), b.pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("building %s: %w", b.pkg, err)
		}
	}
	guards := []guard{
		{name: "floor (decode only)", argv: []string{filepath.Join(dir, "floor")}, floor: true},
		{name: "floor, linked as rewind-hook", argv: []string{filepath.Join(dir, "floor-linked")}},
		{name: "rewind-hook", argv: []string{filepath.Join(dir, "rewind-hook")}, rewind: true},
		{name: "rewind hook", argv: []string{filepath.Join(dir, "rewind"), "hook"}},
	}
	if compare != "" {
		guards = append(guards, guard{name: compare + " hook", argv: []string{compare, "hook"}})
	}
	seed := filepath.Join("bench", "anchors", "seed_guard.py")
	if _, err := os.Stat(python); err == nil {
		guards = append(guards, guard{name: "seed_guard.py", argv: []string{python, seed}})
	} else {
		fmt.Fprintf(os.Stderr, "hookbench: no %s: measuring without seed_guard.py\n", python)
	}
	if safetyNet != "" {
		guards = append(guards, guard{name: "cc-safety-net", argv: []string{safetyNet, "hook", "--claude-code"}})
	}
	return guards, nil
}

func writeEvent(file, command string) error {
	b, err := json.Marshal(map[string]any{
		"session_id": "bench", "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": command}, "tool_use_id": "toolu_bench", "cwd": os.TempDir(),
	})
	if err != nil {
		return err
	}
	return os.WriteFile(file, b, 0o600)
}

// sameAnswer checks, before anything is measured, that rewind-hook and
// rewind hook answer the event alike and as they do in use, not with an
// error (a broken config, say) whose path would be measured instead.
func sameAnswer(guards []guard, eventFile string, env []string) error {
	var answers []string
	for _, g := range guards {
		if g.floor || !strings.HasPrefix(g.name, "rewind") {
			continue
		}
		out, err := answer(g.argv, eventFile, env)
		if err != nil {
			return fmt.Errorf("%s: %w", g.name, err)
		}
		if strings.Contains(out, "rewind: ") && strings.Contains(out, "error") {
			return fmt.Errorf("%s answers with an error: %s", g.name, out)
		}
		answers = append(answers, out)
	}
	for _, a := range answers[1:] {
		if a != answers[0] {
			return fmt.Errorf("rewind-hook and rewind hook answer differently: %q and %q", answers[0], a)
		}
	}
	return nil
}

// answer runs a guard once and returns what it writes.
func answer(argv []string, eventFile string, env []string) (string, error) {
	in, err := os.Open(eventFile)
	if err != nil {
		return "", err
	}
	defer in.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Env = in, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// once runs one guard on one event the way a host does, through sh -c, and
// returns its wall time and the CPU time of sh and the guard (see
// hookrun.Time). Its output goes to files, not pipes: a pipe would have
// this process copy it while the guard runs, competing with it for the
// CPU.
func once(argv []string, eventFile string, env []string) (wall, cpu time.Duration, err error) {
	in, err := os.Open(eventFile)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	out, err := os.CreateTemp("", "hookbench-out")
	if err != nil {
		return 0, 0, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `exec "$0" "$@"`}, argv...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	cmd.Env = env
	wall, cpu, err = hookrun.Time(cmd)
	if err != nil {
		msg, _ := os.ReadFile(out.Name())
		return 0, 0, fmt.Errorf("%v: %s", err, msg)
	}
	return wall, cpu, nil
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOOS + "/" + runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOOS + "/" + runtime.GOARCH
}

func median(ds []time.Duration) time.Duration { return pct(ds, 50) }

func pct(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ratio(d, base time.Duration) string { return fmt.Sprintf("%.2f×", float64(d)/float64(base)) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
