package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/capture"
	"github.com/rewind-dev/rewind/policy"
	"github.com/rewind-dev/rewind/zvm"
)

// NoInput is the input of a tool that takes none.
type NoInput struct{}

// VPG is a VPG as the listings show it.
type VPG struct {
	Name               string  `json:"name"`
	Identifier         string  `json:"identifier" jsonschema:"Zerto's VpgIdentifier"`
	Status             string  `json:"status" jsonschema:"Zerto's VPG status, such as MeetingSLA"`
	SubStatus          string  `json:"substatus" jsonschema:"Zerto's VPG substatus, such as None or ReplicationPausedUserInitiated"`
	CanCheckpoint      bool    `json:"can_checkpoint" jsonschema:"whether rewind can have a checkpoint of it now, as the hook decides before it asks Zerto for one (in a sync or an error, Zerto's own answer to the insert decides)"`
	WhyNot             string  `json:"why_not,omitempty" jsonschema:"why it cannot, when it cannot"`
	ProtectedSite      string  `json:"protected_site,omitempty"`
	RecoverySite       string  `json:"recovery_site,omitempty"`
	ProtectedSiteType  string  `json:"protected_site_type,omitempty" jsonschema:"VCenter, Aws, Azure, HyperV..."`
	RecoverySiteType   string  `json:"recovery_site_type,omitempty"`
	VMCount            int     `json:"vm_count"`
	ActualRPOSeconds   int64   `json:"actual_rpo_seconds"`
	ConfiguredRPOSecs  int64   `json:"configured_rpo_seconds"`
	CadenceSeconds     float64 `json:"cadence_seconds,omitempty" jsonschema:"the journal cadence as its recent checkpoints show it: a checkpoint rewind asks for lands at the next tick, so a protected call waits up to this long"`
	CadenceUnavailable string  `json:"cadence_unavailable,omitempty" jsonschema:"why no cadence could be estimated"`
}

// ListVPGsOutput is the answer of zerto_list_vpgs.
type ListVPGsOutput struct {
	VPGs []VPG `json:"vpgs"`
}

// ListVMsInput selects VMs.
type ListVMsInput struct {
	VPG  string `json:"vpg,omitempty" jsonschema:"only the VMs of this VPG (name or identifier)"`
	Name string `json:"name,omitempty" jsonschema:"only the VM of this name"`
}

// VM is a protected VM.
type VM struct {
	Name             string  `json:"name"`
	Identifier       string  `json:"identifier" jsonschema:"Zerto's VmIdentifier"`
	VPG              string  `json:"vpg"`
	VPGIdentifier    string  `json:"vpg_identifier"`
	Protected        bool    `json:"protected" jsonschema:"whether its VPG can write a checkpoint now: whether rewind can protect a call that changes it"`
	WhyNot           string  `json:"why_not,omitempty" jsonschema:"why not, when not"`
	Status           string  `json:"status"`
	SubStatus        string  `json:"substatus"`
	ProtectedSite    string  `json:"protected_site,omitempty"`
	RecoverySite     string  `json:"recovery_site,omitempty"`
	ActualRPOSeconds int64   `json:"actual_rpo_seconds"`
	CadenceSeconds   float64 `json:"cadence_seconds,omitempty" jsonschema:"its VPG's journal cadence: how long a protected call on it may wait for its checkpoint"`
}

// ListVMsOutput is the answer of zerto_list_vms.
type ListVMsOutput struct {
	VMs []VM `json:"vms"`
}

// ListCheckpointsInput selects checkpoints.
type ListCheckpointsInput struct {
	VM         string `json:"vm,omitempty" jsonschema:"the VM (name or identifier) whose VPG's journal to list; give this or vpg"`
	VPG        string `json:"vpg,omitempty" jsonschema:"the VPG (name or identifier); give this or vm"`
	Start      string `json:"start,omitempty" jsonschema:"the earliest time, RFC 3339 (ZVM clock)"`
	End        string `json:"end,omitempty" jsonschema:"the latest time, RFC 3339 (ZVM clock)"`
	Within     string `json:"within,omitempty" jsonschema:"a duration such as 30m or 2h counted back from the journal's latest checkpoint; default 1h, or 24h with rewind_only (ignored when start is given). A journal holds a checkpoint every few seconds for days, so every listing has a window"`
	RewindOnly bool   `json:"rewind_only,omitempty" jsonschema:"only the checkpoints rewind tagged, which are the rewind points"`
	Limit      int    `json:"limit,omitempty" jsonschema:"at most this many, newest first; default 100"`
}

// ListedCheckpoint is one checkpoint of a listing.
type ListedCheckpoint struct {
	VPG           string `json:"vpg"`
	VPGIdentifier string `json:"vpg_identifier"`
	Identifier    string `json:"identifier" jsonschema:"Zerto's CheckpointIdentifier"`
	Time          string `json:"time" jsonschema:"RFC 3339, ZVM clock"`
	Tag           string `json:"tag,omitempty" jsonschema:"the tag; empty for Zerto's automatic checkpoints"`
	Rewind        bool   `json:"rewind" jsonschema:"whether rewind tagged it"`
}

// ListCheckpointsOutput is the answer of zerto_list_checkpoints.
type ListCheckpointsOutput struct {
	Checkpoints []ListedCheckpoint `json:"checkpoints"`
	// Truncated says that Limit cut the list.
	Truncated bool `json:"truncated,omitempty" jsonschema:"whether more checkpoints matched than the limit"`
}

// TagInput names what to checkpoint.
type TagInput struct {
	VMs []string `json:"vms,omitempty" jsonschema:"the VMs (Zerto names, or host names mapped in [targets]) to checkpoint; one checkpoint per VPG they belong to"`
	VPG string   `json:"vpg,omitempty" jsonschema:"a VPG (name or identifier) to checkpoint; give this or vms"`
}

// TagOutput is the answer of zerto_tag_checkpoint.
type TagOutput struct {
	Outcome     string       `json:"outcome" jsonschema:"protected (the checkpoints exist) or pending (Zerto accepted the tags and writes them at the journal's next tick, after this call's wait)"`
	Checkpoints []Checkpoint `json:"checkpoints"`
	Expected    string       `json:"expected,omitempty" jsonschema:"for pending: when the last tag should land (RFC 3339)"`
	AuditID     string       `json:"audit_id,omitempty" jsonschema:"the decision log's ID of the checkpoint, for zerto_rewind and rewind undo"`
}

// TaskInput names a task.
type TaskInput struct {
	Task string `json:"task" jsonschema:"Zerto's task identifier, as zerto_rewind or zerto_tag_checkpoint returned it"`
}

// TaskOutput is a Zerto task's status.
type TaskOutput struct {
	Identifier     string `json:"identifier"`
	Type           string `json:"type,omitempty" jsonschema:"such as InsertTaggedCP, FailoverTest, Restore"`
	State          string `json:"state" jsonschema:"InProgress, Completed, Failed, Cancelling..."`
	Done           bool   `json:"done" jsonschema:"whether the task has ended"`
	Progress       int    `json:"progress" jsonschema:"percent"`
	CompleteReason string `json:"complete_reason,omitempty" jsonschema:"Zerto's text when the task failed"`
	Started        string `json:"started,omitempty"`
	Completed      string `json:"completed,omitempty"`
}

func (s *Server) addZerto() {
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(true)}
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "zerto_list_vpgs",
		Title:       "List Zerto VPGs",
		Description: "Lists the VPGs of the ZVM rewind uses: status, whether Zerto can write a checkpoint for them now (so that rewind can protect calls on their VMs), sites, RPO and journal cadence.",
		Annotations: readOnly,
	}, s.listVPGs)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "zerto_list_vms",
		Title:       "List protected VMs",
		Description: "Lists the VMs Zerto protects, with their VPG, whether rewind can protect a call that changes them now, and the journal cadence (how long such a call may wait for its checkpoint). Filter by VPG or VM name.",
		Annotations: readOnly,
	}, s.listVMs)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "zerto_list_checkpoints",
		Title:       "List checkpoints",
		Description: "Lists the checkpoints in a VPG's journal (given the VPG, or a VM of it), newest first, in a time range; with rewind_only, only the checkpoints rewind tagged.",
		Annotations: readOnly,
	}, s.listCheckpoints)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "zerto_tag_checkpoint",
		Title: "Take a checkpoint now",
		Description: `Has Zerto write a rewind-tagged checkpoint now for the VPGs of the given VMs (or a VPG), and waits until it is in the journal, as rewind's hook does before a protected call. It is logged as a rewind point, which zerto_rewind can go back to.
A VPG with a slow journal (an AWS site's is about 10 min) may answer pending: Zerto writes the tag at its next tick.`,
		Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, s.tagCheckpoint)
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:        "zerto_task",
		Title:       "Zerto task status",
		Description: "Shows a Zerto task's state and progress: a checkpoint insert, a failover test, a restore.",
		Annotations: readOnly,
	}, s.task)
}

func (s *Server) listVPGs(ctx context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, ListVPGsOutput, error) {
	ctx, cancel, cfg, z, err := s.setup(ctx)
	defer cancel()
	if err != nil {
		return nil, ListVPGsOutput{}, err
	}
	vpgs, err := z.VPGs(ctx)
	if err != nil {
		return nil, ListVPGsOutput{}, zertoError("listing VPGs", err)
	}
	// One request for the VPGs; their cadences from what the hook keeps in
	// the state folder, the rest read a few at a time.
	ids := make([]string, len(vpgs))
	for i, v := range vpgs {
		ids[i] = v.Identifier
	}
	cads := s.capturer(cfg, z).Cadences(ctx, ids)
	out := ListVPGsOutput{VPGs: []VPG{}}
	for i, v := range vpgs {
		refused, why := v.InsertRefused()
		o := VPG{
			Name: v.Name, Identifier: v.Identifier, Status: v.Status.String(), SubStatus: v.SubStatus.String(),
			CanCheckpoint: !refused, WhyNot: why, ProtectedSite: v.ProtectedSite, RecoverySite: v.RecoverySite,
			ProtectedSiteType: v.ProtectedSiteType.String(), RecoverySiteType: v.RecoverySiteType.String(),
			VMCount: v.VMCount, ActualRPOSeconds: seconds(v.ActualRPO), ConfiguredRPOSecs: seconds(v.ConfiguredRPO),
		}
		if err := cads[i].Err; err != nil {
			o.CadenceUnavailable = capture.Message(err)
		} else {
			o.CadenceSeconds = fseconds(cads[i].Cadence)
		}
		out.VPGs = append(out.VPGs, o)
	}
	return nil, out, nil
}

func (s *Server) listVMs(ctx context.Context, _ *mcp.CallToolRequest, in ListVMsInput) (*mcp.CallToolResult, ListVMsOutput, error) {
	ctx, cancel, cfg, z, err := s.setup(ctx)
	defer cancel()
	if err != nil {
		return nil, ListVMsOutput{}, err
	}
	vpgID := ""
	if in.VPG != "" {
		v, err := findVPG(ctx, z, in.VPG)
		if err != nil {
			return nil, ListVMsOutput{}, err
		}
		vpgID = v.Identifier
	}
	vms, err := z.VMs(ctx, in.Name)
	if err != nil {
		return nil, ListVMsOutput{}, zertoError("listing VMs", err)
	}
	// The VPG's state decides whether a call can be protected, and its
	// journal the cadence: the VPGs are read in one request, their
	// cadences as zerto_list_vpgs reads them.
	vpgs, err := z.VPGs(ctx)
	if err != nil {
		return nil, ListVMsOutput{}, zertoError("listing VPGs", err)
	}
	type vpgInfo struct {
		ok      bool
		why     string
		cadence time.Duration
	}
	seen := map[string]*vpgInfo{}
	var ids []string
	for _, vm := range vms {
		if (vpgID == "" || vm.VPGIdentifier == vpgID) && seen[vm.VPGIdentifier] == nil {
			info := &vpgInfo{why: "its VPG is not in Zerto's list of VPGs"}
			if i := slices.IndexFunc(vpgs, func(v zvm.VPG) bool { return v.Identifier == vm.VPGIdentifier }); i >= 0 {
				refused, why := vpgs[i].InsertRefused()
				info.ok, info.why = !refused, why
			}
			seen[vm.VPGIdentifier] = info
			ids = append(ids, vm.VPGIdentifier)
		}
	}
	for i, r := range s.capturer(cfg, z).Cadences(ctx, ids) {
		if r.Err == nil {
			seen[ids[i]].cadence = r.Cadence
		}
	}
	out := ListVMsOutput{VMs: []VM{}}
	for _, vm := range vms {
		info := seen[vm.VPGIdentifier]
		if info == nil {
			continue
		}
		out.VMs = append(out.VMs, VM{
			Name: vm.Name, Identifier: vm.Identifier, VPG: vm.VPGName, VPGIdentifier: vm.VPGIdentifier,
			Protected: info.ok, WhyNot: info.why, Status: vm.Status.String(), SubStatus: vm.SubStatus.String(),
			ProtectedSite: vm.ProtectedSite, RecoverySite: vm.RecoverySite,
			ActualRPOSeconds: seconds(vm.ActualRPO), CadenceSeconds: fseconds(info.cadence),
		})
	}
	return nil, out, nil
}

func (s *Server) listCheckpoints(ctx context.Context, _ *mcp.CallToolRequest, in ListCheckpointsInput) (*mcp.CallToolResult, ListCheckpointsOutput, error) {
	var start, end time.Time
	var within time.Duration
	var err error
	switch {
	case (in.VM == "") == (in.VPG == ""):
		return nil, ListCheckpointsOutput{}, errors.New(`give either "vm" or "vpg"`)
	case in.Limit < 0:
		return nil, ListCheckpointsOutput{}, errors.New(`"limit" must not be negative`)
	}
	if start, err = parseTime("start", in.Start); err != nil {
		return nil, ListCheckpointsOutput{}, err
	}
	if end, err = parseTime("end", in.End); err != nil {
		return nil, ListCheckpointsOutput{}, err
	}
	switch {
	case in.Within != "":
		if within, err = time.ParseDuration(in.Within); err != nil || within <= 0 {
			return nil, ListCheckpointsOutput{}, fmt.Errorf(`"within": want a positive duration such as 30m or 2h, not %q`, in.Within)
		}
	case in.RewindOnly:
		within = 24 * time.Hour
	default:
		within = time.Hour
	}
	limit := in.Limit
	if limit == 0 {
		limit = 100
	}

	ctx, cancel, cfg, z, err := s.setup(ctx)
	defer cancel()
	if err != nil {
		return nil, ListCheckpointsOutput{}, err
	}
	var vpgs []zvm.VPG
	if in.VPG != "" {
		v, err := findVPG(ctx, z, in.VPG)
		if err != nil {
			return nil, ListCheckpointsOutput{}, err
		}
		vpgs = []zvm.VPG{v}
	} else if vpgs, err = vpgsOfVM(ctx, z, in.VM); err != nil {
		return nil, ListCheckpointsOutput{}, err
	}

	prefix := tagPrefix(cfg) + "-"
	out := ListCheckpointsOutput{Checkpoints: []ListedCheckpoint{}}
	for _, v := range vpgs {
		from, to := start, end
		if from.IsZero() || to.IsZero() {
			// Counted on the ZVM's clock: back from its latest checkpoint,
			// and up to it (a minute more, for one written since).
			st, err := z.CheckpointStats(ctx, v.Identifier)
			if err != nil {
				return nil, ListCheckpointsOutput{}, zertoError("reading the journal of VPG "+v.Name, err)
			}
			if st.Latest.Time.IsZero() {
				continue
			}
			if from.IsZero() {
				from = st.Latest.Time.Add(-within)
			}
			if to.IsZero() {
				to = st.Latest.Time.Add(time.Minute)
			}
		}
		cps, err := z.Checkpoints(ctx, v.Identifier, from, to)
		if err != nil {
			return nil, ListCheckpointsOutput{}, zertoError("listing the checkpoints of VPG "+v.Name, err)
		}
		for _, cp := range cps {
			rewind := strings.HasPrefix(cp.Tag, prefix)
			if in.RewindOnly && !rewind {
				continue
			}
			out.Checkpoints = append(out.Checkpoints, ListedCheckpoint{
				VPG: v.Name, VPGIdentifier: v.Identifier, Identifier: cp.Identifier,
				Time: rfc3339(cp.Time), Tag: cp.Tag, Rewind: rewind,
			})
		}
	}
	slices.SortStableFunc(out.Checkpoints, func(a, b ListedCheckpoint) int { return strings.Compare(b.Time, a.Time) })
	if len(out.Checkpoints) > limit {
		out.Checkpoints, out.Truncated = out.Checkpoints[:limit], true
	}
	return nil, out, nil
}

func (s *Server) tagCheckpoint(ctx context.Context, _ *mcp.CallToolRequest, in TagInput) (*mcp.CallToolResult, TagOutput, error) {
	if (len(in.VMs) == 0) == (in.VPG == "") {
		return nil, TagOutput{}, errors.New(`give either "vms" or "vpg"`)
	}
	start := time.Now()
	cfg, err := s.config()
	if err != nil {
		return nil, TagOutput{}, err
	}
	z, err := s.zerto(cfg)
	if err != nil {
		return nil, TagOutput{}, err
	}
	// The same wait as the hook's: within its budget.
	ctx, cancel := context.WithTimeout(ctx, cfg.Hook.Budget)
	defer cancel()
	targets := in.VMs
	if in.VPG != "" {
		v, err := findVPG(ctx, z, in.VPG)
		if err != nil {
			return nil, TagOutput{}, err
		}
		vms, err := z.VMs(ctx, "")
		if err != nil {
			return nil, TagOutput{}, zertoError("listing VMs", err)
		}
		for _, vm := range vms {
			if vm.VPGIdentifier == v.Identifier {
				// Identifiers, not names: a name may be protected by
				// other VPGs too.
				targets = append(targets, vm.Identifier)
			}
		}
		if len(targets) == 0 {
			return nil, TagOutput{}, fmt.Errorf("VPG %q protects no VMs", v.Name)
		}
	}

	id := audit.NewID()
	out := s.capturer(cfg, z).Capture(ctx, capture.Request{Targets: targets, CallID: id, Advice: true})
	switch out.Kind {
	case capture.Failed:
		msgs := make([]string, len(out.Failures))
		for i, f := range out.Failures {
			msgs[i] = "no checkpoint for " + f.Error()
		}
		return nil, TagOutput{}, errors.New(strings.Join(msgs, "; "))
	case capture.UnknownTarget:
		if len(out.Unknown) == 0 {
			return nil, TagOutput{}, errors.New("nothing to checkpoint")
		}
		return nil, TagOutput{}, fmt.Errorf("%s: not a VM Zerto protects; zerto_list_vms lists those it does", strings.Join(out.Unknown, ", "))
	}

	res := TagOutput{Outcome: out.Kind.String(), Checkpoints: []Checkpoint{}, AuditID: id}
	var expected time.Time
	for _, p := range out.Points {
		res.Checkpoints = append(res.Checkpoints, Checkpoint{
			VPG: p.VPG, VPGIdentifier: p.VPGIdentifier, VMs: vmNames(p.VMs),
			Tag: p.Tag, Identifier: p.Identifier, Time: rfc3339(p.Time),
		})
		if p.Identifier == "" && p.Expected.After(expected) {
			expected = p.Expected
		}
	}
	res.Expected = rfc3339(expected)
	rec := &audit.Record{
		ID: id, Host: string(host), Tool: "zerto_tag_checkpoint", Cwd: s.dir(),
		Excerpt: excerpt(in), Rule: "mcp:zerto_tag_checkpoint", Targets: in.VMs,
		Checkpoints: tagCheckpoints(out.Points), ElapsedMS: time.Since(start).Milliseconds(),
	}
	if in.VPG != "" {
		rec.Targets = []string{in.VPG}
	}
	rec.Decision, rec.Reason = audit.DecisionCheckpoint, tagText(res)
	if err := s.appendAudit(ctx, rec); err != nil {
		s.o.Logger.Warn("audit log", "err", err)
		res.AuditID = ""
		return textResult(tagText(res), "The decision log could not be written ("+err.Error()+"): find the checkpoint by its tag."), res, nil
	}
	return textResult(tagText(res)), res, nil
}

func tagText(o TagOutput) string {
	var b strings.Builder
	for i, cp := range o.Checkpoints {
		if i > 0 {
			b.WriteString("; ")
		}
		if cp.Identifier != "" {
			fmt.Fprintf(&b, "checkpoint %q (CheckpointIdentifier %s) on VPG %q at %s", cp.Tag, cp.Identifier, cp.VPG, cp.Time)
		} else {
			fmt.Fprintf(&b, "checkpoint %q on VPG %q is pending: Zerto writes it at the journal's next tick", cp.Tag, cp.VPG)
		}
	}
	if o.Expected != "" {
		fmt.Fprintf(&b, ", expected by %s", o.Expected)
	}
	if o.AuditID != "" {
		fmt.Fprintf(&b, ". Rewind point %s.", o.AuditID)
	}
	return b.String()
}

func tagCheckpoints(points []capture.Point) []audit.Checkpoint {
	var cps []audit.Checkpoint
	for _, p := range points {
		for _, vm := range p.VMs {
			cps = append(cps, audit.Checkpoint{
				VM: vm.Name, VMIdentifier: vm.Identifier, VPG: p.VPG, VPGIdentifier: p.VPGIdentifier,
				Identifier: p.Identifier, Tag: p.Tag, Time: p.Time,
			})
		}
	}
	return cps
}

func vmNames(vms []capture.VM) []string {
	names := make([]string, len(vms))
	for i, vm := range vms {
		names[i] = vm.Name
	}
	return names
}

func (s *Server) task(ctx context.Context, _ *mcp.CallToolRequest, in TaskInput) (*mcp.CallToolResult, TaskOutput, error) {
	if strings.TrimSpace(in.Task) == "" {
		return nil, TaskOutput{}, errors.New(`"task" is empty`)
	}
	ctx, cancel, _, z, err := s.setup(ctx)
	defer cancel()
	if err != nil {
		return nil, TaskOutput{}, err
	}
	t, err := z.Task(ctx, in.Task)
	if err != nil {
		return nil, TaskOutput{}, zertoError("reading task "+in.Task, err)
	}
	return nil, taskOutput(t), nil
}

func taskOutput(t zvm.Task) TaskOutput {
	return TaskOutput{
		Identifier: t.Identifier, Type: t.Type, State: t.State.String(), Done: t.State.Done(),
		Progress: t.Progress, CompleteReason: t.CompleteReason,
		Started: rfc3339(t.Started), Completed: rfc3339(t.Completed),
	}
}

// findVPG finds a VPG by identifier, or by name: exactly, else the only
// one whose name matches without regard to case.
func findVPG(ctx context.Context, z *zvm.Client, name string) (zvm.VPG, error) {
	vpgs, err := z.VPGs(ctx)
	if err != nil {
		return zvm.VPG{}, zertoError("listing VPGs", err)
	}
	var folded []zvm.VPG
	for _, v := range vpgs {
		if v.Identifier == name || v.Name == name {
			return v, nil
		}
		if strings.EqualFold(v.Name, name) {
			folded = append(folded, v)
		}
	}
	if len(folded) == 1 {
		return folded[0], nil
	}
	return zvm.VPG{}, fmt.Errorf("no VPG %q: zerto_list_vpgs lists them", name)
}

// vpgsOfVM returns the VPGs protecting a VM, given its name or identifier.
func vpgsOfVM(ctx context.Context, z *zvm.Client, name string) ([]zvm.VPG, error) {
	vms, err := z.VMs(ctx, name)
	if err != nil {
		return nil, zertoError("looking up VM "+name, err)
	}
	if len(vms) == 0 {
		vm, err := z.VM(ctx, name)
		switch {
		case zvm.IsNotFound(err):
			return nil, fmt.Errorf("no protected VM %q: zerto_list_vms lists them", name)
		case err != nil:
			return nil, zertoError("looking up VM "+name, err)
		}
		vms = []zvm.VM{vm}
	}
	var out []zvm.VPG
	for _, vm := range vms {
		if slices.ContainsFunc(out, func(v zvm.VPG) bool { return v.Identifier == vm.VPGIdentifier }) {
			continue
		}
		out = append(out, zvm.VPG{Identifier: vm.VPGIdentifier, Name: vm.VPGName})
	}
	return out, nil
}

func parseTime(field, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: want an RFC 3339 time such as 2026-12-01T06:00:00Z, not %q", field, s)
	}
	return t, nil
}

func tagPrefix(cfg *policy.Config) string {
	if cfg.Hook.TagPrefix != "" {
		return cfg.Hook.TagPrefix
	}
	return policy.DefaultTagPrefix
}

func seconds(d time.Duration) int64 { return int64((d + time.Second/2) / time.Second) }

// fseconds is a duration in seconds, to the millisecond.
func fseconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// excerpt is what the log shows of a tool's input, as the hook logs the
// input of a tool that is not a shell.
func excerpt(in any) string {
	b, err := json.Marshal(in)
	if err != nil {
		return ""
	}
	return string(b)
}
