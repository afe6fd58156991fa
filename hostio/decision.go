package hostio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Permission is the permission decision rewind hands the host.
type Permission string

// The permission decisions. NoOpinion leaves the call to the host's own
// permission rules, which is what a protected call must do: rewind adds a
// checkpoint, it does not grant anything.
const (
	NoOpinion Permission = ""
	Allow     Permission = "allow"
	Ask       Permission = "ask"
	Deny      Permission = "deny"
)

// Decision is rewind's answer to one event. The zero Decision means "no
// opinion, nothing to say" and lets the call through the normal flow.
type Decision struct {
	// Permission is the permission decision, or NoOpinion.
	Permission Permission
	// Reason explains Permission: the host shows it to the person for Ask
	// and to the model for Deny. It is only meaningful with a Permission.
	Reason string
	// Context is added to the model's context, such as the checkpoint that
	// undoes the call.
	Context string
	// SystemMessage is a warning shown to the person, such as rewind's own
	// failure under on_error = "allow".
	SystemMessage string
}

// claudeOutput is Claude Code's hook output on the wire.
type claudeOutput struct {
	HookSpecificOutput *claudeSpecific `json:"hookSpecificOutput,omitempty"`
	SystemMessage      string          `json:"systemMessage,omitempty"`
}

type claudeSpecific struct {
	HookEventName            string     `json:"hookEventName"`
	PermissionDecision       Permission `json:"permissionDecision,omitempty"`
	PermissionDecisionReason string     `json:"permissionDecisionReason,omitempty"`
	AdditionalContext        string     `json:"additionalContext,omitempty"`
}

// Encode writes d to w in the output format of host h.
//
// The zero Decision writes nothing, because an empty output is how a hook
// says it has no opinion, except to hosts that want a JSON object in every
// case (Gemini CLI and Cursor), which get {}. Any other Decision is written as exactly one JSON
// object followed by a newline, in a single Write, with empty fields left
// out: a Decision with only a Context carries no permissionDecision, so the
// person's own permission rules still apply to the call.
func Encode(w io.Writer, h Host, d Decision) error {
	if err := checkHost(h); err != nil {
		return err
	}
	switch d.Permission {
	case NoOpinion, Allow, Ask, Deny:
	default:
		return fmt.Errorf("invalid permission decision %q", d.Permission)
	}
	out := encodeHost(h, d)
	if out == nil {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Reasons quote shell commands; "&&" reads better than "\u0026\u0026".
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encoding hook output: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("writing hook output: %w", err)
	}
	return nil
}

// encodeClaude is Claude Code's output for d, nil for the zero Decision.
func encodeClaude(d Decision) any {
	if d == (Decision{}) {
		return nil
	}
	out := claudeOutput{SystemMessage: d.SystemMessage}
	if d.Permission != NoOpinion || d.Reason != "" || d.Context != "" {
		out.HookSpecificOutput = &claudeSpecific{
			HookEventName:            preToolUse,
			PermissionDecision:       d.Permission,
			PermissionDecisionReason: d.Reason,
			AdditionalContext:        d.Context,
		}
	}
	return out
}
