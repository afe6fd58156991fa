package policy

import (
	"testing"

	"github.com/rewind-dev/rewind/shell"
)

// TestJudgedOnceUnlessItMoves: the same command in the same folder is
// judged once, and a command that moves the walk on is judged every time
// it comes.
func TestJudgedOnceUnlessItMoves(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	f := p.folds("/a")[0]
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
