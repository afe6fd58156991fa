package demo

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hook"
	"github.com/rewind-dev/rewind/hook/zerto"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/internal/logline"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvmsim"
)

// Options configure a demo run.
type Options struct {
	// Out receives the table, or the JSON lines.
	Out io.Writer
	// JSON prints one JSON object per call instead of the table.
	JSON bool
	// Color colours the table's decisions.
	Color bool
	// Width is the table's width in columns; 100 when zero.
	Width int
	// TempDir is where the run's temporary folder is made; os.TempDir()
	// when empty.
	TempDir string
	// After, when set, runs once the session is played, while the
	// simulator still runs and before the temporary folder is removed:
	// `rewind demo --ui` serves the page on the demo's log there, until
	// ctx ends. It gets the recovery service `rewind undo` would use on
	// the demo's ZVM and log.
	After func(ctx context.Context, svc *recovery.Service) error
}

// Result is one call of the session and what the hook decided.
type Result struct {
	Step int    `json:"step"`
	Call string `json:"call"`
	// Decision is the hook's answer, as the decision table names it.
	Decision Decision `json:"decision"`
	// Reason is what the host was told, without the "rewind: " prefix.
	Reason string `json:"reason"`
	// Checkpoint is the tag of the rewind point: confirmed for protect,
	// on its way for pending, empty otherwise.
	Checkpoint string `json:"checkpoint"`
	// CheckpointIdentifier, VPG and Time are the confirmed checkpoint's.
	CheckpointIdentifier string    `json:"checkpoint_identifier,omitempty"`
	VPG                  string    `json:"vpg,omitempty"`
	Time                 time.Time `json:"time,omitzero"`
	// AuditID is the decision's ID in the log, for `rewind undo`.
	AuditID string `json:"audit_id,omitempty"`
	// As is, for a rewind step, the Zerto user it ran as: the
	// simulator's operator, since Zerto refuses the hook's client.
	As string `json:"as,omitempty"`

	about   string
	elapsed time.Duration
}

// Run plays the session and prints each call's decision as it is taken. It
// fails when a call is not decided as the script expects, or when rewind
// itself reports an error; the temporary folder is removed either way.
func Run(ctx context.Context, o Options) (err error) {
	if o.Width <= 0 {
		o.Width = 100
	}
	start := time.Now()
	dir, err := os.MkdirTemp(o.TempDir, "rewind-demo-")
	if err != nil {
		return fmt.Errorf("making the demo's temporary folder: %w", err)
	}
	defer func() {
		if rerr := os.RemoveAll(dir); rerr != nil && err == nil {
			err = fmt.Errorf("removing the demo's temporary folder: %w", rerr)
		}
	}()
	l, err := newLab(ctx, dir)
	if err != nil {
		return err
	}
	defer l.close()

	p := newPrinter(o)
	p.header(l.url)
	counts := map[Decision]int{}
	var (
		wrong     []string
		protected string // the audit ID of the protected call
	)
	for i, s := range script {
		if ctx.Err() != nil {
			return errors.New("interrupted")
		}
		res, err := l.play(ctx, i+1, s)
		if err != nil {
			return fmt.Errorf("step %d (%s): %w", i+1, s.call(), err)
		}
		if err := p.result(res); err != nil {
			return err
		}
		counts[res.Decision]++
		if res.Decision != s.want {
			wrong = append(wrong, fmt.Sprintf("step %d was decided %s, not %s", i+1, res.Decision, s.want))
		}
		if res.Decision == Protect && protected == "" {
			protected = res.AuditID
		}
	}
	rewinds := 0
	if protected != "" {
		results, err := l.rewind(ctx, len(script)+1, protected)
		if err != nil {
			return fmt.Errorf("step %d (rewind undo %s --test): %w", len(script)+1, protected, err)
		}
		for _, res := range results {
			if err := p.result(res); err != nil {
				return err
			}
			counts[res.Decision]++
		}
		rewinds = len(results)
	}
	p.footer(len(script), rewinds, time.Since(start), counts)
	if o.After != nil {
		svc, err := l.recoveryService()
		if err != nil {
			return err
		}
		if err := o.After(ctx, svc); err != nil {
			return err
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("the session did not go as scripted: %s", strings.Join(wrong, "; "))
	}
	return nil
}

// lab is the demo's world: the simulator, and the folders and environment
// the hook runs with.
type lab struct {
	url      string
	dir      string
	config   string // the project's config file: the built-in rules alone
	stateDir string
	cacheDir string
	env      map[string]string
	session  string
	pol      *policy.Policy

	stop   context.CancelFunc
	srv    *zvmsim.Server
	served chan error
}

// newLab starts the simulator on a free loopback port and lays out the
// temporary folder under dir.
func newLab(ctx context.Context, dir string) (*lab, error) {
	l := &lab{
		dir:      dir,
		stateDir: filepath.Join(dir, "state"),
		cacheDir: filepath.Join(dir, "cache"),
		session:  "demo-" + randomHex(6),
	}
	project := filepath.Join(dir, "project")
	if err := os.Mkdir(project, 0o700); err != nil {
		return nil, err
	}
	// A project config of its own keeps discovery from finding any other:
	// the demo runs on the built-in rules, whatever the user's setup.
	l.config = filepath.Join(project, policy.ProjectFile)
	if err := os.WriteFile(l.config, []byte("# rewind demo: the built-in rules and defaults, nothing else\n"), 0o600); err != nil {
		return nil, err
	}
	cfg, err := policy.Load(l.config)
	if err != nil {
		return nil, err
	}
	if l.pol, err = policy.New(cfg); err != nil {
		return nil, err
	}

	secret := randomHex(16)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("starting the ZVM simulator: %w", err)
	}
	l.srv = zvmsim.NewServer(scenario(secret))
	sctx, stop := context.WithCancel(ctx)
	l.stop, l.served = stop, make(chan error, 1)
	go func() { l.served <- l.srv.Serve(sctx, ln, nil) }()
	l.url = "http://" + ln.Addr().String()

	// The hook sees this environment only: the user's REWIND_* settings,
	// config and state folders are out of its reach.
	l.env = map[string]string{
		"REWIND_ZVM_URL":           l.url,
		"REWIND_ZVM_CLIENT_ID":     clientID,
		"REWIND_ZVM_CLIENT_SECRET": secret,
		"REWIND_STATE_DIR":         l.stateDir,
		"HOME":                     filepath.Join(dir, "home"),
		"XDG_CONFIG_HOME":          filepath.Join(dir, "config"),
		"XDG_STATE_HOME":           filepath.Join(dir, "state-home"),
		"XDG_CACHE_HOME":           l.cacheDir,
	}
	return l, nil
}

func (l *lab) getenv(key string) string { return l.env[key] }

// close stops the simulator and waits until it has.
func (l *lab) close() {
	l.stop()
	l.srv.Close()
	<-l.served
}

// hookOutput is Claude Code's hook output, as the host reads it.
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName            string `json:"hookEventName"`
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
	SystemMessage string `json:"systemMessage"`
}

// play hands one call to the hook, exactly as `rewind hook` gets it from
// Claude Code, and reads the decision back from its output and the log.
func (l *lab) play(ctx context.Context, n int, s step) (*Result, error) {
	toolUseID := fmt.Sprintf("toolu_demo%s%02d", randomHex(8), n)
	input, err := json.Marshal(s.input)
	if err != nil {
		return nil, err
	}
	event, err := json.Marshal(map[string]any{
		"session_id":      l.session,
		"transcript_path": filepath.Join(l.dir, "home", "transcript.jsonl"),
		"cwd":             filepath.Dir(l.config),
		"permission_mode": "default",
		"hook_event_name": "PreToolUse",
		"tool_name":       s.tool,
		"tool_input":      json.RawMessage(input),
		"tool_use_id":     toolUseID,
	})
	if err != nil {
		return nil, err
	}
	var stdout, stderr bytes.Buffer
	began := time.Now()
	code := hook.Run(ctx, bytes.NewReader(event), &stdout, hook.Options{
		Host:       hostio.Claude,
		ConfigPath: l.config,
		Getenv:     l.getenv,
		Stderr:     &stderr,
		Logger:     logline.New(&stderr, "rewind"),
		Protect:    zerto.Step{CacheDir: l.cacheDir},
	})
	res := &Result{Step: n, Call: s.call(), about: s.about, elapsed: time.Since(began)}
	if code != 0 {
		return nil, fmt.Errorf("the hook exited %d", code)
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return nil, errors.New(msg)
	}
	var out hookOutput
	if stdout.Len() > 0 {
		if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
			return nil, fmt.Errorf("the hook's output is not JSON: %w", err)
		}
	}
	if out.SystemMessage != "" {
		return nil, fmt.Errorf("rewind warned: %s", out.SystemMessage)
	}
	rec, err := l.record(toolUseID)
	if err != nil {
		return nil, err
	}
	if rec == nil {
		if stdout.Len() > 0 {
			return nil, fmt.Errorf("the hook answered %s but logged nothing", strings.TrimSpace(stdout.String()))
		}
		res.Decision = None
		res.Reason = l.quietReason(s)
		return res, nil
	}
	res.AuditID = rec.ID
	spec := out.HookSpecificOutput
	// The answer on stdout must be the one the log records.
	answered := map[string]Decision{
		audit.DecisionProtected: "",
		audit.DecisionPending:   Deny,
		audit.DecisionAsk:       Ask,
		audit.DecisionDeny:      Deny,
	}
	want, ok := answered[rec.Decision]
	if !ok {
		return nil, fmt.Errorf("logged as %s: %s", rec.Decision, rec.Error)
	}
	if spec.PermissionDecision != string(want) {
		return nil, fmt.Errorf("logged as %s but answered %q", rec.Decision, spec.PermissionDecision)
	}
	switch rec.Decision {
	case audit.DecisionProtected:
		res.Decision, res.Reason = Protect, spec.AdditionalContext
	case audit.DecisionPending:
		res.Decision, res.Reason = Pending, spec.PermissionDecisionReason
	default:
		res.Decision, res.Reason = Decision(rec.Decision), spec.PermissionDecisionReason
	}
	res.Reason = strings.TrimPrefix(res.Reason, "rewind: ")
	if len(rec.Checkpoints) > 0 {
		cp := rec.Checkpoints[0]
		res.Checkpoint, res.VPG = cp.Tag, cp.VPG
		if cp.Identifier != "" {
			res.CheckpointIdentifier, res.Time = cp.Identifier, cp.Time.UTC()
		}
	}
	return res, nil
}

// record returns the audit record of the call, or nil when the call was
// not logged (a plain none).
func (l *lab) record(toolUseID string) (*audit.Record, error) {
	recs, err := audit.Open(l.stateDir).Read(audit.Filter{Session: l.session})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading the audit log: %w", err)
	}
	for i := len(recs) - 1; i >= 0; i-- {
		if recs[i].ToolUseID == toolUseID {
			return &recs[i], nil
		}
	}
	return nil, nil
}

// quietReason says why a call the hook let through silently changes
// nothing: the host is told nothing, so the demo asks the same policy.
func (l *lab) quietReason(s step) string {
	input, _ := json.Marshal(s.input)
	v := l.pol.Classify(policy.Call{Tool: s.tool, Input: input, Cwd: filepath.Dir(l.config)})
	var runs, data []string
	for _, m := range v.Matches {
		if m.Kind == policy.KindInvocation && !strings.HasPrefix(m.Source, "ssh ") {
			what := m.Source
			if m.Host != "" {
				what += " on " + m.Host
			}
			runs = append(runs, what)
		}
		data = append(data, m.Payload...)
	}
	var b strings.Builder
	b.WriteString("passes silently: no rule applies")
	if len(data) > 0 {
		fmt.Fprintf(&b, "; the quoted text %s is data, not run", quote(data[0], 48))
	} else if len(runs) > 0 {
		fmt.Fprintf(&b, "; %s changes nothing", strings.Join(runs, ", "))
	}
	return b.String()
}

// quote quotes s, cut to max runes.
func quote(s string, max int) string {
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
