package version

import (
	"runtime/debug"
	"testing"
)

func TestInfoString(t *testing.T) {
	stamp := []debug.BuildSetting{
		{Key: "vcs.revision", Value: "eb81908a1b2c3d4e5f60718293a4b5c6d7e8f901"},
		{Key: "vcs.time", Value: "2026-12-01T05:07:55Z"},
		{Key: "vcs.modified", Value: "true"},
	}
	for _, tc := range []struct {
		name    string
		ldflags string
		bi      *debug.BuildInfo
		want    string
	}{
		{"no build info", "", nil, "(devel)"},
		{"ldflags win", "v1.2.3", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "v1.2.3 (go1.26.8)"},
		{"go install of a release", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0 (go1.26.8)"},
		{"source tree with a stamp", "", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: stamp},
			"(devel) eb81908a1b2c 2026-12-01T05:07:55Z, modified (go1.26.8)"},
		{"pseudo-version names the commit", "", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261201050755-eb81908a1b2c+dirty"}, Settings: stamp},
			"v0.0.0-20261201050755-eb81908a1b2c+dirty (go1.26.8)"},
		{"empty main version", "", &debug.BuildInfo{GoVersion: "go1.26.8"}, "(devel) (go1.26.8)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fromBuildInfo(tc.ldflags, tc.bi)
			if tc.bi == nil {
				got.Go = ""
			}
			if s := got.String(); s != tc.want {
				t.Errorf("String() = %q, want %q", s, tc.want)
			}
		})
	}
}
