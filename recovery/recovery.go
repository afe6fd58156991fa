package recovery

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
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
	ModeTest     = "test"
	ModeStopTest = "stop-test"
	ModeRestore  = "restore"
)

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
	Z    *zvm.Client
	Log  *audit.Log
	Poll time.Duration // task poll interval; 0 means DefaultPoll
	// Tool names the front end in the audit records it writes, such as
	// "rewind undo" (the default) or the MCP tool's name.
	Tool string
	// Warnf, when set, hears of a rewind that could not be recorded in the
	// audit log: the rewind itself still happened.
	Warnf func(format string, args ...any)
}

// Result is the outcome of a rewind.
type Result struct {
	Mode    string // "test" | "stop-test" | "restore"
	Point   Point
	Task    string   // Zerto task identifier (the last one, e.g. the commit's)
	State   string   // Zerto's task state name, e.g. "Completed"
	TestVMs []string // for a test: the names of the test copies on the recovery site
	// RecoverySite is, for a test, the site the test copies run on.
	RecoverySite string
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

// Find resolves an audit id (or unique prefix) or a bare
// CheckpointIdentifier to its rewind points, one per VPG. The audit log is
// asked first, and Zerto only when it does not know the ID: an audit id
// costs no request to Zerto (unless its tag was pending when logged).
func (s *Service) Find(ctx context.Context, id string) ([]Point, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, errors.New("no audit id or checkpoint identifier given")
	}
	if s.Log != nil {
		rec, err := s.Log.Find(id)
		var amb *audit.AmbiguousError
		switch {
		case err == nil:
			return s.pointsOfRecord(ctx, rec)
		case errors.As(err, &amb):
			return nil, err
		case !errors.Is(err, audit.ErrNotFound):
			return nil, err
		}
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
