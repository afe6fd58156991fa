package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestFrontAgreesWithHook runs every JSON file of the scripts, as an event
// of the script's host, through rewind hook and through rewind-hook, the
// light front, and wants the same answer and the same diagnostics: the
// front decides by the same code, and hands a protect verdict to rewind
// hook. No ZVM is configured, so every protect verdict goes the whole way
// through the front's hand-over and back.
func TestFrontAgreesWithHook(t *testing.T) {
	scripts, err := filepath.Glob("testdata/script/*.txtar")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	hostOf := regexp.MustCompile(`^host_(\w+)\.txtar$`)
	events := 0
	for _, script := range scripts {
		ar, err := txtar.ParseFile(script)
		if err != nil {
			t.Fatal(err)
		}
		host := "claude"
		if m := hostOf.FindStringSubmatch(filepath.Base(script)); m != nil {
			host = m[1]
		}
		for _, f := range ar.Files {
			if filepath.Ext(f.Name) != ".json" {
				continue
			}
			events++
			t.Run(strings.TrimSuffix(filepath.Base(script), ".txtar")+"/"+f.Name, func(t *testing.T) {
				t.Parallel()
				full, fullErr, fullCode := runHook(t, f.Data, "rewind", "hook", "--host", host)
				front, frontErr, frontCode := runHook(t, f.Data, "rewind-hook", "--host", host)
				if fullCode != frontCode {
					t.Errorf("exit code differs: rewind hook %d, rewind-hook %d", fullCode, frontCode)
				}
				if full != front {
					t.Errorf("stdout differs:\nrewind hook: %s\nrewind-hook: %s", full, front)
				}
				if fullErr != frontErr {
					t.Errorf("stderr differs:\nrewind hook: %s\nrewind-hook: %s", fullErr, frontErr)
				}
			})
		}
	}
	if events < 20 {
		t.Errorf("only %d events in the scripts", events)
	}
}

// runHook runs a hook command on the event, as a host does, in a home and
// state of its own, and returns its stdout, stderr and exit code: 0, or the
// refusal's 2 for the hosts that read exit codes.
func runHook(t *testing.T, event []byte, argv ...string) (stdout, stderr string, code int) {
	t.Helper()
	dir := t.TempDir()
	name := argv[0]
	if plain := plainBinaries(t); plain != "" {
		name = filepath.Join(plain, name)
	}
	cmd := exec.Command(name, argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(event)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_STATE_HOME="+dir,
		"XDG_CACHE_HOME="+dir, "REWIND_STATE_DIR="+filepath.Join(dir, "state"), "REWIND_CONFIG=", "REWIND_ZVM_URL=",
		"GORACE=atexit_sleep_ms=0")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 2 {
		return out.String(), errb.String(), 2
	}
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, errb.String())
	}
	return out.String(), errb.String(), 0
}
