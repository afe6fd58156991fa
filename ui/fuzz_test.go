package ui

import (
	"net"
	"strings"
	"testing"
)

// FuzzHostGuard: whatever Host header a request carries, the guard lets
// through only an IP literal or localhost, on the bound port; never a name
// a DNS rebinding could point here.
func FuzzHostGuard(f *testing.F) {
	for _, seed := range []string{"127.0.0.1:8080", "localhost:8080", "evil.example:8080", "[::1]:8080", "127.0.0.1",
		"", ":8080", "127.0.0.1:8080:1", "[127.0.0.1]:8080", "localhost.:8080", "0x7f.1:8080", "2130706433:8080"} {
		f.Add(seed)
	}
	guards := []hostGuard{
		newHostGuard(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}),
		newHostGuard(&net.TCPAddr{IP: net.IPv4zero, Port: 8080}),
	}
	f.Fuzz(func(t *testing.T, host string) {
		for _, g := range guards {
			if !g.allows(host) {
				continue
			}
			name, port, err := net.SplitHostPort(host)
			if err != nil || port != "8080" {
				t.Fatalf("allowed %q: not the bound port", host)
			}
			if net.ParseIP(name) == nil && !strings.EqualFold(name, "localhost") {
				t.Fatalf("allowed %q: a name, not an IP literal", host)
			}
		}
	})
}
