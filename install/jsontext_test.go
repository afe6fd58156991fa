package install

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTextEdits checks the edits made in place: each keeps the rest of
// the text as it was, lays out new text as its container does, and an
// insertion followed by its deletion gives back the text byte for byte.
func TestTextEdits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		edit func(d *textDoc) error
		want string
	}{
		{
			name: "MemberFourSpaces",
			in:   "{\n    \"a\": 1,\n    \"b\": {\"x\": [1, 2]}\n}\n",
			edit: func(d *textDoc) error { return d.setMember(d.root, "c", json.RawMessage(`{"k":[1,{"z":true}]}`)) },
			want: "{\n    \"a\": 1,\n    \"b\": {\"x\": [1, 2]},\n    \"c\": {\n        \"k\": [\n            1,\n            {\n                \"z\": true\n            }\n        ]\n    }\n}\n",
		},
		{
			name: "IntoEmptyObject",
			in:   "{\n  \"mcpServers\": {},\n  \"z\": 1\n}\n",
			edit: func(d *textDoc) error {
				return d.setMember(d.find("mcpServers"), "rewind", json.RawMessage(`{"command":"rewind","args":["mcp"]}`))
			},
			want: "{\n  \"mcpServers\": {\n    \"rewind\": {\n      \"command\": \"rewind\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  },\n  \"z\": 1\n}\n",
		},
		{
			name: "OneLine",
			in:   `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]}]}}`,
			edit: func(d *textDoc) error {
				return d.appendElem(d.find("hooks", "PreToolUse"), json.RawMessage(`{"matcher":"x","hooks":[{"type":"command"}]}`))
			},
			want: `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[]},{"matcher":"x","hooks":[{"type":"command"}]}]}}`,
		},
		{
			name: "OneLineSpaced",
			in:   "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say\"}]}]}\n}\n",
			edit: func(d *textDoc) error {
				return d.setMember(d.find("hooks"), "Pre", json.RawMessage(`[{"a":1,"b":[2,3]}]`))
			},
			want: "{\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"say\"}]}], \"Pre\": [{\"a\": 1, \"b\": [2, 3]}]}\n}\n",
		},
		{
			name: "ReplaceKeepsTheRest",
			in:   "{\n\t\"keep\": 1.50,\n\t\"hook\": {\"command\": \"old\", \"timeout\": 60}\n}",
			edit: func(d *textDoc) error { return d.replace(d.find("hook", "timeout"), json.RawMessage(`180`)) },
			want: "{\n\t\"keep\": 1.50,\n\t\"hook\": {\"command\": \"old\", \"timeout\": 180}\n}",
		},
		{
			name: "NewFile",
			in:   "",
			edit: func(d *textDoc) error { return d.setMember(d.root, "hooks", json.RawMessage(`{"A":[1]}`)) },
			want: "{\n  \"hooks\": {\n    \"A\": [\n      1\n    ]\n  }\n}\n",
		},
		{
			name: "EscapedKeyAndHTML",
			in:   "{\n  \"a\\u0062\": \"<&>\"\n}\n",
			edit: func(d *textDoc) error { return d.setMember(d.root, "c", json.RawMessage(`"x && y"`)) },
			want: "{\n  \"a\\u0062\": \"<&>\",\n  \"c\": \"x && y\"\n}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := parseText([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			before := string(d.text)
			if err := tt.edit(d); err != nil {
				t.Fatal(err)
			}
			if got := string(d.text); got != tt.want {
				t.Fatalf("edit:\n got %q\nwant %q", got, tt.want)
			}
			// Take out what was added: the text is as it was.
			undo := func() error {
				switch tt.name {
				case "OneLine":
					return d.deleteElem(d.find("hooks", "PreToolUse"), 1)
				case "ReplaceKeepsTheRest":
					return d.replace(d.find("hook", "timeout"), json.RawMessage(`60`))
				case "IntoEmptyObject":
					return d.deleteMember(d.find("mcpServers"), 0)
				case "OneLineSpaced":
					return d.deleteMember(d.find("hooks"), 1)
				default:
					return d.deleteMember(d.root, len(d.root.members)-1)
				}
			}
			if err := undo(); err != nil {
				t.Fatal(err)
			}
			if got := string(d.text); got != before && !(tt.name == "NewFile" && strings.TrimSpace(got) == "{}") {
				t.Errorf("undo:\n got %q\nwant %q", got, before)
			}
		})
	}
}

// TestDeleteFirstMember checks that deleting a first member takes the
// separator after it.
func TestDeleteFirstMember(t *testing.T) {
	t.Parallel()
	d, err := parseText([]byte("{\n  \"a\": 1,\n  \"b\": 2\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.deleteMember(d.root, 0); err != nil {
		t.Fatal(err)
	}
	if got := string(d.text); got != "{\n  \"b\": 2\n}\n" {
		t.Errorf("got %q", got)
	}
}
