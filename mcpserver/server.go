package mcpserver

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/internal/dirs"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// Options configure a server.
type Options struct {
	// ConfigPath is the --config flag; empty means discovery.
	ConfigPath string
	// Dir is the directory calls are judged in, where the project config
	// is discovered from; the working directory when empty. Hosts start
	// MCP servers in the project.
	Dir string
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// Version is rewind's version, as the server announces it.
	Version string
	// Poll is how often a Zerto task is polled while a tool waits for it;
	// zero means a second.
	Poll time.Duration
}

// Server is rewind's MCP server.
type Server struct {
	o   Options
	srv *mcp.Server
}

// instructions tell the model what the server is for.
const instructions = `rewind guards this agent's tool calls: before a call changes a VM that Zerto protects, rewind's hook has Zerto write a tagged checkpoint into the VM's journal, and a call that gets no checkpoint does not run.
Use zerto_check_tool before a call that may change a VM: it returns the hook's own verdict and, for a protected call, takes the checkpoint the call will be protected by.
To go back after a change: zerto_rewind_points lists the protected calls with their checkpoints; zerto_rewind with mode "test" starts a failover test from one (the protected VM runs on; zerto_stop_test ends the test), and mode "restore" says what putting the VMs back to it would lose, and the command the person runs in their own terminal, with their own Zerto credentials: a restore never runs through this server.`

// New returns a server with rewind's tools and the catalog resource.
func New(o Options) *Server {
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.Version == "" {
		o.Version = "(devel)"
	}
	s := &Server{o: o}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "rewind", Title: "rewind: Zerto checkpoints for agent tool calls", Version: o.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.addTools()
	s.addResources()
	return s
}

// MCP returns the SDK server, to connect it to a transport.
func (s *Server) MCP() *mcp.Server { return s.srv }

// Run serves one client over the transport until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.srv.Run(ctx, t)
}

// dir is the directory calls are judged in.
func (s *Server) dir() string {
	if s.o.Dir != "" {
		return s.o.Dir
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return ""
}

// config finds and loads the config the way the hook does.
func (s *Server) config() (*policy.Config, error) {
	cfg, err := policy.Find(s.o.ConfigPath, s.dir(), s.o.Getenv)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// zerto returns a client for the config's ZVM, with the REWIND_ZVM_*
// variables applied as the hook applies them; its error carries the fix
// (zvm.Hint), as the tool's answer is all the model and the person see.
func (s *Server) zerto(cfg *policy.Config) (*zvm.Client, error) {
	z, err := zvm.FromConfig(cfg.Zerto, zvm.Setup{Getenv: s.o.Getenv, Logger: s.o.Logger})
	if err != nil {
		if h := zvm.Hint(err); h != "" {
			return nil, fmt.Errorf("%w; fix: %s", err, h)
		}
		return nil, err
	}
	return z, nil
}

// setup is what most tools start with: the config, a ZVM client and a
// context bounded by the config's hook.budget, so that no tool call hangs
// on an unresponsive ZVM.
func (s *Server) setup(ctx context.Context) (context.Context, context.CancelFunc, *policy.Config, *zvm.Client, error) {
	cfg, err := s.config()
	if err != nil {
		return ctx, func() {}, nil, nil, err
	}
	z, err := s.zerto(cfg)
	if err != nil {
		return ctx, func() {}, nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.Hook.Budget)
	return ctx, cancel, cfg, z, nil
}

// stateDir is rewind's state folder, where the audit log lives.
func (s *Server) stateDir() (string, error) {
	return dirs.State(s.o.Getenv)
}

// capturer takes checkpoints as the hook does, with the same state folder,
// so that the hook and the server share tags in flight and reuse.
func (s *Server) capturer(cfg *policy.Config, z *zvm.Client) *capture.Capturer {
	dir, err := s.stateDir()
	if err != nil {
		s.o.Logger.Warn("checkpoints are not reused", "err", err)
		dir = ""
	}
	return capture.New(z, capture.Options{
		StateDir:      dir,
		TagPrefix:     cfg.Hook.TagPrefix,
		ReuseWithin:   cfg.Capture.ReuseWithin,
		Targets:       cfg.Targets,
		PendingMayRun: cfg.Hook.Pending == "ask",
	})
}

// appendAudit logs a record the way the hook does; a log that cannot be
// written is said on stderr and in the answer, not fatal.
func (s *Server) appendAudit(ctx context.Context, rec *audit.Record) error {
	dir, err := s.stateDir()
	if err != nil {
		return err
	}
	return audit.Open(dir).AppendContext(ctx, rec)
}

// zertoError wraps a Zerto failure for a tool error: what was being done,
// then the client's error, which carries Zerto's own message.
func zertoError(doing string, err error) error {
	return fmt.Errorf("%s: %w", doing, err)
}

// textResult is a tool result whose content is text for the model, beside
// the structured output the SDK adds.
func textResult(lines ...string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(lines, "\n")}}}
}

// rfc3339 formats a time for output; the zero time is empty.
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}
