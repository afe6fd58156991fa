package policy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-dev/rewind/shell"
)

// targetKind is a way of finding targets in a command.
type targetKind int

const (
	targetFlag  targetKind = iota // the value of an option
	targetArg                     // the N-th positional word after the match
	targetArgs                    // every positional word after the match
	targetHost                    // the host the command acts on
	targetFlags                   // the values of an option that takes several words
	targetDest                    // the N-th positional word as an ssh destination
	targetField                   // the values of a key in structured arguments
	targetPath                    // the path segment after a named one
)

// targetSpec is one alternative of a rule's target.
type targetSpec struct {
	kind targetKind
	flag string // the option's name without dashes, for targetFlag; the key or segment for targetField and targetPath
	raw  string // the option as written in the spec, for samples
	n    int    // 1-based, for targetArg
	// last, for targetPath ("path:SEGMENT$"), takes the segment only
	// where the path ends after it: a resource group's own ID, not that
	// of a resource in it.
	last bool
}

// parseTargets parses a target spec: alternatives joined by "|", each
// "flag:NAME", "flags:NAME", "arg:N", "dest:N", "field:KEY", "path:SEGMENT"
// (or "path:SEGMENT$", the segment after it only where the path ends
// there), "args" or "host".
func parseTargets(s string) ([]targetSpec, error) {
	if s == "" {
		return nil, nil
	}
	var specs []targetSpec
	for alt := range strings.SplitSeq(s, "|") {
		kind, arg, _ := strings.Cut(alt, ":")
		switch kind {
		case "flag", "flags":
			name := strings.TrimLeft(arg, "-")
			if name == "" || strings.ContainsAny(name, " =") {
				return nil, fmt.Errorf("bad target %q: %s needs an option name, as in %s:-vm", alt, kind, kind)
			}
			k := targetFlag
			if kind == "flags" {
				k = targetFlags
			}
			specs = append(specs, targetSpec{kind: k, flag: name, raw: arg})
		case "arg", "dest":
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("bad target %q: %s needs a position from 1, as in %s:1", alt, kind, kind)
			}
			k := targetArg
			if kind == "dest" {
				k = targetDest
			}
			specs = append(specs, targetSpec{kind: k, n: n})
		case "field", "path":
			last := false
			if kind == "path" {
				arg, last = strings.CutSuffix(arg, "$")
			}
			if arg == "" || strings.ContainsAny(arg, " =/:$") {
				return nil, fmt.Errorf("bad target %q: %s needs a name, as in %s", alt, kind, map[string]string{"field": "field:InstanceId", "path": "path:qemu"}[kind])
			}
			k := targetField
			if kind == "path" {
				k = targetPath
			}
			specs = append(specs, targetSpec{kind: k, flag: arg, raw: arg, last: last})
		case "args", "host":
			if arg != "" || strings.Contains(alt, ":") {
				return nil, fmt.Errorf("bad target %q: %s takes no value", alt, kind)
			}
			k := targetArgs
			if kind == "host" {
				k = targetHost
			}
			specs = append(specs, targetSpec{kind: k})
		default:
			return nil, fmt.Errorf("unknown target %q (want flag:NAME, flags:NAME, arg:N, dest:N, field:KEY, path:SEGMENT, args or host, joined by |)", alt)
		}
	}
	return specs, nil
}

// pathValues returns, for each word of s that is a path or a URL (an API
// path as pvesh takes it, /nodes/pve1/qemu/100/status/stop; an Azure
// resource ID or management URL, .../virtualMachines/web-01/powerOff), the
// segment after the segment named seg, in any case: "100" for "qemu". A
// word decided at run time leaves the value unknown where a path goes: a
// positional word, the value of an option that takes IDs or a URL, or a
// word whose known text shows the segment. With last, a path that goes on
// past that segment gives none. The values of the options that hold a
// request's content (contentOption) are not read: a body or a header may
// quote any path, which is not the one the request goes to.
func pathValues(s *subject, pos []int, seg string, last bool) (values []string, unknown bool) {
	shown := "/" + seg + "/"
	next := 0 // pos is in order: pos[next] is the first positional not before i
	for i := 0; i < len(s.args); i++ {
		w := s.args[i]
		for next < len(pos) && pos[next] < i {
			next++
		}
		positional := next < len(pos) && pos[next] == i
		if !positional && i > 0 && contentOption(s.args[i-1]) {
			continue
		}
		if name, _, ok := strings.Cut(w, "="); ok && isOption(w) && contentOption(name) {
			continue
		}
		if s.dynamic(i) {
			// Query parameters known only at run time hold no path.
			if w != runtimeQuery && (positional || i > 0 && pathOption(s.args[i-1]) || containsFold(w, shown)) {
				unknown = true
			}
			continue
		}
		if isOption(w) {
			_, v, ok := strings.Cut(w, "=")
			if !ok {
				continue
			}
			w = v
		}
		if v, ok := segmentAfter(w, seg, last); ok {
			values = append(values, v)
		}
	}
	return values, unknown
}

// contentOption reports whether an option's value is part of a request's
// content, not its address: az rest's --body and --headers,
// Invoke-AzRestMethod's -Payload.
func contentOption(opt string) bool {
	switch strings.ToLower(strings.TrimLeft(opt, "-")) {
	case "body", "b", "headers", "payload":
		return true
	}
	return false
}

// pathOption reports whether an option takes resource IDs or a URL.
func pathOption(opt string) bool {
	switch strings.ToLower(strings.TrimLeft(opt, "-")) {
	case "ids", "id", "url", "uri", "u", "path":
		return true
	}
	return false
}

// segmentAfter returns the segment of a path or URL after the segment
// named seg, compared without regard to case, in the path as the server
// reads it (serverPath: a query or fragment ends it, %-escapes are decoded,
// "." and ".." resolved, empty segments are none). With last, it is found
// only where no segment follows it.
func segmentAfter(w, seg string, last bool) (string, bool) {
	if !strings.Contains(w, "/") {
		return "", false
	}
	if i := strings.IndexAny(w, "?#"); i >= 0 {
		w = w[:i]
	}
	if i := strings.Index(w, "://"); i >= 0 {
		_, w, _ = strings.Cut(w[i+3:], "/") // the host is no segment
	}
	found, value := false, ""
	for part := range strings.SplitSeq(serverPath(w), "/") {
		switch {
		case part == "":
		case value != "":
			return "", false // last, and the path goes on
		case found:
			if !last {
				return part, true
			}
			value = part
		case strings.EqualFold(part, seg):
			found = true
		}
	}
	return value, value != ""
}

// globTarget reports whether a target holds a wildcard, as a VM name
// passed to a tool that matches names (govc's inventory paths, PowerShell's
// -Name web-*) can: which VMs it names is known only when the tool runs.
// Brackets count when they enclose a class, not an IPv6 address.
func globTarget(t string) bool {
	if strings.ContainsAny(t, "*?") {
		return true
	}
	open := strings.IndexByte(t, '[')
	if open < 0 {
		return false
	}
	end := strings.IndexByte(t[open:], ']')
	return end > 1 && !strings.Contains(t[open:open+end], ":")
}

// hostOf returns the host in an ssh destination: "web-01" from "web-01",
// "admin@web-01" and "ssh://admin@web-01:22".
func hostOf(dest string) string {
	if rest, ok := strings.CutPrefix(dest, "ssh://"); ok {
		rest, _, _ = strings.Cut(rest, "/")
		return stripPort(stripUser(rest))
	}
	return stripUser(dest)
}

// remoteHost returns the host of a remote path as scp and rsync write it
// (see shell.RemotePath).
func remoteHost(word string) (string, bool) {
	h, _, ok := shell.RemotePath(word)
	return h, ok
}

func stripUser(s string) string {
	if i := strings.LastIndexByte(s, '@'); i >= 0 {
		return s[i+1:]
	}
	return s
}

func stripPort(s string) string {
	if strings.HasPrefix(s, "[") {
		if end := strings.IndexByte(s, ']'); end > 0 {
			return s[1:end]
		}
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i]
	}
	return s
}

// resourceName returns the name a cloud resource ID or URI ends in: NAME
// from an Azure ID ".../virtualMachines/NAME", a Compute Engine URL or
// path ".../instances/NAME", an EC2 ARN "arn:aws:ec2:...:instance/ID".
// Any other word is returned as it is.
func resourceName(word string) string {
	lower := strings.ToLower(word)
	for _, key := range []string{"/virtualmachines/", "/instances/", ":instance/"} {
		if i := strings.LastIndex(lower, key); i >= 0 {
			name, _, _ := strings.Cut(word[i+len(key):], "/")
			if name != "" {
				return name
			}
		}
	}
	if strings.HasPrefix(lower, "/subscriptions/") {
		if i := strings.LastIndexByte(strings.TrimRight(word, "/"), '/'); i >= 0 {
			return strings.TrimRight(word, "/")[i+1:]
		}
	}
	return word
}

// runTimeHost reports whether a host, as the shell analysis reports it, is
// known only at run time. The analysis gives such a host as its source text
// ("$HOST", "${hosts[0]}", "$(pick)"), which no host name can be: it holds
// quotes, expansions or pattern characters.
func runTimeHost(host string) bool {
	return strings.ContainsAny(host, "$`\"'(){}*?;|&<> \t\n\\")
}

// runTimeHostReason is the reason of an ask for a command on such a host.
func runTimeHostReason(host string) string {
	return fmt.Sprintf("the host %s is decided at run time, so rewind cannot tell which VM to checkpoint; name the host in the command", host)
}

// VMName returns the Zerto VM name the config maps a target, as written in
// a command, to: its alias; else, with strip_domain, the name without its
// domain (or that name's alias); else the name itself. Capture tries the
// name as written too, when the mapped name is not a VM Zerto knows (see
// Candidates).
func (t TargetsConfig) VMName(target string) string {
	if a := t.alias(target); a != "" {
		return a
	}
	if t.StripDomain && !isIPv4(target) {
		if short, _, ok := strings.Cut(target, "."); ok && short != "" {
			if a := t.alias(short); a != "" {
				return a
			}
			return short
		}
	}
	return target
}

// VMNames maps each target to its VMName, in order.
func (t TargetsConfig) VMNames(targets []string) []string {
	vms := make([]string, len(targets))
	for i, target := range targets {
		vms[i] = t.VMName(target)
	}
	return vms
}
