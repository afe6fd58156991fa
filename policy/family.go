package policy

import (
	"slices"
	"strings"

	"github.com/rewind-dev/rewind/shell"
)

// The built-in catalog is made of families: one per way an agent reaches a
// VM (ssh, govc, azure, terraform...). Every catalog rule and test names
// its family, and [catalog] disable in the config leaves a family's rules
// and tests out, for a site that has no Google Cloud or no Hyper-V.

// remoteFamily is the family of the rules that judge commands running on a
// host an agent reached (read-only commands pass, anything else protects
// the host). Every family that runs code on a host relies on it, so it
// cannot be disabled.
const remoteFamily = "remote"

// rewindFamily is the family of the rules that guard rewind itself: its
// own files, the host settings that run it, its MCP server's tools. An
// agent must not be able to switch its own guard off, so it cannot be
// disabled either.
const rewindFamily = "rewind"

// oldMCPFamily is the mcp family's former name, which [catalog] disable
// still takes.
const oldMCPFamily = "mcp-vsphere"

// Families returns the names of the built-in catalog's families, sorted.
func Families() []string {
	var out []string
	for _, f := range CatalogFamilies() {
		if f.Name != commonFamily {
			out = append(out, f.Name)
		}
	}
	slices.Sort(out)
	return out
}

// CanDisable reports whether [catalog] disable may turn family off: every
// family but remote and rewind, which the others rely on, and common,
// which is no family.
func CanDisable(family string) bool {
	return family != remoteFamily && family != rewindFamily && family != commonFamily
}

// disable checks the [catalog] disable list: every name a family of the
// catalog, and none that the others rely on.
func (v *validator) disable(names []string) {
	var known []string
	for _, f := range Families() {
		if CanDisable(f) {
			known = append(known, f)
		}
	}
	for i, n := range names {
		if n == oldMCPFamily {
			// The family's name before it judged every server's tools.
			names[i], n = mcpFamily, mcpFamily
		}
		switch {
		case n == remoteFamily:
			v.fail("catalog", -1, "disable", "family %q judges the commands every other family runs on a host; it cannot be disabled", n)
		case n == rewindFamily:
			v.fail("catalog", -1, "disable", "family %q guards rewind itself; it cannot be disabled", n)
		case !slices.Contains(known, n):
			v.fail("catalog", -1, "disable", "unknown family %q (want one of %s)", n, strings.Join(known, ", "))
		}
	}
}

// disabled reports whether a catalog rule or test of family is turned off.
// A policy that can only tighten (an untrusted project config) turns
// nothing off.
func (p *Policy) disabled(family string) bool {
	return family != "" && !p.tightens && slices.Contains(p.cfg.Catalog.Disable, family)
}

// skipped reports whether a finding of the shell analysis is left alone:
// with the ssh family disabled, what runs through ssh is not judged.
func (p *Policy) skipped(x shell.Finding) bool {
	if !p.disabled("ssh") {
		return false
	}
	switch {
	case x.Invocation != nil:
		return viaSSH(x.Invocation.Via)
	case x.Dynamic != nil:
		return viaSSH(x.Dynamic.Via)
	case x.Unparsed != nil:
		return viaSSH(x.Unparsed.Via)
	}
	return false
}
