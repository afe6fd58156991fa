package policy

import (
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLine finds the line of key in a config file: in the table named
// table (index < 0), in the index-th [[table]] (index >= 0), or at the top
// level (table ""). An empty key asks for the table's header. It returns
// the header's line when the key is absent, and 0 when nothing is found.
// It is used only to report problems, so it parses the file again rather
// than slowing down every successful parse.
func keyLine(data []byte, table string, index int, key string) int {
	var p unstable.Parser
	p.Reset(data)
	var (
		cur      string // the current table's dotted name
		count    = map[string]int{}
		curIndex = -1
		header   int
		inside   = table == ""
	)
	for p.NextExpression() {
		expr := p.Expression()
		switch expr.Kind {
		case unstable.Table, unstable.ArrayTable:
			name, line := keyOf(&p, expr)
			if inside && header > 0 {
				// The wanted table ended without the key.
				return header
			}
			cur = name
			curIndex = -1
			if expr.Kind == unstable.ArrayTable {
				curIndex = count[name]
				count[name]++
			}
			inside = cur == table && curIndex == index
			if inside {
				header = line
				if key == "" {
					return line
				}
			}
		case unstable.KeyValue:
			if !inside {
				continue
			}
			name, line := keyOf(&p, expr)
			if name == key || strings.HasPrefix(name, key+".") {
				return line
			}
		}
	}
	return header
}

// keyOf returns the dotted key of a table header or key-value expression
// and the line it starts on.
func keyOf(p *unstable.Parser, expr *unstable.Node) (string, int) {
	var parts []string
	line := 0
	it := expr.Key()
	for it.Next() {
		n := it.Node()
		if line == 0 {
			line = p.Shape(n.Raw).Start.Line
		}
		parts = append(parts, string(n.Data))
	}
	return strings.Join(parts, "."), line
}
