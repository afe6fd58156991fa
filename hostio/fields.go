package hostio

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonscan"
)

// checkFieldNames reads the top-level JSON object in data, which
// json.Unmarshal has accepted, and rejects a key that differs from one of
// known only in case, and a known key given twice.
//
// encoding/json matches keys case-insensitively and keeps the last of
// duplicates, so without this check {"tool_name":"Read","Tool_Name":"Bash"}
// would be judged as one tool and run as another by a host that reads keys
// exactly. The keys are read by jsonscan, which skips the values quickly:
// data is valid JSON, and may hold a tool input of megabytes.
func checkFieldNames(data []byte, known ...string) error {
	seen := make(map[string]bool, len(known))
	var err error
	jsonscan.Keys(data, func(k jsonscan.Key) bool {
		if k.Object != 0 {
			return true // a key inside a value
		}
		for _, name := range known {
			switch {
			case k.Name == name && seen[name]:
				err = &MalformedError{Reason: fmt.Sprintf("%s is given twice", quoteKey(name))}
			case k.Name == name:
				seen[name] = true
			case strings.EqualFold(k.Name, name):
				err = &MalformedError{Reason: fmt.Sprintf("unknown field %s (keys are case-sensitive: %s)", quoteKey(k.Name), name)}
			}
			if err != nil {
				return false
			}
		}
		return true
	})
	return err
}

// quoteKey quotes a key for an error message, cut short: keys come from the
// input.
func quoteKey(k string) string {
	if len(k) > maxNameInError {
		k = k[:maxNameInError] + "..."
	}
	return fmt.Sprintf("%q", k)
}

// objectInput returns raw as a tool input object: an object as it is, or a
// JSON string that holds an object, as some hosts send tool arguments. name
// is the field's name for the error.
func objectInput(name string, raw json.RawMessage) (json.RawMessage, error) {
	kind := jsonKind(raw)
	if kind == "string" {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, &MalformedError{Reason: name + " is not a valid JSON string"}
		}
		inner := json.RawMessage(s)
		if !json.Valid(inner) {
			return nil, &MalformedError{Reason: name + " is a string that does not hold JSON"}
		}
		raw, kind = inner, jsonKind(inner)
		if kind == "string" {
			return nil, &MalformedError{Reason: name + " is a string, not an object"}
		}
	}
	switch kind {
	case "object":
		return raw, nil
	case "":
		return nil, &MalformedError{Reason: "no " + name}
	default:
		return nil, &MalformedError{Reason: name + " is " + article(kind) + ", not an object"}
	}
}

// unmarshalEvent decodes data, after checkFieldNames, into v, which must be
// a pointer to a struct of the host's event.
func unmarshalEvent(data []byte, v any, known ...string) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &MalformedError{Reason: "empty input"}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return &MalformedError{Reason: jsonReason(err)}
	}
	return checkFieldNames(data, known...)
}
