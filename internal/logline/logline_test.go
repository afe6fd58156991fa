package logline

import (
	"bytes"
	"errors"
	"log/slog"
	"testing"
)

func TestLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		want string
	}{
		{"message", func(l *slog.Logger) { l.Warn("the config is not trusted") }, "rewind: the config is not trusted\n"},
		{"error", func(l *slog.Logger) { l.Warn("audit log", "err", errors.New("permission denied")) }, "rewind: audit log: permission denied\n"},
		{"attributes", func(l *slog.Logger) { l.Info("lost", "vpg", "prod db", "n", 2) }, "rewind: lost vpg=\"prod db\" n=2\n"},
		{"with", func(l *slog.Logger) { l.With("host", "claude").WithGroup("g").Warn("m", "k", "v", "err", "e") }, "rewind: m host=claude g.k=v g.err=e\n"},
		{"group attribute", func(l *slog.Logger) { l.Warn("m", slog.Group("g", "k", "")) }, "rewind: m g.k=\"\"\n"},
		{"debug is dropped", func(l *slog.Logger) { l.Debug("detail") }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tt.log(New(&b, "rewind"))
			if b.String() != tt.want {
				t.Errorf("logged %q, want %q", b.String(), tt.want)
			}
		})
	}
}
