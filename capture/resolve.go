package capture

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/zvm"
)

// group is the targets of one call that one VPG protects.
type group struct {
	vpgID, vpgName string
	vms            []VM
}

// resolveAll resolves every target, in parallel, and groups the VMs found
// by VPG, in the order the targets were written. A VM in several VPGs is in
// each of their groups: every journal that can rewind it gets a checkpoint.
// A name that matches several different VMs protects all of them, and
// a note says so.
func (c *Capturer) resolveAll(ctx context.Context, targets []string) (groups []group, unknown []string, failures []Failure, notes []string) {
	type answer struct {
		vms []zvm.VM
		err error
	}
	answers := make([]answer, len(targets))
	cache := c.loadResolutions()
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Go(func() {
			vms, err := c.resolve(ctx, cache, t)
			answers[i] = answer{vms, err}
		})
	}
	wg.Wait()

	fresh := false
	for i, t := range targets {
		a := answers[i]
		if a.err != nil {
			failures = append(failures, Failure{Target: t, Err: a.err})
			continue
		}
		if e, ok := cache[t]; !ok || !c.fresh(e) {
			cache[t] = resolution{At: c.o.Now(), VMs: toCached(a.vms)}
			fresh = true
		}
		if len(a.vms) == 0 {
			unknown = append(unknown, t)
			continue
		}
		if n := ambiguity(t, a.vms); n != "" {
			notes = append(notes, n)
		}
		for _, vm := range a.vms {
			j := slices.IndexFunc(groups, func(g group) bool { return g.vpgID == vm.VPGIdentifier })
			if j < 0 {
				groups = append(groups, group{vpgID: vm.VPGIdentifier, vpgName: vm.VPGName})
				j = len(groups) - 1
			}
			g := &groups[j]
			if !slices.ContainsFunc(g.vms, func(v VM) bool { return v.Identifier == vm.Identifier }) {
				g.vms = append(g.vms, VM{Target: t, Name: vm.Name, Identifier: vm.Identifier})
			}
		}
	}
	if fresh {
		c.saveResolutions(cache)
	}
	return groups, unknown, failures, notes
}

// ambiguity returns a note when target matched more than one VM (distinct
// VmIdentifiers; one VM in several VPGs is one VM), else "".
func ambiguity(target string, vms []zvm.VM) string {
	var ids []string
	for _, vm := range vms {
		if !slices.Contains(ids, vm.Identifier) {
			ids = append(ids, vm.Identifier)
		}
	}
	if len(ids) < 2 {
		return ""
	}
	return fmt.Sprintf("%q is ambiguous: it names %d VMs Zerto protects (%s), and each got a checkpoint; name one by its VmIdentifier or map the name in [targets] aliases",
		target, len(ids), strings.Join(ids, ", "))
}

// vmIDPattern matches a VmIdentifier: the site's GUID, a dot, and the
// platform's own reference, such as "<guid>.vm-38".
var vmIDPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.\S+$`)
})

// resolve returns the VM rows target stands for, one per VPG that protects
// the VM: by identifier when it looks like one (GET /v1/vms?vmIdentifier=,
// which lists a VM in several VPGs once per VPG, where GET /v1/vms/{id}
// would answer 400), else by name: as written, exactly and then ignoring
// case, then through the [targets] aliases and strip_domain. No VM is an
// empty list, not an error: a host Zerto does not protect has nothing to
// rewind to.
func (c *Capturer) resolve(ctx context.Context, cache map[string]resolution, target string) ([]zvm.VM, error) {
	if e, ok := cache[target]; ok && c.fresh(e) {
		return fromCached(e.VMs), nil
	}
	if vmIDPattern().MatchString(target) {
		vms, err := c.z.VMsByIdentifier(ctx, target)
		switch {
		case err != nil:
			return nil, err
		case len(vms) > 0:
			return vms, nil
		}
	}
	names := []string{target}
	for _, n := range c.o.Targets.Candidates(target) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range names {
		vms, err := c.z.VMs(ctx, name)
		if err != nil {
			return nil, err
		}
		if m := matchName(vms, name); len(m) > 0 {
			return m, nil
		}
	}
	// A ZVM may filter vmName by exact case; one listing of every VM
	// settles the case-insensitive match.
	all, err := c.z.VMs(ctx, "")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if m := matchName(all, name); len(m) > 0 {
			return m, nil
		}
	}
	return nil, nil
}

// matchName returns the VMs named name exactly or, when none is, the VMs
// named name ignoring case.
func matchName(vms []zvm.VM, name string) []zvm.VM {
	var exact, folded []zvm.VM
	for _, vm := range vms {
		switch {
		case vm.Name == name:
			exact = append(exact, vm)
		case strings.EqualFold(vm.Name, name):
			folded = append(folded, vm)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return folded
}

// resolutionFile caches target resolutions in the state folder, so that a
// protected call costs no VM lookup while the cache is fresh. There is one
// per ZVM (see resolutionName): a name means different VMs on different
// ZVMs.
const resolutionFile = "targets.json"

// resolution is one cached target.
type resolution struct {
	At  time.Time  `json:"at"`
	VMs []cachedVM `json:"vms"`
}

type cachedVM struct {
	Name          string `json:"name"`
	Identifier    string `json:"id"`
	VPGIdentifier string `json:"vpg_id"`
	VPGName       string `json:"vpg"`
}

func toCached(vms []zvm.VM) []cachedVM {
	out := make([]cachedVM, len(vms))
	for i, vm := range vms {
		out[i] = cachedVM{vm.Name, vm.Identifier, vm.VPGIdentifier, vm.VPGName}
	}
	return out
}

func fromCached(cs []cachedVM) []zvm.VM {
	out := make([]zvm.VM, len(cs))
	for i, c := range cs {
		out[i] = zvm.VM{Name: c.Name, Identifier: c.Identifier, VPGIdentifier: c.VPGIdentifier, VPGName: c.VPGName}
	}
	return out
}

// fresh reports whether a cached resolution may be used: a target found,
// for ResolveTTL; a target Zerto does not know, for MissTTL (at most
// ResolveTTL), so that a host Zerto does not protect costs one listing of
// every VM per MissTTL rather than per call, and a VM newly protected is
// seen soon.
func (c *Capturer) fresh(r resolution) bool {
	age := c.o.Now().Sub(r.At)
	ttl := c.o.ResolveTTL
	if len(r.VMs) == 0 {
		ttl = min(ttl, c.o.MissTTL)
	}
	return ttl > 0 && age >= 0 && age < ttl
}

// resolutionName is the cache file of the Capturer's ZVM: targets-<hash of
// its URL>.json.
func (c *Capturer) resolutionName() string {
	sum := sha256.Sum256([]byte(c.z.URL()))
	return strings.TrimSuffix(resolutionFile, ".json") + "-" + hex.EncodeToString(sum[:8]) + ".json"
}

// loadResolutions reads the cache; a missing or unreadable one is empty,
// since the cache only saves requests.
func (c *Capturer) loadResolutions() map[string]resolution {
	m := map[string]resolution{}
	if c.o.StateDir == "" || c.o.ResolveTTL < 0 {
		return m
	}
	data, err := os.ReadFile(filepath.Join(c.o.StateDir, c.resolutionName()))
	if err == nil {
		json.Unmarshal(data, &m)
	}
	for k, r := range m {
		if !c.fresh(r) {
			delete(m, k)
		}
	}
	return m
}

// saveResolutions writes the cache by atomic rename. Concurrent writers may
// drop each other's entries, which costs a lookup later, nothing more.
func (c *Capturer) saveResolutions(m map[string]resolution) {
	if c.o.StateDir == "" || c.o.ResolveTTL < 0 {
		return
	}
	data, err := json.Marshal(m)
	if err == nil {
		writeFile(c.o.StateDir, c.resolutionName(), data)
	}
}

// forget drops the cached resolutions that point at VPG vpgID, which Zerto
// no longer knows.
func (c *Capturer) forget(vpgID string) {
	m := c.loadResolutions()
	n := len(m)
	for k, r := range m {
		if slices.ContainsFunc(r.VMs, func(v cachedVM) bool { return v.VPGIdentifier == vpgID }) {
			delete(m, k)
		}
	}
	if len(m) != n {
		c.saveResolutions(m)
	}
}
