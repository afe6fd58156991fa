package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// colorTerminal says whether w is a terminal that may get colours: not when
// NO_COLOR is set to anything (https://no-color.org), nor for TERM=dumb.
func colorTerminal(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is w's width when it is a terminal of at least 60
// columns; 100 otherwise, which suits a pipe or a file.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width >= 60 {
			return width
		}
	}
	return 100
}
