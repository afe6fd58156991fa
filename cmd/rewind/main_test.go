package main

import (
	"context"
	"flag"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/cmd/internal/cli"
	"github.com/rewind-dev/rewind/cmd/internal/hookfront"
	"github.com/rewind-dev/rewind/internal/confirm"
	"github.com/rewind-dev/rewind/zvmsim"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update testscript golden files with the actual output")

func TestMain(m *testing.M) {
	testscript.Main(removingPlain{m}, map[string]func(){
		"rewind": func() {
			// The search for an agent host among rewind's ancestors stops
			// at the test binary: a developer's own agent may run the tests.
			confirm.StopAt, _ = strconv.Atoi(os.Getenv("REWIND_TEST_ANCESTOR"))
			os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"rewind-hook": func() { os.Exit(hookfront.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScript runs the end-to-end CLI scripts in testdata/script. Run with
// -update to rewrite the expected output in the scripts.
func TestScript(t *testing.T) {
	plain := plainBinaries(t)
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			if plain != "" {
				env.Setenv("PATH", plain+string(filepath.ListSeparator)+env.Getenv("PATH"))
			}
			// Keep every run away from the developer's own config, state
			// and token cache, and from a ZVM configured in the environment.
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/.state")
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/.cache")
			env.Setenv("REWIND_STATE_DIR", env.WorkDir+"/.state/rewind")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("REWIND_TEST_ANCESTOR", strconv.Itoa(os.Getpid()))
			// A -race binary otherwise idles a second at the exit of every
			// rewind command a script runs.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			for _, k := range []string{"REWIND_CONFIG", "REWIND_ZVM_URL", "REWIND_ZVM_USERNAME", "REWIND_ZVM_PASSWORD",
				"REWIND_ZVM_CLIENT_ID", "REWIND_ZVM_CLIENT_SECRET", "REWIND_ZVM_CA_FILE", "REWIND_ZVM_AUTH"} {
				env.Setenv(k, "")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sim":        cmdSim,
			"simctl":     cmdSimctl,
			"lastrecord": cmdLastRecord,
			"fits":       cmdFits,
			"tty":        cmdTTY,
		},
	})
}

// cmdSim starts the ZVM simulator in-process for the rest of the script:
//
//	sim [-cadence VPG=DURATION]... [scenario.toml]
//
// It listens on a free loopback port and sets REWIND_ZVM_URL and the
// client_credentials of the scenario's first confidential client (the
// default scenario's "rewind-hook", the hook's client of least privilege),
// so that rewind finds it as a real ZVM. -cadence sets a VPG's journal
// cadence, so that a script whose protected call waits for the next tick
// of the default lab's 5 s journal need not.
func cmdSim(ts *testscript.TestScript, neg bool, args []string) {
	cadences := map[string]time.Duration{}
	for len(args) >= 2 && args[0] == "-cadence" {
		vpg, d, ok := strings.Cut(args[1], "=")
		cadence, err := time.ParseDuration(d)
		if !ok || err != nil {
			ts.Fatalf("sim: -cadence %q: want VPG=DURATION", args[1])
		}
		cadences[vpg], args = cadence, args[2:]
	}
	if neg || len(args) > 1 {
		ts.Fatalf("usage: sim [-cadence VPG=DURATION]... [scenario.toml]")
	}
	sc := zvmsim.DefaultScenario()
	if len(args) == 1 {
		var err error
		sc, err = zvmsim.LoadScenario(ts.MkAbs(args[0]))
		ts.Check(err)
	}
	for i := range sc.VPGs {
		if d, ok := cadences[sc.VPGs[i].Name]; ok {
			// The first tick too comes one cadence after the start.
			sc.VPGs[i].Cadence, sc.VPGs[i].Phase = zvmsim.Duration(d), zvmsim.Duration(d)
			delete(cadences, sc.VPGs[i].Name)
		}
	}
	for vpg := range cadences {
		ts.Fatalf("sim: -cadence: no VPG %q in the scenario", vpg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	s := zvmsim.NewServer(sc)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(ctx, ln, nil)
	}()
	sims.Store(ts, &simHandle{s: s})
	ts.Defer(func() {
		sims.Delete(ts)
		cancel()
		s.Close()
		<-done
	})
	ts.Setenv("REWIND_ZVM_URL", "http://"+ln.Addr().String())
	for _, c := range sc.Credentials.Clients {
		if c.Secret != "" {
			ts.Setenv("REWIND_ZVM_CLIENT_ID", c.ID)
			ts.Setenv("REWIND_ZVM_CLIENT_SECRET", c.Secret)
			break
		}
	}
	ts.Logf("simulator at http://%s", ln.Addr())
}
