package audit

import (
	"strconv"
	"time"

	"github.com/rewind-dev/rewind/internal/jsonappend"
)

// A record's line is written by hand (package jsonappend), byte for byte
// as encoding/json writes it with HTML escaping off (a test holds the two
// to the same bytes, every field set): encoding/json reads a type's fields
// by reflection the first time it meets the type in a process, and the
// hook, which starts a process for every call, paid that for every
// decision it logged, about as much as judging a read-only command.

// appendRecord appends r's line, without its newline.
func appendRecord(b []byte, r *Record) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = jsonappend.String(b, r.ID)
	b = append(b, `,"time":`...)
	b, err := appendTime(b, r.Time)
	if err != nil {
		return nil, err
	}
	b = jsonappend.Field(b, "host", r.Host)
	b = jsonappend.Field(b, "session", r.Session)
	b = jsonappend.Field(b, "tool_use_id", r.ToolUseID)
	b = append(b, `,"tool":`...)
	b = jsonappend.String(b, r.Tool)
	b = jsonappend.Field(b, "cwd", r.Cwd)
	b = jsonappend.Field(b, "excerpt", r.Excerpt)
	b = append(b, `,"decision":`...)
	b = jsonappend.String(b, r.Decision)
	b = jsonappend.Field(b, "rule", r.Rule)
	b = jsonappend.Field(b, "reason", r.Reason)
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
	b = jsonappend.Field(b, "zerto_error", r.ZertoError)
	if r.ZVMOffsetMS != nil {
		b = append(b, `,"zvm_offset_ms":`...)
		b = strconv.AppendInt(b, *r.ZVMOffsetMS, 10)
	}
	b = jsonappend.Field(b, "error", r.Error)
	b = jsonappend.Field(b, "rewinds", r.Rewinds)
	b = jsonappend.Field(b, "task", r.Task)
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
	b = jsonappend.Field(b, "vm", c.VM)
	b = jsonappend.Field(b, "vm_identifier", c.VMIdentifier)
	b = jsonappend.Field(b, "vpg", c.VPG)
	b = jsonappend.Field(b, "vpg_identifier", c.VPGIdentifier)
	b = jsonappend.Field(b, "identifier", c.Identifier)
	b = jsonappend.Field(b, "tag", c.Tag)
	if !c.Time.IsZero() {
		var err error
		b = append(b, `,"time":`...)
		if b, err = appendTime(b, c.Time); err != nil {
			return nil, err
		}
	}
	return jsonappend.Close(b, start), nil
}

func appendOutcome(b []byte, o *Outcome) ([]byte, error) {
	b = append(b, `{"state":`...)
	b = jsonappend.String(b, o.State)
	if o.ExitCode != nil {
		b = append(b, `,"exit_code":`...)
		b = strconv.AppendInt(b, int64(*o.ExitCode), 10)
	}
	b = jsonappend.Field(b, "error", o.Error)
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

// appendStrings appends the member key: list after a comma, unless list is
// empty (omitempty).
func appendStrings(b []byte, key string, list []string) []byte {
	if len(list) == 0 {
		return b
	}
	b = append(jsonappend.Key(b, key), '[')
	for i, s := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonappend.String(b, s)
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
