package cli

import (
	"context"
	"fmt"
	"github.com/rewind-dev/rewind/internal/logline"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/spf13/cobra"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/ui"
)

// uiTool names the page in the audit records of the rewinds it runs.
const uiTool = "rewind ui"

func newUICmd() *cobra.Command {
	var (
		addr, configPath string
		open             bool
	)
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve a local page: the live timeline, rewind points per VM, and the way back",
		Long: `ui serves a page on this machine that shows every decision of the audit log,
newest first and live, every VM rewind has a checkpoint for with its VPG's
health and what going back to each point undoes, and buttons for the way
back: a failover test from a point, its stop, and a confirmed journal
restore. They run the same code as "rewind undo", and are logged the same way.

The first line on stdout is the URL to open, with a one-time secret: the
page answers only to a browser that came through it. It listens on loopback
unless --addr says otherwise. Zerto is reached as the hook reaches it: the
config's [zerto] table and the REWIND_ZVM_* variables; without it, the
timeline still works. It runs until interrupted.`,
		Example: `  rewind ui
  rewind ui --open
  rewind ui --addr 127.0.0.1:9670`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			stderr := cmd.ErrOrStderr()
			o, err := uiOptions(configPath, os.Getenv, stderr)
			if err != nil {
				return err
			}
			return serveUI(ctx, cmd.OutOrStdout(), stderr, addr, open, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:0", "address to listen on (port 0 picks a free port); loopback unless you mean otherwise")
	f.BoolVar(&open, "open", false, "open the page in the default browser")
	f.StringVar(&configPath, "config", "", "config `file` (default: discovered, as the hook does)")
	return cmd
}

// uiOptions finds the audit log and reaches Zerto as `rewind undo` does.
// Without Zerto the page still serves the timeline, and says why the rest
// is missing.
func uiOptions(configPath string, getenv func(string) string, stderr io.Writer) (ui.Options, error) {
	dir, err := dirs.State(getenv)
	if err != nil {
		return ui.Options{}, err
	}
	o := ui.Options{Log: audit.Open(dir)}
	u := &undo{config: configPath, getenv: getenv, stderr: stderr}
	svc, err := u.service()
	if err != nil {
		o.ZertoProblem = err.Error()
		fmt.Fprintf(stderr, "rewind: %v: the page shows the timeline only\n", err)
		return o, nil
	}
	svc.Tool = uiTool
	svc.Log = o.Log
	o.Recovery = svc
	return o, nil
}

// serveUI serves the page on addr until ctx ends, printing its URL first on
// stdout. `rewind ui` and `rewind demo --ui` share it.
func serveUI(ctx context.Context, stdout, stderr io.Writer, addr string, open bool, o ui.Options) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return listenError(err, "--addr", addr)
	}
	defer ln.Close()
	if o.Logger == nil {
		o.Logger = logline.New(stderr, "rewind")
	}
	if o.Recovery != nil && o.Recovery.Logger == nil {
		o.Recovery.Logger = o.Logger
	}
	srv, err := ui.New(ln.Addr(), o)
	if err != nil {
		return err
	}
	defer srv.Close()
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		where := ln.Addr().String()
		if tcp.IP.IsUnspecified() {
			where = fmt.Sprintf("port %d of every address of this machine", tcp.Port)
		}
		fmt.Fprintf(stderr, "rewind: warning: listening on %s, which other machines may reach: whoever has the URL can start failover tests (a restore also needs a Zerto password). Prefer 127.0.0.1 and an SSH tunnel.\n", where)
	}
	fmt.Fprintln(stdout, srv.URL())
	zerto := "Zerto not configured: timeline only"
	if o.Recovery != nil {
		zerto = "Zerto through the config and REWIND_ZVM_*"
	}
	fmt.Fprintf(stderr, "rewind ui: the audit log %s; %s. Stop with Ctrl-C.\n", o.Log.Path(), zerto)
	if open {
		if err := openBrowser(srv.URL()); err != nil {
			fmt.Fprintf(stderr, "rewind: cannot open a browser (%v): open the URL above\n", err)
		}
	}
	return srv.Serve(ctx, ln)
}

// openBrowser opens url in the desktop's default browser, without waiting
// for it.
func openBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
