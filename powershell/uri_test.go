package powershell

import (
	"net/url"
	"testing"
)

func TestURIHost(t *testing.T) {
	t.Parallel()
	tests := []struct{ uri, want string }{
		{"http://web-01:5985/wsman", "web-01"},
		{"HTTPS://web-01.lab.local", "web-01.lab.local"},
		{"https://admin:pw@web-01:5986/wsman?x=1#y", "web-01"},
		{"tcp://10.0.0.5:2376", "10.0.0.5"},
		{"ssh://admin@web-01", "web-01"},
		{"http://web-01:/x", "web-01"},
		{"web-01:5985", ""},
		{"http://", ""},
		{"http://:5985", ""},
		{"http://web%2D01/", ""},
		{"http://[fd00::1]:5985/wsman", ""},
		{"http://web-01:59x5", ""},
		{"http://web-01/%zz", ""},
		{"http://web 01", ""},
		{"http://a@b@web-01", ""},
		{"1http://web-01", ""},
	}
	for _, tt := range tests {
		if got := URIHost(tt.uri); got != tt.want {
			t.Errorf("URIHost(%q) = %q, want %q", tt.uri, got, tt.want)
		}
	}
}

// FuzzURIHost holds URIHost to net/url, which it reads URIs without: a
// host it reads is the host net/url reads.
func FuzzURIHost(f *testing.F) {
	for _, s := range []string{"http://web-01:5985/wsman", "https://u:p@h:1/p?q#f", "tcp://10.0.0.5:2376", "http://h:/", "ssh://a@b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h := URIHost(s)
		if h == "" {
			return
		}
		u, err := url.Parse(s)
		if err != nil || u.Hostname() != h {
			t.Fatalf("URIHost(%q) = %q; net/url: %+v, %v", s, h, u, err)
		}
	})
}
