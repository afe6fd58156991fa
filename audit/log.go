package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gofrs/flock"
	"github.com/rewind-dev/rewind/redact"
)

// File names in the state folder.
const (
	// FileName is the current log; rotated ones are FileName.1 (newest)
	// to FileName.N.
	FileName = "audit.jsonl"
	lockName = "audit.lock"
)

// Defaults for a Log's rotation.
const (
	DefaultMaxSize = 10 << 20
	DefaultKeep    = 3
)

// lockPoll is how often AppendContext retries a lock another process holds;
// appending a line takes well under a millisecond.
const lockPoll = 5 * time.Millisecond

// maxTextRunes bounds the free-text fields of a record (Reason, ZertoError,
// Error), so one verbose failure cannot bloat the log.
const maxTextRunes = 2000

// Log is the decision log in one state folder. Its methods are safe for
// concurrent use, also by several processes sharing the folder.
type Log struct {
	dir string

	// MaxSize is the size in bytes past which Append rotates the log:
	// DefaultMaxSize when zero.
	MaxSize int64
	// Keep is how many rotated files are kept: DefaultKeep when zero.
	Keep int

	// mu spares goroutines of one process the system lock's contention.
	mu sync.Mutex
}

// Open returns the log in dir. It does no I/O: the folder is created, mode
// 0700, by the first Append.
func Open(dir string) *Log {
	return &Log{dir: dir}
}

// Path returns the file name of the current log.
func (l *Log) Path() string { return filepath.Join(l.dir, FileName) }

func (l *Log) maxSize() int64 {
	if l.MaxSize > 0 {
		return l.MaxSize
	}
	return DefaultMaxSize
}

func (l *Log) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return DefaultKeep
}

// Append writes r as one line at the end of the log, first rotating the log
// when the line would take it past MaxSize.
//
// Append fills in r.ID when empty (see NewID) and r.Time when zero, and
// makes the excerpt and free-text fields safe to keep: the excerpt is cut to
// DefaultExcerptRunes, and they all pass through redact.Command, so a caller's
// mistake cannot put a secret in the log.
func (l *Log) Append(r *Record) error { return l.AppendContext(context.Background(), r) }

// AppendContext is Append waiting for the log's lock no longer than ctx
// allows: a process that holds it and never lets go (one stopped while
// writing) must not keep a hook from answering in time.
func (l *Log) AppendContext(ctx context.Context, r *Record) error {
	if r.ID == "" {
		r.ID = NewID()
	}
	if r.Time.IsZero() {
		// In UTC: a local time's offset comes from the system's zone
		// file, which a process reads the first time it formats one, and
		// the hook is a process per call. Readers show local time.
		r.Time = time.Now().UTC()
	}
	r.Excerpt = Excerpt(r.Excerpt, DefaultExcerptRunes)
	r.Reason = boundText(r.Reason)
	r.ZertoError = boundText(r.ZertoError)
	r.Error = boundText(r.Error)
	rec := *r
	rec.Outcome = nil // joined by readers, never written on the call's line
	line, err := appendRecord(nil, &rec)
	if err != nil {
		return fmt.Errorf("encoding audit record: %w", err)
	}
	return l.appendLine(ctx, append(line, '\n'))
}

// appendLine appends line under the log's lock, waiting for it no longer
// than ctx allows.
func (l *Log) appendLine(ctx context.Context, line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("creating state folder: %w", err)
	}
	lock := flock.New(filepath.Join(l.dir, lockName), flock.SetPermissions(0o600))
	ok, err := lock.TryLockContext(ctx, lockPoll)
	if err != nil || !ok {
		return fmt.Errorf("locking the audit log: %w", errors.Join(err, ctx.Err()))
	}
	defer lock.Close()
	return l.appendLocked(line)
}

func (l *Log) appendLocked(line []byte) error {
	f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening the audit log: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return fmt.Errorf("opening the audit log: %w", err)
	}
	if fi.Size() > 0 && fi.Size()+int64(len(line)) > l.maxSize() {
		f.Close()
		if err := l.rotate(); err != nil {
			return err
		}
		f, err = os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return fmt.Errorf("opening the audit log: %w", err)
		}
	}
	if _, err := f.Write(line); err != nil {
		f.Close()
		return fmt.Errorf("writing the audit log: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the audit log: %w", err)
	}
	return nil
}

// rotate shifts audit.jsonl.N-1 to .N and so on, and the current file to
// .1, dropping the oldest. It runs under the lock.
func (l *Log) rotate() error {
	base := l.Path()
	if err := os.Remove(rotated(base, l.keep())); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("rotating the audit log: %w", err)
	}
	for i := l.keep() - 1; i >= 0; i-- {
		from := rotated(base, i)
		if err := os.Rename(from, rotated(base, i+1)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("rotating the audit log: %w", err)
		}
	}
	return nil
}

// rotated returns the name of the i-th rotated file, or base for 0.
func rotated(base string, i int) string {
	if i == 0 {
		return base
	}
	return base + "." + strconv.Itoa(i)
}

func marshalLine(r any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encoding audit record: %w", err)
	}
	return buf.Bytes(), nil
}

// idAlphabet is Crockford's base 32 in lower case: digits and letters
// without i, l, o and u, so that an ID read aloud or copied by hand cannot be
// mistyped into another one (see normalizeID).
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// IDLen is the length of a record ID: 59 random bits, enough that IDs do not
// collide across sessions, machines and years of logs.
const IDLen = 12

// NewID returns a new record ID: IDLen random characters of Crockford's base
// 32, the first a letter, such as "k73m9qz2xw4t". The letter keeps an audit
// id from starting with a CheckpointIdentifier, a decimal number, so that
// rewind undo 1000118 names a checkpoint without a doubt (logs written
// before hold IDs that start with digits: recovery.Find still refuses a
// prefix of digits that starts one). Every call gets an ID of its own: two sessions
// reusing a tool_use_id, or the same event replayed, get two IDs. The hook
// draws the ID before it decides, so that it can name the record in its
// answer before appending it.
//
// The bits come from math/rand/v2, whose generator (ChaCha8) the runtime
// seeds from the system's random source at start: an ID names a record
// and is no secret, and crypto/rand's first read in a process (which sets
// up the vDSO's random state, and links a DRBG whose package init every
// hook start pays) costs the hook more than writing the record.
func NewID() string {
	var b [IDLen]byte
	bits := rand.Uint64()
	letters := idAlphabet[10:]
	b[0] = letters[bits%uint64(len(letters))]
	bits /= uint64(len(letters))
	for i := 1; i < len(b); i++ {
		b[i] = idAlphabet[bits&31]
		bits >>= 5
	}
	return string(b[:])
}

// normalizeID reads an ID or prefix the way a person may type it: in any
// case, with the letters Crockford's alphabet leaves out read as the digits
// they look like (i and l as 1, o as 0), around spaces.
func normalizeID(id string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case 'i', 'l':
			return '1'
		case 'o':
			return '0'
		}
		return r
	}, strings.ToLower(strings.TrimSpace(id)))
}

// Filter selects records for Read.
type Filter struct {
	// Session keeps only the records of that session, when not empty.
	Session string
	// Limit keeps only the newest Limit records, when positive.
	Limit int
}

// Read returns the records of the log that pass filter, oldest first, from
// the rotated files and the current one. A missing log has no records. A
// line that is not a record, as a writer that crashed mid-line leaves, is
// skipped.
//
// Each record of a call gets its Outcome, when there is one: the outcome
// the host's post-tool hook appended (see AppendOutcome) or, for a call
// the host did not run, the one inferred (see inferNotRun).
func (l *Log) Read(filter Filter) ([]Record, error) {
	var j joiner
	err := l.scan(func(r *Record) {
		if filter.Session == "" || r.Session == filter.Session {
			j.add(r)
		}
	})
	if err != nil {
		return nil, err
	}
	recs := j.records()
	if filter.Limit > 0 && len(recs) > filter.Limit {
		recs = recs[len(recs)-filter.Limit:]
	}
	return recs, nil
}

// scan calls fn for each record, oldest first, under a shared lock so that
// no rotation happens between files.
func (l *Log) scan(fn func(*Record)) error {
	if _, err := os.Stat(l.dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lock := flock.New(filepath.Join(l.dir, lockName), flock.SetPermissions(0o600))
	if err := lock.RLock(); err != nil {
		return fmt.Errorf("locking the audit log: %w", err)
	}
	defer lock.Close()
	base := l.Path()
	// Files past Keep may be left from a larger Keep; read them too.
	n := l.keep()
	for {
		if _, err := os.Stat(rotated(base, n+1)); err != nil {
			break
		}
		n++
	}
	for i := n; i >= 0; i-- {
		if err := scanFile(rotated(base, i), fn); err != nil {
			return err
		}
	}
	return nil
}

func scanFile(name string, fn func(*Record)) error {
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the audit log: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var r Record
			// An outcome line (see AppendOutcome) has no ID: readers
			// older than outcomes skip it.
			if json.Unmarshal(line, &r) == nil && (r.ID != "" || r.Outcome != nil && r.ToolUseID != "") {
				fn(&r)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("reading the audit log: %w", err)
		}
	}
}

// ErrNotFound is returned by Find when no record has the ID.
var ErrNotFound = errors.New("no such record in the audit log")

// AmbiguousError is returned by Find for a prefix that several IDs share.
type AmbiguousError struct {
	Prefix string
	// IDs are the matching IDs, oldest first.
	IDs []string
}

func (e *AmbiguousError) Error() string {
	ids := e.IDs
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], fmt.Sprintf(" and %d more", len(e.IDs)-5)
	}
	return fmt.Sprintf("ID prefix %q matches %s%s", e.Prefix, strings.Join(ids, ", "), more)
}

// Find returns the record whose ID is id or, failing that, the only one
// whose ID starts with id, typed in any case (see NewID). Should a line
// appear twice with the same ID, as a log restored from a backup may hold,
// the newest is returned.
func (l *Log) Find(id string) (*Record, error) {
	id = normalizeID(id)
	if id == "" {
		return nil, errors.New("empty record ID")
	}
	var exact, prefixed *Record
	var ids []string
	err := l.scan(func(r *Record) {
		switch {
		case r.ID == "":
			// An outcome line.
		case r.ID == id:
			exact = r
		case strings.HasPrefix(r.ID, id):
			prefixed = r
			ids = appendUnique(ids, r.ID)
		}
	})
	switch {
	case err != nil:
		return nil, err
	case exact != nil:
		return l.withOutcome(exact)
	case len(ids) == 1:
		return l.withOutcome(prefixed)
	case len(ids) > 1:
		return nil, &AmbiguousError{Prefix: id, IDs: ids}
	default:
		return nil, fmt.Errorf("record %q: %w", id, ErrNotFound)
	}
}

func appendUnique(ids []string, id string) []string {
	for _, have := range ids {
		if have == id {
			return ids
		}
	}
	return append(ids, id)
}

// boundText redacts s and cuts it to maxTextRunes. Redaction comes first,
// so that the cut cannot leave half a secret that no pattern recognises, but
// on a window of s only, so that a huge text costs little.
func boundText(s string) string {
	if len(s) > 8*maxTextRunes {
		s = clipWord(s, 8*maxTextRunes) + " …"
	}
	s = redact.Command(s)
	if utf8.RuneCountInString(s) > maxTextRunes {
		s = truncate(s, maxTextRunes)
	}
	return s
}
