package audit

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
)

// DefaultTableWidth is the width WriteTable fits its table to, and the
// width for output that is not a terminal.
const DefaultTableWidth = 100

// timeLayout is the TIME column's format; retryLayout is a pending call's
// retry time, which counts in seconds.
const (
	timeLayout  = "01-02 15:04"
	retryLayout = "15:04:05"
)

// gap is the spaces between two columns.
const gap = 2

// TableOptions say how WriteTableOptions lays out the table.
type TableOptions struct {
	// Width is the number of terminal columns every line fits in;
	// DefaultTableWidth when 0.
	Width int
	// Color marks each decision with an ANSI colour, for a terminal.
	Color bool
	// Location is the time zone of the times shown: time.Local when nil.
	// The TIME column's header names it.
	Location *time.Location
	// Outcome, when set, adds an OUTCOME column after DECISION: what
	// became of the call once the host ran it or not ("ran", "exit 2",
	// "not run", as OutcomeText says it), "" when nothing is known (shown
	// "-"). The column is left out when nothing is known of any call
	// shown (the hosts that wrote the log report no outcomes), and on a
	// terminal too narrow to keep outcomeRoom columns for TARGETS, CALL
	// and REASON beside it: which call it was matters more than how it
	// ended, which --json and a wider table still say.
	Outcome func(*Record) string
}

// outcomeRoom is what TARGETS, CALL and REASON keep between them beside
// an OUTCOME column: a VM's name, the start of a command and a reason's
// cause (flexMin, the reason cut to the command's width). At 100 columns
// (piped) there is room for it; at 80, only for a short log.
const outcomeRoom = 36

// WriteTable writes recs to w as a table for a person, DefaultTableWidth
// columns wide, in local time; see WriteTableOptions.
func WriteTable(w io.Writer, recs []Record) error {
	return WriteTableOptions(w, recs, TableOptions{})
}

// WriteTableOptions writes recs to w as an aligned table for a person, in
// the order given (Read's order is newest last): ID, TIME, DECISION,
// OUTCOME (with TableOptions.Outcome), TARGETS (each as written, and the
// Zerto VM it maps to), CALL (the command, or the tool and its input) and
// REASON (the checkpoint of a protected call or of a rewind; a pending
// call's tag and when to retry it; else what the host was told).
//
// Every line fits o.Width terminal columns, counting wide characters
// twice, so that no row wraps. Columns up to DECISION (and OUTCOME) keep
// their width. What is left goes to CALL first, so that two commands can
// be told apart, then to REASON, then to TARGETS. A cell that does not
// fit is shortened by what it holds: a command keeps its start, a
// checkpoint tag its start and its end, a reason its cause (see
// shortReason). Every cell is reduced to one line of printable text,
// because a log file can be edited by hand and must not drive the
// terminal.
func WriteTableOptions(w io.Writer, recs []Record, o TableOptions) error {
	if o.Width <= 0 {
		o.Width = DefaultTableWidth
	}
	loc := o.Location
	if loc == nil {
		loc = time.Local
	}
	header := []string{"ID", timeHeader(recs, loc), "DECISION"}
	rows := make([]tableRow, len(recs))
	for i := range recs {
		r := &recs[i]
		rows[i] = tableRow{
			cells:    []string{cell(r.ID), formatTime(r.Time, loc), cell(r.Decision)},
			decision: r.Decision,
			reason:   reasonOf(r, loc),
		}
	}
	if o.Outcome != nil {
		outcomes := make([]string, len(recs))
		known := false
		for i := range recs {
			outcomes[i] = singleLine(o.Outcome(&recs[i]))
			known = known || outcomes[i] != ""
		}
		if known && roomForOutcome(o.Width, header, rows, outcomes) {
			header = append(header, "OUTCOME")
			for i := range rows {
				rows[i].cells = append(rows[i].cells, orDash(outcomes[i]))
			}
		}
	}
	fixed := len(header)
	header = append(header, "TARGETS", "CALL", "REASON")
	for i := range rows {
		rows[i].cells = append(rows[i].cells, cell(targetsCell(&recs[i])), cell(callCell(&recs[i])), "")
	}

	widths := make([]int, len(header))
	for j, h := range header {
		widths[j] = DisplayWidth(h)
	}
	for _, row := range rows {
		for j := range fixed {
			widths[j] = max(widths[j], DisplayWidth(row.cells[j]))
		}
	}
	natural := func(j int) int {
		n := DisplayWidth(header[j])
		for _, row := range rows {
			if j == len(header)-1 {
				n = max(n, DisplayWidth(row.reason.full()))
			} else {
				n = max(n, DisplayWidth(row.cells[j]))
			}
		}
		return n
	}
	avail := o.Width - gap*(len(header)-1)
	for j := range fixed {
		avail -= widths[j]
	}
	flex := fitFlex(avail, [3]int{natural(fixed), natural(fixed + 1), natural(fixed + 2)},
		[3]int{DisplayWidth(header[fixed]), DisplayWidth(header[fixed+1]), DisplayWidth(header[fixed+2])})
	copy(widths[fixed:], flex[:])

	bw := bufio.NewWriter(w)
	writeRow(bw, header, widths, "", o.Color)
	for _, row := range rows {
		row.cells[fixed] = cutEnd(row.cells[fixed], widths[fixed])
		row.cells[fixed+1] = cutEnd(row.cells[fixed+1], widths[fixed+1])
		row.cells[fixed+2] = row.reason.fit(widths[fixed+2])
		writeRow(bw, row.cells, widths, row.decision, o.Color)
	}
	return bw.Flush()
}

// roomForOutcome reports whether a table width columns wide, whose fixed
// columns are header and the rows' cells so far, keeps outcomeRoom columns
// for the flexible ones beside an OUTCOME column of outcomes.
func roomForOutcome(width int, header []string, rows []tableRow, outcomes []string) bool {
	used := DisplayWidth("OUTCOME")
	for _, s := range outcomes {
		used = max(used, DisplayWidth(orDash(s)))
	}
	for j, h := range header {
		w := DisplayWidth(h)
		for _, row := range rows {
			w = max(w, DisplayWidth(row.cells[j]))
		}
		used += w
	}
	// The gaps between the fixed columns, OUTCOME and the three others.
	used += gap * (len(header) + 3)
	return width-used >= outcomeRoom
}

// OutcomeText is how a call ended, in a word or two for a table cell or
// a badge: "ran" (for a shell, exited 0), "exit 2" (a shell's non-zero
// status), "error" (a tool's failure, or a shell that reported no status),
// "stopped" (interrupted), "not run" (the host said so, or the log shows
// it; see Log.Read); "" while nothing is known, as for a call of a host
// that reports no outcomes, or for a record that is not a call's.
func OutcomeText(r *Record) string {
	o := r.Outcome
	if o == nil {
		return ""
	}
	switch o.State {
	case OutcomeRan, OutcomeFailed:
		switch {
		case o.ExitCode != nil && *o.ExitCode != 0:
			return fmt.Sprintf("exit %d", *o.ExitCode)
		case o.State == OutcomeRan:
			return "ran"
		}
		return "error"
	case OutcomeInterrupted:
		return "stopped"
	case OutcomeNotRun:
		return "not run"
	}
	// A state this version does not know (a newer rewind wrote it, or a
	// person): shown as it is, shortened.
	return cutEnd(singleLine(o.State), 10)
}

// tableRow is one record's cells before the flexible ones are fitted.
type tableRow struct {
	cells    []string
	decision string
	reason   reason
}

// writeRow writes cells padded to widths, the decision (the third cell)
// coloured when color is set. The last cell is not padded, so that no line
// ends in spaces.
func writeRow(w *bufio.Writer, cells []string, widths []int, decision string, color bool) {
	for j, c := range cells {
		if j > 0 {
			w.WriteString(strings.Repeat(" ", gap))
		}
		if j == 2 && color && decision != "" {
			if sgr := DecisionColor(decision); sgr != "" {
				c = sgr + c + "\x1b[0m"
			}
		}
		w.WriteString(c)
		if j < len(cells)-1 {
			w.WriteString(strings.Repeat(" ", max(0, widths[j]-DisplayWidth(cells[j]))))
		}
	}
	w.WriteByte('\n')
}

// DecisionColor is the ANSI (SGR) sequence a decision is shown in on a
// terminal, "" for none: what let a call run in green, what held it back
// in yellow or cyan, a refusal in red, rewind's own failure in magenta,
// rewinds in blue.
func DecisionColor(d string) string {
	switch d {
	case DecisionNone:
		return "\x1b[2;32m"
	case DecisionProtected, DecisionCheckpoint:
		return "\x1b[1;32m"
	case DecisionPending:
		return "\x1b[33m"
	case DecisionAsk:
		return "\x1b[36m"
	case DecisionDeny, DecisionUndoFailed:
		return "\x1b[1;31m"
	case DecisionAllowOnError, DecisionAskOnError, DecisionDenyOnError:
		return "\x1b[1;35m"
	case DecisionUndoTest, DecisionUndoStopTest, DecisionUndoRestore, DecisionUndoRollback, DecisionUndoCommit:
		return "\x1b[1;34m"
	}
	return ""
}

// The flexible columns' steps: after each column has its minimum, the
// room left is handed out in this order, each step taking a column up to
// a width (or its natural width, when narrower). CALL comes first, so
// that "ssh web-01 uptime" and "ssh web-01 reboot" can be told apart;
// then REASON, up to a checkpoint tag whole (from 100 columns on). What
// is left after the steps is shared by CALL and REASON, the wider giving
// way first, and what they leave goes to TARGETS.
var flexSteps = []struct{ col, upTo int }{
	{1, 18}, {2, 32}, {0, 16}, {1, 40}, {2, 64}, {0, 24},
}

// flexMin is the width the flexible columns (TARGETS, CALL, REASON) keep
// before any other gets more: a VM name such as "legacy-0…", the start of
// a command, a reason's cause.
var flexMin = [3]int{8, 14, 20}

// fitFlex returns the widths of TARGETS, CALL and REASON, whose widest
// cells are natural, in avail columns.
func fitFlex(avail int, natural, floor [3]int) [3]int {
	var w [3]int
	for j := range w {
		w[j] = min(natural[j], flexMin[j])
	}
	// On a terminal too narrow for the minimums, the widest column gives
	// way first, down to the width of its header.
	for sum(w) > avail {
		j := -1
		for k := range w {
			if w[k] > floor[k] && (j < 0 || w[k] > w[j]) {
				j = k
			}
		}
		if j < 0 {
			break
		}
		w[j]--
	}
	left := avail - sum(w)
	for _, s := range flexSteps {
		if left <= 0 {
			break
		}
		grow := max(0, min(left, min(s.upTo, natural[s.col])-w[s.col]))
		w[s.col] += grow
		left -= grow
	}
	// The greatest level that CALL and REASON can both be raised to.
	level := func(l int) int { return max(w[1], min(natural[1], l)) + max(w[2], min(natural[2], l)) }
	lo, hi := 0, max(natural[1], natural[2])
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if level(mid) <= w[1]+w[2]+left {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for _, j := range []int{1, 2} {
		grown := max(w[j], min(natural[j], lo))
		left -= grown - w[j]
		w[j] = grown
	}
	// What the level leaves (less than a column each), then TARGETS.
	for _, j := range []int{1, 2, 0} {
		grow := max(0, min(left, natural[j]-w[j]))
		w[j] += grow
		left -= grow
	}
	return w
}

func sum(w [3]int) int { return w[0] + w[1] + w[2] }

// timeHeader is the TIME column's header, naming the zone of its times:
// "TIME (CET)", or "TIME (CET/CEST)" for a log that spans a change of
// summer time.
func timeHeader(recs []Record, loc *time.Location) string {
	var zones []string
	for i := range recs {
		if recs[i].Time.IsZero() {
			continue
		}
		if z, _ := recs[i].Time.In(loc).Zone(); !slices.Contains(zones, z) {
			zones = append(zones, z)
		}
	}
	if len(zones) == 0 {
		z, _ := time.Now().In(loc).Zone()
		zones = []string{z}
	}
	return "TIME (" + strings.Join(zones, "/") + ")"
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

// reason is a REASON cell that knows how to shorten itself: a checkpoint
// tag (with a count of others) and a retry time, or a text.
type reason struct {
	tag   string // a checkpoint's tag, "" for a text
	more  int    // further checkpoints, shown "+N"
	retry string // a pending call's retry time, already formatted
	text  string // the reason, when there is no tag
	// chain says the text ends in an error chain ("a: b: c"), whose last
	// links say the cause, rather than in a sentence whose start does.
	chain bool
}

// reasonOf is the REASON of r: the checkpoint of a protected or pending
// call, of a rewind (the point it went back to, or whose restore it
// rolled back or committed) or of a checkpoint taken on its own (such as
// the one just before a restore), by its tag as Zerto's console shows it
// (--json has the identifiers); for a rewind that failed, why; else the
// reason the host was told, or rewind's own error.
func reasonOf(r *Record, loc *time.Location) reason {
	switch r.Decision {
	case DecisionProtected, DecisionPending, DecisionCheckpoint,
		DecisionUndoTest, DecisionUndoStopTest, DecisionUndoRestore, DecisionUndoRollback, DecisionUndoCommit:
		if len(r.Checkpoints) > 0 {
			rs := reason{tag: singleLine(r.Checkpoints[0].Tag), more: len(r.Checkpoints) - 1}
			if rs.tag == "" {
				rs.tag = singleLine(r.Checkpoints[0].Identifier)
			}
			if r.Decision == DecisionPending {
				if t, ok := RetryAfter(r); ok {
					rs.retry = t.In(loc).Format(retryLayout)
				}
			}
			return rs
		}
	}
	text := r.Reason
	// A failed rewind's reason says what was tried; its error says why
	// it failed.
	if text == "" || r.Decision == DecisionUndoFailed && r.Error != "" {
		text = r.Error
	}
	text = singleLine(strings.TrimPrefix(singleLine(text), "rewind: "))
	chain := strings.HasPrefix(text, "no checkpoint for ")
	switch r.Decision {
	case DecisionAllowOnError, DecisionAskOnError, DecisionDenyOnError, DecisionUndoFailed:
		chain = true
	}
	return reason{text: text, chain: chain}
}

// retryRe finds the retry time in a pending call's reason, as the hook
// words it. Like the expressions below, it is compiled on first use: the
// hook, which links this package to log its decisions, never reads them.
var retryRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`Retry this call after (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d))`)
})

// RetryAfter returns the time after which a pending call is to be
// retried, as the hook told the agent (the hook says when its tag is
// expected, and the retry reuses that tag): the record's RetryAfter, or,
// on a record written before it existed, the time in its reason.
func RetryAfter(r *Record) (time.Time, bool) {
	if r.Decision != DecisionPending {
		return time.Time{}, false
	}
	if !r.RetryAfter.IsZero() {
		return r.RetryAfter, true
	}
	m := retryRe().FindStringSubmatch(r.Reason)
	if m == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, m[1])
	return t, err == nil
}

func (rs reason) full() string {
	if rs.tag == "" {
		return orDash(rs.text)
	}
	return rs.tagPart(rs.tag) + rs.retryPart()
}

func (rs reason) tagPart(tag string) string {
	if rs.more > 0 {
		return fmt.Sprintf("%s +%d", tag, rs.more)
	}
	return tag
}

func (rs reason) retryPart() string {
	if rs.retry == "" {
		return ""
	}
	return ", retry after " + rs.retry
}

// fit returns the cell in at most w columns. A tag loses its middle, so
// that its time stamp's start and its ending (the call's ID) still name
// it, and the retry time is kept whole; a text is shortened by
// shortReason.
func (rs reason) fit(w int) string {
	if s := rs.full(); DisplayWidth(s) <= w {
		return s
	}
	if rs.tag == "" {
		return shortReason(rs.text, rs.chain, w)
	}
	rest := DisplayWidth(rs.tagPart("") + rs.retryPart())
	if rs.retry == "" || w-rest >= 16 {
		return cutMiddle(rs.tagPart(cutMiddle(rs.tag, max(w-rest, 1)))+rs.retryPart(), w)
	}
	// Too narrow for both: when to retry matters more than the tag,
	// whose end is the call's ID anyway.
	for _, s := range []string{"retry after " + rs.retry, "retry " + rs.retry} {
		if DisplayWidth(s) <= w {
			return s
		}
	}
	return cutEnd("retry "+rs.retry, w)
}

// sentenceEnd is where a reason's first sentence ends: the hook adds its
// hints ("Fix: ...", "If it is a protected VM under another name, ...")
// as sentences after the one that says why.
var sentenceEnd = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\. [A-Z]`) })

// trailingNote is a parenthesis at the end of a reason's sentence that
// names the rule or setting behind it: "(rule: catalog:govc vm.destroy)",
// "(rule catalog:* would change web-01)", "(hook.on_error = deny)".
var trailingNote = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\((?:rule[: ]|hook\.)[^()]*\)\.?$`) })

// checkpointFor is the start of a reason for a call that got no
// checkpoint: "no checkpoint for web-01 (VPG "web"): " (the targets are
// in their own column).
var checkpointFor = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^no checkpoint for [^:]*: `) })

// shortReason returns text, a reason as rewind words it, shortened to w
// columns with its cause kept. Reasons are built as a first sentence that
// says why, then hints: a rule's reason followed by its name; "no
// checkpoint for TARGET (VPG ...): " followed by Zerto's own message or the
// error; rewind's own error under hook.on_error. So the hints go first,
// then the rule's name, then "for TARGET (VPG ...)"; an error chain (chain
// set) then loses its first links, whose last ones say what failed
// ("…connect: connection refused"); anything else is cut at its end.
func shortReason(text string, chain bool, w int) string {
	if DisplayWidth(text) <= w {
		return text
	}
	if loc := sentenceEnd().FindStringIndex(text); loc != nil {
		text = text[:loc[0]]
		if DisplayWidth(text) <= w {
			return text
		}
	}
	text = trailingNote().ReplaceAllString(text, "")
	if DisplayWidth(text) <= w {
		return text
	}
	if m := checkpointFor().FindString(text); m != "" {
		text = "no checkpoint: " + text[len(m):]
		if DisplayWidth(text) <= w {
			return text
		}
	}
	if chain {
		lead := ""
		body := text
		if rest, ok := strings.CutPrefix(text, "no checkpoint: "); ok {
			lead, body = "no checkpoint: ", rest
		}
		// The longest tail after a ": " that fits, with the lead when
		// there is room for it; else the start of the last link.
		last := ""
		for i := 0; i+2 <= len(body); i++ {
			if !strings.HasPrefix(body[i:], ": ") {
				continue
			}
			tail := body[i+2:]
			if s := lead + "…" + tail; DisplayWidth(s) <= w {
				return s
			}
			if s := "…" + tail; DisplayWidth(s) <= w {
				return s
			}
			last = tail
		}
		if last != "" {
			return cutEnd("…"+last, w)
		}
	}
	return cutEnd(text, w)
}

func formatTime(t time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(loc).Format(timeLayout)
}

// cell makes s one line of printable text without tabs, and "-" when
// empty so that columns stay readable.
func cell(s string) string {
	return orDash(singleLine(s))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// DisplayWidth is how many terminal columns s takes: two for a wide
// (East Asian or emoji) character, none for a combining mark. It is meant
// for single-line text without control characters, as table cells are.
func DisplayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me) || r == 0x200B:
		return 0
	case isWide(r):
		return 2
	}
	return 1
}

// wideRanges are the East Asian Wide and Fullwidth blocks and the emoji
// that terminals show two columns wide.
var wideRanges = [][2]rune{
	{0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0}, {0x23F3, 0x23F3},
	{0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F}, {0x2693, 0x2693}, {0x26A1, 0x26A1},
	{0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5}, {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA},
	{0x26F2, 0x26F3}, {0x26F5, 0x26F5}, {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B},
	{0x2728, 0x2728}, {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
	{0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
	{0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF}, {0xA960, 0xA97F},
	{0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F}, {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6},
	{0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
	{0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B}, {0x1F240, 0x1F248},
	{0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F64F}, {0x1F680, 0x1F6FF}, {0x1F7E0, 0x1F7EB},
	{0x1F90C, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x3FFFD},
}

func isWide(r rune) bool {
	if r < 0x1100 {
		return false
	}
	_, found := slices.BinarySearchFunc(wideRanges, r, func(rg [2]rune, r rune) int {
		switch {
		case rg[1] < r:
			return -1
		case rg[0] > r:
			return 1
		}
		return 0
	})
	return found
}

// Cut returns s as one line of printable text of at most width terminal
// columns, ending in "…" when cut: a log line shown outside the table,
// such as in a status line.
func Cut(s string, width int) string { return cutEnd(singleLine(s), width) }

// cutEnd cuts s to at most w columns, the last of them "…" when cut.
func cutEnd(s string, w int) string {
	if DisplayWidth(s) <= w {
		return s
	}
	if w <= 0 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		rw := runeWidth(r)
		if n+rw > w-1 {
			break
		}
		b.WriteRune(r)
		n += rw
	}
	return strings.TrimRight(b.String(), " ") + "…"
}

// cutMiddle cuts s to at most w columns by putting "…" in place of its
// middle, keeping as much of its start as of its end.
func cutMiddle(s string, w int) string {
	if DisplayWidth(s) <= w {
		return s
	}
	if w < 3 {
		return cutEnd(s, w)
	}
	rs := []rune(s)
	tailW := (w - 1) / 2
	tail, tw := len(rs), 0
	for tail > 0 && tw+runeWidth(rs[tail-1]) <= tailW {
		tail--
		tw += runeWidth(rs[tail])
	}
	head, hw := 0, 0
	for head < tail && hw+runeWidth(rs[head]) <= w-1-tw {
		hw += runeWidth(rs[head])
		head++
	}
	return string(rs[:head]) + "…" + string(rs[tail:])
}
