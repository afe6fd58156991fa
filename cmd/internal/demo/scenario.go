package demo

import (
	"time"

	"github.com/rewind-dev/rewind/zvmsim"
)

// The demo's VPGs, one per row of the decision table that needs Zerto.
const (
	// fastVPG writes a checkpoint every half second, as a vSphere VPG does
	// every few seconds: a tag lands at once.
	fastVPG = "web-tier"
	// slowVPG is protected at an AWS site, where Zerto writes a checkpoint
	// every 630 s: a tag cannot land within the hook's budget.
	slowVPG = "erp-aws"
	// refusingVPG is one whose tagged inserts Zerto refuses outright.
	refusingVPG = "legacy-apps"
	// refusal is Zerto's message for refusingVPG's inserts.
	refusal = "Cannot insert a tagged checkpoint: VPG legacy-apps is resizing its journal history"
)

// scenario is the simulated lab the demo's calls meet, set up for least
// privilege as a real ZVM should be (docs/zvm-setup.md): the hook's client
// may tag checkpoints and read (Zerto's builder role), and going back is
// the operator's (the user role), as the simulator's own default lab has
// it. secret is the hook client's secret, fresh for every run.
func scenario(secret string) *zvmsim.Scenario {
	return &zvmsim.Scenario{
		Name:      "rewind demo",
		LocalSite: "HQ-vSphere",
		Sites: []zvmsim.Site{
			{Name: "HQ-vSphere", Type: zvmsim.SiteVSphere, Location: "HQ"},
			{Name: "DR-vSphere", Type: zvmsim.SiteVSphere, Location: "DR site"},
			{Name: "AWS-eu-west-1", Type: zvmsim.SiteAWS, Location: "eu-west-1"},
		},
		VPGs: []zvmsim.VPG{
			{
				Name: fastVPG, ProtectedSite: "HQ-vSphere", RecoverySite: "DR-vSphere",
				Status:  zvmsim.StatusMeetingSLA,
				Cadence: zvmsim.Duration(500 * time.Millisecond), History: zvmsim.Duration(time.Minute),
				VMs: []string{"web-01", "web-02", "db-01"},
			},
			{
				Name: slowVPG, ProtectedSite: "AWS-eu-west-1", RecoverySite: "HQ-vSphere",
				Status:  zvmsim.StatusMeetingSLA,
				Cadence: zvmsim.Duration(630 * time.Second),
				VMs:     []string{"erp-01"},
			},
			{
				Name: refusingVPG, ProtectedSite: "HQ-vSphere", RecoverySite: "DR-vSphere",
				Status:  zvmsim.StatusMeetingSLA,
				Cadence: zvmsim.Duration(500 * time.Millisecond), History: zvmsim.Duration(time.Minute),
				VMs:             []string{"legacy-01"},
				InsertRejection: refusal,
			},
		},
		Credentials: zvmsim.Credentials{
			Users: []zvmsim.User{{Name: zvmsim.DefaultOperator, Password: zvmsim.DefaultOperatorPassword, Roles: []string{zvmsim.RoleUser}}},
			Clients: []zvmsim.Client{
				{ID: zvmsim.DefaultPublicClient},
				{ID: clientID, Secret: secret, Roles: []string{zvmsim.RoleBuilder}},
			},
		},
	}
}

// clientID is the Keycloak client the demo's hook logs in as.
const clientID = "rewind-demo"
