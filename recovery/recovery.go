package recovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// Point is one rewind point: a rewind-tagged checkpoint of one VPG and the
// VMs a call touched in it.
type Point struct {
	AuditID       string // the audit record id; "" for a bare CheckpointIdentifier
	VPG           string // VPG name
	VPGIdentifier string
	VMs           []VM   // the VMs to take back
	Checkpoint    string // CheckpointIdentifier
	Tag           string
	Time          time.Time // the checkpoint's TimeStamp (ZVM time)
}

// VM is a VM of a rewind point, by its Zerto name and VmIdentifier.
type VM struct{ Name, Identifier string }

// VMNames returns the names of p's VMs.
func (p Point) VMNames() []string {
	names := make([]string, len(p.VMs))
	for i, vm := range p.VMs {
		names[i] = vm.Name
	}
	return names
}

// The modes of a rewind, as Result.Mode names them.
const (
	// ModeTest starts a failover test from the checkpoint.
	ModeTest = "test"
	// ModeStopTest stops the failover test.
	ModeStopTest = "stop-test"
	// ModeRestore restores the VMs to the checkpoint and commits.
	ModeRestore = "restore"
	// ModeRollback rolls back a restore that waits for its commit.
	ModeRollback = "rollback"
	// ModeCommit commits a restore that waits for its commit.
	ModeCommit = "commit"
)

// Modes are the rewind modes, in the order a person meets them.
var Modes = []string{ModeTest, ModeStopTest, ModeRestore, ModeRollback, ModeCommit}

// NeedsOperator reports whether mode changes a VM's disks, so runs only
// with an Operator's credentials.
func NeedsOperator(mode string) bool {
	return mode == ModeRestore || mode == ModeRollback || mode == ModeCommit
}

// MinPrefix is the shortest audit id prefix Find takes: a shorter one
// names a call by luck, and a rewind is no place for luck.
const MinPrefix = 6

// DefaultPoll is how often a Service polls a Zerto task when Poll is zero.
const DefaultPoll = time.Second

// DefaultTool names the front end in the audit records of a Service whose
// Tool is empty.
const DefaultTool = "rewind undo"

// TestVMSuffix ends the name Zerto gives a VM's test copy during a failover
// test: "web-01 - testing recovery".
const TestVMSuffix = " - testing recovery"

// Service runs rewinds against one ZVM and records each in the audit log.
type Service struct {
	// Z is the hook's client: it reads and takes checkpoints, and runs
	// failover tests where Zerto lets it. It never restores: see Operator.
	Z *zvm.Client
	// ZertoOptions are the options Z was made with: an Operator's client
	// takes the ZVM's address from them, and is refused their credentials.
	ZertoOptions zvm.Options
	Log          *audit.Log
	// Capture takes the checkpoint of the VMs as they are just before a
	// restore, as the hook takes its checkpoints, so that the restore can
	// be undone; a restore is refused without it.
	Capture *capture.Capturer
	Poll    time.Duration // task poll interval; 0 means DefaultPoll
	// Tool names the front end in the audit records it writes, such as
	// "rewind undo" (the default) or the MCP tool's name.
	Tool string
	// Logger hears of a rewind that could not be recorded in the audit
	// log: the rewind itself still happened. Nil discards it.
	Logger *slog.Logger

	// hookAnswers keep, by mode, whether Zerto lets the hook's own client
	// run a test or a stop: nil for yes, else Zerto's refusal.
	hookMu      sync.Mutex
	hookAnswers map[string]*zvm.Error
}

// NewOperator returns the Operator of a person's own Zerto credentials on
// s's ZVM (see NewOperator).
func (s *Service) NewOperator(user, password string) (*Operator, error) {
	return NewOperator(s.ZertoOptions, user, password)
}

// Result is the outcome of a rewind in one VPG.
type Result struct {
	Mode    string // one of the modes
	Point   Point
	Task    string   // Zerto task identifier (the last one, e.g. the commit's)
	State   string   // Zerto's task state name, e.g. "Completed"
	TestVMs []string // for a test: the names of the test copies on the recovery site
	// RecoverySite is, for a test, the site the test copies run on.
	RecoverySite string
	// Before is, for a restore, the checkpoint of the VMs as they were just
	// before it: going back to it (rewind undo Before.AuditID --restore)
	// undoes the restore.
	Before Point
	// Committed names, for a restore or a commit, the VMs whose restore
	// Zerto shows committed; for a rollback, the VMs rolled back.
	Committed []string
	// As is the Zerto user of the person whose credentials ran it; empty
	// when the hook's own client did.
	As string
}

// Loss is what a restore to a point loses.
type Loss struct {
	Point Point
	// Since is the checkpoint's time (Zerto's): every change to the
	// point's VMs after it is lost.
	Since time.Time
	// Calls are the logged calls that changed those VMs after it, oldest
	// first, the call of Point.AuditID among them.
	Calls []audit.Record
	// Text says it all for a person, in a few lines.
	Text string
}

func (s *Service) poll() time.Duration {
	if s.Poll > 0 {
		return s.Poll
	}
	return DefaultPoll
}

// Find resolves an audit id (or a prefix of one, at least MinPrefix
// characters, matching one call) or a bare CheckpointIdentifier to its
// rewind points, one per VPG. The audit log is asked first, and Zerto only
// when it does not know the ID: an audit id costs no request to Zerto
// (unless its tag was pending when logged). A prefix of digits only that
// matches audit ids could be a CheckpointIdentifier too, and is refused as
// ambiguous (*PrefixError); FindCheckpoint takes it as one.
func (s *Service) Find(ctx context.Context, id string) ([]Point, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("no audit id or checkpoint identifier given")
	}
	if s.Log != nil {
		rec, err := s.Log.Find(id)
		var amb *audit.AmbiguousError
		switch {
		case err == nil && len(id) >= audit.IDLen:
			return s.pointsOfRecord(ctx, rec)
		case err == nil && allDigits(id):
			return nil, &PrefixError{ID: id, IDs: []string{rec.ID}, Digits: true}
		case err == nil && len(id) < MinPrefix:
			return nil, &PrefixError{ID: id, IDs: []string{rec.ID}}
		case err == nil:
			return s.pointsOfRecord(ctx, rec)
		case errors.As(err, &amb) && allDigits(id):
			return nil, &PrefixError{ID: id, IDs: amb.IDs, Digits: true}
		case errors.As(err, &amb) && len(id) < MinPrefix:
			return nil, &PrefixError{ID: id, IDs: amb.IDs}
		case errors.As(err, &amb):
			return nil, err
		case !errors.Is(err, audit.ErrNotFound):
			return nil, err
		}
	}
	return s.FindCheckpoint(ctx, id)
}

// FindCheckpoint resolves id as a CheckpointIdentifier only, never as an
// audit id: the way to name a checkpoint whose identifier also starts an
// audit id.
func (s *Service) FindCheckpoint(ctx context.Context, id string) ([]Point, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("no checkpoint identifier given")
	}
	p, ok, err := s.findCheckpoint(ctx, id)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &NotFoundError{ID: id}
	}
	return []Point{p}, nil
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// pointsOfRecord groups a record's checkpoints by VPG.
func (s *Service) pointsOfRecord(ctx context.Context, rec *audit.Record) ([]Point, error) {
	auditID := rec.ID
	if strings.HasPrefix(rec.Decision, "undo-") {
		// The record of a rewind stands for the call it went back for.
		auditID = rec.Rewinds
	}
	var (
		points  []Point
		pending []string
	)
	index := map[string]int{}
	for _, cp := range rec.Checkpoints {
		if cp.VPGIdentifier == "" {
			continue
		}
		i, ok := index[cp.VPGIdentifier]
		if !ok {
			i = len(points)
			index[cp.VPGIdentifier] = i
			// Names from the log are shown to people: the log is a file
			// anyone may edit, so they are kept to one printable line.
			points = append(points, Point{AuditID: auditID, VPG: oneLine(cp.VPG), VPGIdentifier: cp.VPGIdentifier, Tag: cp.Tag})
		}
		p := &points[i]
		if p.Checkpoint == "" && cp.Identifier != "" {
			p.Checkpoint, p.Tag, p.Time = cp.Identifier, cp.Tag, cp.Time
		}
		if cp.VMIdentifier != "" && !hasVM(p.VMs, cp.VMIdentifier) {
			p.VMs = append(p.VMs, VM{Name: oneLine(cp.VM), Identifier: cp.VMIdentifier})
		}
	}
	var found []Point
	for _, p := range points {
		if p.Checkpoint == "" && p.Tag != "" {
			// The tag was on its way when the hook answered; Zerto may
			// have written it since.
			cp, ok, err := s.taggedCheckpoint(ctx, p.VPGIdentifier, p.Tag)
			if err != nil {
				return nil, fmt.Errorf("looking up tag %q in VPG %s: %w", p.Tag, p.VPG, err)
			}
			if !ok {
				pending = append(pending, p.Tag)
				continue
			}
			p.Checkpoint, p.Time = cp.Identifier, cp.Time
		}
		if p.Checkpoint != "" && len(p.VMs) > 0 {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return nil, &NotProtectedError{ID: rec.ID, Decision: rec.Decision, Tool: rec.Tool, Pending: pending}
	}
	return found, nil
}

func hasVM(vms []VM, id string) bool {
	for _, vm := range vms {
		if strings.EqualFold(vm.Identifier, id) {
			return true
		}
	}
	return false
}

// taggedCheckpoint looks for a tag in the VPG's journal, newest first, in
// windows (see zvm.Client.FindCheckpoint): a month's journal does not fit
// in one answer.
func (s *Service) taggedCheckpoint(ctx context.Context, vpgID, tag string) (zvm.Checkpoint, bool, error) {
	f, ok, err := s.Z.FindCheckpoint(ctx, zvm.Search{VPGs: []string{vpgID}, Tag: tag})
	return f.Checkpoint, ok, err
}

// findCheckpoint searches the VPGs' journals for a CheckpointIdentifier.
// The point's VMs are those the audit log knows the checkpoint protected,
// else all the VPG's VMs.
func (s *Service) findCheckpoint(ctx context.Context, id string) (Point, bool, error) {
	vpgs, err := s.Z.VPGs(ctx)
	if err != nil {
		return Point{}, false, fmt.Errorf("looking for checkpoint %s: %w", id, err)
	}
	ids := make([]string, len(vpgs))
	for i, v := range vpgs {
		ids[i] = v.Identifier
	}
	// The journals are searched in windows, newest first, bounded in
	// requests and bytes: a month's journal does not fit in one answer.
	f, found, err := s.Z.FindCheckpoint(ctx, zvm.Search{VPGs: ids, Identifier: id})
	if err != nil || !found {
		return Point{}, false, err
	}
	v := vpgs[slices.IndexFunc(vpgs, func(v zvm.VPG) bool { return v.Identifier == f.VPGIdentifier })]
	cp := f.Checkpoint
	p := Point{VPG: v.Name, VPGIdentifier: v.Identifier, Checkpoint: cp.Identifier, Tag: cp.Tag, Time: cp.Time}
	if p.VMs, err = s.loggedVMs(v.Identifier, id); err != nil {
		return Point{}, false, err
	}
	if len(p.VMs) == 0 {
		vms, err := s.Z.VMs(ctx, "")
		if err != nil {
			return Point{}, false, fmt.Errorf("listing the VMs of VPG %s: %w", v.Name, err)
		}
		for _, vm := range vms {
			if strings.EqualFold(vm.VPGIdentifier, v.Identifier) && !hasVM(p.VMs, vm.Identifier) {
				p.VMs = append(p.VMs, VM{Name: vm.Name, Identifier: vm.Identifier})
			}
		}
	}
	return p, true, nil
}

// loggedVMs returns the VMs the audit log says checkpoint id of a VPG
// protected.
func (s *Service) loggedVMs(vpgID, id string) ([]VM, error) {
	if s.Log == nil {
		return nil, nil
	}
	recs, err := s.Log.Read(audit.Filter{})
	if err != nil {
		return nil, err
	}
	var vms []VM
	for _, r := range recs {
		for _, cp := range r.Checkpoints {
			if cp.Identifier == id && strings.EqualFold(cp.VPGIdentifier, vpgID) && cp.VMIdentifier != "" && !hasVM(vms, cp.VMIdentifier) {
				vms = append(vms, VM{Name: oneLine(cp.VM), Identifier: cp.VMIdentifier})
			}
		}
	}
	return vms, nil
}

// NewService returns the Service of a config's ZVM for a front end: z is
// the hook's client, made from zo (the config's [zerto] table with the
// REWIND_ZVM_* variables over it), and the checkpoint of now is taken as
// the hook takes its checkpoints: with the config's tag prefix, reuse
// window and targets, sharing the state folder's tags in flight.
func NewService(cfg *policy.Config, z *zvm.Client, zo zvm.Options, stateDir string) *Service {
	return &Service{
		Z: z, ZertoOptions: zo, Log: audit.Open(stateDir),
		Capture: capture.New(z, capture.Options{
			StateDir: stateDir, TagPrefix: cfg.Hook.TagPrefix, ReuseWithin: cfg.Capture.ReuseWithin,
			Targets: cfg.Targets,
		}),
	}
}
