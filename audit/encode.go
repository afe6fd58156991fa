package audit

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// A record's line is written by hand, byte for byte as encoding/json
// writes it with HTML escaping off (a test holds the two to the same
// bytes, every field set): encoding/json reads a type's fields by
// reflection the first time it meets the type in a process, and the hook,
// which starts a process for every call, paid that for every decision it
// logged, about as much as judging a read-only command.

// appendRecord appends r's line, without its newline.
func appendRecord(b []byte, r *Record) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, r.ID)
	b = append(b, `,"time":`...)
	b, err := appendTime(b, r.Time)
	if err != nil {
		return nil, err
	}
	b = appendField(b, "host", r.Host)
	b = appendField(b, "session", r.Session)
	b = appendField(b, "tool_use_id", r.ToolUseID)
	b = append(b, `,"tool":`...)
	b = appendString(b, r.Tool)
	b = appendField(b, "cwd", r.Cwd)
	b = appendField(b, "excerpt", r.Excerpt)
	b = append(b, `,"decision":`...)
	b = appendString(b, r.Decision)
	b = appendField(b, "rule", r.Rule)
	b = appendField(b, "reason", r.Reason)
	b = appendStrings(b, "targets", r.Targets)
	b = appendStrings(b, "vms", r.VMs)
	if len(r.Checkpoints) > 0 {
		b = append(b, `,"checkpoints":[`...)
		for i := range r.Checkpoints {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendCheckpoint(b, &r.Checkpoints[i]); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	b = appendField(b, "zerto_error", r.ZertoError)
	if r.ZVMOffsetMS != nil {
		b = append(b, `,"zvm_offset_ms":`...)
		b = strconv.AppendInt(b, *r.ZVMOffsetMS, 10)
	}
	b = appendField(b, "error", r.Error)
	b = appendField(b, "rewinds", r.Rewinds)
	b = appendField(b, "task", r.Task)
	if !r.RetryAfter.IsZero() {
		b = append(b, `,"retry_after":`...)
		if b, err = appendTime(b, r.RetryAfter); err != nil {
			return nil, err
		}
	}
	b = append(b, `,"elapsed_ms":`...)
	b = strconv.AppendInt(b, r.ElapsedMS, 10)
	if r.Outcome != nil {
		b = append(b, `,"outcome":`...)
		if b, err = appendOutcome(b, r.Outcome); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendCheckpoint(b []byte, c *Checkpoint) ([]byte, error) {
	start := len(b)
	b = append(b, '{')
	b = appendField(b, "vm", c.VM)
	b = appendField(b, "vm_identifier", c.VMIdentifier)
	b = appendField(b, "vpg", c.VPG)
	b = appendField(b, "vpg_identifier", c.VPGIdentifier)
	b = appendField(b, "identifier", c.Identifier)
	b = appendField(b, "tag", c.Tag)
	if !c.Time.IsZero() {
		var err error
		b = append(b, `,"time":`...)
		if b, err = appendTime(b, c.Time); err != nil {
			return nil, err
		}
	}
	return closeObject(b, start), nil
}

func appendOutcome(b []byte, o *Outcome) ([]byte, error) {
	b = append(b, `{"state":`...)
	b = appendString(b, o.State)
	if o.ExitCode != nil {
		b = append(b, `,"exit_code":`...)
		b = strconv.AppendInt(b, int64(*o.ExitCode), 10)
	}
	b = appendField(b, "error", o.Error)
	if o.DurationMS != nil {
		b = append(b, `,"duration_ms":`...)
		b = strconv.AppendInt(b, *o.DurationMS, 10)
	}
	if o.Reported {
		b = append(b, `,"reported":true`...)
	}
	if !o.Time.IsZero() {
		var err error
		b = append(b, `,"time":`...)
		if b, err = appendTime(b, o.Time); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// closeObject ends the object that starts at b[start], whose members
// appendField wrote each after a comma: the first comma goes.
func closeObject(b []byte, start int) []byte {
	if len(b) > start+1 && b[start+1] == ',' {
		b = append(b[:start+1], b[start+2:]...)
	}
	return append(b, '}')
}

// appendField appends the member key: s after a comma, unless s is empty
// (omitempty).
func appendField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":`...)
	return appendString(b, s)
}

// appendStrings appends the member key: list after a comma, unless list is
// empty (omitempty).
func appendStrings(b []byte, key string, list []string) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(append(append(b, `,"`...), key...), `":[`...)
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendTime appends t as its MarshalJSON writes it.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	text, err := t.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(b, text...), nil
}

const hexDigits = "0123456789abcdef"

// appendString appends s quoted as encoding/json quotes a string with HTML
// escaping off: quotes, backslashes and control characters escaped,
// invalid UTF-8 as U+FFFD, and U+2028 and U+2029 escaped for JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= ' ' && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(append(b, s[start:i]...), `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(append(b, s[start:]...), '"')
}
