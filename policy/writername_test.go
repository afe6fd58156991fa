package policy

import "testing"

// TestWriterName holds writerName to the tables of the commands that write
// files.
func TestWriterName(t *testing.T) {
	t.Parallel()
	want := map[string]bool{}
	for name := range copyCommands() {
		want[name] = true
	}
	for name := range writeCommands() {
		want[name] = true
	}
	for name := range treeCommands() {
		want[name] = true
	}
	for name := range want {
		if !writerName(name) {
			t.Errorf("writerName(%q) = false; it is in the tables", name)
		}
	}
	for _, name := range []string{"ls", "cat", "git-lfs", "", "RM", "ssh"} {
		if writerName(name) {
			t.Errorf("writerName(%q) = true; it is in no table", name)
		}
	}
}
