package cli

import (
	"errors"
	"io"
	"os"

	"golang.org/x/term"
)

// colorTerminal says whether w is a terminal that may get colours: not when
// NO_COLOR is set to anything (https://no-color.org), nor for TERM=dumb.
func colorTerminal(w io.Writer) bool {
	return colorAuto.enabled(w, os.Getenv)
}

// colorMode is the value of a --color flag: auto (colours on a terminal
// that may have them), always or never.
type colorMode string

const (
	colorAuto   colorMode = "auto"
	colorAlways colorMode = "always"
	colorNever  colorMode = "never"
)

func (m *colorMode) String() string { return string(*m) }
func (m *colorMode) Type() string   { return "when" }

func (m *colorMode) Set(s string) error {
	switch colorMode(s) {
	case colorAuto, colorAlways, colorNever:
		*m = colorMode(s)
		return nil
	}
	return errors.New("auto, always or never")
}

// enabled says whether output to w gets colours. A flag given on the
// command line wins over NO_COLOR, as https://no-color.org asks; auto
// colours a terminal unless NO_COLOR is set to anything or TERM is dumb.
func (m colorMode) enabled(w io.Writer, getenv func(string) string) bool {
	switch m {
	case colorAlways:
		return true
	case colorNever:
		return false
	}
	if getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// terminalWidth is w's width when it is a terminal; 100 otherwise, which
// suits a pipe or a file.
func terminalWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
			return width
		}
	}
	return 100
}
