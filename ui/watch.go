package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/audit"
)

// DefaultPoll is how often the watcher looks at the audit log when
// Options.Poll is zero: a stat every half second costs nothing, and a new
// decision shows within it.
const DefaultPoll = 500 * time.Millisecond

// maxChunk bounds what the watcher reads in one go: a log that grew by
// more, as after a long pause, is read in several.
const maxChunk = 4 << 20

// watcher follows the end of the audit log and hands each new record to
// its subscribers. It holds no lock of the log: an append is one write of
// whole lines, and a line still being written, without its newline, waits
// for the next poll.
type watcher struct {
	path string
	poll time.Duration

	// Only the watching goroutine touches these.
	info   fs.FileInfo // the file read so far, nil before it exists
	offset int64       // how far it was read

	mu   sync.Mutex
	subs map[chan audit.Record]struct{}
}

// subBuffer is how many records a page may fall behind before it is
// dropped; it reconnects and reloads.
const subBuffer = 256

func newWatcher(path string, poll time.Duration) *watcher {
	return &watcher{path: path, poll: poll, subs: map[chan audit.Record]struct{}{}}
}

// subscribe returns a channel of the records appended from now on; it is
// closed when the subscriber falls behind or the watcher stops.
func (w *watcher) subscribe() (<-chan audit.Record, func()) {
	ch := make(chan audit.Record, subBuffer)
	w.mu.Lock()
	w.subs[ch] = struct{}{}
	w.mu.Unlock()
	return ch, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if _, ok := w.subs[ch]; ok {
			delete(w.subs, ch)
			close(ch)
		}
	}
}

func (w *watcher) publish(r audit.Record) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ch := range w.subs {
		select {
		case ch <- r:
		default:
			delete(w.subs, ch)
			close(ch)
		}
	}
}

// run watches until ctx ends. What the log holds when it starts is not
// published: the page renders that.
func (w *watcher) run(ctx context.Context) {
	if fi, err := os.Stat(w.path); err == nil {
		w.info, w.offset = fi, fi.Size()
	}
	t := time.NewTicker(w.poll)
	defer t.Stop()
	defer func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		for ch := range w.subs {
			delete(w.subs, ch)
			close(ch)
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			w.check()
		}
	}
}

// check reads what was appended since the last look. When the log was
// rotated, the file read so far is now audit.jsonl.1: its rest is read
// there, and the new file from its start.
func (w *watcher) check() {
	fi, err := os.Stat(w.path)
	if errors.Is(err, fs.ErrNotExist) {
		fi = nil
	} else if err != nil {
		return
	}
	if w.info != nil && fi != nil && os.SameFile(w.info, fi) {
		if fi.Size() < w.offset {
			// Cut short in place (a person emptied it): start over.
			w.offset = 0
		}
		if fi.Size() > w.offset {
			w.info = fi
			w.readFrom(w.path, fi)
		}
		return
	}
	if w.info != nil {
		if old, err := os.Stat(w.path + ".1"); err == nil && os.SameFile(w.info, old) {
			w.readFrom(w.path+".1", old)
		}
	}
	w.info, w.offset = fi, 0
	if fi != nil {
		w.readFrom(w.path, fi)
	}
}

// readFrom publishes the whole lines of name past the offset.
func (w *watcher) readFrom(name string, fi fs.FileInfo) {
	f, err := os.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	// The file opened must be the one stat'ed: a rotation in between
	// is caught at the next poll.
	if ofi, err := f.Stat(); err != nil || !os.SameFile(ofi, fi) {
		return
	}
	for {
		buf := make([]byte, maxChunk)
		n, err := f.ReadAt(buf, w.offset)
		buf = buf[:n]
		end := bytes.LastIndexByte(buf, '\n')
		if end < 0 {
			if n == maxChunk {
				// One line longer than a chunk is no record: skip it.
				w.offset += int64(n)
				continue
			}
			break
		}
		for line := range bytes.Lines(buf[:end+1]) {
			var r audit.Record
			// A record, or a call's outcome (see audit.Log.AppendOutcome).
			if json.Unmarshal(line, &r) == nil && (r.ID != "" || r.Outcome != nil && r.ToolUseID != "") {
				w.publish(r)
			}
		}
		w.offset += int64(end + 1)
		if err == io.EOF || n < maxChunk {
			break
		}
	}
}
