package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rewind-dev/rewind/internal/jsonscan"
)

// maxLine bounds one message on the input, as the SDK's own transport does.
const maxLine = mcp.DefaultMaxLineLength

// Transport returns the transport of `rewind mcp`: newline-delimited
// JSON-RPC messages read from r and written to w. Two things set it apart
// from the SDK's stdio transport, which ends the session on either:
//
//   - a line that is not JSON (or is too long) is answered with a JSON-RPC
//     parse error, and one the SDK would not read as a message (no
//     "jsonrpc": "2.0", an ID that is neither a string nor a number, a
//     batch...) with an invalid request error; either is skipped, and the session
//     goes on;
//   - when r ends, the requests already read are answered before the
//     session ends, so that a script that pipes requests in and closes its
//     end gets every answer.
func Transport(r io.Reader, w io.Writer) mcp.Transport {
	s := &stream{pending: map[string]bool{}, w: w}
	s.cond = sync.NewCond(&s.mu)
	return &mcp.IOTransport{
		Reader: &lineReader{s: s, r: bufio.NewReaderSize(r, 64<<10), c: r},
		Writer: &lineWriter{s: s},
	}
}

// stream is the state both directions share: the requests read and not
// yet answered, and the output, which the server's messages and the
// transport's own error answers take turns on.
type stream struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]bool // IDs of requests read and not answered (see idKey)
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

// message is the part of a JSON-RPC message the transport reads.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  struct {
		// RequestID is the request a notifications/cancelled cancels.
		RequestID any `json:"requestId"`
	} `json:"params"`
}

// idKey names a request ID the way the SDK reads it: a number as the
// integer it becomes (9.0 and 9 are one ID), a string as itself. ok is
// false for an absent or null ID, and for one of another type.
func idKey(id any) (key string, ok bool) {
	switch id := id.(type) {
	case float64:
		return "n" + strconv.FormatInt(int64(id), 10), true
	case string:
		return "s" + id, true
	}
	return "", false
}

// inspect reads a line as the SDK will. It returns the key of the request
// in it, or of the request it cancels, which gets no answer; or why the SDK
// would not take it, which would end the session, with the ID to answer
// with when it has a usable one.
func inspect(line []byte) (request, cancelled, why string, id any) {
	if line[0] == '[' {
		// MCP has no batches since its 2025-06-18 version, and the SDK
		// ends the session on one.
		return "", "", "JSON-RPC batches are not supported: send one message per line", nil
	}
	if line[0] != '{' {
		return "", "", "not a JSON-RPC message object", nil
	}
	if why := memberNames(line); why != "" {
		return "", "", why, nil
	}
	// A field of another type than message's (params that are not a
	// cancellation's, say) is left zero, and the rest still read.
	var m message
	_ = json.Unmarshal(line, &m)
	key, hasID := idKey(m.ID)
	if hasID {
		id = m.ID
	}
	var method string
	switch {
	case m.JSONRPC != "2.0":
		return "", "", `"jsonrpc" must be "2.0"`, id
	case m.ID != nil && !hasID:
		return "", "", `"id" must be a string or a number`, nil
	case len(m.Method) > 0 && json.Unmarshal(m.Method, &method) != nil:
		return "", "", `"method" must be a string`, id
	case len(m.Method) == 0 && !hasID:
		return "", "", "a message without a method is a response, and needs an id", nil
	case len(m.Method) > 0 && hasID:
		return key, "", "", nil
	case method == "notifications/cancelled":
		if k, ok := idKey(m.Params.RequestID); ok {
			return "", k, "", nil
		}
	}
	return "", "", "", nil
}

// memberNames checks the message's member names as the SDK reads them:
// exactly, each once. encoding/json folds case and keeps the last of a
// repeated name, so without this check a message the SDK drops unanswered
// ("jsoNrpc", two "id"s) would pass for a request.
func memberNames(line []byte) (why string) {
	seen := make(map[string]bool, 4)
	jsonscan.Keys(line, func(k jsonscan.Key) bool {
		if k.Depth != 1 {
			return true
		}
		switch {
		case seen[k.Name]:
			why = fmt.Sprintf("the member %q is given twice", k.Name)
		case !jsonrpcMember[k.Name] && jsonrpcMember[strings.ToLower(k.Name)]:
			why = fmt.Sprintf("the member %q must be spelled %q", k.Name, strings.ToLower(k.Name))
		}
		seen[k.Name] = true
		return why == ""
	})
	return why
}

// jsonrpcMember is the set of a JSON-RPC 2.0 message's member names.
var jsonrpcMember = map[string]bool{"jsonrpc": true, "id": true, "method": true, "params": true, "result": true, "error": true}

// read notes a request read, or a request cancelled, which the server
// does not answer.
func (s *stream) read(request, cancelled string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if request != "" {
		s.pending[request] = true
	}
	if cancelled != "" {
		delete(s.pending, cancelled)
		s.cond.Broadcast()
	}
}

// answered notes the response of a line written.
func (s *stream) answered(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil || len(m.Method) > 0 {
		return
	}
	k, ok := idKey(m.ID)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, k)
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

// JSON-RPC's error codes for input that is not a request.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// refuse answers input the server cannot take, as JSON-RPC says: with the
// request's ID when it has a usable one, else with a null ID.
func (s *stream) refuse(code int, id any, msg string) {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", id, rpcError{code, msg}})
	if err != nil {
		return
	}
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
			lr.s.refuse(codeParseError, nil, fmt.Sprintf("Parse error: a message over %d bytes", maxLine))
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			lr.s.refuse(codeParseError, nil, "Parse error: the line is not JSON")
		default:
			request, cancelled, why, id := inspect(bytes.TrimSpace(line))
			if why != "" {
				lr.s.refuse(codeInvalidRequest, id, "Invalid Request: "+why)
				continue
			}
			lr.s.read(request, cancelled)
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
		lw.s.answered(line)
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
