package shapes

import (
	"strconv"
	"strings"
)

// Shape is one kind of command, grown to a size by repeating a unit.
type Shape struct {
	// Name names the shape in benchmark output.
	Name string
	// prefix and suffix enclose the repetitions of unit; close follows
	// each unit in reverse order, after the last one, for nesting.
	prefix, unit, close, suffix string
	// numbered puts a counter into each unit, to make them distinct.
	numbered bool
}

// All lists the shapes.
var All = []Shape{
	{Name: "parens-in-data", prefix: "echo '", unit: "(", suffix: "'; govc vm.destroy web-01"},
	{Name: "keywords-in-data", prefix: "echo '", unit: "if ", suffix: "'; g\\ovc vm.destroy web-01"},
	{Name: "quoted-heredoc", prefix: "cat <<'EOF'\n", unit: "x $(y) `z` ((\n", suffix: "EOF\ngovc vm.destroy web-01"},
	{Name: "data-deep-inside", prefix: strings.Repeat("echo $(", 200) + "cat <<'EOF'\n", unit: "x $(y) `z` ((\n", suffix: "EOF\n" + strings.Repeat(")", 200) + "; govc vm.destroy web-01"},
	{Name: "unquoted-heredoc", prefix: "cat <<EOF\n", unit: "x $y ${z}\n", suffix: "EOF"},
	{Name: "mixed-quoting", unit: `echo "a'b" 'c"d' $'e\'f' "$(printf '%s' "g")" \"h; `},
	{Name: "deep-subshells", unit: "( ", close: " )", suffix: "ls"},
	{Name: "deep-substitutions", unit: "echo $(", close: ")", suffix: "ls"},
	{Name: "deep-quotes", unit: `"$(echo `, close: `)"`, suffix: "ls"},
	{Name: "deep-ifs", unit: "if true; then ", close: "; fi", suffix: "ls"},
	{Name: "deep-test-negation", prefix: "[[ ", unit: "! ", suffix: "x ]]"},
	{Name: "deep-arithmetic", prefix: "echo $((", unit: "2**", suffix: "1))"},
	{Name: "pipeline", unit: "a|", suffix: "a"},
	{Name: "list-one-line", unit: "ls;"},
	{Name: "lines", unit: "ls\n"},
	{Name: "distinct-lines", unit: "govc vm.power -off vm", numbered: true},
	{Name: "arguments", prefix: "ls", unit: " x"},
	{Name: "and-chain", unit: "true && ", suffix: "ls"},
	{Name: "sudo-chain", unit: "sudo ", suffix: "ls"},
	{Name: "env-chain", unit: "env ", suffix: "ls"},
	{Name: "xargs-chain", unit: "xargs ", suffix: "ls"},
	{Name: "find-chain", unit: "find . -exec ", suffix: "ls"},
	{Name: "wrapper-mix", unit: "nice nohup command exec doas nsenter ", suffix: "ls"},
	{Name: "folder-removals", unit: "rm -rf ./build/d", numbered: true},
	{Name: "file-reads", unit: "cat ~/.cache/x/f", numbered: true},
	{Name: "renamed-commands", unit: "./bin/tool trust ", numbered: true},
}

// WithUnit returns the shape with unit as the text it repeats, for fuzzing.
func (s Shape) WithUnit(unit string) Shape {
	s.unit = unit
	return s
}

// Make returns the shape grown to about size bytes, never more.
func (s Shape) Make(size int) string {
	n := (size - len(s.prefix) - len(s.suffix)) / (len(s.unit) + len(s.close) + 8*btoi(s.numbered))
	return s.Repeat(max(n, 0))
}

// Repeat returns the shape with n units.
func (s Shape) Repeat(n int) string {
	var b strings.Builder
	b.Grow(len(s.prefix) + n*(len(s.unit)+len(s.close)+8*btoi(s.numbered)) + len(s.suffix))
	b.WriteString(s.prefix)
	for i := range n {
		b.WriteString(s.unit)
		if s.numbered {
			b.WriteString(strconv.Itoa(i))
			b.WriteByte('\n')
		}
	}
	b.WriteString(s.suffix)
	for range n {
		b.WriteString(s.close)
	}
	return b.String()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Quoting is a way to hold text as data.
type Quoting uint8

// The quotings Quote knows.
const (
	SingleQuotes Quoting = iota
	QuotedHeredoc
	Comment
	numQuotings
)

// Quote returns a command that holds text as data only, in the quoting
// q (taken modulo the number of quotings): bash runs nothing of text.
// Text is changed where it would end the quoting.
func Quote(text string, q Quoting) string {
	// Bash and the parser read text, not bytes: invalid encodings and NUL
	// are not data either can hold.
	text = strings.ReplaceAll(strings.ToValidUTF8(text, "?"), "\x00", "")
	switch q % numQuotings {
	case SingleQuotes:
		return "echo '" + strings.ReplaceAll(text, "'", "") + "'"
	case QuotedHeredoc:
		const delim = "REWIND_SHAPES_END"
		return "cat <<'" + delim + "'\n" + strings.ReplaceAll(text, delim, "") + "\n" + delim
	default:
		return "# " + strings.NewReplacer("\n", " ", "\r", " ").Replace(text)
	}
}
