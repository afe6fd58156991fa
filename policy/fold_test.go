package policy

import (
	"reflect"
	"testing"

	"github.com/rewind-dev/rewind/shell"
)

// TestJudgedOnceUnlessItMoves: the same command in the same folder is
// judged once, and a command that moves the walk on is judged every time
// it comes.
func TestJudgedOnceUnlessItMoves(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	f := p.folds("/a", "")[0]
	for range 3 {
		f.add(shell.Finding{Invocation: &shell.Invocation{Name: "echo", Args: []string{"ls"}, Writes: []string{"f"}}})
	}
	if len(f.judged) != 1 || len(f.sections[0].matches) != 1 {
		t.Errorf("%d kept, %d matches; want the echo judged once", len(f.judged), len(f.sections[0].matches))
	}
	for range 2 {
		f.add(shell.Finding{Invocation: &shell.Invocation{Name: "cd", Args: []string{"b"}}})
	}
	if f.w.dir != "/a/b/b" {
		t.Errorf("after cd b twice: in %q, want /a/b/b", f.w.dir)
	}
	// The echo again, in another folder.
	f.add(shell.Finding{Invocation: &shell.Invocation{Name: "echo", Args: []string{"ls"}, Writes: []string{"f"}}})
	if len(f.judged) != 2 {
		t.Errorf("%d kept, want the echo in /a/b/b judged too", len(f.judged))
	}
}

// TestJudgedKeysDoNotCollide: words that hold the bytes a key is made of
// do not make another invocation's key, and every field of an invocation
// is in it.
func TestJudgedKeysDoNotCollide(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	f := p.folds("/a", "")[0]
	key := func(inv shell.Invocation) string {
		k, ok := f.judgedKey(&inv)
		if !ok {
			t.Fatalf("no key for %+v", inv)
		}
		return k
	}
	pairs := [][2]shell.Invocation{
		{{Name: "rm", Args: []string{"-rf\x00.rewind.toml"}}, {Name: "rm", Args: []string{"-rf", ".rewind.toml"}}},
		{{Name: "rm", Args: []string{"-rf\x01.rewind.toml"}}, {Name: "rm", Args: []string{"-rf"}, Payload: []string{".rewind.toml"}}},
		{{Name: "rm", Args: []string{"2:ab"}}, {Name: "rm", Args: []string{"2", "ab"}}},
		{{Name: "a", Path: "b"}, {Name: "ab"}},
		{{Name: "x", Args: []string{"a"}}, {Name: "x", Args: []string{"a"}, ArgDynamic: []bool{true}}},
		{{Name: "x"}, {Name: "x", Analysed: true}},
		{{Name: "x"}, {Name: "x", Host: "h"}},
		{{Name: "x"}, {Name: "x", Remote: "r"}},
		{{Name: "x"}, {Name: "x", Writes: []string{"f"}}},
		{{Name: "x"}, {Name: "x", Reads: []string{"f"}}},
		{{Name: "x"}, {Name: "x", Env: []string{"A=1"}}},
		{{Name: "x"}, {Name: "x", Via: []string{"sudo"}}},
	}
	for _, pr := range pairs {
		if key(pr[0]) == key(pr[1]) {
			t.Errorf("%+v and %+v share a key", pr[0], pr[1])
		}
	}
	// A field added to Invocation must be added to the key, and here.
	if n := reflect.TypeFor[shell.Invocation]().NumField(); n != 12 {
		t.Errorf("shell.Invocation has %d fields: add the new ones to judgedKey and to this test", n)
	}
}

// TestRepeatedCommandKeepsItsVerdict: a command judged once keeps its
// verdict where it comes again, and one with bytes bash cuts a word at
// does not stand for another.
func TestRepeatedCommandKeepsItsVerdict(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	wantEffects(t, p, []effectCase{
		{"govc vm.destroy web-01\ngovc vm.destroy web-01", Deny},
		{"rm $'-rf\\x00.rewind.toml'; rm -rf .rewind.toml", Ask},
		{"echo ls >> f\necho ls >> f", None},
		// A file no rule guards, by folder and name: no byte of either
		// makes it another folder's file.
		{"cd /tmp; echo a > $'x\\x00.rewind.toml'; cd $'/tmp\\x00x'; echo b > .rewind.toml", Ask},
	})
}
