package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/gofrs/flock"
)

func TestNewID(t *testing.T) {
	t.Parallel()
	shape := regexp.MustCompile(`^[a-hjkmnp-tv-z][0-9a-hjkmnp-tv-z]{11}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !shape.MatchString(id) {
			t.Fatalf("NewID() = %q, want 12 characters of Crockford's base 32, the first a letter", id)
		}
		if seen[id] {
			t.Fatalf("NewID() gave %q twice", id)
		}
		seen[id] = true
	}
}

// TestAppendIDsAreUnique: calls from two sessions that reuse a tool_use_id,
// and the same event logged twice, are told apart.
func TestAppendIDsAreUnique(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	recs := []*Record{
		{Session: "s1", ToolUseID: "toolu_01", Tool: "Bash", Decision: DecisionProtected},
		{Session: "s2", ToolUseID: "toolu_01", Tool: "Bash", Decision: DecisionProtected},
		{Session: "s2", ToolUseID: "toolu_01", Tool: "Bash", Decision: DecisionProtected},
	}
	ids := map[string]bool{}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		ids[r.ID] = true
	}
	if len(ids) != len(recs) {
		t.Fatalf("IDs %v: records share an ID", ids)
	}
	for _, r := range recs {
		got, err := l.Find(r.ID[:6])
		if err != nil || got.Session != r.Session || got.ID != r.ID {
			t.Errorf("Find(%q) = %+v, %v; want the record %s", r.ID[:6], got, err, r.ID)
		}
	}
}

func TestAppendRead(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "state")
	l := Open(dir)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open touched the disk: %v", err)
	}
	if recs, err := l.Read(Filter{}); err != nil || len(recs) != 0 {
		t.Fatalf("Read of a missing log = %v, %v", recs, err)
	}
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	in := []Record{
		{Session: "s1", ToolUseID: "toolu_1", Tool: "Bash", Excerpt: "govc vm.power -off web-01", Decision: DecisionProtected,
			Targets: []string{"web-01"}, Checkpoints: []Checkpoint{{VM: "web-01", VMIdentifier: "g.vm-38", VPG: "web", VPGIdentifier: "v1", Identifier: "123", Tag: "rewind-1", Time: t0}}, ElapsedMS: 5300},
		{Session: "s2", Tool: "Read", Decision: DecisionNone, Time: t0.Add(time.Second)},
		{Session: "s1", ToolUseID: "toolu_3", Tool: "mcp__vsphere__power_off_vm", Decision: DecisionDeny, ZertoError: "VPG is not meeting SLA"},
	}
	for i := range in {
		if err := l.Append(&in[i]); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	if in[0].ID == "" || in[1].ID == in[0].ID || in[2].Time.IsZero() {
		t.Errorf("Append did not fill ID and Time: %+v", in)
	}
	assertMode(t, dir, 0o700|os.ModeDir)
	assertMode(t, l.Path(), 0o600)

	got, err := l.Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("Read returned %d records, want 3", len(got))
	}
	for i := range got {
		if !got[i].Time.Equal(in[i].Time) {
			t.Errorf("record %d time %v, want %v", i, got[i].Time, in[i].Time)
		}
		got[i].Time, in[i].Time = time.Time{}, time.Time{}
	}
	if !got[0].Checkpoints[0].Time.Equal(t0) {
		t.Errorf("checkpoint time %v, want %v", got[0].Checkpoints[0].Time, t0)
	}
	got[0].Checkpoints[0].Time, in[0].Checkpoints[0].Time = time.Time{}, time.Time{}
	if !reflect.DeepEqual(got, in) {
		t.Errorf("Read:\n got %+v\nwant %+v", got, in)
	}

	tests := []struct {
		filter Filter
		want   []string
	}{
		{Filter{Session: "s1"}, []string{in[0].ID, in[2].ID}},
		{Filter{Limit: 2}, []string{in[1].ID, in[2].ID}},
		{Filter{Session: "s1", Limit: 1}, []string{in[2].ID}},
		{Filter{Session: "nope"}, nil},
		{Filter{Limit: 10}, []string{in[0].ID, in[1].ID, in[2].ID}},
	}
	for _, tt := range tests {
		recs, err := l.Read(tt.filter)
		if err != nil {
			t.Fatal(err)
		}
		if ids := idsOf(recs); !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("Read(%+v) = %v, want %v", tt.filter, ids, tt.want)
		}
	}
}

func TestRecordJSON(t *testing.T) {
	t.Parallel()
	r := Record{ID: "0123456789ab", Time: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), Tool: "Read", Decision: DecisionNone,
		Checkpoints: []Checkpoint{{Tag: "rewind-x"}}}
	line, err := appendRecord(nil, &r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"0123456789ab","time":"2026-03-01T10:00:00Z","tool":"Read","decision":"none","checkpoints":[{"tag":"rewind-x"}],"elapsed_ms":0}`
	if string(line) != want {
		t.Errorf("record line\n got %s\nwant %s", line, want)
	}
}

func TestAppendRedacts(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	r := &Record{
		Tool:       "Bash",
		Excerpt:    "REWIND_ZVM_PASSWORD=hunter2 rewind doctor\n" + strings.Repeat("x ", 500),
		Decision:   DecisionAllowOnError,
		Reason:     "login failed for password=hunter2",
		ZertoError: `{"error_description":"bad client_secret=hunter2"}`,
		Error:      "token=hunter2 " + strings.Repeat("y", 100000),
	}
	if err := l.Append(r); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Errorf("the log holds a secret: %s", data)
	}
	if len(data) > 16<<10 {
		t.Errorf("a record of %d bytes: free text is not bounded", len(data))
	}
	recs, _ := l.Read(Filter{})
	if len(recs) != 1 || strings.ContainsRune(recs[0].Excerpt, '\n') || len([]rune(recs[0].Excerpt)) > DefaultExcerptRunes {
		t.Errorf("excerpt not bounded to one line: %q", recs[0].Excerpt)
	}
}

func TestRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l := Open(dir)
	l.MaxSize = 400
	l.Keep = 2
	var ids []string
	for i := range 20 {
		r := &Record{Tool: "Bash", Decision: DecisionNone, Excerpt: fmt.Sprintf("echo %d", i)}
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
	}
	for i := 0; i <= 2; i++ {
		fi, err := os.Stat(rotated(l.Path(), i))
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if fi.Size() > l.MaxSize {
			t.Errorf("%s has %d bytes, over MaxSize", fi.Name(), fi.Size())
		}
	}
	if _, err := os.Stat(rotated(l.Path(), 3)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a third rotated file with Keep = 2: %v", err)
	}
	recs, err := l.Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := idsOf(recs)
	if len(got) == 0 || len(got) >= len(ids) {
		t.Fatalf("after rotation Read returned %d of %d records", len(got), len(ids))
	}
	if want := ids[len(ids)-len(got):]; !reflect.DeepEqual(got, want) {
		t.Errorf("after rotation Read = %v, want the newest records in order %v", got, want)
	}

	// A line larger than MaxSize still goes in, alone in its file.
	big := &Record{Tool: "Bash", Decision: DecisionNone, Reason: strings.Repeat("r", 1000)}
	if err := l.Append(big); err != nil {
		t.Fatal(err)
	}
	recs, _ = l.Read(Filter{Limit: 1})
	if len(recs) != 1 || recs[0].ID != big.ID {
		t.Errorf("oversized record not appended: %v", idsOf(recs))
	}
}

func TestReadSkipsTornLines(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	if err := l.Append(&Record{Tool: "A", Decision: DecisionNone}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"abc","tool":"tor` + "\n\n[1,2]\n")
	f.Close()
	if err := l.Append(&Record{Tool: "B", Decision: DecisionNone}); err != nil {
		t.Fatal(err)
	}
	recs, err := l.Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Tool != "A" || recs[1].Tool != "B" {
		t.Errorf("Read = %+v, want records A and B", recs)
	}
}

func TestFind(t *testing.T) {
	t.Parallel()
	l := Open(t.TempDir())
	for _, r := range []Record{
		{ID: "aaaa11111111", Tool: "first"},
		{ID: "aaaa22222222", Tool: "second"},
		{ID: "bbbb33333333", Tool: "third"},
		{ID: "aaaa11111111", Tool: "first-again"},
		{ID: "aaaa1111", Tool: "short"},
	} {
		if err := l.Append(&r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		id       string
		wantTool string
		wantErr  error
	}{
		{"bbbb33333333", "third", nil},
		{"bbbb", "third", nil},
		{"  BBBB3 ", "third", nil},
		{"aaaa2", "second", nil},
		{"aaaa11111111", "first-again", nil},
		{"aaaa1111", "short", nil},        // an exact ID wins over longer IDs it prefixes
		{"aaaaIlII", "short", nil},        // i and l read as 1
		{"bbbb3333333O", "", ErrNotFound}, // o reads as 0
		{"aaaa111", "", new(AmbiguousError)},
		{"aaaa", "", new(AmbiguousError)},
		{"cccc", "", ErrNotFound},
	}
	for _, tt := range tests {
		r, err := l.Find(tt.id)
		switch {
		case tt.wantErr == nil && err != nil:
			t.Errorf("Find(%q): %v", tt.id, err)
		case tt.wantErr == nil && r.Tool != tt.wantTool:
			t.Errorf("Find(%q) = %s, want %s", tt.id, r.Tool, tt.wantTool)
		case tt.wantErr == ErrNotFound && !errors.Is(err, ErrNotFound):
			t.Errorf("Find(%q) error %v, want ErrNotFound", tt.id, err)
		case tt.wantErr != nil && tt.wantErr != ErrNotFound:
			var ae *AmbiguousError
			if !errors.As(err, &ae) {
				t.Errorf("Find(%q) error %v, want *AmbiguousError", tt.id, err)
			}
		}
	}
	_, err := l.Find("aaaa")
	want := `ID prefix "aaaa" matches aaaa11111111, aaaa22222222, aaaa1111`
	if err == nil || err.Error() != want {
		t.Errorf("Find(aaaa) error %v, want %s", err, want)
	}
	if _, err := l.Find(" "); err == nil {
		t.Error("Find of an empty ID succeeded")
	}
}

// Concurrency: goroutines of this process and helper processes append at
// once, with rotation on, and every record must come back whole, once.
const (
	helperEnv    = "REWIND_AUDIT_HELPER_DIR"
	helperN      = 40
	helperProcs  = 3
	goroutines   = 6
	concMaxSize  = 8 << 10
	concKeepMany = 1000
)

func TestAppendHelperProcess(t *testing.T) {
	t.Parallel()
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for TestConcurrentAppend")
	}
	appendMany(t, dir, "proc"+os.Getenv("REWIND_AUDIT_HELPER_ID"))
}

func appendMany(t *testing.T, dir, who string) {
	l := Open(dir)
	l.MaxSize = concMaxSize
	l.Keep = concKeepMany
	for i := range helperN {
		r := &Record{Session: who, Tool: "Bash", Decision: DecisionNone,
			Excerpt: fmt.Sprintf("%s %d %s", who, i, strings.Repeat("z", 150))}
		if err := l.Append(r); err != nil {
			t.Error(err)
			return
		}
	}
}

func TestConcurrentAppend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for p := range helperProcs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAppendHelperProcess$")
		// atexit_sleep_ms: a -race binary otherwise idles a second at exit.
		cmd.Env = append(os.Environ(), helperEnv+"="+dir, "REWIND_AUDIT_HELPER_ID="+strconv.Itoa(p),
			"GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() { appendMany(t, dir, "goroutine"+strconv.Itoa(g)) })
	}
	wg.Wait()
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper process: %v", err)
		}
	}

	files, _ := filepath.Glob(filepath.Join(dir, FileName+"*"))
	if len(files) < 2 {
		t.Errorf("no rotation happened: %v", files)
	}
	lines := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			lines++
			var r Record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("%s: torn line %q: %v", filepath.Base(name), sc.Text(), err)
			}
		}
		f.Close()
	}
	total := (helperProcs + goroutines) * helperN
	if lines != total {
		t.Errorf("%d lines, want %d", lines, total)
	}
	recs, err := Open(dir).Read(Filter{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.Excerpt]++
	}
	if len(seen) != total {
		t.Errorf("%d distinct records, want %d", len(seen), total)
	}
	// Each writer's records come back in its own order.
	next := map[string]int{}
	for _, r := range recs {
		who, n, _ := strings.Cut(r.Excerpt, " ")
		i, _ := strconv.Atoi(strings.Fields(n)[0])
		if i != next[who] {
			t.Fatalf("%s: record %d after %d", who, i, next[who]-1)
		}
		next[who]++
	}
}

func idsOf(recs []Record) []string {
	var ids []string
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	return ids
}

func assertMode(t *testing.T, name string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&(os.ModeDir|os.ModePerm) != want {
		t.Errorf("%s has mode %v, want %v", name, fi.Mode(), want)
	}
}

// TestAppendContextLockHeld: a lock another process never lets go costs
// the record, not the caller's deadline.
func TestAppendContextLockHeld(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		fl := flock.New(filepath.Join(dir, lockName))
		if err := fl.Lock(); err != nil {
			t.Fatal(err)
		}
		defer fl.Unlock()
		ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		err := Open(dir).AppendContext(ctx, &Record{Decision: DecisionDeny})
		if err == nil || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the deadline", err)
		}
		// On the bubble's clock: a wait blind to the deadline lasts as long
		// as the lock is held, until the test ends.
		if el := time.Since(start); el > 100*time.Millisecond {
			t.Errorf("took %v past a 100ms deadline", el)
		}
	})
}
