package policy

import "strings"

// ClassifyUnread judges a call whose input could not be read (an event
// the decoder refused: nested past its depth limit, invalid, a key twice)
// by the names its tool could have, so that a call that could change a VM
// is not let through by hook.on_error alone. Each name is judged with its
// input unknown, as every input could make it: a shell or PowerShell tool
// could run anything; a tool rule that matches the name whatever the
// input decides; one that needs more of the input, a rule on written
// files, a guarded server and the words of an MCP tool (with and without
// a VM named) each could apply. The verdict is deny when every reading of
// every name is deny, ask when any could protect, ask or deny, and none
// when the names say the call cannot change a VM.
//
// The hook asks it of every call, ahead of need (the watch's answer should
// the analysis outlast the budget), so its reasons are joined, not
// formatted: fmt's first use costs a hook process some microseconds.
func (p *Policy) ClassifyUnread(tools []string) Verdict {
	// Every name is a reading of the call; within a name, the first tool
	// rule that matches decides, so each matching rule is an alternative,
	// and the rules on written files add to whichever it is.
	allDeny, could := len(tools) > 0, false
	rule, reason := "", ""
	for _, tool := range tools {
		deny, most, r := p.couldDo(tool)
		for _, t := range p.tighten {
			td, tm, tr := t.couldDo(tool)
			deny, most = deny || td, max(most, tm)
			if r == "" {
				r = tr
			}
		}
		allDeny = allDeny && deny
		if most > None {
			could = true
			if rule == "" {
				rule, reason = r, "the tool "+clipWord(tool)+" could change a VM or rewind's own files"
			}
		}
	}
	if !could {
		return Verdict{}
	}
	v := Verdict{Effect: Ask, Rule: rule, Reason: reason}
	if allDeny {
		v.Effect = Deny
		v.Reason = "the tool " + clipWord(tools[0]) + " is denied whatever its input"
	}
	v.Matches = []Match{{Kind: KindTool, Source: strings.Join(tools, " "), Effect: v.Effect, Rule: v.Rule, Reason: v.Reason}}
	return v
}

// couldDo judges a call of tool whatever its input: deny reports whether
// every input is denied, most is the most any input gets (a protect,
// whose VMs the input would have named, counting as an ask), and rule
// names a rule that gives more than none.
func (p *Policy) couldDo(tool string) (deny bool, most Effect, rule string) {
	if IsShellTool(tool) || strings.EqualFold(tool, "powershell") {
		return false, Ask, "tool " + tool
	}
	least := Deny
	note := func(e Effect, r string) {
		least = min(least, e)
		if e == Protect {
			e = Ask
		}
		if e > most {
			most = e
			if rule == "" && e > None {
				rule = r
			}
		}
	}
	snake := snakeCase(tool)
	decided := false
	for _, t := range p.tools {
		if !t.nameMatch(tool, snake) {
			continue
		}
		note(t.src.Effect, t.label)
		if len(t.src.Paths) == 0 && len(t.payload) == 0 && len(t.src.InputEquals) == 0 && !t.src.RequireTarget {
			// It applies whatever the input: no rule after it can.
			decided = true
			break
		}
	}
	switch {
	case decided:
	case p.words().execName(tool):
		// It runs whatever command its input holds.
		note(Ask, mcpRule+" "+tool)
	default:
		judged := false
		for _, input := range []map[string]any{{}, {"vm": "?"}} {
			var ms []Match
			in := toolInput{obj: input}
			if p.judgeMCP(Call{Tool: tool}, &in, 0, func(m Match) { ms = append(ms, m) }) {
				judged = true
				note(combine(ms).Effect, ms[0].Rule)
			}
		}
		if !judged {
			u := p.unlistedTool(tool)
			note(u.Effect, u.Rule)
		}
	}
	deny = least == Deny
	for _, w := range p.writes {
		if w.tool != nil && w.tool.nameMatch(tool, snake) {
			if e := w.effect(); e > most {
				most = e
				if rule == "" {
					rule = w.label()
				}
			}
		}
	}
	return deny, most, rule
}
