package ui

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/recovery"
	"github.com/rewind-dev/rewind/zvm"
)

// maxPointsPerVM bounds the rewind points the VMs view lists for one VM,
// newest first; `rewind log` has the rest.
const maxPointsPerVM = 12

// vmsData is the VMs view.
type vmsData struct {
	// Configured says Zerto is configured; Problem says why it is not, or
	// why it could not be read.
	Configured bool
	Problem    string
	// Checking says Zerto was not asked yet: the page asks, once shown.
	Checking bool
	VMs      []vmView
}

// vmView is a VM the log has a checkpoint for.
type vmView struct {
	Name, Identifier string
	VPG              vpgView
	Points           []pointView
	// Older counts the points past maxPointsPerVM.
	Older int
}

// vpgView is what Zerto says of a VPG.
type vpgView struct {
	Name, Identifier string
	Known            bool // Zerto answered for it
	Status           string
	Health           string // "ok", "warn" or "bad", for the page's colours
	TestRunning      bool
	Cadence          time.Duration
	ActualRPO        time.Duration
	RecoverySite     string
	Problem          string
	// StopID is the audit ID the page's "Stop test" names: the point the
	// test was started from here, else the VPG's newest.
	StopID string
}

// pointView is one rewind point of a VM and what going back to it undoes.
type pointView struct {
	AuditID, Tag, Identifier string
	Time                     time.Time
	Call                     string   // the call it was taken for
	VMs                      []string // the VMs a rewind to it takes back
	Anchor                   string
	// Undone are the logged calls that changed the VMs after it, newest
	// first: what a restore to it loses.
	Undone []audit.Record
	// Waiting says a restore to it was sent and did not end committed: it
	// may wait in Zerto for its commit or rollback.
	Waiting bool
}

func pointAnchor(vpgID, checkpoint string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '-'
		}, s)
	}
	return "cp-" + clean(vpgID) + "-" + clean(checkpoint)
}

// pointsOf returns the rewind points of the log, as recovery.Point values
// keyed by VM: each logged call's checkpoints, grouped by VPG the way
// recovery.Service.Find groups them, for the calls the hook protected.
// A rewind's own record names where it went back to, not a new point.
func pointsOf(recs []audit.Record) (order []string, byVM map[string][]recovery.Point, names map[string]string, calls map[string]string) {
	byVM = map[string][]recovery.Point{}
	names = map[string]string{}
	calls = map[string]string{}
	for i := range recs {
		r := &recs[i]
		if strings.HasPrefix(r.Decision, "undo-") {
			continue
		}
		var points []recovery.Point
		for _, cp := range r.Checkpoints {
			if cp.Identifier == "" || cp.VPGIdentifier == "" || cp.VMIdentifier == "" {
				continue
			}
			j := slices.IndexFunc(points, func(p recovery.Point) bool { return p.VPGIdentifier == cp.VPGIdentifier })
			if j < 0 {
				points = append(points, recovery.Point{AuditID: r.ID, VPG: cp.VPG, VPGIdentifier: cp.VPGIdentifier,
					Checkpoint: cp.Identifier, Tag: cp.Tag, Time: cp.Time})
				j = len(points) - 1
			}
			if !slices.ContainsFunc(points[j].VMs, func(v recovery.VM) bool { return strings.EqualFold(v.Identifier, cp.VMIdentifier) }) {
				points[j].VMs = append(points[j].VMs, recovery.VM{Name: cp.VM, Identifier: cp.VMIdentifier})
			}
		}
		call := r.Excerpt
		if call == "" {
			call = r.Tool
		}
		calls[r.ID] = call
		for _, p := range points {
			for _, vm := range p.VMs {
				key := strings.ToLower(vm.Identifier)
				if _, ok := names[key]; !ok {
					order = append(order, key)
				}
				names[key] = vm.Name
				// The same checkpoint may protect several calls: its
				// point is the first call's, which a restore to it
				// undoes too.
				if !slices.ContainsFunc(byVM[key], func(q recovery.Point) bool {
					return q.VPGIdentifier == p.VPGIdentifier && q.Checkpoint == p.Checkpoint
				}) {
					byVM[key] = append(byVM[key], p)
				}
			}
		}
	}
	return order, byVM, names, calls
}

// vmsView builds the VMs view from the log's records and, with askZerto,
// what Zerto says of their VPGs.
func (s *Server) vmsView(ctx context.Context, recs []audit.Record, askZerto bool) vmsData {
	d := vmsData{Configured: s.o.Recovery != nil, Problem: s.o.ZertoProblem}
	d.Checking = d.Configured && !askZerto
	order, byVM, names, calls := pointsOf(recs)
	waiting := restoresWaiting(recs)
	if len(order) == 0 {
		return d
	}
	// Each VM is shown with the VPG of its newest point; Zerto is asked
	// about all of them at once.
	vpgs := map[string]*vpgView{}
	var vpgOrder []*vpgView
	for _, key := range order {
		last := byVM[key][len(byVM[key])-1]
		if vpgs[last.VPGIdentifier] == nil {
			vp := &vpgView{Name: last.VPG, Identifier: last.VPGIdentifier}
			vpgs[last.VPGIdentifier] = vp
			vpgOrder = append(vpgOrder, vp)
		}
	}
	if askZerto {
		zctx, cancel := s.zertoContext(ctx)
		s.vpgHealth(zctx, vpgOrder)
		cancel()
	}
	// shown are the points listed, for their losses to be read at once.
	var shown []recovery.Point
	for _, key := range order {
		points := byVM[key]
		last := points[len(points)-1]
		v := vmView{Name: names[key], Identifier: last.VMs[slices.IndexFunc(last.VMs, func(vm recovery.VM) bool {
			return strings.EqualFold(vm.Identifier, key)
		})].Identifier}
		v.VPG = *vpgs[last.VPGIdentifier]
		if id := s.jobs.lastTest(last.VPGIdentifier); id != "" {
			v.VPG.StopID = id
		} else {
			v.VPG.StopID = last.AuditID
		}
		if len(points) > maxPointsPerVM {
			v.Older = len(points) - maxPointsPerVM
			points = points[len(points)-maxPointsPerVM:]
		}
		for i := len(points) - 1; i >= 0; i-- {
			p := points[i]
			v.Points = append(v.Points, pointView{AuditID: p.AuditID, Tag: p.Tag, Identifier: p.Checkpoint, Time: p.Time,
				Call: calls[p.AuditID], VMs: p.VMNames(), Anchor: pointAnchor(p.VPGIdentifier, p.Checkpoint),
				Waiting: waiting[p.AuditID]})
			shown = append(shown, p)
		}
		d.VMs = append(d.VMs, v)
	}
	// What going back undoes comes from the audit log alone: it needs no
	// Zerto, and is shown without it.
	svc := s.o.Recovery
	if svc == nil {
		svc = &recovery.Service{Log: s.o.Log}
	}
	losses, err := svc.Losses(ctx, shown)
	if err != nil {
		s.warn("reading the audit log", err)
	}
	for i, n := 0, 0; i < len(d.VMs) && err == nil; i++ {
		for j := range d.VMs[i].Points {
			undone := slices.Clone(losses[n].Calls)
			slices.Reverse(undone)
			d.VMs[i].Points[j].Undone = undone
			n++
		}
	}
	if d.Configured {
		for _, vp := range vpgs {
			if vp.Problem != "" && d.Problem == "" {
				d.Problem = "Zerto could not be read: " + vp.Problem
			}
		}
	}
	return d
}

// vpgHealth fills in what Zerto says of the VPGs: their states from one
// listing of the VPGs, whether they can checkpoint as the hook decides it,
// and their journal cadences as capture estimates them (kept by the hook
// in the state folder, else read a few VPGs at a time).
func (s *Server) vpgHealth(ctx context.Context, views []*vpgView) {
	if s.o.Recovery == nil || s.o.Recovery.Z == nil || len(views) == 0 {
		return
	}
	z := s.o.Recovery.Z
	all, err := z.VPGs(ctx)
	if err != nil {
		for _, v := range views {
			v.Problem = problem(err)
		}
		return
	}
	var ids []string
	var known []*vpgView
	for _, v := range views {
		i := slices.IndexFunc(all, func(g zvm.VPG) bool { return strings.EqualFold(g.Identifier, v.Identifier) })
		if i < 0 {
			v.Problem = "Zerto no longer lists VPG " + v.Name
			continue
		}
		g := all[i]
		v.Known = true
		v.Name = g.Name
		v.Status = g.Status.String()
		if g.SubStatus != zvm.SubStatusNone {
			v.Status += "/" + g.SubStatus.String()
		}
		v.TestRunning = g.TestRunning
		v.ActualRPO = g.ActualRPO
		v.RecoverySite = g.RecoverySite
		switch refused, _ := g.InsertRefused(); {
		case refused:
			v.Health = "bad"
		case g.Status == zvm.StatusMeetingSLA:
			v.Health = "ok"
		default:
			v.Health = "warn"
		}
		ids = append(ids, g.Identifier)
		known = append(known, v)
	}
	// The audit log lives in the state folder, beside capture's state.
	c := capture.New(z, capture.Options{StateDir: filepath.Dir(s.o.Log.Path())})
	for i, r := range c.Cadences(ctx, ids) {
		if r.Err == nil {
			known[i].Cadence = r.Cadence
		}
	}
}

// problem is an error as the page shows it: Zerto's own message when it
// gave one.
func problem(err error) string {
	return capture.Message(err)
}
