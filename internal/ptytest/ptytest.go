package ptytest

import (
	"bytes"
	"errors"
	"os/exec"
	"strings"
)

// ErrUnsupported says this system has no pseudo-terminals Run can use.
var ErrUnsupported = errors.New("ptytest: pseudo-terminals are not supported here")

// EOF is an answer that types end-of-file (Ctrl-D) instead of a line.
const EOF = "\x04"

// Run starts cmd in a session of its own whose controlling terminal is a
// new pseudo-terminal, leaving cmd's standard streams as they are. Each
// time the command's terminal output ends with a prompt (": " or "? "),
// the next answer is typed, followed by a new line; once the answers run
// out, end-of-file is. It waits for cmd and returns what the command wrote
// to its terminal, with the answers the terminal echoed.
func Run(cmd *exec.Cmd, answers []string) (transcript string, err error) {
	master, slave, err := open()
	if err != nil {
		return "", err
	}
	defer master.Close()
	attach(cmd, slave)
	if err := cmd.Start(); err != nil {
		slave.Close()
		return "", err
	}
	slave.Close()
	var out bytes.Buffer
	since := 0
	buf := make([]byte, 4096)
	for {
		n, rerr := master.Read(buf)
		out.Write(buf[:n])
		if atPrompt(out.Bytes()[since:]) {
			answer := EOF
			if len(answers) > 0 {
				answer, answers = answers[0], answers[1:]
			}
			if answer != EOF {
				answer += "\n"
			}
			master.Write([]byte(answer))
			since = out.Len()
		}
		if rerr != nil {
			// The command closed its terminal: it ended.
			break
		}
	}
	err = cmd.Wait()
	return strings.ReplaceAll(out.String(), "\r\n", "\n"), err
}

func atPrompt(b []byte) bool {
	return bytes.HasSuffix(b, []byte(": ")) || bytes.HasSuffix(b, []byte("? "))
}
