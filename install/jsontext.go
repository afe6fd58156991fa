package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// textDoc is a settings file's JSON text, edited in place: every edit
// replaces the bytes of one value, member or element and leaves the rest
// of the file as its author wrote it (indentation, spacing, key order,
// numbers, escapes, comments aside). New text is laid out the way the
// container it goes into is: one member per line at the siblings'
// indentation, or on one line when the container is written on one line.
//
// Each edit parses the text again: settings files are small, and a parse
// after every edit keeps the positions right without bookkeeping.
type textDoc struct {
	text []byte
	root *jnode
}

// jnode is a JSON value of a textDoc: its span of bytes and, for an
// object or an array, its members or elements.
type jnode struct {
	start, end int
	kind       byte // '{', '[' or 0 for a scalar
	members    []jmember
	elems      []*jnode
}

// jmember is an object member: its key, where the key's quote starts, and
// its value.
type jmember struct {
	key      string
	keyStart int
	keyEnd   int
	value    *jnode
}

// errNotObject is returned for a settings file whose JSON is not an object.
var errNotObject = errors.New("the settings are not a JSON object")

// parseText parses text, which must be valid JSON, as a textDoc. Text of
// only white space is an empty object, "{}".
func parseText(text []byte) (*textDoc, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		text = []byte("{}\n")
	}
	if !json.Valid(text) {
		return nil, errors.New("invalid JSON")
	}
	p := &jparser{text: text}
	root := p.value(0)
	if p.err != nil {
		return nil, p.err
	}
	if root.kind != '{' {
		return nil, errNotObject
	}
	return &textDoc{text: text, root: root}, nil
}

// jparser reads valid JSON, noting where each value starts and ends.
type jparser struct {
	text []byte
	i    int
	err  error
}

// maxDepth bounds the nesting the parser follows; encoding/json, which
// validated the text first, allows 10000.
const maxDepth = 10000

func (p *jparser) space() {
	for p.i < len(p.text) && (p.text[p.i] == ' ' || p.text[p.i] == '\t' || p.text[p.i] == '\n' || p.text[p.i] == '\r') {
		p.i++
	}
}

func (p *jparser) value(depth int) *jnode {
	p.space()
	if depth > maxDepth {
		p.err = errors.New("JSON nested too deeply")
		return &jnode{}
	}
	n := &jnode{start: p.i}
	switch c := p.text[p.i]; c {
	case '{':
		n.kind = '{'
		p.i++
		for {
			p.space()
			if p.text[p.i] == '}' {
				p.i++
				break
			}
			if p.text[p.i] == ',' {
				p.i++
				continue
			}
			m := jmember{keyStart: p.i}
			p.str()
			m.keyEnd = p.i
			if err := json.Unmarshal(p.text[m.keyStart:m.keyEnd], &m.key); err != nil {
				p.err = err
				return n
			}
			p.space()
			p.i++ // ':'
			m.value = p.value(depth + 1)
			if p.err != nil {
				return n
			}
			n.members = append(n.members, m)
		}
	case '[':
		n.kind = '['
		p.i++
		for {
			p.space()
			if p.text[p.i] == ']' {
				p.i++
				break
			}
			if p.text[p.i] == ',' {
				p.i++
				continue
			}
			n.elems = append(n.elems, p.value(depth+1))
			if p.err != nil {
				return n
			}
		}
	case '"':
		p.str()
	default:
		for p.i < len(p.text) && !strings.ContainsRune(" \t\r\n,]}", rune(p.text[p.i])) {
			p.i++
		}
	}
	n.end = p.i
	return n
}

// str skips the string at p.i.
func (p *jparser) str() {
	p.i++
	for p.i < len(p.text) {
		switch p.text[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			return
		}
		p.i++
	}
}

// raw returns the text of n.
func (d *textDoc) raw(n *jnode) json.RawMessage { return json.RawMessage(d.text[n.start:n.end]) }

// member returns the value of obj's member key (the last, should the key
// be there twice, as JSON readers keep) and its index, or nil and -1.
func (obj *jnode) member(key string) (*jnode, int) {
	for i := len(obj.members) - 1; i >= 0; i-- {
		if obj.members[i].key == key {
			return obj.members[i].value, i
		}
	}
	return nil, -1
}

// find returns the node at path from the root: object keys (string) and
// array indexes (int); nil when there is none.
func (d *textDoc) find(path ...any) *jnode {
	n := d.root
	for _, step := range path {
		switch s := step.(type) {
		case string:
			if n.kind != '{' {
				return nil
			}
			n, _ = n.member(s)
		case int:
			if n.kind != '[' || s < 0 || s >= len(n.elems) {
				return nil
			}
			n = n.elems[s]
		}
		if n == nil {
			return nil
		}
	}
	return n
}

// splice replaces text[from:to] with s and parses the result.
func (d *textDoc) splice(from, to int, s []byte) error {
	text := make([]byte, 0, len(d.text)-(to-from)+len(s))
	text = append(append(append(text, d.text[:from]...), s...), d.text[to:]...)
	nd, err := parseText(text)
	if err != nil {
		// The edits are made of valid pieces: this is a bug, not the
		// file's fault; keep the file as it was.
		return fmt.Errorf("editing the settings: %w", err)
	}
	*d = *nd
	return nil
}

// style is how a container's children are laid out.
type style struct {
	multiline bool
	indent    string // a child's indentation, on multi-line containers
	unit      string // one level of indentation in the file
	colon     string // between a key and its value
	comma     string // after a comma, on one-line containers
}

// unit is the file's unit of indentation: the indentation of the root's
// first member, when the root is written one member per line, else two
// spaces.
func (d *textDoc) unit() string {
	if len(d.root.members) > 0 {
		if ind, ok := d.lineIndent(d.root.members[0].keyStart); ok && ind != "" {
			return ind
		}
	}
	return "  "
}

// lineIndent returns the white space between the start of pos's line and
// pos, and whether only white space is there.
func (d *textDoc) lineIndent(pos int) (string, bool) {
	start := bytes.LastIndexByte(d.text[:pos], '\n') + 1
	ind := d.text[start:pos]
	return string(ind), len(bytes.TrimLeft(ind, " \t")) == 0
}

// styleOf returns the layout of c's children, read from its first child
// or, for an empty container, from the file.
func (d *textDoc) styleOf(c *jnode) style {
	s := style{unit: d.unit(), colon: ": ", comma: " "}
	if m := d.firstMember(); m != nil {
		if colon := string(d.text[m.keyEnd:m.value.start]); !strings.ContainsAny(colon, "\r\n") {
			s.colon = strings.TrimLeft(colon, " \t")
		}
	}
	if !strings.HasSuffix(s.colon, " ") {
		s.comma = ""
	}
	first := -1
	switch {
	case c.kind == '{' && len(c.members) > 0:
		first = c.members[0].keyStart
	case c.kind == '[' && len(c.elems) > 0:
		first = c.elems[0].start
	}
	if first >= 0 {
		s.multiline = bytes.IndexByte(d.text[c.start:first], '\n') >= 0
		s.indent, _ = d.lineIndent(first)
		return s
	}
	// An empty container: laid out like the file's root.
	s.multiline = len(d.root.members) == 0 || bytes.IndexByte(d.text[d.root.start:d.root.members[0].keyStart], '\n') >= 0
	s.indent = d.parentIndent(c) + s.unit
	return s
}

// firstMember is the first member of any object in the file, whose colon
// shows how the file separates keys from values.
func (d *textDoc) firstMember() *jmember {
	var walk func(n *jnode) *jmember
	walk = func(n *jnode) *jmember {
		if len(n.members) > 0 {
			return &n.members[0]
		}
		for _, e := range n.elems {
			if m := walk(e); m != nil {
				return m
			}
		}
		return nil
	}
	return walk(d.root)
}

// parentIndent is the indentation of the line that holds c, for a value
// that starts in the middle of a line ("key": {).
func (d *textDoc) parentIndent(c *jnode) string {
	start := bytes.LastIndexByte(d.text[:c.start], '\n') + 1
	line := d.text[start:c.start]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// closingIndent is the indentation of c's closing bracket's line, for a
// multi-line container, derived from a child's.
func (s style) closingIndent() string {
	return strings.TrimSuffix(s.indent, s.unit)
}

// render lays out the compact JSON raw for a place with style s, at the
// indentation of a child of a container with that style.
func render(raw json.RawMessage, s style) []byte {
	var b bytes.Buffer
	if s.multiline {
		if err := json.Indent(&b, raw, s.indent, s.unit); err != nil {
			return raw
		}
		out := b.Bytes()
		if s.colon != ": " {
			out = bytes.ReplaceAll(out, []byte(`": `), []byte(`"`+s.colon))
		}
		return out
	}
	// One line: the file's spacing after colons and commas.
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(raw) {
				i++
				b.WriteByte(raw[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			b.WriteByte(c)
		case c == ':':
			b.WriteString(s.colon)
		case c == ',':
			b.WriteString("," + s.comma)
		default:
			b.WriteByte(c)
		}
	}
	return b.Bytes()
}

// setMember sets obj's member key to raw: in place when it is there
// (re-laid out as the old value was), else as a new last member.
func (d *textDoc) setMember(obj *jnode, key string, raw json.RawMessage) error {
	if v, _ := obj.member(key); v != nil {
		return d.replace(v, raw)
	}
	s := d.styleOf(obj)
	k, _ := marshal(key)
	entry := append(append(k, s.colon...), render(raw, s)...)
	return d.insert(obj, entry, s)
}

// appendElem adds raw as arr's last element.
func (d *textDoc) appendElem(arr *jnode, raw json.RawMessage) error {
	s := d.styleOf(arr)
	return d.insert(arr, render(raw, s), s)
}

// insert adds the child text entry at the end of container c.
func (d *textDoc) insert(c *jnode, entry []byte, s style) error {
	var last *jnode
	switch {
	case c.kind == '{' && len(c.members) > 0:
		last = c.members[len(c.members)-1].value
	case c.kind == '[' && len(c.elems) > 0:
		last = c.elems[len(c.elems)-1]
	}
	if last != nil {
		sep := s.comma
		if s.multiline {
			sep = "\n" + s.indent
		}
		return d.splice(last.end, last.end, append([]byte(","+sep), entry...))
	}
	if !s.multiline {
		return d.splice(c.start+1, c.end-1, entry)
	}
	body := append([]byte("\n"+s.indent), entry...)
	body = append(body, "\n"+s.closingIndent()...)
	return d.splice(c.start+1, c.end-1, body)
}

// replace sets the value n to raw, unless it holds the same JSON already.
// The new value is laid out as the old one was: over several lines when it
// was, or, for a scalar replaced by an object or array, as the container
// that holds it lays out its children.
func (d *textDoc) replace(n *jnode, raw json.RawMessage) error {
	if sameJSON(d.raw(n), raw) {
		return nil
	}
	s := d.styleOf(d.root)
	s.indent = d.parentIndent(n)
	container := len(raw) > 0 && (raw[0] == '{' || raw[0] == '[')
	s.multiline = container && (bytes.IndexByte(d.raw(n), '\n') >= 0 || n.kind == 0 && d.parentMultiline(n))
	return d.splice(n.start, n.end, render(raw, s))
}

// parentMultiline reports whether the container that holds n lays its
// children out one per line.
func (d *textDoc) parentMultiline(n *jnode) bool {
	var parent *jnode
	var walk func(c *jnode)
	walk = func(c *jnode) {
		for _, m := range c.members {
			if m.value == n {
				parent = c
				return
			}
			walk(m.value)
		}
		for _, e := range c.elems {
			if e == n {
				parent = c
				return
			}
			walk(e)
		}
	}
	walk(d.root)
	return parent != nil && d.styleOf(parent).multiline
}

// deleteMember removes obj's i-th member and the separator before it (or,
// for the first, after it), so that an insertion followed by a deletion
// gives back the text as it was.
func (d *textDoc) deleteMember(obj *jnode, i int) error {
	starts := make([]int, len(obj.members))
	ends := make([]int, len(obj.members))
	for k, m := range obj.members {
		starts[k], ends[k] = m.keyStart, m.value.end
	}
	return d.deleteChild(obj, starts, ends, i)
}

// deleteElem removes arr's i-th element, as deleteMember does a member.
func (d *textDoc) deleteElem(arr *jnode, i int) error {
	starts := make([]int, len(arr.elems))
	ends := make([]int, len(arr.elems))
	for k, e := range arr.elems {
		starts[k], ends[k] = e.start, e.end
	}
	return d.deleteChild(arr, starts, ends, i)
}

func (d *textDoc) deleteChild(c *jnode, starts, ends []int, i int) error {
	switch {
	case len(starts) == 1:
		return d.splice(c.start+1, c.end-1, nil)
	case i > 0:
		return d.splice(ends[i-1], ends[i], nil)
	default:
		return d.splice(starts[0], starts[1], nil)
	}
}
