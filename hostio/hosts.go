package hostio

// decodeHost decodes one event of host h; data is at most MaxEventSize
// bytes.
func decodeHost(h Host, data []byte) (*Event, error) {
	switch h {
	case Codex:
		return decodeCodex(data)
	case Gemini:
		return decodeGemini(data)
	case Cursor:
		return decodeCursor(data)
	case Copilot:
		return decodeCopilot(data)
	default:
		return decodeClaude(data)
	}
}

// encodeHost returns the value to write as host h's output for d, or nil
// to write nothing.
func encodeHost(h Host, d Decision) any {
	switch h {
	case Codex:
		return encodeCodex(d)
	case Gemini:
		return encodeGemini(d)
	case Cursor:
		return encodeCursor(d)
	case Copilot:
		return encodeCopilot(d)
	default:
		return encodeClaude(d)
	}
}

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

// denyReason is a deny's reason, never empty: some hosts ignore a deny
// without one.
func denyReason(reason string) string {
	if reason == "" {
		return "rewind: denied"
	}
	return reason
}
