package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// TestTransport drives a server over the stdio transport with scripted
// input: every request read is answered, also after the input ends, and a
// line that is not a message gets a parse error without ending the session.
func TestTransport(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // lines on the output, in any order
	}{
		{
			name:  "answers after the input ends",
			input: initialize + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zerto_check_tool","arguments":{"command":"govc vm.power -off -vm web-01"}}}`,
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":`, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"The hook lets this call run: it is protected`},
		},
		{
			name:  "a bad line",
			input: initialize + "not json\n\n" + `{"jsonrpc":"2.0","id":"p","method":"ping"}` + "\n",
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}`, `{"jsonrpc":"2.0","id":"p","result":{}}`},
		},
		{
			name:  "a cut last line",
			input: initialize + `{"jsonrpc":"2.0","id":2,"method":"tools/call",`,
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}`},
		},
		{
			name:  "a line too long",
			input: initialize + `{"x":"` + strings.Repeat("a", maxLine) + `"}` + "\n" + `{"jsonrpc":"2.0","id":3,"method":"ping"}`,
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: a message over 16777216 bytes"}}`, `{"jsonrpc":"2.0","id":3,"result":{}}`},
		},
		{
			name:  "no input",
			input: "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, "")
			srv := New(Options{Dir: l.dir, Getenv: l.getenv})
			var out bytes.Buffer
			if err := srv.Run(context.Background(), Transport(strings.NewReader(tt.input), &out)); err != nil && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "closed") {
				t.Errorf("Run: %v", err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if out.Len() == 0 {
				lines = nil
			}
			if len(lines) != len(tt.want) {
				t.Errorf("%d lines, want %d:\n%s", len(lines), len(tt.want), out.String())
			}
			for _, w := range tt.want {
				found := false
				for _, line := range lines {
					found = found || strings.HasPrefix(line, w)
				}
				if !found {
					t.Errorf("no line starts with %s in\n%s", w, out.String())
				}
			}
		})
	}
}
