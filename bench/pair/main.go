// Command pair measures a change to the hook's start-up: it runs two
// builds of rewind-hook on one event, in turns (A B, then B A, so neither
// always runs on a cache the other warmed), and prints the medians of
// each and the median and mean of the differences pair by pair, which
// hold when the machine's speed drifts during the run and a change is a
// few percent of a process:
//
//	go run ./bench/pair [-n 1000] [-env K=V] [-nocopy] OLD NEW EVENT.json
//
// -env sets a variable in NEW's environment only (GOMAXPROCS=1, say), to
// measure a setting instead of a build.
//
// Both binaries are copied into a folder of pair's own before they run,
// unless -nocopy: how a file came into the page cache changes how fast
// the kernel maps it, and the linker writes its output through a mapping,
// so that the same binary started about 15% slower than a copy of it
// written with write(2) (docs/performance.md). Copied, A and B start
// alike.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/rewind-dev/rewind/bench/internal/hookrun"
)

func main() {
	n := flag.Int("n", 1000, "runs of each binary")
	env := flag.String("env", "", "a `K=V` setting for NEW's environment only")
	noCopy := flag.Bool("nocopy", false, "run the binaries where they are, not copies")
	flag.Parse()
	if flag.NArg() != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run ./bench/pair [-n 1000] [-env K=V] [-nocopy] OLD NEW EVENT.json")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), flag.Arg(1), flag.Arg(2), *n, *env, !*noCopy); err != nil {
		fmt.Fprintf(os.Stderr, "pair: %v\n", err)
		os.Exit(1)
	}
}

func run(old, new, event string, n int, env string, copied bool) error {
	dir, err := os.MkdirTemp("", "pair")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	a, b := old, new
	if copied {
		if a, err = copyBinary(old, filepath.Join(dir, "a")); err != nil {
			return err
		}
		if b, err = copyBinary(new, filepath.Join(dir, "b")); err != nil {
			return err
		}
	}
	base, err := hookrun.Env(filepath.Join(dir, "home"))
	if err != nil {
		return err
	}
	envA, envB := base, base
	if env != "" {
		envB = append(slices.Clone(base), env)
	}
	var wa, wb, ca, cb []float64
	for i := range n {
		for _, first := range []bool{i%2 == 0, i%2 != 0} {
			bin, e := a, envA
			if !first {
				bin, e = b, envB
			}
			wall, cpu, err := once(bin, event, e)
			if err != nil {
				return err
			}
			if first {
				wa, ca = append(wa, wall), append(ca, cpu)
			} else {
				wb, cb = append(wb, wall), append(cb, cpu)
			}
		}
	}
	fmt.Printf("%d pairs; A %s, B %s%s\n", n, old, new, map[bool]string{true: " with " + env}[env != ""])
	report("wall", wa, wb)
	report("cpu ", ca, cb)
	return nil
}

// copyBinary writes a copy of the executable src to dst.
func copyBinary(src, dst string) (string, error) {
	in, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return "", err
	}
	return dst, out.Close()
}

// once runs bin with the event on stdin and returns its wall and CPU
// time in microseconds.
func once(bin, event string, env []string) (wall, cpu float64, err error) {
	in, err := os.Open(event)
	if err != nil {
		return 0, 0, err
	}
	defer in.Close()
	cmd := exec.Command(bin)
	cmd.Stdin, cmd.Env = in, env
	w, c, err := hookrun.Time(cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w", bin, err)
	}
	return float64(w.Microseconds()), float64(c.Microseconds()), nil
}

// report prints the medians of a and b and the median and mean (with its
// standard error) of the differences b-a pair by pair.
func report(name string, a, b []float64) {
	d := make([]float64, len(a))
	var sum, sq float64
	for i := range a {
		d[i] = b[i] - a[i]
		sum += d[i]
		sq += d[i] * d[i]
	}
	n := float64(len(d))
	mean := sum / n
	se := math.Sqrt(max(sq/n-mean*mean, 0) / n)
	ma, mb := median(a), median(b)
	fmt.Printf("%s  A %.0f µs  B %.0f µs  B/A %.3f  B-A by pair: median %+.0f µs, mean %+.0f ± %.0f µs\n",
		name, ma, mb, mb/ma, median(d), mean, se)
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}
