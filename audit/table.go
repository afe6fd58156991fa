package audit

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// Column widths past which WriteTable cuts a cell, so that one long line
// does not push the table off the screen.
const (
	maxTargetsWidth    = 30
	maxCheckpointWidth = 56
	maxExcerptWidth    = 60
)

// timeLayout is the TIME column's format, in local time.
const timeLayout = "2006-01-02 15:04:05"

// WriteTable writes recs to w as an aligned table for a person, in the order
// given (Read's order is newest last): ID, TIME (local), DECISION, TOOL,
// TARGETS, CHECKPOINT (tag and identifier) and EXCERPT, long cells cut short.
// Every cell is reduced to one line of printable text, because a log file can
// be edited by hand and must not drive the terminal.
func WriteTable(w io.Writer, recs []Record) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTIME\tDECISION\tTOOL\tTARGETS\tCHECKPOINT\tEXCERPT")
	for i := range recs {
		r := &recs[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			cell(r.ID, 0),
			formatTime(r.Time),
			cell(r.Decision, 0),
			cell(r.Tool, 0),
			cell(strings.Join(r.Targets, ","), maxTargetsWidth),
			cell(checkpointCell(r.Checkpoints), maxCheckpointWidth),
			cell(r.Excerpt, maxExcerptWidth),
		)
	}
	return tw.Flush()
}

// checkpointCell names the first checkpoint by tag and identifier, counting
// the others; a pending one shows its tag alone.
func checkpointCell(cps []Checkpoint) string {
	if len(cps) == 0 {
		return ""
	}
	cp := cps[0]
	s := cp.Tag
	switch {
	case cp.Identifier != "" && s != "":
		s += " (" + cp.Identifier + ")"
	case cp.Identifier != "":
		s = cp.Identifier
	case s != "":
		s += " (pending)"
	}
	if len(cps) > 1 {
		s += fmt.Sprintf(" +%d", len(cps)-1)
	}
	return s
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(timeLayout)
}

// cell makes s one line of printable text without tabs, cut to max runes
// when max > 0, and "-" when empty so that columns stay readable.
func cell(s string, max int) string {
	s = singleLine(s)
	if max > 0 && utf8.RuneCountInString(s) > max {
		s = truncate(s, max)
	}
	if s == "" {
		return "-"
	}
	return s
}
