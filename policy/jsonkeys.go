package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonscan"
)

// maxKeyDepth bounds the nesting ambiguousKey follows; encoding/json
// refuses deeper input anyway.
const maxKeyDepth = 10000

// ambiguousKey looks for a key that occurs twice in one object of a JSON
// value, in the same or another case: {"command": "ssh web-01 reboot",
// "Command": "ls"}. A host reads the key of its exact spelling (the last
// one, when it occurs twice), while Go's encoding/json matches struct
// fields case-insensitively and other decoders keep the first, so such an
// input could be judged as one call and run as another. It returns a
// description of the first one found, or "" when there is none or the
// input is not valid JSON (which the caller reports by itself).
func ambiguousKey(raw []byte) string {
	if bytes.IndexByte(raw, '{') < 0 {
		return ""
	}
	type frame struct {
		object    bool
		expectKey bool
		key       string            // the object's current key
		seen      map[string]string // folded key -> key as written
		path      string
	}
	var stack []*frame
	// valueDone marks the end of a value in the enclosing object.
	valueDone := func() {
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].expectKey = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if len(stack) >= maxKeyDepth {
					return ""
				}
				path := ""
				if top != nil {
					path = top.path + "/" + top.key
					if !top.object {
						path = top.path + "/*"
					}
				}
				stack = append(stack, &frame{object: t == '{', expectKey: t == '{', seen: map[string]string{}, path: path})
			default:
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return ""
				}
				valueDone()
			}
		case string:
			if top == nil || !top.expectKey {
				valueDone()
				continue
			}
			fold := foldKey(t)
			if prev, ok := top.seen[fold]; ok {
				where := ""
				if top.path != "" {
					where = " in " + top.path
				}
				if prev == t {
					return fmt.Sprintf("the key %q occurs twice%s", t, where)
				}
				return fmt.Sprintf("the keys %q and %q%s differ only in case", prev, t, where)
			}
			top.seen[fold] = t
			top.key, top.expectKey = t, false
		default:
			valueDone()
		}
	}
}

// foldedKeys reports whether an object of the valid JSON raw holds two
// keys that fold alike (see ambiguousKey), reading the keys with jsonscan,
// which skips the values quickly: a look that costs little on an input of
// megabytes before ambiguousKey, which reads every value, says which.
func foldedKeys(raw []byte) bool {
	seen := map[int]map[string]bool{}
	found := false
	jsonscan.Keys(raw, func(k jsonscan.Key) bool {
		keys := seen[k.Object]
		if keys == nil {
			keys = map[string]bool{}
			seen[k.Object] = keys
		}
		f := foldKey(k.Name)
		if keys[f] {
			found = true
			return false
		}
		keys[f] = true
		return true
	})
	return found
}

// foldKey folds a key the way encoding/json compares keys, Unicode simple
// folding included ("K" and the Kelvin sign, "s" and the long s).
func foldKey(k string) string {
	return strings.ToLower(strings.ToUpper(k))
}
