package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/bench/internal/hookrun"
)

// statusRecords is how many decisions the log holds when the status line
// is measured, a fifth of them the measured session's: about 1 MB, a
// log's size after some weeks of an agent's work.
const statusRecords = 3000

// runStatusline measures rewind's status line the way Claude Code runs it,
// after each message, beside the hook on the read-only event: the floor,
// rewind-hook judging the call, rewind-hook statusline and rewind
// statusline, in a project where rewind is installed and with a log of
// statusRecords decisions.
func runStatusline(n int, markdown bool) error {
	dir, err := os.MkdirTemp("", "hookbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	guards, err := build(filepath.Join(dir, "bin"), "", "", "")
	if err != nil {
		return err
	}
	bin := func(name string) string { return filepath.Join(dir, "bin", name) }
	homeDir := filepath.Join(dir, "home")
	env, err := hookrun.Env(homeDir)
	if err != nil {
		return err
	}
	// rewind install writes a project's hook by name, which the status
	// line finds on the PATH, as a user's go install puts it there.
	env = append(env, "NO_COLOR=", "PATH="+bin("")+string(os.PathListSeparator)+os.Getenv("PATH"))
	project := filepath.Join(homeDir, "project")
	if err := os.Mkdir(project, 0o700); err != nil {
		return err
	}
	install := exec.Command(bin("rewind"), "install")
	install.Dir, install.Env, install.Stderr = project, env, os.Stderr
	if err := install.Run(); err != nil {
		return fmt.Errorf("rewind install: %w", err)
	}
	if err := fillLog(filepath.Join(homeDir, "state")); err != nil {
		return err
	}
	hookEvent := filepath.Join(dir, "event.json")
	if err := writeEvent(hookEvent, events()[0].command); err != nil {
		return err
	}
	lineInput := filepath.Join(dir, "statusline.json")
	in, _ := json.Marshal(map[string]any{
		"session_id": "bench-3", "cwd": project, "transcript_path": filepath.Join(homeDir, "transcript.jsonl"),
		"model":     map[string]string{"id": "claude-opus-4-7", "display_name": "Opus"},
		"workspace": map[string]string{"current_dir": project, "project_dir": project}, "version": "2.1.300",
	})
	if err := os.WriteFile(lineInput, in, 0o600); err != nil {
		return err
	}
	type program struct {
		name  string
		argv  []string
		input string
	}
	progs := []program{
		{"floor (decode only), hook event", guards[0].argv, hookEvent},
		{"rewind-hook, read-only hook event", []string{bin("rewind-hook")}, hookEvent},
		{"rewind-hook statusline", []string{bin("rewind-hook"), "statusline"}, lineInput},
		{"rewind statusline", []string{bin("rewind"), "statusline"}, lineInput},
	}
	// The line must say what it is for: guarding, with the session's
	// rewind points, not an error that would be measured instead.
	for _, p := range progs[2:] {
		out, err := answer(p.argv, p.input, append(env, "PWD="+project))
		if err != nil || !strings.Contains(out, "guarding") || !strings.Contains(out, "rewind points") {
			return fmt.Errorf("%s says %q (%v)", p.name, out, err)
		}
	}
	fmt.Printf("%s; %d cores; %s; %d runs per program, interleaved, through sh -c; a log of %d decisions\n\n",
		cpuModel(), runtime.NumCPU(), runtime.Version(), n, statusRecords)
	times := make([][]time.Duration, len(progs))
	cpus := make([][]time.Duration, len(progs))
	for range n {
		for i, p := range progs {
			d, cpu, err := once(p.argv, p.input, env)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			times[i] = append(times[i], d)
			cpus[i] = append(cpus[i], cpu)
		}
	}
	floor, hook := median(times[0]), median(times[1])
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	if markdown {
		fmt.Fprintln(tw, "| program | median × floor | p90 × floor | median × rewind-hook |")
		fmt.Fprintln(tw, "|---|---:|---:|---:|")
	} else {
		fmt.Fprintln(tw, "program\tmedian\tp90\t× floor\t× rewind-hook\tCPU median")
	}
	for i, p := range progs {
		m, p90 := median(times[i]), pct(times[i], 90)
		if markdown {
			fmt.Fprintf(tw, "| %s | %s | %s | %s |\n", p.name, ratio(m, floor), ratio(p90, floor), ratio(m, hook))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", p.name, ms(m), ms(p90), ratio(m, floor), ratio(m, hook), ms(median(cpus[i])))
	}
	return tw.Flush()
}

// fillLog writes statusRecords decisions of five sessions into the log in
// dir, as the hook writes them.
func fillLog(dir string) error {
	l := audit.Open(dir)
	t0 := time.Now().Add(-time.Hour)
	for i := range statusRecords {
		r := &audit.Record{
			Time: t0.Add(time.Duration(i) * time.Second), Host: "claude", Session: fmt.Sprintf("bench-%d", i%5),
			ToolUseID: fmt.Sprintf("toolu_%d", i), Tool: "Bash", Cwd: "/home/me/project",
			Excerpt: fmt.Sprintf("ssh web-%02d sudo systemctl restart nginx", i%40), Decision: audit.DecisionProtected,
			Rule: "catalog:*", Targets: []string{fmt.Sprintf("web-%02d", i%40)},
			Reason: fmt.Sprintf("rewind: checkpoint \"rewind-20261201T051012Z-%08d\" (CheckpointIdentifier %d) on VPG \"lab-apps\" at 2026-12-01T05:10:14Z protects web-%02d. To undo this call: rewind undo x (audit id).", i, 1000000+i, i%40),
			Checkpoints: []audit.Checkpoint{{VM: fmt.Sprintf("web-%02d", i%40), VPG: "lab-apps", Identifier: fmt.Sprint(1000000 + i),
				Tag: fmt.Sprintf("rewind-20261201T051012Z-%08d", i), Time: t0.Add(time.Duration(i) * time.Second)}},
			ElapsedMS: 420,
		}
		if i%7 == 0 {
			r.Decision, r.Checkpoints, r.Reason = audit.DecisionDeny, nil, "rewind: a checkpoint cannot bring a destroyed VM back in place (rule: catalog:govc vm.destroy)"
		}
		if err := l.Append(r); err != nil {
			return err
		}
	}
	return nil
}
