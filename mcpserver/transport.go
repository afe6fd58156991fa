package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxLine bounds one message on the input, as the SDK's own transport does.
const maxLine = mcp.DefaultMaxLineLength

// Transport returns the transport of `rewind mcp`: newline-delimited
// JSON-RPC messages read from r and written to w. Two things set it apart
// from the SDK's stdio transport, which ends the session on either:
//
//   - a line that is not JSON (or is too long) is answered with a JSON-RPC
//     parse error and skipped, and the session goes on;
//   - when r ends, the requests already read are answered before the
//     session ends, so that a script that pipes requests in and closes its
//     end gets every answer.
func Transport(r io.Reader, w io.Writer) mcp.Transport {
	s := &stream{pending: map[string]int{}, w: w}
	s.cond = sync.NewCond(&s.mu)
	return &mcp.IOTransport{
		Reader: &lineReader{s: s, r: bufio.NewReaderSize(r, 64<<10), c: r},
		Writer: &lineWriter{s: s},
	}
}

// stream is the state both directions share: the requests read and not
// yet answered, and the output, which the server's messages and the
// transport's own parse errors take turns on.
type stream struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]int // request ID (its JSON text) to count
	closed  bool

	wmu sync.Mutex
	w   io.Writer
}

// write writes one or more whole lines to the output.
func (s *stream) write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.w.Write(p)
}

// note records the messages of one line: requests read (in) or responses
// written (out).
func (s *stream) note(line []byte, in bool) {
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
	s.mu.Lock()
	defer s.mu.Unlock()
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
			s.pending[id]++
		case !in && msg.Method == nil && s.pending[id] > 0:
			if s.pending[id]--; s.pending[id] == 0 {
				delete(s.pending, id)
			}
		}
	}
	s.cond.Broadcast()
}

// drain blocks until every request read is answered or the output closed.
func (s *stream) drain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) > 0 && !s.closed {
		s.cond.Wait()
	}
}

func (s *stream) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cond.Broadcast()
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// parseError answers a line that is not a message, as JSON-RPC says: a
// parse error without an ID.
func (s *stream) parseError(why string) {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      *string  `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{-32700, "Parse error: " + why}})
	if _, err := s.write(append(b, '\n')); err != nil {
		s.close()
	}
}

// lineReader hands the SDK the input line by line, well-formed lines only,
// and holds its end back until the requests read are answered.
type lineReader struct {
	s   *stream
	r   *bufio.Reader
	c   io.Reader // the input, to close
	buf []byte    // the rest of the line being handed out
	err error     // the input's error, after buf
}

func (lr *lineReader) Read(p []byte) (int, error) {
	for len(lr.buf) == 0 {
		if lr.err != nil {
			if lr.err == io.EOF {
				lr.s.drain()
			}
			return 0, lr.err
		}
		line, err := readLine(lr.r)
		lr.err = err
		switch {
		case errors.Is(err, errLineTooLong):
			lr.err = nil
			lr.s.parseError(fmt.Sprintf("a message over %d bytes", maxLine))
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			lr.s.parseError("the line is not JSON")
		default:
			lr.s.note(line, true)
			lr.buf = append(line, '\n')
		}
	}
	n := copy(p, lr.buf)
	lr.buf = lr.buf[n:]
	return n, nil
}

func (lr *lineReader) Close() error {
	lr.s.close()
	if c, ok := lr.c.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line without its newline. A line over maxLine is
// read to its end and dropped, with errLineTooLong.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > maxLine+1 {
				long, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if long {
			return nil, errLineTooLong
		}
		return bytes.TrimSuffix(line, []byte("\n")), err
	}
}

// lineWriter passes the server's messages on, noting the responses.
type lineWriter struct{ s *stream }

func (lw *lineWriter) Write(p []byte) (int, error) {
	n, err := lw.s.write(p)
	for line := range bytes.SplitSeq(p[:n], []byte("\n")) {
		lw.s.note(line, false)
	}
	if err != nil {
		lw.s.close()
	}
	return n, err
}

func (lw *lineWriter) Close() error {
	lw.s.close()
	if c, ok := lw.s.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
