package audit

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"
)

// DefaultTableWidth is the width WriteTable fits its table to.
const DefaultTableWidth = 100

// timeLayout is the TIME column's format, in local time.
const timeLayout = "01-02 15:04"

// Table layout: columns are separated by gap spaces, and a cut column keeps
// at least minFlexWidth runes.
const (
	gap          = 2
	minFlexWidth = 10
)

// WriteTable writes recs to w as a table for a person, DefaultTableWidth
// columns wide; see WriteTableWidth.
func WriteTable(w io.Writer, recs []Record) error {
	return WriteTableWidth(w, recs, DefaultTableWidth)
}

// WriteTableWidth writes recs to w as an aligned table for a person, in the
// order given (Read's order is newest last): ID, TIME (local), DECISION,
// TARGETS (each as written, and the Zerto VM it maps to), CALL (the
// command, or the tool and its input) and REASON (the checkpoint of a
// protected or pending call, else what the host was told). Cells are cut
// with "…" so that each line fits width columns; the cut falls on the
// widest of TARGETS, CALL and REASON first. Every cell is reduced to one
// line of printable text, because a log file can be edited by hand and
// must not drive the terminal.
func WriteTableWidth(w io.Writer, recs []Record, width int) error {
	header := []string{"ID", "TIME", "DECISION", "TARGETS", "CALL", "REASON"}
	rows := make([][]string, len(recs))
	for i := range recs {
		r := &recs[i]
		rows[i] = []string{
			cell(r.ID),
			formatTime(r.Time),
			cell(r.Decision),
			cell(targetsCell(r)),
			cell(callCell(r)),
			cell(reasonCell(r)),
		}
	}
	// A checkpoint's tag is how a person finds it in Zerto's console: the
	// REASON column is not cut below the longest one.
	mins := []int{0, 0, 0, minFlexWidth, minFlexWidth, minFlexWidth}
	for i := range recs {
		if cp := checkpointReason(&recs[i]); cp != "" {
			mins[5] = max(mins[5], utf8.RuneCountInString(cp))
		}
	}
	limits := fitWidths(header, rows, width, mins, 3)
	tw := tabwriter.NewWriter(w, 0, 0, gap, ' ', 0)
	for _, row := range append([][]string{header}, rows...) {
		for j, c := range row {
			if limits[j] > 0 && utf8.RuneCountInString(c) > limits[j] {
				c = truncate(c, limits[j])
			}
			sep := "\t"
			if j == len(row)-1 {
				sep = "\n"
			}
			fmt.Fprint(tw, c, sep)
		}
	}
	return tw.Flush()
}

// fitWidths returns the width limit of each column from flex on (0 for
// the fixed columns before it) such that the table fits width: the
// flexible columns are cut to one level, the greatest that fits, so that
// the widest give way first and narrow ones keep their width; none is cut
// below its minimum in mins.
func fitWidths(header []string, rows [][]string, width int, mins []int, flex int) []int {
	natural := make([]int, len(header))
	for _, row := range append([][]string{header}, rows...) {
		for j, c := range row {
			natural[j] = max(natural[j], utf8.RuneCountInString(c))
		}
	}
	avail := width - gap*(len(header)-1)
	for j := range flex {
		avail -= natural[j]
	}
	limit := func(j, level int) int { return max(min(natural[j], level), min(natural[j], mins[j])) }
	fits := func(level int) bool {
		sum := 0
		for j := flex; j < len(natural); j++ {
			sum += limit(j, level)
		}
		return sum <= avail
	}
	// The greatest level that fits, by bisection over [minFlexWidth, widest].
	lo, hi := 1, slices.Max(natural[flex:])
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	limits := make([]int, len(header))
	for j := flex; j < len(limits); j++ {
		limits[j] = limit(j, lo)
	}
	return limits
}

// targetsCell shows each target as written, with the Zerto VM the config
// mapped it to when that is another name: "192.168.7.14→app-03".
func targetsCell(r *Record) string {
	parts := make([]string, len(r.Targets))
	for i, t := range r.Targets {
		parts[i] = t
		if len(r.VMs) == len(r.Targets) && r.VMs[i] != "" && r.VMs[i] != t {
			parts[i] += "→" + r.VMs[i]
		}
	}
	return strings.Join(parts, ",")
}

// callCell is the command of a shell tool; a tool whose input is not a
// command is named before its input.
func callCell(r *Record) string {
	if r.Excerpt == "" || strings.HasPrefix(r.Excerpt, "{") {
		return strings.TrimSpace(r.Tool + " " + r.Excerpt)
	}
	return r.Excerpt
}

// reasonCell names the checkpoint of a protected or pending call or of a
// rewind, else gives the reason the host was told, or rewind's own error.
func reasonCell(r *Record) string {
	if cp := checkpointReason(r); cp != "" {
		return cp
	}
	if r.Reason != "" {
		return strings.TrimPrefix(r.Reason, "rewind: ")
	}
	return r.Error
}

// checkpointReason names the checkpoint of a protected or pending call, or
// of a rewind to it, by its tag, as Zerto's console shows it, counting the
// others; --json has their identifiers.
func checkpointReason(r *Record) string {
	switch r.Decision {
	case DecisionProtected, DecisionPending, DecisionUndoTest, DecisionUndoStopTest, DecisionUndoRestore:
	default:
		return ""
	}
	if len(r.Checkpoints) == 0 {
		return ""
	}
	s := r.Checkpoints[0].Tag
	if s == "" {
		s = r.Checkpoints[0].Identifier
	}
	if n := len(r.Checkpoints); n > 1 {
		s += fmt.Sprintf(" +%d", n-1)
	}
	return s
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format(timeLayout)
}

// cell makes s one line of printable text without tabs, and "-" when
// empty so that columns stay readable.
func cell(s string) string {
	s = singleLine(s)
	if s == "" {
		return "-"
	}
	return s
}
