package policy

import (
	"encoding/json"
	"strings"

	"github.com/rewind-dev/rewind/internal/jsonscan"
)

// Cloud command lines name a VM inside structured values as often as in an
// option of its own: aws ssm start-automation-execution --parameters
// InstanceId=i-1, aws ec2 create-snapshots --instance-specification
// InstanceId=i-1, --cli-input-json '{"InstanceIds":["i-1"]}' or its YAML
// twin, --targets Key=InstanceIds,Values=i-1,i-2. The "field:NAME" target
// reads the values of the key NAME in every argument written in one of
// those forms: JSON, AWS shorthand, or a plain YAML mapping.
//
// What it cannot read is known only at run time, and says so: a value
// read from a file (file://, fileb://, @file), a key given in YAML it does
// not read exactly (anchors, aliases, tags, block scalars, flow mappings).

// fieldValues calls add with each value of key name in the arguments of s,
// and reports whether some argument leaves them unknown. Keys compare
// without regard to case: a spelling the tool would refuse only adds a
// target. The values go to add as they are found, so that a list of
// millions is not held twice.
func fieldValues(s *subject, name string, add func(string)) (unknown bool) {
	owner := "" // the option whose value args[i] may be
	for i, a := range s.args {
		if s.dynamic(i) {
			// A word known only at run time may hold the key where a
			// file could ("$(cat in.json)" for --cli-input-json), or
			// shows it in its known text ("InstanceId=$ID").
			if containsFold(a, name) || fileMayHold(owner, name) {
				unknown = true
			}
			owner = ""
			continue
		}
		opt := owner
		owner = ""
		if isOption(a) {
			o, v, ok := strings.Cut(a, "=")
			if !ok {
				owner = a
				continue
			}
			a, opt = v, o
		}
		if fromFile(a) {
			// The file may hold the key: the CLI reads it, rewind does not.
			unknown = unknown || fileMayHold(opt, name)
			continue
		}
		unknown = structuredField(a, name, add) || unknown
	}
	return unknown
}

// fileMayHold reports whether a value the CLI reads from a file or that is
// known only at run time, given to option opt ("" for a positional word),
// may hold key: the whole input
// (--cli-input-json), parameters and targets, or an option named for the
// key's first word (--instance-ids for InstanceIds). A key file or a policy
// document given to another option names no VM.
func fileMayHold(opt, key string) bool {
	opt = strings.ToLower(opt)
	first := key
	for i := 1; i < len(key); i++ {
		if 'A' <= key[i] && key[i] <= 'Z' {
			first = key[:i]
			break
		}
	}
	for _, w := range []string{"cli-input", "param", "target", strings.ToLower(first)} {
		if strings.Contains(opt, w) {
			return true
		}
	}
	return opt == ""
}

// fromFile reports whether a value is read from a file by the CLI that
// gets it: aws reads file:// and fileb:// for any parameter, az reads @file.
func fromFile(v string) bool {
	return strings.HasPrefix(v, "file://") || strings.HasPrefix(v, "fileb://") ||
		len(v) > 1 && v[0] == '@' && !strings.ContainsAny(v, " \n")
}

// structuredField calls add with the values of key name in one argument,
// and reports whether they are unknown. An argument that holds the key's
// name but in no form rewind reads ("InstanceIds": in YAML, a YAML flow
// mapping, a tag Key=tag:InstanceIds) leaves them unknown too.
func structuredField(v, name string, add func(string)) (unknown bool) {
	if !containsFold(v, name) {
		return false
	}
	t := strings.TrimSpace(v)
	if strings.EqualFold(t, name) {
		// The key's name alone, as --target-parameter-name InstanceId
		// gives it: no value.
		return false
	}
	found := false
	counted := func(s string) { found = true; add(s) }
	switch {
	case (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && json.Valid([]byte(t)):
		unknown = jsonField([]byte(t), name, counted)
	case isYAMLKeyed(t, name):
		unknown = yamlField(t, name, counted)
	default:
		unknown = shorthandField(t, name, counted)
	}
	return unknown || !found
}

// jsonField collects the strings a key holds anywhere in valid JSON: a
// string, or a list of strings. A value of another shape (a number, an
// object) is no name rewind can read, so it is unknown.
func jsonField(data []byte, name string, add func(string)) (unknown bool) {
	jsonscan.Keys(data, func(k jsonscan.Key) bool {
		if !strings.EqualFold(k.Name, name) {
			return true
		}
		if vals, ok := jsonStrings(json.RawMessage(k.Value)); ok {
			for _, v := range vals {
				add(v)
			}
		} else {
			unknown = true
		}
		return true
	})
	return unknown
}

// shorthandField reads AWS shorthand: Name=v, Name=v1,v2 (words without a
// "=" continue the list), Name=[v1,v2], and the Key=Name,Values=v1,v2 pair
// of --targets and --filters. Several structures may follow one another
// (InstanceId=i-1 InstanceId=i-2 are separate words, each read here).
func shorthandField(v, name string, add func(string)) (unknown bool) {
	var (
		key     string // the key of the list being read
		keyName string // the value of a Key= member, for Values=
	)
	for part := range strings.FieldsFuncSeq(v, shorthandSep) {
		k, val, hasKey := strings.Cut(part, "=")
		// A structure's first member follows its key: Spec={InstanceId=i-1.
		for hasKey && strings.HasPrefix(strings.TrimSpace(val), "{") && !strings.EqualFold(strings.TrimSpace(strings.TrimLeft(k, "{[ ")), name) {
			k, val, hasKey = strings.Cut(strings.TrimSpace(val)[1:], "=")
		}
		if !hasKey {
			// A word of the list the last key started.
			if key != "" {
				addValue(add, part)
			}
			continue
		}
		k = strings.TrimSpace(strings.TrimLeft(k, "{[ "))
		val = strings.TrimSpace(val)
		switch {
		case strings.EqualFold(k, "Key"):
			keyName, key = val, ""
			continue
		case strings.EqualFold(k, "Values") && strings.EqualFold(keyName, name),
			strings.EqualFold(k, name):
			key = k
			if fromFile(val) {
				unknown = true
				continue
			}
			addValue(add, val)
		default:
			key = ""
		}
	}
	return unknown
}

// shorthandSep splits shorthand at its commas and at the white space
// between structures, keeping the brackets of a list value with its words
// for addValue to trim.
func shorthandSep(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\t' }

// addValue adds one value of a list, without the brackets and quotes
// around it.
func addValue(add func(string), w string) {
	if w = strings.Trim(w, `[]{}"' `); w != "" {
		add(w)
	}
}

// isYAMLKeyed reports whether text is YAML with name as a mapping key:
// "Name:" at the start of a line, after indentation or a "- " item mark.
func isYAMLKeyed(text, name string) bool {
	for line := range strings.Lines(text) {
		l := strings.TrimLeft(line, " \t")
		l = strings.TrimLeft(strings.TrimPrefix(l, "- "), " ")
		if len(l) > len(name) && strings.EqualFold(l[:len(name)], name) && l[len(name)] == ':' {
			return true
		}
	}
	return false
}

// yamlField reads the values of a key in plain YAML: "Name: v", "Name:
// [a, b]", or "Name:" followed by "- a" items, quoted or not. YAML it does
// not read exactly leaves the values unknown: anchors and aliases (an
// alias could stand for a list of names), tags, block scalars, flow
// mappings, several documents.
func yamlField(text, name string, add func(string)) (unknown bool) {
	lines := strings.Split(text, "\n") // a list below a key is read ahead
	for i := 0; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t\r")
		trimmed := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(trimmed, "#") || trimmed == "" {
			continue
		}
		if trimmed == "---" || trimmed == "..." || strings.ContainsAny(trimmed, "&*!|>") && !quotedOnly(trimmed) {
			unknown = true
		}
		item := strings.TrimLeft(strings.TrimPrefix(trimmed, "- "), " ")
		if len(item) <= len(name) || !strings.EqualFold(item[:len(name)], name) || item[len(name)] != ':' {
			continue
		}
		rest := strings.TrimSpace(item[len(name)+1:])
		switch {
		case rest == "":
			// A block list on the lines below, more indented or at the
			// same indentation with "- ".
			indent := len(l) - len(trimmed)
			for i+1 < len(lines) {
				next := strings.TrimRight(lines[i+1], " \t\r")
				nt := strings.TrimLeft(next, " \t")
				if nt == "" || strings.HasPrefix(nt, "#") {
					i++
					continue
				}
				if !strings.HasPrefix(nt, "- ") || len(next)-len(nt) < indent {
					break
				}
				i++
				v := strings.TrimSpace(nt[2:])
				if strings.ContainsAny(v, "&*!|>{[:") && !quotedOnly(v) {
					unknown = true
					continue
				}
				addValue(add, v)
			}
		case strings.HasPrefix(rest, "["):
			if !strings.HasSuffix(rest, "]") || strings.ContainsAny(rest, "&*!{") {
				unknown = true
				continue
			}
			for w := range strings.SplitSeq(rest[1:len(rest)-1], ",") {
				addValue(add, w)
			}
		case strings.ContainsAny(rest, "&*!|>{") && !quotedOnly(rest):
			unknown = true
		default:
			addValue(add, rest)
		}
	}
	return unknown
}

// quotedOnly reports whether the YAML characters of a line are all inside
// one quoted scalar: "web-*" is a string, not an alias.
func quotedOnly(s string) bool {
	_, after, ok := strings.Cut(s, ":")
	if !ok {
		after = s
	}
	after = strings.TrimSpace(after)
	after = strings.TrimPrefix(after, "- ")
	return len(after) >= 2 && (after[0] == '"' || after[0] == '\'') && after[len(after)-1] == after[0]
}

// containsFold reports whether s holds sub in any case; sub is ASCII, a
// key name. It looks at each byte once, and compares further only where
// the first letter matches.
func containsFold(s, sub string) bool {
	if sub == "" {
		return true
	}
	first := lowerASCII(sub[0])
	for i := 0; i+len(sub) <= len(s); i++ {
		if lowerASCII(s[i]) == first && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}
