package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Version is set at build time by a release:
//
//	go build -ldflags "-X github.com/rewind-dev/rewind/internal/version.Version=v1.2.3"
//
// When it is empty, the module version or the VCS stamp of the build info
// is used.
var Version = ""

// Info describes the running build.
type Info struct {
	// Version is the release or module version, such as "v1.2.3" or
	// "v0.0.0-20261201050755-eb81908a1b2c+dirty"; "(devel)" for a build
	// from a source tree without one.
	Version string
	// Revision, Time and Modified are the VCS stamp of a source-tree build:
	// the commit, its time, and whether the tree had uncommitted changes.
	Revision string
	Time     time.Time
	Modified bool
	// Go is the toolchain that built the binary, such as "go1.26.8".
	Go string
}

// Get returns the running build's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuildInfo(Version, bi)
}

// String returns the running build's version in one line; see Info.String.
func String() string { return Get().String() }

func fromBuildInfo(ldflags string, bi *debug.BuildInfo) Info {
	info := Info{Version: ldflags, Go: runtime.Version()}
	if bi == nil {
		if info.Version == "" {
			info.Version = "(devel)"
		}
		return info
	}
	if bi.GoVersion != "" {
		info.Go = bi.GoVersion
	}
	if info.Version == "" {
		info.Version = bi.Main.Version
	}
	if info.Version == "" {
		info.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time, _ = time.Parse(time.RFC3339, s.Value)
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

// String is the version, then the VCS stamp when the version does not
// already name the commit, then the toolchain:
//
//	v1.2.3 (go1.26.8)
//	(devel) eb81908a1b2c 2026-12-01T05:07:55Z, modified (go1.26.8)
func (i Info) String() string {
	var b strings.Builder
	b.WriteString(i.Version)
	if rev := short(i.Revision); rev != "" && !strings.Contains(i.Version, rev) {
		fmt.Fprintf(&b, " %s", rev)
		if !i.Time.IsZero() {
			fmt.Fprintf(&b, " %s", i.Time.UTC().Format(time.RFC3339))
		}
		if i.Modified {
			b.WriteString(", modified")
		}
	}
	if i.Go != "" {
		fmt.Fprintf(&b, " (%s)", i.Go)
	}
	return b.String()
}

// short is a commit hash cut to the 12 characters Go's pseudo-versions use.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
