package policy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The lists of testdata/surfaces are the command surfaces of the tools the
// families judge, taken from each tool's own source (see
// scripts/surfaces), each command with the effect the catalog gives it.
// TestSurfaces holds the catalog to them: every listed command is judged
// by a rule of its family (or, for code it runs on a host, of remote), with the listed effect and, for a change or a
// delete, the VMs the command names. A command that changes a VM without a
// protecting or denying rule fails here; the lines with "none" are the
// commands judged read-only, for a reviewer to read.

// surfaceCase is one line of a list.
type surfaceCase struct {
	file    string
	line    int
	command string // the whole command line
	want    Effect
	targets []string
}

// surfaceList is a parsed list file.
type surfaceList struct {
	family string
	cases  []surfaceCase
}

// readSurface parses a list: directives "@family NAME", "@command WORDS"
// (what the listed commands follow), "@targets NAME...", "@replace FROM
// TO" (a placeholder of the tool's command names and the word the test
// puts in it) and "@extra" (the lines after it are more samples, not the
// tool's commands), then lines
// "COMMAND | EFFECT | ARGUMENTS [| TARGETS]". The expected targets of a
// protect or deny line are the @targets names its command and arguments
// hold as words,
// unless TARGETS lists them ("-" for none).
func readSurface(path string) (*surfaceList, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l := &surfaceList{}
	var prefix string
	var names, replace []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
			continue
		case strings.HasPrefix(text, "@"):
			key, val, _ := strings.Cut(text[1:], " ")
			val = strings.TrimSpace(val)
			switch key {
			case "family":
				l.family = val
			case "command":
				prefix = val
			case "targets":
				names = strings.Fields(val)
			case "replace":
				from, to, ok := strings.Cut(val, " ")
				if !ok {
					return nil, fmt.Errorf("%s:%d: want @replace FROM TO", path, n)
				}
				replace = append(replace, from, strings.TrimSpace(to))
			case "extra":
				// What follows are more samples, not the tool's commands:
				// scripts/surfaces -check leaves them out.
			default:
				return nil, fmt.Errorf("%s:%d: unknown directive @%s", path, n, key)
			}
			continue
		}
		cols := strings.Split(text, "|")
		if len(cols) < 2 || len(cols) > 4 {
			return nil, fmt.Errorf("%s:%d: want COMMAND | EFFECT | ARGUMENTS [| TARGETS]", path, n)
		}
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		var want Effect
		if err := want.UnmarshalText([]byte(cols[1])); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		c := surfaceCase{file: filepath.Base(path), line: n, want: want}
		if len(replace) > 0 {
			cols[0] = strings.NewReplacer(replace...).Replace(cols[0])
		}
		c.command = strings.Join(slices.DeleteFunc([]string{prefix, cols[0], at(cols, 2)}, func(s string) bool { return s == "" }), " ")
		if want >= Protect && want != Ask {
			switch t := at(cols, 3); t {
			case "":
				c.targets = wordsAmong(cols[0]+" "+at(cols, 2), names)
			case "-":
			default:
				c.targets = strings.Fields(t)
			}
		}
		l.cases = append(l.cases, c)
	}
	if l.family == "" {
		return nil, fmt.Errorf("%s: no @family", path)
	}
	return l, sc.Err()
}

func at(cols []string, i int) string {
	if i < len(cols) {
		return cols[i]
	}
	return ""
}

// wordsAmong returns the names that args holds as words, in the order of
// names: a word is a run of characters other than white space, quotes and
// the punctuation of structured values.
func wordsAmong(args string, names []string) []string {
	words := strings.FieldsFunc(args, func(r rune) bool { return strings.ContainsRune(" \t\"'=,[]{}:/()?&@", r) })
	var out []string
	for _, n := range names {
		if slices.Contains(words, n) {
			out = append(out, n)
		}
	}
	return out
}

func surfaceFiles(t testing.TB) []string {
	files, err := filepath.Glob("testdata/surfaces/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no surface lists: %v", err)
	}
	return files
}

func TestSurfaces(t *testing.T) {
	t.Parallel()
	p := newPolicy(t, "")
	family := map[string]string{} // rule label -> family
	for _, r := range p.Rules() {
		family[r.Name] = r.Family
	}
	for _, file := range surfaceFiles(t) {
		l, err := readSurface(file)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(l.family, func(t *testing.T) {
			count := map[Effect]int{}
			for _, c := range l.cases {
				v := p.ClassifyCommand(c.command)
				count[c.want]++
				where := fmt.Sprintf("%s:%d: %s", c.file, c.line, c.command)
				switch {
				case v.Rule == "" || family[v.Rule] != l.family && family[v.Rule] != remoteFamily:
					// remote judges the code a command runs on a host.
					t.Errorf("%s: judged by no rule of the %s family (got %s from %q)", where, l.family, v.Effect, v.Rule)
				case v.Effect != c.want:
					t.Errorf("%s: got %s (%s: %s), want %s", where, v.Effect, v.Rule, v.Reason, c.want)
				case c.want == Protect || c.want == Deny:
					got := slices.Clone(v.Targets)
					slices.Sort(got)
					want := slices.Clone(c.targets)
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Errorf("%s: targets %q, want %q", where, v.Targets, c.targets)
					}
				}
			}
			t.Logf("%d commands: %d none, %d protect, %d ask, %d deny", len(l.cases), count[None], count[Protect], count[Ask], count[Deny])
		})
	}
}

// TestSurfaceListsRead checks the list reader on a list of each shape.
func TestSurfaceListsRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.txt")
	os.WriteFile(path, []byte("# c\n@family x\n@command x y\n@targets web-01 i-1\nstop | protect | --ids i-1,web-02\nrm | deny | --name=web-01 | -\nls | none\n"), 0o666)
	l, err := readSurface(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.family != "x" || len(l.cases) != 3 {
		t.Fatalf("got %+v", l)
	}
	if c := l.cases[0]; c.command != "x y stop --ids i-1,web-02" || c.want != Protect || !slices.Equal(c.targets, []string{"i-1"}) {
		t.Errorf("case 1: %+v", c)
	}
	if c := l.cases[1]; c.targets != nil || c.want != Deny {
		t.Errorf("case 2: %+v", c)
	}
	if c := l.cases[2]; c.command != "x y ls" || c.want != None {
		t.Errorf("case 3: %+v", c)
	}
	os.WriteFile(path, []byte("@family x\nstop | maybe\n"), 0o666)
	if _, err := readSurface(path); err == nil || !strings.Contains(err.Error(), "x.txt:2") {
		t.Errorf("a bad effect: %v", err)
	}
}
