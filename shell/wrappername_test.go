package shell

import "testing"

// TestWrapperName holds wrapperName to the tables of wrappers.
func TestWrapperName(t *testing.T) {
	t.Parallel()
	for name := range wrappers() {
		if !wrapperName(name) {
			t.Errorf("wrapperName(%q) = false; it is in wrappers", name)
		}
	}
	for name := range subWrappers() {
		if !wrapperName(name) {
			t.Errorf("wrapperName(%q) = false; it is in subWrappers", name)
		}
	}
	for _, name := range []string{"ls", "git", "sudo", "", "vim"} {
		if wrapperName(name) {
			t.Errorf("wrapperName(%q) = true; it is in no table", name)
		}
	}
}
