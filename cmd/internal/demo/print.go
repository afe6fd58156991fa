package demo

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ANSI colours, used only when Options.Color is set.
const (
	reset  = "\x1b[0m"
	bold   = "\x1b[1m"
	dim    = "\x1b[2m"
	red    = "\x1b[31m"
	green  = "\x1b[32m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
)

var decisionColor = map[Decision]string{
	None:         dim + green,
	Protect:      bold + green,
	Pending:      yellow,
	Ask:          cyan,
	Deny:         bold + red,
	UndoTest:     bold + cyan,
	UndoStopTest: cyan,
}

// label is a decision as the table's column shows it: a rewind step is
// "undo", its call saying which.
func label(d Decision) string {
	if d == UndoTest || d == UndoStopTest {
		return "undo"
	}
	return string(d)
}

// indent is where a step's detail lines start, under its call.
const indent = 13

type printer struct {
	o   Options
	err error
}

func newPrinter(o Options) *printer { return &printer{o: o} }

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.o.Out, format, args...)
	}
}

func (p *printer) paint(color, s string) string {
	if !p.o.Color || color == "" {
		return s
	}
	return color + s + reset
}

func (p *printer) header(url string) {
	if p.o.JSON {
		return
	}
	p.printf("%s\n", p.paint(bold, "rewind demo: an agent session on the built-in rules, each call through the real hook"))
	about := fmt.Sprintf("Zerto: a ZVM simulator at %s with VPGs %s (a checkpoint every 0.5 s), %s (every 630 s, at an AWS site) and %s (refuses tagged checkpoints).",
		url, fastVPG, slowVPG, refusingVPG)
	access := fmt.Sprintf("It is set up for least privilege, as a real ZVM should be: the hook logs in as client %s, which may tag checkpoints and read, nothing more; going back is a person's.",
		clientID)
	for _, text := range []string{about, access} {
		for _, l := range wrap(text, p.o.Width) {
			p.printf("%s\n", p.paint(dim, l))
		}
	}
	p.printf("\n")
}

// result prints one step: a JSON line, or the table's rows for it.
func (p *printer) result(r *Result) error {
	if p.o.JSON {
		b, err := marshalLine(r)
		if err != nil {
			return err
		}
		p.printf("%s\n", b)
		return p.err
	}
	num := fmt.Sprintf("%2d", r.Step)
	dec := fmt.Sprintf("%-8s", label(r.Decision))
	took := fmt.Sprintf("%.1fs", r.elapsed.Seconds())
	callWidth := p.o.Width - indent - len(took) - 1
	p.printf("%s  %s %s %s\n", num, p.paint(decisionColor[r.Decision], dec),
		pad(cut(r.Call, callWidth), callWidth), p.paint(dim, took))
	p.detail("", r.about, dim)
	if r.Checkpoint != "" {
		point := r.Checkpoint
		if r.CheckpointIdentifier != "" {
			point += fmt.Sprintf(" (CheckpointIdentifier %s) on VPG %s at %s", r.CheckpointIdentifier, r.VPG,
				r.Time.Format(time.RFC3339))
		} else {
			point += fmt.Sprintf(" on VPG %s, accepted by Zerto, not written yet", r.VPG)
		}
		p.detail("rewind point: ", point, "")
	}
	p.detail("reason: ", r.Reason, "")
	p.printf("\n")
	return p.err
}

// detail prints a labelled text under the step, wrapped to the width, each
// line in color.
func (p *printer) detail(label, text, color string) {
	if text == "" {
		return
	}
	for _, l := range wrap(label+text, p.o.Width-indent) {
		p.printf("%s%s\n", strings.Repeat(" ", indent), p.paint(color, l))
	}
}

func (p *printer) footer(calls, rewinds int, took time.Duration, counts map[Decision]int) {
	if p.o.JSON {
		return
	}
	var parts []string
	for _, d := range []Decision{None, Protect, Pending, Ask, Deny} {
		if counts[d] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[d], d))
		}
	}
	what := fmt.Sprintf("%d calls", calls)
	if rewinds > 0 {
		what += fmt.Sprintf(" and %d rewind steps", rewinds)
	}
	p.printf("%s in %.1fs: %s.\n", what, took.Seconds(), strings.Join(parts, ", "))
	if p.o.After != nil {
		p.printf("%s\n", p.paint(dim, "The state, audit log, config and token cache live in a temporary folder, removed when you stop the page."))
		return
	}
	p.printf("%s\n", p.paint(dim, "The state, audit log, config and token cache lived in a temporary folder, now removed."))
}

// marshalLine is the --json form of a result: the fields of Result, with
// empty strings kept so that every line has the same keys.
func marshalLine(r *Result) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// cut shortens s to max runes, ending in "…".
func cut(s string, max int) string {
	if max < 1 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

func pad(s string, width int) string {
	if n := utf8.RuneCountInString(s); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}

// wrap breaks s into lines of at most width runes at spaces; a word longer
// than width gets a line of its own.
func wrap(s string, width int) []string {
	var (
		lines []string
		line  strings.Builder
		n     int
	)
	for _, w := range strings.Fields(s) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > width {
			lines = append(lines, line.String())
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(w)
		n += wn
	}
	if n > 0 {
		lines = append(lines, line.String())
	}
	return lines
}
