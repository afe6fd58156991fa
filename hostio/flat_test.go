package hostio

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestFlatFieldsMatchTags keeps claudeEvent's fields for decodeFlat in step
// with its JSON tags and claudeFields.
func TestFlatFieldsMatchTags(t *testing.T) {
	t.Parallel()
	var ce claudeEvent
	fields := ce.fields()
	typ := reflect.TypeOf(ce)
	var tags []string
	for i := range typ.NumField() {
		tag := strings.Split(typ.Field(i).Tag.Get("json"), ",")[0]
		tags = append(tags, tag)
		f, ok := fields[tag]
		if !ok {
			t.Errorf("field %s (%q) missing from fields()", typ.Field(i).Name, tag)
			continue
		}
		want := reflect.ValueOf(&ce).Elem().Field(i).Addr().Interface()
		if got := any(f.str); f.raw != nil {
			got = f.raw
			if got != want {
				t.Errorf("fields()[%q] points elsewhere", tag)
			}
		} else if got != want {
			t.Errorf("fields()[%q] points elsewhere", tag)
		}
	}
	slices.Sort(tags)
	known := slices.Sorted(slices.Values(claudeFields))
	if !slices.Equal(tags, known) || len(fields) != len(tags) {
		t.Errorf("tags %q, claudeFields %q, %d fields", tags, known, len(fields))
	}
}

var flatSeeds = []string{
	`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls \"a\"\n"},"cwd":"/"}`,
	`{"tool_name":"Bash","tool_input":null,"cwd":null}`,
	`{"tool_name":"Bash","tool_input":{"command":"x"},"extra":1}`,
	`{"tool_name":"Bash","Tool_Name":"Read","tool_input":{}}`,
	`{"tool_name":"Bash","tool_name":"Read","tool_input":{}}`,
	`{"tool_name":7,"tool_input":{}}`,
	`{"tool_name":"B\u0061sh \ud800","tool_input":[1,2]}`,
	` {"tool_input":"string"} `,
	`[{"tool_name":"Bash"}]`,
	`{"tool_name":"Bash"`,
	``,
}

func TestDecodeFlat(t *testing.T) {
	t.Parallel()
	for _, s := range flatSeeds {
		checkFlat(t, []byte(s))
	}
	// The events the quick pass is for take it.
	var ce claudeEvent
	if !decodeFlat([]byte(flatSeeds[0]), ce.fields()) || ce.ToolName != "Bash" || string(ce.ToolInput) != `{"command":"ls \"a\"\n"}` {
		t.Errorf("decodeFlat of a plain event: %+v", ce)
	}
}

// checkFlat checks that decodeFlat, where it reads data at all, reads it
// as json.Unmarshal does, and only what checkFieldNames accepts.
func checkFlat(t *testing.T, data []byte) {
	t.Helper()
	var quick claudeEvent
	if !decodeFlat(data, quick.fields()) {
		if !reflect.DeepEqual(quick, claudeEvent{}) {
			t.Errorf("decodeFlat(%q) declined but set %+v", data, quick)
		}
		return
	}
	var slow claudeEvent
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("decodeFlat(%q) read what json.Unmarshal refuses: %v", data, err)
	}
	if err := checkFieldNames(data, claudeFields...); err != nil {
		t.Fatalf("decodeFlat(%q) read what checkFieldNames refuses: %v", data, err)
	}
	qi, si := quick.ToolInput, slow.ToolInput
	quick.ToolInput, slow.ToolInput = nil, nil
	if !reflect.DeepEqual(quick, slow) || !bytes.Equal(qi, si) {
		t.Errorf("decodeFlat(%q) = %+v %s, json.Unmarshal = %+v %s", data, quick, qi, slow, si)
	}
}

func FuzzDecodeFlat(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFlat)
}
