package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Tally is what a status line shows of a session: how many decisions it
// had, how many of them left a rewind point, and the last one.
type Tally struct {
	Decisions    int
	RewindPoints int
	// Last is the session's newest decision, nil when it has none.
	Last *Record
}

// Tally counts the decisions of session among the newest maxBytes of the
// current log file. It is the cheap read of a status line, which runs on
// every prompt: it takes no lock (a line is appended in one write, and a
// reader that meets half of one skips it), reads no rotated file, and
// decodes one line, the session's last; the others are counted by the
// members marshalLine writes. Those are exact: a string value holds its
// quotes escaped, so `"session":"ID"` or `"decision":"protected"` can only
// be the record's own member, never text inside an excerpt or a reason.
func (l *Log) Tally(session string, maxBytes int64) (Tally, error) {
	var t Tally
	f, err := os.Open(l.Path())
	if errors.Is(err, fs.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("reading the audit log: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return t, fmt.Errorf("reading the audit log: %w", err)
	}
	start := max(0, fi.Size()-maxBytes)
	if _, err := f.Seek(start, io.SeekStart); err != nil {
		return t, fmt.Errorf("reading the audit log: %w", err)
	}
	br := bufio.NewReaderSize(f, 64<<10)
	// The first line read is most likely a part of one.
	skip := start > 0
	var (
		needle  = member("session", session)
		points  = [][]byte{member("decision", DecisionProtected), member("decision", DecisionCheckpoint)}
		written = []byte(`"identifier":"`)
		last    []byte
	)
	for {
		// ReadSlice spares a copy of every line; a line longer than the
		// buffer (a record is a few kilobytes at most) is read whole.
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := append([]byte{}, line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if !skip && bytes.HasSuffix(line, []byte("\n")) && bytes.Contains(line, needle) {
			t.Decisions++
			if (bytes.Contains(line, points[0]) || bytes.Contains(line, points[1])) && bytes.Contains(line, written) {
				t.RewindPoints++
			}
			last = append(last[:0], line...)
		}
		skip = false
		if err == io.EOF {
			break
		}
		if err != nil {
			return t, fmt.Errorf("reading the audit log: %w", err)
		}
	}
	if last != nil {
		var r Record
		if json.Unmarshal(last, &r) == nil && r.Session == session {
			t.Last = &r
		}
	}
	return t, nil
}

// member is the member key: value as marshalLine writes it.
func member(key, value string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(value)
	return append([]byte(`"`+key+`":`), bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}
