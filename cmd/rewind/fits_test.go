package main

import (
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFits checks that every line of the last command's stdout takes at
// most N terminal columns, wide characters counting twice, so that no
// row of a table wraps:
//
//	fits N
func cmdFits(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: fits N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var wide []string
	for line := range strings.SplitSeq(strings.TrimSuffix(ts.ReadFile("stdout"), "\n"), "\n") {
		if w := audit.DisplayWidth(stripSGR(line)); w > n {
			wide = append(wide, strconv.Itoa(w)+": "+line)
		}
	}
	switch {
	case neg && len(wide) == 0:
		ts.Fatalf("every line fits %d columns", n)
	case !neg && len(wide) > 0:
		ts.Fatalf("lines wider than %d columns:\n%s", n, strings.Join(wide, "\n"))
	}
}

// stripSGR drops the colour sequences (ESC [ ... m) from s.
func stripSGR(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return b.String()
		}
		s = s[i+j+1:]
	}
}
