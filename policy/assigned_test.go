package policy

import (
	"strings"
	"testing"
)

// wordOptionCases are words known only at run time, in the code of a
// call, and whether they may expand to an option.
var wordOptionCases = []struct {
	code, word string
	want       bool
}{
	{"", `"$ARCHIVE"`, false},
	{"", `$VMID`, false},
	{"", `"$DIR"/vm-100.conf`, false},
	{"", `$(ls -t *.vma | head -1)`, false},
	{"", `${ID:-120}`, false},
	{"", `${#list}`, false},
	{"", `"$?"`, false},
	{"A=/var/lib/vz/dump/x.vma", `"$A"`, false},
	{"A=$(ls -t /var/lib/vz/dump/*.vma | head -1)", `"$A"`, false},
	{"ID=120; B=$ID", `"$B"`, false},
	{"f=$f", `$f`, false},
	{`curl -d "force=-1"`, `"$force"`, false}, // read as an assignment, of -1
	{`curl -d "force=-f"`, `"$force"`, true},
	{"f=--force", `"$f"`, true},
	{"f=--force", `$f`, true},
	{`f="--force"`, `"$f"`, true},
	{"f+=-f", `"$f"`, true},
	{"declare -x f=--force", `"$f"`, true},
	{"opts=(--force 1)", `$opts`, true},
	{"a[0]=--force", `$a`, true},
	{"a[i+1]+=-f", `"${a[0]}"`, true},
	{"g=--force; f=$g", `"$f"`, true},
	{"f=$g; g=$f; g=-f", `"$f"`, true},
	{": ${f:=--force}", `"$f"`, true},
	{"", `$NOPE--force`, true},
	{"", `"$X"-f`, true},
	{"", `$(true)--force`, true},
	{"", "`true`--force", true},
	{"", `"${f:---force}"`, true},
	{"", `${f-"--force"}`, true},
	{"", `${HOME:+--force}`, true},
	{"", `${HOME/#*/--force}`, true},
	{"", `${!ref}`, true},
	{"", `$_`, true},
	{"f() { :; }", `"$1"`, true},
	{"", `"$1"`, false},
	{"A=-x; B=${A#-}", `"$B"`, true},
	{"eval \"$CODE\"", `"$f"`, true},
	{"read -r f <<< --force", `"$f"`, true},
	{"echo --force | { read f; }", `"$f"`, true},
	{"printf -v f %s --force", `"$f"`, true},
	{"printf  -vf %s --force", `"$f"`, true},
	{"getopts f: o -f --force", `"$OPTARG"`, true},
	{"declare -gn r=f; r=--force; f=x", `"$f"`, true},
	{"if true; then . ./env.sh; fi", `"$f"`, true},
	{"declare -x f=x", `"$f"`, false},
	{"", "$(" + strings.Repeat("x", 5000) + ")--force", true}, // past what is read
	{"f=$(" + strings.Repeat("x", 5000) + ")", `"$f"`, true},
	{`SSH_OPTS="-o StrictHostKeyChecking=no"`, `$SSH_OPTS`, false},
	{"V=-v; Q='-q --all'", `$V$Q`, false},
	{"Q='-q --force'", `$Q`, true},
	{"Q='-qf'", `$Q`, true},
	{"Q=--forc", `$Q`, true}, // an abbreviation
	{"Q=--force-all", `$Q`, false},
	{`Q="-o $X"`, `$Q`, false}, // $X is a word of its own, of the environment
	{"IFS=,; o=x,--force", `$o`, true},
	{"IFS=,; o=x,y", `$o`, false},
	{`Q="-$X"`, `$Q`, true}, // an option whose name goes on at run time: any
	{"", `$NOPE--for"$X"`, true},
}

func TestWordOptions(t *testing.T) {
	t.Parallel()
	for _, tt := range wordOptionCases {
		v := &assignments{src: tt.code + "; qmrestore x 100 " + tt.word}
		if got := wordOptions(tt.word, v, 0).couldBe([]string{"--force", "-f", "--archive"}); got != tt.want {
			t.Errorf("in %q, %s: may be an option = %v, want %v", tt.code, tt.word, got, tt.want)
		}
	}
}

// FuzzWordOptions holds wordOptions to its bounds on any code: it returns,
// and a word that begins with an option may be it.
func FuzzWordOptions(f *testing.F) {
	for _, tt := range wordOptionCases {
		f.Add(tt.code, tt.word)
	}
	f.Fuzz(func(t *testing.T, code, word string) {
		v := &assignments{src: code}
		m := wordOptions(word, v, 0)
		if (word == "--force" || strings.HasPrefix(word, "--force=")) && !m.couldBe([]string{"--force"}) {
			t.Errorf("wordOptions(%q) = %+v in %q: not --force", word, m, code)
		}
	})
}

// namerefsCases are codes and whether they may declare a nameref.
var namerefsCases = []struct {
	src  string
	want bool
}{
	{"declare -n r=f", true},
	{"local -gn r", true},
	{"typeset +n r", true},
	{"declare -x -g -n r", true},
	{"f() { local -xn r=$1; }", true},
	{"declare-n r", true}, // what follows the keyword in its word is its first option
	{"declare -x r=f; -n", false},
	{"declare x -n", false},
	{"local x=1", false},
	{"echo localhost -n", false},
	{"declare " + strings.Repeat("-x ", 100) + "-n r", false}, // past maxIndexScan
	{"declare " + strings.Repeat("-x ", 80) + "-n r", true},
	{"declare -" + strings.Repeat("x", 300) + "n", false},
	{strings.Repeat("-local ", 100) + "-n", true},
	{"", false},
}

func TestNamerefs(t *testing.T) {
	t.Parallel()
	for _, tt := range namerefsCases {
		if got := namerefs(tt.src); got != tt.want {
			t.Errorf("namerefs(%.60q) = %v, want %v", tt.src, got, tt.want)
		}
	}
}

// namerefsByFields is namerefs as it was written first: the options of
// each keyword split by strings.Fields, in a window of maxIndexScan bytes
// after it. It cost a window's fields at every keyword, a second for 8 MiB
// of "-local "; namerefs must answer as it does.
func namerefsByFields(src string) bool {
	for _, w := range []string{"declare", "typeset", "local"} {
		for i := 0; ; {
			k := strings.Index(src[i:], w)
			if k < 0 {
				break
			}
			i += k + len(w)
			for _, f := range strings.Fields(src[i:min(len(src), i+maxIndexScan)]) {
				if f[0] != '-' && f[0] != '+' {
					break
				}
				if strings.IndexByte(f, 'n') >= 0 {
					return true
				}
			}
		}
	}
	return false
}

func FuzzNamerefs(f *testing.F) {
	for _, tt := range namerefsCases {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got, want := namerefs(src), namerefsByFields(src); got != want {
			t.Errorf("namerefs(%q) = %v; by fields %v", src, got, want)
		}
	})
}
