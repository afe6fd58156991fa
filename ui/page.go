package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/recovery"
)

// DefaultZertoWait bounds what the VMs view and an action's checks wait
// for Zerto when Options.ZertoWait is zero: the view renders with what
// came by then, and says what did not.
const DefaultZertoWait = 5 * time.Second

// heartbeat keeps an idle live feed open through proxies and lets the
// server notice a page that went away.
const heartbeat = 15 * time.Second

func parseTemplates() (*template.Template, error) {
	funcs := template.FuncMap{
		"stamp":     stamp,
		"withTimes": withTimes,
		"join":      strings.Join,
		"decisionClass": func(d string) string {
			switch {
			case d == audit.DecisionProtected || d == audit.DecisionCheckpoint:
				return "ok"
			case d == audit.DecisionPending || d == audit.DecisionAsk || d == audit.DecisionAskOnError:
				return "warn"
			case d == audit.DecisionDeny || d == audit.DecisionDenyOnError || d == "undo-failed":
				return "bad"
			case strings.HasPrefix(d, "undo-"):
				return "undo"
			default:
				return "plain"
			}
		},
		"approx": approx,
		// The outcome of a call a restore undoes, and what is known of
		// those calls' outcomes.
		"outcomeOf":   func(r audit.Record) outcomeView { return newOutcomeView(&r) },
		"unknownNote": recovery.UnknownNote,
	}
	return template.New("").Funcs(funcs).ParseFS(assets, "assets/*.html")
}

// The page shows every time in one zone, marked: this machine's by
// default, UTC when the person chooses it. Each time is a <time> element
// whose datetime attribute holds it in UTC; the server writes it in this
// machine's zone, with the zone's name, and the page's script writes them
// all again in the zone chosen, the same way, also as new rows come in.

// stampLayout is how a time reads on the page, before its zone's name.
const stampLayout = "2006-01-02 15:04:05"

// stamp is t as a <time> element of the page; nothing for the zero time.
func stamp(t time.Time) template.HTML {
	if t.IsZero() {
		return ""
	}
	local := t.Local()
	zone, _ := local.Zone()
	return template.HTML(`<time class="t" datetime="` + t.UTC().Format(time.RFC3339Nano) + `">` +
		template.HTMLEscapeString(local.Format(stampLayout)+" "+zone) + `</time>`)
}

// timeInText finds the times rewind writes into reasons and Zerto
// messages: RFC 3339, such as 2026-12-01T05:15:32Z.
var timeInText = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)`)

// withTimes is text, escaped, with each time in it made a stamp, so that
// the times inside a reason follow the page's zone like the others.
func withTimes(text string) template.HTML {
	var b strings.Builder
	last := 0
	for _, m := range timeInText.FindAllStringIndex(text, -1) {
		t, err := time.Parse(time.RFC3339Nano, text[m[0]:m[1]])
		if err != nil {
			continue
		}
		b.WriteString(template.HTMLEscapeString(text[last:m[0]]))
		b.WriteString(string(stamp(t)))
		last = m[1]
	}
	b.WriteString(template.HTMLEscapeString(text[last:]))
	return template.HTML(b.String())
}

// approx writes a duration for a person: "200ms", "5s", "10m".
func approx(d time.Duration) string {
	switch {
	case d <= 0:
		return ""
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}

// indexData is what the page template renders.
type indexData struct {
	CSRF     string
	Filter   filter
	Filtered bool   // some filter is set
	Feed     string // the live feed's URL
	PollMS   int64  // how often a running action is looked at
	Rows     []row
	Matched  int
	Total    int
	Choices  choices
	LogPath  string
	LogError string
	VMs      vmsData
}

func (s *Server) index(w http.ResponseWriter, r *http.Request, csrf string) {
	f := filterFromQuery(r.URL.Query())
	d := indexData{CSRF: csrf, Filter: f, Filtered: f.active(), LogPath: s.o.Log.Path(), PollMS: s.o.Poll.Milliseconds()}
	d.Feed = "/events"
	if q := f.query(); q != "" {
		d.Feed += "?" + q
	}
	recs, err := s.o.Log.Read(audit.Filter{})
	if err != nil {
		d.LogError = err.Error()
		s.warn("reading the audit log", err)
	}
	d.Total = len(recs)
	d.Rows, d.Matched = timeline(recs, f)
	d.Choices = choicesOf(recs)
	// Zerto is asked by the page once it is shown: a slow or unreachable
	// ZVM must not hold up the timeline.
	d.VMs = s.vmsView(r.Context(), recs, false)
	s.render(w, "page.html", d)
}

func (s *Server) vmsFragment(w http.ResponseWriter, r *http.Request) {
	recs, err := s.o.Log.Read(audit.Filter{})
	if err != nil {
		http.Error(w, "rewind ui: reading the audit log: "+err.Error(), http.StatusInternalServerError)
		return
	}
	s.render(w, "vms", s.vmsView(r.Context(), recs, true))
}

func (s *Server) render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, name, data); err != nil {
		s.warn("rendering "+name, err)
		http.Error(w, "rewind ui: rendering the page failed: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// events streams the records appended from now on that pass the page's
// filter, each as a rendered row, until the page goes away or the server
// stops.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "rewind ui: streaming unsupported", http.StatusInternalServerError)
		return
	}
	f := filterFromQuery(r.URL.Query())
	ch, unsubscribe := s.watch.subscribe()
	defer unsubscribe()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// The first line tells the page the feed is open (and tests that it
	// is subscribed).
	fmt.Fprint(w, "retry: 2000\nevent: ready\ndata: {}\n\n")
	fl.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	ctx := r.Context()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.ctx.Done():
			return
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
			fl.Flush()
		case rec, ok := <-ch:
			if !ok {
				// Fell behind, or the server stops: the page reconnects
				// and reloads.
				fmt.Fprint(w, "event: reload\ndata: {}\n\n")
				fl.Flush()
				return
			}
			if err := s.sendRecord(w, &rec, f); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// sendRecord writes one record as a "record" event when it passes f. A
// record that changes the VMs view, a checkpoint or a rewind, also says so,
// for the page to refresh that part. The outcome of a call, which the
// host's post-tool hook appends after the call's record, is an "outcome"
// event whatever the filter: the page marks the call's row, if it shows
// it, and the VMs view, if it lists the call.
func (s *Server) sendRecord(w http.ResponseWriter, rec *audit.Record, f filter) error {
	if rec.ID == "" {
		return sendOutcome(w, rec)
	}
	refresh := len(rec.Checkpoints) > 0
	if !f.match(rec) {
		if refresh {
			_, err := fmt.Fprint(w, "event: vms\ndata: {}\n\n")
			return err
		}
		return nil
	}
	var buf bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&buf, "row", newRow(rec)); err != nil {
		s.warn("rendering a row", err)
		return nil
	}
	event := "record"
	if refresh {
		event = "record-vms"
	}
	if _, err := fmt.Fprintf(w, "event: %s\n", event); err != nil {
		return err
	}
	// A data field ends at a newline: each line of the row goes in its
	// own, and the page joins them back with newlines.
	for line := range strings.SplitSeq(buf.String(), "\n") {
		if _, err := fmt.Fprintf(w, "data: %s\n", strings.TrimRight(line, "\r")); err != nil {
			return err
		}
	}
	_, err := fmt.Fprint(w, "\n")
	return err
}

// outcomeEvent is the data of an "outcome" event: the call, by its host,
// session and tool-use id, as its row names it, and its outcome.
type outcomeEvent struct {
	Host      string `json:"host"`
	Session   string `json:"session"`
	ToolUseID string `json:"tool_use_id"`
	outcomeView
}

func sendOutcome(w http.ResponseWriter, rec *audit.Record) error {
	data, err := json.Marshal(outcomeEvent{rec.Host, rec.Session, rec.ToolUseID, newOutcomeView(rec)})
	if err != nil {
		return nil // an outcome always encodes
	}
	_, err = fmt.Fprintf(w, "event: outcome\ndata: %s\n\n", data)
	return err
}

// zertoContext bounds a request's wait for Zerto.
func (s *Server) zertoContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.o.ZertoWait)
}
