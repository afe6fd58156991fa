package hostio

// decodeHost decodes one event of host h; data is at most MaxEventSize
// bytes.
func decodeHost(h Host, data []byte) (*Event, error) {
	switch h {
	case Codex:
		return decodeCodex(data)
	case Antigravity:
		return decodeAntigravity(data)
	case Cursor:
		return decodeCursor(data)
	case Copilot:
		return decodeCopilot(data)
	case OpenCode:
		return decodeOpenCode(data)
	case Kiro:
		return decodeKiro(data)
	case Windsurf:
		return decodeWindsurf(data)
	case Cline:
		return decodeCline(data)
	case Gemini:
		return decodeGemini(data)
	default:
		return decodeClaude(data)
	}
}

// encodeHost returns the value to write as host h's output for d in
// answer to ev (nil when the event could not be read), or nil to write
// nothing.
func encodeHost(h Host, ev *Event, d Decision) output {
	switch h {
	case Codex:
		return encodeCodex(d)
	case Antigravity:
		return encodeAntigravity(d)
	case Cursor:
		return encodeCursor(ev, d)
	case Copilot:
		return encodeCopilot(d)
	case OpenCode:
		return encodeOpenCode(d)
	case Cline:
		return encodeCline(d)
	case Gemini:
		return encodeGemini(d)
	default:
		return encodeClaude(d)
	}
}

// exitResponse is the answer for the hosts that read an exit code (Kiro
// CLI, Windsurf): exit code 2 and the reason on standard error refuse the
// call; exit code 0 lets it go on, with what rewind has to say (the
// checkpoint, a warning) on standard output. Neither host asks a person
// for a hook, so an Ask is refused with the way to approve it.
func exitResponse(h Host, d Decision) Response {
	if why, refused := refusal(h, d); refused {
		return Response{Stderr: line(why), Code: Blocking}
	}
	text := joinText(joinText(d.SystemMessage, d.Reason), d.Context)
	if text == "" {
		return Response{}
	}
	return Response{Stdout: line(text)}
}

// line is s with a final newline.
func line(s string) []byte { return []byte(s + "\n") }

// askInstead is added to the reason of an Ask sent as a deny to a host that
// cannot ask the person itself. Letting the call run would skip the person
// the policy wants asked; denying it with the way out keeps them in charge.
func askInstead(host, reason string) string {
	if reason == "" {
		reason = "rewind: this call needs a person's approval"
	}
	return reason + " [" + host + " cannot ask for approval, so rewind refused the call: a person must approve it. " +
		"Run it yourself, or change the rule in rewind's policy (rewind explain shows which rule applies)]"
}

// refusal is what a host that cannot ask a person is told when d refuses
// the call (a Deny, or an Ask sent as a deny with the way to approve it),
// and whether it does.
func refusal(h Host, d Decision) (string, bool) {
	switch d.Permission {
	case Deny:
		return joinText(denyReason(d.Reason), d.SystemMessage), true
	case Ask:
		return joinText(askInstead(h.Name(), d.Reason), d.SystemMessage), true
	}
	return "", false
}

// denyReason is a deny's reason, never empty: some hosts ignore a deny
// without one.
func denyReason(reason string) string {
	if reason == "" {
		return "rewind: denied"
	}
	return reason
}
