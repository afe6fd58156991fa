package mcpserver

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxTracked bounds the line the transport reads request IDs from. A longer
// line is passed on unread; the SDK rejects lines over its own limit.
const maxTracked = mcp.DefaultMaxLineLength

// Transport returns the transport of `rewind mcp`: newline-delimited
// JSON-RPC messages read from r and written to w. When r ends, the requests
// already read are answered before the session ends, so that a script that
// pipes requests in and closes its end gets every answer; the SDK's own
// stdio transport drops them.
func Transport(r io.Reader, w io.Writer) mcp.Transport {
	d := &drain{pending: map[string]int{}}
	d.cond = sync.NewCond(&d.mu)
	return &mcp.IOTransport{
		Reader: &drainReader{d: d, r: r},
		Writer: &drainWriter{d: d, w: w},
	}
}

// drain counts the requests read and not yet answered.
type drain struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]int // request ID (its JSON text) to count
	closed  bool
}

// note records the messages of one line: requests read (in) or responses
// written (out).
func (d *drain) note(line []byte, in bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	var msgs []json.RawMessage
	if line[0] == '[' {
		if json.Unmarshal(line, &msgs) != nil {
			return
		}
	} else {
		msgs = []json.RawMessage{line}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, m := range msgs {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal(m, &msg) != nil || len(msg.ID) == 0 || string(msg.ID) == "null" {
			continue
		}
		id := compact(msg.ID)
		switch {
		case in && msg.Method != nil:
			d.pending[id]++
		case !in && msg.Method == nil && d.pending[id] > 0:
			if d.pending[id]--; d.pending[id] == 0 {
				delete(d.pending, id)
			}
		}
	}
	d.cond.Broadcast()
}

// wait blocks until every request read is answered or the writer closed.
func (d *drain) wait() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for len(d.pending) > 0 && !d.closed {
		d.cond.Wait()
	}
}

func (d *drain) close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cond.Broadcast()
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// drainReader passes r on, noting the requests of each line, and holds its
// end back until they are answered.
type drainReader struct {
	d    *drain
	r    io.Reader
	line []byte
	long bool // the current line is over maxTracked: not tracked
}

func (dr *drainReader) Read(p []byte) (int, error) {
	n, err := dr.r.Read(p)
	for rest := p[:n]; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		part := rest
		if i >= 0 {
			part = rest[:i]
		}
		if !dr.long {
			if len(dr.line)+len(part) > maxTracked {
				dr.long, dr.line = true, nil
			} else {
				dr.line = append(dr.line, part...)
			}
		}
		if i < 0 {
			break
		}
		if !dr.long {
			dr.d.note(dr.line, true)
		}
		dr.line, dr.long = dr.line[:0], false
		rest = rest[i+1:]
	}
	if err == io.EOF {
		if !dr.long {
			dr.d.note(dr.line, true)
		}
		dr.line = nil
		dr.d.wait()
	}
	return n, err
}

func (dr *drainReader) Close() error {
	dr.d.close()
	if c, ok := dr.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// drainWriter passes the server's messages on to w, noting the responses.
type drainWriter struct {
	d *drain
	w io.Writer
}

func (dw *drainWriter) Write(p []byte) (int, error) {
	n, err := dw.w.Write(p)
	for line := range bytes.SplitSeq(p[:n], []byte("\n")) {
		dw.d.note(line, false)
	}
	if err != nil {
		dw.d.close()
	}
	return n, err
}

func (dw *drainWriter) Close() error {
	dw.d.close()
	if c, ok := dw.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
