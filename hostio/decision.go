package hostio

import (
	"fmt"
	"io"

	"github.com/rewind-dev/rewind/internal/jsonappend"
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

func (o claudeOutput) appendJSON(b []byte) []byte {
	start := len(b)
	b = append(b, '{')
	if h := o.HookSpecificOutput; h != nil {
		b = append(jsonappend.Key(b, "hookSpecificOutput"), `{"hookEventName":`...)
		b = jsonappend.String(b, h.HookEventName)
		b = jsonappend.Field(b, "permissionDecision", string(h.PermissionDecision))
		b = jsonappend.Field(b, "permissionDecisionReason", h.PermissionDecisionReason)
		b = jsonappend.Field(b, "additionalContext", h.AdditionalContext)
		b = append(b, '}')
	}
	b = jsonappend.Field(b, "systemMessage", o.SystemMessage)
	return jsonappend.Close(b, start)
}

// Response is a hook's answer as the host reads it: what it writes on
// standard output and standard error, and its exit code. Most hosts read
// a JSON object on standard output and exit code 0; some read only an
// exit code of 2, and the reason on standard error, as a refusal.
type Response struct {
	Stdout []byte
	Stderr []byte
	Code   int
}

// Blocking is the exit code with which a hook refuses a call to the hosts
// that read exit codes (Kiro CLI, Windsurf).
const Blocking = 2

// Respond returns host h's answer to the event ev with the decision d. ev
// is nil when the event could not be read; the answer is then the one to
// the host's pre-tool event. A post-tool event gets no answer: rewind has
// nothing to say about a call that has run.
//
// The zero Decision writes nothing, because an empty output is how a hook
// says it has no opinion, except to hosts that want a JSON object in every
// case (Antigravity CLI, Cursor, Cline, Gemini CLI), which get the object
// that lets the call go on. Any other Decision is exactly one JSON object
// followed by a newline, with empty fields left out: a Decision with only
// a Context carries no permission decision where the host allows that, so
// the person's own permission rules still apply to the call.
func Respond(h Host, ev *Event, d Decision) (Response, error) {
	if err := checkHost(h); err != nil {
		return Response{}, err
	}
	switch d.Permission {
	case NoOpinion, Allow, Ask, Deny:
	default:
		return Response{}, fmt.Errorf("invalid permission decision %q", d.Permission)
	}
	if ev != nil && ev.Outcome != nil {
		return Response{}, nil
	}
	if h == Kiro || h == Windsurf {
		return exitResponse(h, d), nil
	}
	out := encodeHost(h, ev, d)
	if out == nil {
		return Response{}, nil
	}
	return Response{Stdout: append(out.appendJSON(nil), '\n')}, nil
}

// output is a host's answer on the wire, a struct that writes itself as
// encoding/json writes it with HTML escaping off (reasons quote shell
// commands; "&&" reads better than "\u0026\u0026"), which
// TestOutputsAreJSON holds it to. It does not use encoding/json because of
// what that costs a process the first time it meets a type: see package
// jsonappend.
type output interface {
	appendJSON(b []byte) []byte
}

// Encode writes the standard output of host h's answer to its pre-tool
// event with the decision d to w, in a single Write; see Respond.
func Encode(w io.Writer, h Host, d Decision) error {
	r, err := Respond(h, nil, d)
	if err != nil || len(r.Stdout) == 0 {
		return err
	}
	if _, err := w.Write(r.Stdout); err != nil {
		return fmt.Errorf("writing hook output: %w", err)
	}
	return nil
}

// encodeClaude is Claude Code's output for d, nil for the zero Decision.
func encodeClaude(d Decision) output {
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
