package dirs

import (
	"path/filepath"
	"testing"
)

func TestState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"Override", "linux", map[string]string{"REWIND_STATE_DIR": "/srv/rw/", "XDG_STATE_HOME": "/x", "HOME": "/h"}, "/srv/rw", false},
		{"RelativeOverride", "linux", map[string]string{"REWIND_STATE_DIR": "state", "HOME": "/h"}, "", true},
		{"XDG", "linux", map[string]string{"XDG_STATE_HOME": "/x/state", "HOME": "/h"}, "/x/state/rewind", false},
		{"RelativeXDGIgnored", "linux", map[string]string{"XDG_STATE_HOME": "x/state", "HOME": "/h"}, "/h/.local/state/rewind", false},
		{"Home", "linux", map[string]string{"HOME": "/h"}, "/h/.local/state/rewind", false},
		{"NoHome", "linux", map[string]string{}, "", true},
		{"Darwin", "darwin", map[string]string{"HOME": "/Users/u"}, "/Users/u/Library/Application Support/rewind", false},
		{"DarwinXDG", "darwin", map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/Users/u"}, "/x/rewind", false},
		{"Windows", "windows", map[string]string{"LocalAppData": `C:\Users\u\AppData\Local`}, filepath.Join(`C:\Users\u\AppData\Local`, "rewind"), false},
		{"WindowsOverride", "windows", map[string]string{"REWIND_STATE_DIR": `D:\rewind`}, filepath.Clean(`D:\rewind`), false},
		{"WindowsRelativeOverride", "windows", map[string]string{"REWIND_STATE_DIR": `rewind`, "LocalAppData": `C:\L`}, "", true},
		{"WindowsNothing", "windows", map[string]string{"HOME": "/h"}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := state(tt.goos, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("state = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		goos    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"XDG", "linux", map[string]string{"XDG_CACHE_HOME": "/x/cache", "HOME": "/h"}, "/x/cache/rewind", false},
		{"RelativeXDG", "linux", map[string]string{"XDG_CACHE_HOME": "x/cache", "HOME": "/h"}, "", true},
		{"Home", "linux", map[string]string{"HOME": "/h"}, "/h/.cache/rewind", false},
		{"NoHome", "linux", map[string]string{}, "", true},
		{"Darwin", "darwin", map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/Users/u"}, "/Users/u/Library/Caches/rewind", false},
		{"DarwinNoHome", "darwin", map[string]string{}, "", true},
		{"Windows", "windows", map[string]string{"LocalAppData": `C:\L`, "HOME": "/h"}, filepath.Join(`C:\L`, "rewind"), false},
		{"WindowsNothing", "windows", map[string]string{"HOME": "/h"}, "", true},
		{"Plan9", "plan9", map[string]string{"home": "/usr/u"}, "/usr/u/lib/cache/rewind", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cache(tt.goos, func(k string) string { return tt.env[k] })
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("cache = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
