package mcpserver

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/audit"
)

// PointsInput selects rewind points.
type PointsInput struct {
	VM      string `json:"vm,omitempty" jsonschema:"only the points with a checkpoint of this VM (Zerto name or identifier)"`
	VPG     string `json:"vpg,omitempty" jsonschema:"only the points with a checkpoint of this VPG (name or identifier)"`
	Session string `json:"session,omitempty" jsonschema:"only the calls of this agent session"`
	Limit   int    `json:"limit,omitempty" jsonschema:"at most this many, newest first; default 20"`
}

// Point is a protected call and the checkpoints that undo it.
type Point struct {
	AuditID     string       `json:"audit_id" jsonschema:"the decision log's ID: give it to zerto_rewind (or rewind undo)"`
	Time        string       `json:"time" jsonschema:"when rewind decided, RFC 3339"`
	Tool        string       `json:"tool" jsonschema:"the tool that was called"`
	Excerpt     string       `json:"excerpt,omitempty" jsonschema:"the command or input, shortened and with secrets redacted"`
	Host        string       `json:"host,omitempty" jsonschema:"the agent host, or mcp for a checkpoint taken through this server"`
	Session     string       `json:"session,omitempty"`
	Targets     []string     `json:"targets,omitempty"`
	Checkpoints []Checkpoint `json:"checkpoints"`
}

// PointsOutput is the answer of zerto_rewind_points.
type PointsOutput struct {
	Points []Point `json:"points"`
	// Truncated says that Limit cut the list.
	Truncated bool `json:"truncated,omitempty" jsonschema:"whether more points matched than the limit"`
}

func (s *Server) addPoints() {
	mcp.AddTool(s.srv, &mcp.Tool{
		Name:  "zerto_rewind_points",
		Title: "Rewind points",
		Description: `Lists the rewind points: the calls rewind protected, from its decision log, newest first, each with the tagged checkpoints (one per VPG) that undo it. Give a point's audit_id to zerto_rewind.
Checkpoints taken with zerto_tag_checkpoint and zerto_check_tool are listed too.`,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, s.points)
}

func (s *Server) points(ctx context.Context, _ *mcp.CallToolRequest, in PointsInput) (*mcp.CallToolResult, PointsOutput, error) {
	if in.Limit < 0 {
		return nil, PointsOutput{}, errors.New(`"limit" must not be negative`)
	}
	limit := in.Limit
	if limit == 0 {
		limit = 20
	}
	dir, err := s.stateDir()
	if err != nil {
		return nil, PointsOutput{}, err
	}
	recs, err := audit.Open(dir).Read(audit.Filter{Session: in.Session})
	if err != nil {
		return nil, PointsOutput{}, err
	}
	out := PointsOutput{Points: []Point{}}
	for _, r := range slices.Backward(recs) {
		if strings.HasPrefix(r.Decision, "undo-") {
			// A rewind's checkpoints are where it went back to.
			continue
		}
		cps := landed(r.Checkpoints, in.VM, in.VPG)
		if len(cps) == 0 {
			continue
		}
		if len(out.Points) == limit {
			out.Truncated = true
			break
		}
		out.Points = append(out.Points, Point{
			AuditID: r.ID, Time: rfc3339(r.Time), Tool: r.Tool, Excerpt: r.Excerpt, Host: r.Host,
			Session: r.Session, Targets: r.Targets, Checkpoints: checkpoints(cps),
		})
	}
	return nil, out, nil
}

// landed returns the checkpoints that exist (a pending tag has no
// identifier yet) of a record, when one of them is of the VM and VPG asked
// for.
func landed(cps []audit.Checkpoint, vm, vpg string) []audit.Checkpoint {
	var out []audit.Checkpoint
	match := false
	for _, cp := range cps {
		if cp.Identifier == "" {
			continue
		}
		out = append(out, cp)
		if (vm == "" || strings.EqualFold(cp.VM, vm) || cp.VMIdentifier == vm) &&
			(vpg == "" || strings.EqualFold(cp.VPG, vpg) || cp.VPGIdentifier == vpg) {
			match = true
		}
	}
	if !match {
		return nil
	}
	return out
}
