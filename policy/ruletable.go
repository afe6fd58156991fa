package policy

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Column widths of WriteRules: EFFECT and KIND fit their longest values,
// FAMILY the longest family, RULE is as wide as the longest name up to
// maxRuleWidth; a longer name puts its reason on the next line.
const (
	effectWidth  = len("protect")
	kindWidth    = len("command")
	maxRuleWidth = 40
	rulesWidth   = 100
)

// WriteRules writes the effective rules as `rewind catalog` prints them
// (and rewind's MCP server serves them): in the order they are tried, in
// aligned columns, EFFECT, KIND, FAMILY, RULE and REASON (a rule of no
// family shows "-"), each followed by an
// "if ..." line with the conditions it needs besides its name, under a
// "# origin" line for each config they come from.
func (p *Policy) WriteRules(w io.Writer) error {
	return WriteRuleTable(w, p.Rules())
}

// WriteRuleTable writes rules as WriteRules does: a part of them, such as
// one family's (`rewind catalog FAMILY`).
func WriteRuleTable(w io.Writer, rules []RuleInfo) error {
	ruleWidth, familyWidth := len("RULE"), len("FAMILY")
	for _, r := range rules {
		if n := utf8.RuneCountInString(r.Name); n <= maxRuleWidth {
			ruleWidth = max(ruleWidth, n)
		}
		familyWidth = max(familyWidth, utf8.RuneCountInString(r.Family))
	}
	indent := strings.Repeat(" ", effectWidth+2+kindWidth+2+familyWidth+2)
	reasonIndent := strings.Repeat(" ", len(indent)+ruleWidth+2)
	var b strings.Builder
	origin := ""
	for _, r := range rules {
		if r.Origin != origin {
			if origin != "" {
				b.WriteString("\n")
			}
			origin = r.Origin
			fmt.Fprintf(&b, "# %s\n", origin)
			fmt.Fprintf(&b, "%-*s  %-*s  %-*s  %-*s  %s\n", effectWidth, "EFFECT", kindWidth, "KIND", familyWidth, "FAMILY", ruleWidth, "RULE", "REASON")
		}
		family := r.Family
		if family == "" {
			family = "-"
		}
		fmt.Fprintf(&b, "%-*s  %-*s  %-*s  ", effectWidth, r.Effect, kindWidth, r.Kind, familyWidth, family)
		if n := utf8.RuneCountInString(r.Name); n > ruleWidth {
			fmt.Fprintf(&b, "%s\n%s%s\n", r.Name, reasonIndent, r.Reason)
		} else {
			fmt.Fprintf(&b, "%s%s  %s\n", r.Name, strings.Repeat(" ", ruleWidth-n), r.Reason)
		}
		if len(r.Conditions) > 0 {
			for _, line := range wrapWords(r.Conditions, rulesWidth-len(indent)-3) {
				fmt.Fprintf(&b, "%s   %s\n", indent, line)
			}
		}
	}
	out := strings.ReplaceAll(b.String(), " \n", "\n")
	_, err := io.WriteString(w, out)
	return err
}

// wrapWords joins words with spaces into lines of about width runes, the
// first starting "if "; a word longer than a line gets one of its own.
func wrapWords(words []string, width int) []string {
	var lines []string
	line := "if"
	for _, wd := range words {
		if utf8.RuneCountInString(line)+1+utf8.RuneCountInString(wd) > width && line != "if" && line != "" {
			lines = append(lines, line)
			line = "  " + wd
			continue
		}
		line += " " + wd
	}
	return append(lines, line)
}
