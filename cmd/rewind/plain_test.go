package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
)

// plain is the folder of rewind and rewind-hook built without the race
// detector, made once per test process by plainBinaries.
var plain struct {
	once sync.Once
	dir  string
	err  error
}

// plainBinaries returns a folder holding rewind and rewind-hook built from
// this test binary's package without the race detector, when this binary
// has it, for the scripts and TestFrontAgreesWithHook to run instead of
// copies of this binary; "" when they run the copies. They run rewind some
// six hundred times, each a fresh process, and a process built with -race
// starts and judges several times slower: that was half of the whole race
// suite. The code those processes run is raced in-process by the packages'
// own tests (hook/zerto starts concurrent hooks, capture and recovery their
// watchers). REWIND_SCRIPT_RACE=1 keeps the race-built copies; so does a
// machine without the go command.
func plainBinaries(t *testing.T) string {
	t.Helper()
	if !race.Enabled || os.Getenv("REWIND_SCRIPT_RACE") != "" {
		return ""
	}
	plain.once.Do(func() { plain.dir, plain.err = buildPlain() })
	if plain.err != nil {
		t.Fatalf("building rewind without -race for the scripts (REWIND_SCRIPT_RACE=1 runs them with it): %v", plain.err)
	}
	if plain.dir == "" {
		t.Log("no go command: the scripts run the race-built rewind")
	}
	return plain.dir
}

func buildPlain() (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", nil
	}
	dir, err := os.MkdirTemp("", "rewind-plain-")
	if err != nil {
		return "", err
	}
	suffix := ""
	if runtime.GOOS == "windows" {
		suffix = ".exe"
	}
	exe := filepath.Join(dir, "rewind"+suffix)
	// -race=false against a -race in GOFLAGS.
	args := append([]string{"test", "-c", "-race=false", "-o", exe}, buildFlags()...)
	if out, err := exec.Command(goTool, append(args, ".")...).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go test -c: %v\n%s", err, out)
	}
	if err := os.Link(exe, filepath.Join(dir, "rewind-hook"+suffix)); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// buildFlags returns the flags this test binary was built with, from its
// build information, that change what the plain copy runs or records:
// build tags, the compiler's and linker's flags, coverage.
func buildFlags() []string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	var flags []string
	for _, s := range bi.Settings {
		switch s.Key {
		case "-tags", "-gcflags", "-ldflags", "-asmflags", "-covermode", "-coverpkg":
			flags = append(flags, s.Key+"="+s.Value)
		case "-trimpath", "-cover":
			if s.Value == "true" {
				flags = append(flags, s.Key)
			}
		}
	}
	return flags
}

// removingPlain runs the tests and then removes the plain binaries'
// folder, which outlives every single test.
type removingPlain struct{ m *testing.M }

func (r removingPlain) Run() int {
	code := r.m.Run()
	if plain.dir != "" {
		os.RemoveAll(plain.dir)
	}
	return code
}
