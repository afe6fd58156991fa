package confirm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// ErrNoTerminal says the process has no controlling terminal: nobody can
// be asked.
var ErrNoTerminal = errors.New("no terminal to ask a person at")

// MaxLine bounds a line read from the terminal.
const MaxLine = 4096

// Asker asks a person: a Terminal, or in a test a script of answers.
type Asker interface {
	// Say shows text to the person.
	Say(text string)
	// Line asks for a line of text, shown as it is typed.
	Line(prompt string) (string, error)
	// Secret asks for a secret, not shown as it is typed.
	Secret(prompt string) (string, error)
}

// Terminal is the controlling terminal of the process.
type Terminal struct {
	in, out *os.File
}

// Open opens the controlling terminal, or returns ErrNoTerminal.
func Open() (*Terminal, error) {
	in, out, err := openTTY()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoTerminal, err)
	}
	if !term.IsTerminal(int(in.Fd())) {
		closeBoth(in, out)
		return nil, ErrNoTerminal
	}
	return &Terminal{in: in, out: out}, nil
}

// Close closes the terminal.
func (t *Terminal) Close() error { return closeBoth(t.in, t.out) }

func closeBoth(in, out *os.File) error {
	err := in.Close()
	if out != in {
		if e := out.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Say writes text and a new line. Control characters other than new
// lines and tabs are shown as "?": text may come from a file or a log an
// agent wrote, and an escape sequence must not redraw what the person
// reads.
func (t *Terminal) Say(text string) {
	io.WriteString(t.out, Printable(strings.TrimRight(text, "\n"))+"\n")
}

// Printable returns s with its control characters (new lines and tabs
// aside), the other characters that move or hide text, and bytes that are
// not UTF-8 (a lone 0x9b is a CSI to some terminals) as "?".
func Printable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < ' ' || (r >= 0x7f && r < 0xa0) || r == utf8.RuneError || r == '\u2028' || r == '\u2029' || (r >= 0x200b && r <= 0x200f) || (r >= 0x202a && r <= 0x202e):
			return '?'
		}
		return r
	}, s)
}

// Line writes prompt and reads one line, at most MaxLine bytes; the end of
// the line is not part of it.
func (t *Terminal) Line(prompt string) (string, error) {
	io.WriteString(t.out, Printable(prompt))
	var (
		b   []byte
		one [1]byte
	)
	for {
		n, err := t.in.Read(one[:])
		if n == 1 {
			if one[0] == '\n' {
				return strings.TrimSuffix(string(b), "\r"), nil
			}
			if len(b) == MaxLine {
				return "", fmt.Errorf("a line of more than %d bytes", MaxLine)
			}
			b = append(b, one[0])
		}
		if err != nil {
			if err == io.EOF {
				io.WriteString(t.out, "\n")
			}
			return "", err
		}
	}
}

// Secret writes prompt and reads a line with echo off. Where it can, echo
// goes off before the prompt is written, so that what is typed ahead is
// not shown either.
func (t *Terminal) Secret(prompt string) (string, error) {
	line, err := t.secret(prompt)
	io.WriteString(t.out, "\n")
	return line, err
}

// Word asks the person to type want to confirm, and reports whether they
// did: anything else, or nothing, is a no.
func Word(a Asker, prompt, want string) (bool, error) {
	got, err := a.Line(prompt)
	if err != nil {
		return false, err
	}
	return strings.TrimSpace(got) == want, nil
}
