package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rewind-dev/rewind/internal/cli"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update testscript golden files with the actual output")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"rewind": func() { os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the end-to-end CLI scripts in testdata/script. Run with
// -update to rewrite the expected output in the scripts.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			// Keep every run away from the developer's own config and state.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/.state")
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/.cache")
			env.Setenv("HOME", env.WorkDir+"/home")
			return nil
		},
	})
}
