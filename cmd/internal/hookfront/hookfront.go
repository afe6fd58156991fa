package hookfront

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/rewind-dev/rewind/cmd/internal/statusline"
	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/logline"
	"github.com/rewind-dev/rewind/internal/version"
)

// Name is the front's command name, installed beside rewind.
const Name = "rewind-hook"

// Main runs rewind-hook with args (without the program name) and returns
// the process exit code. It takes the flags of rewind hook, and answers
// version as rewind version does, so that rewind doctor can check it, and
// statusline as rewind statusline does, as light as the hook:
//
//	rewind-hook [--host HOST] [--config FILE]
//	rewind-hook version
//	rewind-hook statusline
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	hook.LimitMemory(os.Getenv)
	return run(args, stdin, stdout, stderr, os.Getenv, fullHook)
}

// run is Main with the environment read through getenv and the rewind
// binary to hand protect calls to found by full.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string, full func() (string, error)) int {
	if len(args) == 1 && args[0] == "version" {
		fmt.Fprintf(stdout, "rewind %s\n", version.String())
		return 0
	}
	if len(args) == 1 && args[0] == "statusline" {
		return statusline.Run(stdin, stdout, statusline.Options{Getenv: getenv, Color: getenv("NO_COLOR") == ""})
	}
	fs := flag.NewFlagSet(Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	configPath := fs.String("config", "", "config file (default: discovered)")
	host := fs.String("host", string(hostio.Claude), "the agent host whose protocol to speak")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "rewind: %v\n", err)
		fmt.Fprintf(stderr, "hint: %s takes the flags of rewind hook: [--host HOST] [--config FILE]\n", Name)
		return 1
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "rewind: %s takes no arguments, got %q\n", Name, fs.Arg(0))
		return 1
	}
	h, err := hostio.ParseHost(*host)
	if err != nil {
		fmt.Fprintf(stderr, "rewind: %v\n", err)
		return 1
	}
	return hook.Run(context.Background(), stdin, stdout, hook.Options{
		Host:       h,
		ConfigPath: *configPath,
		Getenv:     getenv,
		Stderr:     stderr,
		Logger:     logline.New(stderr, "rewind"),
		Protect:    &hook.Relay{Bin: full, Host: h, ConfigPath: *configPath, Front: Name, Stderr: stderr},
	})
}

// fullHook is the path of the rewind binary beside this one.
func fullHook() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		exe = p
	}
	name := "rewind"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	return filepath.Join(filepath.Dir(exe), name), nil
}
