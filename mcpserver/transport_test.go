package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
`

// TestTransport drives a server over the stdio transport with scripted
// input: every request read is answered, also after the input ends, and a
// line that is not a message gets a parse error without ending the session.
func TestTransport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		input string
		want  []string // lines on the output, in any order
		maybe int      // how many more lines may come
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
		{
			name: "messages the SDK would end the session on",
			input: initialize + `{"id":6,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}` + "\n" +
				`[{"jsonrpc":"2.0","id":11,"method":"ping"}]` + "\n" + `"str"` + "\n" + `{"jsonrpc":"2.0","id":14,"method":5}` + "\n" +
				`{"jsonrpc":"2.0"}` + "\n" + `{"jsonrpc":"2.0","id":"last","method":"ping"}`,
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":`,
				`{"jsonrpc":"2.0","id":6,"error":{"code":-32600,"message":"Invalid Request: \"jsonrpc\" must be \"2.0\""}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: \"id\" must be a string or a number"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: JSON-RPC batches are not supported`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: not a JSON-RPC message object"}}`,
				`{"jsonrpc":"2.0","id":14,"error":{"code":-32600,"message":"Invalid Request: \"method\" must be a string"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: a message without a method is a response, and needs an id"}}`,
				`{"jsonrpc":"2.0","id":"last","result":{}}`,
			},
		},
		{
			name: "member names as the SDK reads them: exact, each once",
			input: initialize + `{"jsoNrpc":"2.0","id":21,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":22,"id":23,"method":"ping"}` + "\n" +
				`{"jsonrpc":"2.0","id":24,"Method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":25,"method":"ping","x-note":1}`,
			want: []string{
				`{"jsonrpc":"2.0","id":1,"result":`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the member \"jsoNrpc\" must be spelled \"jsonrpc\""}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the member \"id\" is given twice"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the member \"Method\" must be spelled \"method\""}}`,
				`{"jsonrpc":"2.0","id":25,"result":{}}`,
			},
		},
		{
			name:  "IDs as the SDK reads them",
			input: initialize + `{"jsonrpc":"2.0","id":9.0,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1e1,"method":"ping"}`,
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":`, `{"jsonrpc":"2.0","id":9,"result":{}}`, `{"jsonrpc":"2.0","id":10,"result":{}}`},
		},
		{
			name: "a request cancelled is not waited for",
			input: initialize + `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"zerto_tag_checkpoint","arguments":{"vms":["win2019-1"]}}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
			want:  []string{`{"jsonrpc":"2.0","id":1,"result":`},
			maybe: 1, // the SDK answers a cancelled request, if it can before the end
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLab(t, "")
			srv := New(Options{Dir: l.Dir, Getenv: l.Getenv})
			var out bytes.Buffer
			if err := srv.Run(context.Background(), Transport(strings.NewReader(tt.input), &out)); err != nil && !strings.Contains(err.Error(), "EOF") && !strings.Contains(err.Error(), "closed") {
				t.Errorf("Run: %v", err)
			}
			lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if out.Len() == 0 {
				lines = nil
			}
			if len(lines) < len(tt.want) || len(lines) > len(tt.want)+tt.maybe {
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

// FuzzTransport feeds the server any input: it ends when the input does,
// writes nothing but JSON-RPC messages, and answers every request it read.
func FuzzTransport(f *testing.F) {
	for _, seed := range []string{
		initialize + `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		initialize + `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zerto_check_tool","arguments":{"command":"govc vm.destroy web-01"}}}`,
		initialize + `{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"rewind://catalog"}}`,
		initialize + "not json\n" + `{"id":6,"method":"ping"}` + "\n" + `[{"jsonrpc":"2.0","id":11,"method":"ping"}]`,
		initialize + `{"jsonrpc":"2.0","id":9.5,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"zerto_rewind","arguments":{"id":"x","mode":"restore"}}}`,
		initialize + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nosuch"}}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	cfg := filepath.Join(dir, "rewind.toml")
	if err := os.WriteFile(cfg, []byte("[hook]\nbudget = \"2s\"\n"), 0o600); err != nil {
		f.Fatal(err)
	}
	env := map[string]string{"REWIND_CONFIG": cfg, "REWIND_STATE_DIR": filepath.Join(dir, "state"), "HOME": dir}
	f.Fuzz(func(t *testing.T, input []byte) {
		srv := New(Options{Dir: dir, Getenv: func(k string) string { return env[k] }})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var out bytes.Buffer
		srv.Run(ctx, Transport(bytes.NewReader(input), &out))
		if ctx.Err() != nil {
			t.Fatalf("the server did not end with its input")
		}
		answered := map[string]bool{}
		for line := range strings.Lines(out.String()) {
			var m message
			if !json.Valid([]byte(line)) || json.Unmarshal([]byte(line), &m) != nil || m.JSONRPC != "2.0" {
				t.Fatalf("output line %q is not a JSON-RPC message", line)
			}
			if k, ok := idKey(m.ID); ok && len(m.Method) == 0 {
				answered[k] = true
			}
		}
		for line := range strings.Lines(string(input)) {
			line := bytes.TrimSpace([]byte(line))
			if len(line) == 0 || !json.Valid(line) {
				continue
			}
			if request, _, why, _ := inspect(line); why == "" && request != "" && !answered[request] && !strings.Contains(string(input), "notifications/cancelled") {
				t.Errorf("request %s was not answered:\n%s", line, out.String())
			}
		}
	})
}
