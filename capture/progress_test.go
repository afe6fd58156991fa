package capture

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestProgressOverrun: what a caller answers when Capture has not returned,
// from each stage it may have reached.
func TestProgressOverrun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c := f.capturer(Options{})
	web := group{vpgID: "vpg-fast", vpgName: "fast", vms: []VM{{Target: "web-01", Name: "web-01"}}}
	app := group{vpgID: "vpg-other", vpgName: "other", vms: []VM{{Target: "app-01", Name: "app-01"}}}
	landed := func(g group) Point {
		return Point{VPG: g.vpgName, VPGIdentifier: g.vpgID, VMs: g.vms, Tag: "rewind-x", Identifier: "1001", Time: time.Now()}
	}
	accepted := func(g group) Point {
		return Point{VPG: g.vpgName, VPGIdentifier: g.vpgID, VMs: g.vms, Tag: "rewind-y", Expected: time.Now().Add(time.Minute)}
	}
	tests := []struct {
		name    string
		stage   func(p *Progress)
		kind    Kind
		message string
	}{
		{"not yet resolved", func(p *Progress) {}, Failed, "looking the targets up"},
		{"resolved, nothing inserted", func(p *Progress) { p.resolvedTo([]group{web}, nil, nil) }, Failed, "not confirmed within"},
		{"one VPG of two inserted", func(p *Progress) {
			p.resolvedTo([]group{web, app}, nil, nil)
			p.tag(accepted(web))
		}, Failed, "not confirmed within"},
		{"every VPG inserted", func(p *Progress) {
			p.resolvedTo([]group{web, app}, nil, nil)
			p.tag(accepted(web))
			p.tag(landed(app))
		}, Pending, ""},
		{"every tag landed", func(p *Progress) {
			p.resolvedTo([]group{web, app}, nil, nil)
			p.tag(landed(web))
			p.tag(landed(app))
		}, Protected, ""},
		{"finished is Capture's own outcome", func(p *Progress) {
			p.resolvedTo([]group{web}, nil, nil)
			p.finish(Outcome{Kind: Failed, Failures: []Failure{{Target: "web-01", Err: errors.New("zerto said no")}}})
		}, Failed, "zerto said no"},
		{"unknown beside landed", func(p *Progress) {
			p.resolvedTo([]group{web}, []string{"nosuch"}, nil)
			p.tag(landed(web))
		}, UnknownTarget, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Progress{}
			p.start(c, []string{"web-01", "app-01"})
			tt.stage(p)
			out := p.Overrun(context.Background(), 150*time.Second)
			if out.Kind != tt.kind {
				t.Fatalf("Kind = %v, want %v (%+v)", out.Kind, tt.kind, out)
			}
			if tt.message != "" && (len(out.Failures) == 0 || !strings.Contains(out.Failures[len(out.Failures)-1].Error(), tt.message)) {
				t.Errorf("failures %v, want %q", out.Failures, tt.message)
			}
		})
	}
}
