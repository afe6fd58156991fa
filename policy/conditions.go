package policy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// commandConditions lists what a command rule needs besides its match, in
// the config's own key names, for `rewind catalog`.
func commandConditions(r CommandRule) []string {
	// Cmdlets are left out: the rule's name lists them.
	var c []string
	if r.On != "" && r.On != "any" {
		c = append(c, "on="+r.On)
	}
	if r.Exact {
		c = append(c, "exact")
	}
	if r.Analysed {
		c = append(c, "analysed")
	}
	if len(r.ArgsAny) > 0 {
		c = append(c, "args_any="+list(r.ArgsAny))
	}
	if len(r.ArgsNone) > 0 {
		c = append(c, "args_none="+list(r.ArgsNone))
	}
	if len(r.PayloadContains) > 0 {
		c = append(c, "payload_contains="+list(r.PayloadContains))
	}
	if r.Target != "" {
		c = append(c, "target="+r.Target)
	}
	if r.RequireTarget {
		c = append(c, "require_target")
	}
	if r.ResourceIDs {
		c = append(c, "resource_ids")
	}
	return c
}

// toolConditions is commandConditions for a tool rule.
func toolConditions(r ToolRule) []string {
	var c []string
	if r.VMArg != "" {
		c = append(c, "vm_arg="+r.VMArg)
	}
	if r.RequireTarget {
		c = append(c, "require_target")
	}
	if len(r.Paths) > 0 {
		c = append(c, "paths="+list(r.Paths))
	}
	if len(r.PayloadContains) > 0 {
		c = append(c, "payload_contains="+list(r.PayloadContains))
	}
	if len(r.InputEquals) > 0 {
		keys := slices.Sorted(maps.Keys(r.InputEquals))
		pairs := make([]string, len(keys))
		for i, k := range keys {
			pairs[i] = tomlKey(k) + "=" + strconv.Quote(r.InputEquals[k])
		}
		c = append(c, "input_equals={"+strings.Join(pairs, ",")+"}")
	}
	return c
}

// list writes values as a TOML array of strings, on one line.
func list(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return fmt.Sprintf("[%s]", strings.Join(q, ","))
}

// tomlKey writes a key as TOML does: bare when it can be, else quoted (a
// JSON pointer).
func tomlKey(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}
