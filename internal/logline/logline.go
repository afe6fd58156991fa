// Package logline is the log/slog handler of rewind's commands: each
// record is one line for a person on standard error, such as
//
//	rewind: audit log: open /home/u/.local/state/rewind/audit.jsonl: permission denied
//
// The message comes first, after the command's prefix; an "err" attribute
// follows it after a colon, and any other attribute as key=value. Levels
// below Info are dropped.
package logline

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
)

// New returns a logger that writes its records to w as lines that start
// with prefix and a colon.
func New(w io.Writer, prefix string) *slog.Logger {
	return slog.New(&handler{out: &output{w: w}, prefix: prefix})
}

// output is where the lines go, shared by a handler and those made from
// it, so that concurrent records do not interleave.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

type handler struct {
	out    *output
	prefix string
	group  string      // the open group's prefix for keys, "g." or ""
	attrs  []slog.Attr // from WithAttrs, their keys with the group's prefix
}

func (h *handler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h *handler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(h.prefix)
	b.WriteString(": ")
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		writeAttr(&b, "", a)
	}
	r.Attrs(func(a slog.Attr) bool {
		writeAttr(&b, h.group, a)
		return true
	})
	b.WriteByte('\n')
	h.out.mu.Lock()
	defer h.out.mu.Unlock()
	_, err := io.WriteString(h.out.w, b.String())
	return err
}

func (h *handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = append([]slog.Attr(nil), h.attrs...)
	for _, a := range attrs {
		a.Key = h.group + a.Key
		h2.attrs = append(h2.attrs, a)
	}
	return &h2
}

func (h *handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.group += name + "."
	return &h2
}

// writeAttr writes one attribute: an error after a colon, as a person
// reads it, anything else as key=value, quoted where it needs it.
func writeAttr(b *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		for _, ga := range a.Value.Group() {
			writeAttr(b, group+a.Key+".", ga)
		}
		return
	}
	v := a.Value.String()
	if group == "" && a.Key == "err" {
		b.WriteString(": ")
		b.WriteString(v)
		return
	}
	b.WriteByte(' ')
	b.WriteString(group + a.Key)
	b.WriteByte('=')
	if v == "" || strings.ContainsAny(v, " \t\r\n\"=") {
		v = strconv.Quote(v)
	}
	b.WriteString(v)
}
