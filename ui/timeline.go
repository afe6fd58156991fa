package ui

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// maxRows bounds the rows the timeline renders; the filters reach the rest.
const maxRows = 500

// filter selects the timeline's records, from the page's query parameters.
// The live feed applies the same filter to each new record.
type filter struct {
	Session  string // exact session ID
	Decision string // exact decision, or "undo" for every rewind
	VM       string // a target or checkpoint VM, any case
	Text     string // a substring of the call, reason, rule, ID or tag, any case
}

func filterFromQuery(q url.Values) filter {
	get := func(k string) string { return strings.TrimSpace(q.Get(k)) }
	return filter{Session: get("session"), Decision: get("decision"), VM: get("vm"), Text: get("q")}
}

// query writes f back as query parameters, for the live feed's URL.
func (f filter) query() string {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("session", f.Session)
	set("decision", f.Decision)
	set("vm", f.VM)
	set("q", f.Text)
	return q.Encode()
}

func (f filter) active() bool { return f != filter{} }

func (f filter) match(r *audit.Record) bool {
	if f.Session != "" && r.Session != f.Session {
		return false
	}
	switch {
	case f.Decision == "":
	case f.Decision == "undo":
		if !strings.HasPrefix(r.Decision, "undo-") {
			return false
		}
	case r.Decision != f.Decision:
		return false
	}
	if f.VM != "" && !touchesVM(r, f.VM) {
		return false
	}
	if f.Text != "" && !containsText(r, f.Text) {
		return false
	}
	return true
}

func touchesVM(r *audit.Record, vm string) bool {
	for _, t := range r.Targets {
		if strings.EqualFold(t, vm) {
			return true
		}
	}
	for _, cp := range r.Checkpoints {
		if strings.EqualFold(cp.VM, vm) {
			return true
		}
	}
	return false
}

func containsText(r *audit.Record, text string) bool {
	fields := []string{r.ID, r.Tool, r.Excerpt, r.Reason, r.Rule, r.Session, r.ZertoError, r.Error}
	fields = append(fields, r.Targets...)
	for _, cp := range r.Checkpoints {
		fields = append(fields, cp.Tag, cp.Identifier, cp.VPG, cp.VM)
	}
	text = strings.ToLower(text)
	for _, f := range fields {
		if strings.Contains(strings.ToLower(f), text) {
			return true
		}
	}
	return false
}

// row is a record as the timeline shows it.
type row struct {
	ID         string
	Time       time.Time
	Host       string
	Session    string
	Tool       string
	Call       string
	Decision   string
	Rule       string
	Reason     string
	Targets    []string
	Points     []pointCell
	ZertoError string
	Error      string
	ElapsedMS  int64
	// Rewinds is, for a rewind's record, the audit ID it went back for.
	Rewinds string
	// ToolUseID is the host's id of the call, which the outcome its
	// post-tool hook reports later names (the live feed's "outcome"
	// event); empty for a record that is not a call's.
	ToolUseID string
	// Outcome is how the call ended, when known.
	Outcome outcomeView
}

// outcomeView is a call's outcome as the page shows it: a badge, and the
// host's error when it gave one. The live feed sends it as JSON when the
// host reports an outcome after the row was shown.
type outcomeView struct {
	// Text is audit.OutcomeText's word: "ran", "exit 2", "not run"; empty
	// while nothing is known.
	Text string `json:"text"`
	// State is the audit.Outcome state, for the badge's colour.
	State string `json:"state"`
	// Title says where the outcome comes from and how long the call ran.
	Title string `json:"title"`
	// Error is the host's message for a call that failed.
	Error string `json:"error,omitempty"`
}

func newOutcomeView(r *audit.Record) outcomeView {
	o := r.Outcome
	if o == nil {
		return outcomeView{}
	}
	v := outcomeView{Text: audit.OutcomeText(r), State: o.State, Error: o.Error}
	switch {
	case o.Reported && o.DurationMS != nil && *o.DurationMS > 0:
		v.Title = "reported by the host: " + v.Text + " after " + approx(time.Duration(*o.DurationMS)*time.Millisecond)
	case o.Reported:
		v.Title = "reported by the host"
	default:
		v.Title = "the host reported nothing of it, and its session went on past it: a person declined it, or another hook refused it"
	}
	return v
}

// pointCell is a checkpoint of a row, one per VPG, and the VMs it covers.
type pointCell struct {
	Tag, Identifier, VPG string
	VMs                  []string
	Time                 time.Time
	Anchor               string // the VMs view's element of this point
}

func newRow(r *audit.Record) row {
	call := r.Excerpt
	if call == "" {
		call = r.Tool
	}
	out := row{
		ID: r.ID, Time: r.Time, Host: r.Host, Session: r.Session, Tool: r.Tool, Call: call,
		Decision: r.Decision, Rule: r.Rule, Reason: r.Reason, Targets: r.Targets,
		ZertoError: r.ZertoError, Error: r.Error, ElapsedMS: r.ElapsedMS, Rewinds: r.Rewinds,
		ToolUseID: r.ToolUseID, Outcome: newOutcomeView(r),
	}
	for _, cp := range r.Checkpoints {
		i := slices.IndexFunc(out.Points, func(p pointCell) bool {
			return p.VPG == cp.VPG && p.Identifier == cp.Identifier && p.Tag == cp.Tag
		})
		if i < 0 {
			out.Points = append(out.Points, pointCell{Tag: cp.Tag, Identifier: cp.Identifier, VPG: cp.VPG, Time: cp.Time,
				Anchor: pointAnchor(cp.VPGIdentifier, cp.Identifier)})
			i = len(out.Points) - 1
		}
		if cp.VM != "" && !slices.Contains(out.Points[i].VMs, cp.VM) {
			out.Points[i].VMs = append(out.Points[i].VMs, cp.VM)
		}
	}
	return out
}

// timeline returns the rows of the records that pass f, newest first, at
// most maxRows, and how many passed.
func timeline(recs []audit.Record, f filter) (rows []row, matched int) {
	for i := len(recs) - 1; i >= 0; i-- {
		if !f.match(&recs[i]) {
			continue
		}
		matched++
		if len(rows) < maxRows {
			rows = append(rows, newRow(&recs[i]))
		}
	}
	return rows, matched
}

// choices are the values the filter's menus offer, from the log.
type choices struct {
	Sessions  []string
	Decisions []string
	VMs       []string
}

func choicesOf(recs []audit.Record) choices {
	var c choices
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	for i := len(recs) - 1; i >= 0; i-- {
		r := &recs[i]
		add(&c.Sessions, r.Session)
		add(&c.Decisions, r.Decision)
		for _, t := range r.Targets {
			add(&c.VMs, t)
		}
		for _, cp := range r.Checkpoints {
			add(&c.VMs, cp.VM)
		}
	}
	slices.Sort(c.Decisions)
	slices.Sort(c.VMs)
	return c
}
