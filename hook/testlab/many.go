package testlab

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/internal/race"
)

// ManySize is the number of VPGs of the site ManyScenario writes: 500, as a
// large site has, or 50 when the race detector is built in. The race
// detector checks a fan-out's interleavings at any size and runs ten times
// slower; the size itself is the plain run's to check (.ci/run runs both).
func ManySize() int {
	if race.Enabled {
		return 50
	}
	return 500
}

// ManyScenario writes a scenario of ManySize VPGs of one VM each, app-001
// onwards, at a 5 s cadence, and returns its path: the listing tools and
// the page's VMs view must answer them inside their deadline.
func ManyScenario(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "many.toml")
	toml := fmt.Sprintf(`name = "many"
[[site]]
name = "HQ"
[[site]]
name = "DR"
[[vpg]]
name = "app"
recovery_site = "DR"
status = "MeetingSLA"
cadence = "5s"
history = "10m"
vms = ["app"]
copies = %d
[credentials]
client = [{ id = %q, secret = %q }]
`, ManySize(), ClientID, ClientSecret)
	if err := os.WriteFile(path, []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
