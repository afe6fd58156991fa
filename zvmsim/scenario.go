package zvmsim

import (
	"bytes"
	"crypto/sha1"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/pelletier/go-toml/v2"
)

// Scenario is the world a Server simulates: its sites, VPGs, credentials,
// token lifetimes and standing faults. Scenario files are TOML; see
// testdata/lab.toml for a commented example.
type Scenario struct {
	// Name identifies the scenario in summaries; ParseScenario sets it from
	// its name argument when the file gives none.
	Name string `toml:"name"`
	// LocalSite names the site whose ZVM this is (GET /v1/localsite); the
	// first site when empty.
	LocalSite string `toml:"local_site"`
	// TokenTTL is the access token lifetime (Keycloak's default, 5m, when
	// zero); RefreshTTL the refresh token's (30m when zero).
	TokenTTL   Duration `toml:"token_ttl"`
	RefreshTTL Duration `toml:"refresh_ttl"`

	Sites       []Site      `toml:"site"`
	VPGs        []VPG       `toml:"vpg"`
	Credentials Credentials `toml:"credentials"`
	Faults      Faults      `toml:"faults"`
	// Strict switches on the unfriendly behaviours of real ZVMs.
	Strict Strict `toml:"strict"`
	// Flavor is the kind of ZVM: FlavorBoth (both logins, the default),
	// FlavorAppliance or FlavorWindows.
	Flavor string `toml:"flavor"`
	// Proxy is a reverse proxy in front of the ZVM.
	Proxy Proxy `toml:"proxy"`
}

// Site is a Zerto site: a vSphere, AWS, Azure or Hyper-V environment with its
// own ZVM.
type Site struct {
	Name string   `toml:"name"`
	Type SiteType `toml:"type"`
	// ID is the site identifier (a GUID); derived from Name when empty.
	ID       string `toml:"id"`
	Location string `toml:"location"`
}

// VPG is a virtual protection group: VMs replicated together from a protected
// site to a recovery site, with one journal.
type VPG struct {
	Name string `toml:"name"`
	// ID is the VPG identifier (a GUID); derived from Name when empty.
	ID            string       `toml:"id"`
	ProtectedSite string       `toml:"protected_site"`
	RecoverySite  string       `toml:"recovery_site"`
	Status        VPGStatus    `toml:"status"`
	SubStatus     VPGSubStatus `toml:"substatus"`
	// Cadence is how often the journal writes an automatic checkpoint.
	Cadence Duration `toml:"cadence"`
	// Phase is the delay from the server's start to the first live
	// checkpoint; Cadence when zero. Earlier checkpoints are backfilled.
	Phase Duration `toml:"phase"`
	// History is how far back checkpoints are backfilled at start (1h when
	// zero, a year at most); at least 12 checkpoints are always
	// backfilled. A history past 24 hours or 2000 checkpoints (a month at
	// 5 s is half a million) is computed when asked for, not stored.
	History Duration `toml:"history"`
	// RPO is the configured RPO (ConfiguredRpoSeconds); 300s when zero.
	RPO Duration `toml:"rpo"`
	VMs []string `toml:"vms"`
	// InsertFailure, when set, makes every tagged insert's task fail with
	// this CompleteReason, the way Zerto fails an insert it accepted.
	InsertFailure string `toml:"insert_failure"`
	// InsertRejection, when set, makes every tagged insert's POST answer
	// HTTP 400 with this Message, the way Zerto refuses one outright.
	InsertRejection string `toml:"insert_rejection"`
	// InsertTickFailure, when set, accepts every tagged insert and fails
	// its task at the VPG's next journal tick with this CompleteReason,
	// writing no checkpoint for it: the VRA found it could not write.
	InsertTickFailure string `toml:"insert_tick_failure"`
	// Copies, past 1, makes this many VPGs of this one, as a site with
	// hundreds of VPGs has: NAME-001, NAME-002..., their VMs' names
	// numbered alike (web-001...).
	Copies int `toml:"copies"`
}

// maxCopies bounds Copies: a ZVM manages a few thousand VPGs at most.
const maxCopies = 5000

// expandCopies replaces each VPG with Copies past 1 by its copies.
func (sc *Scenario) expandCopies() error {
	var out []VPG
	for _, v := range sc.VPGs {
		switch {
		case v.Copies <= 1:
			v.Copies = 0
			out = append(out, v)
			continue
		case v.Copies > maxCopies:
			return fmt.Errorf("vpg %q: copies %d is more than %d", v.Name, v.Copies, maxCopies)
		case v.ID != "":
			return fmt.Errorf("vpg %q: copies cannot share its id", v.Name)
		}
		for i := 1; i <= v.Copies; i++ {
			c := v
			c.Copies = 0
			c.Name = fmt.Sprintf("%s-%03d", v.Name, i)
			c.VMs = make([]string, len(v.VMs))
			for j, vm := range v.VMs {
				c.VMs[j] = fmt.Sprintf("%s-%03d", vm, i)
			}
			out = append(out, c)
		}
	}
	sc.VPGs = out
	return nil
}

// Credentials are the identities the token and session endpoints accept.
type Credentials struct {
	Users   []User   `toml:"user"`
	Clients []Client `toml:"client"`
}

// User is a Keycloak user (password grant) and Windows ZVM user (Basic).
type User struct {
	Name     string `toml:"name"`
	Password string `toml:"password"`
	// Roles are the user's Zerto roles (RoleAdmin...); none given means
	// every permission, as the friendly simulator's users have.
	Roles []string `toml:"roles"`
	// Method is who checks the user's password on a Windows ZVM
	// (FlavorWindows): MethodVCenter (the default) or MethodWindows. A
	// login must send the matching AuthenticationMethod.
	Method string `toml:"method"`
}

// Client is a Keycloak client. A client without a secret is public (it may
// only use the password and refresh_token grants, like zerto-client); one
// with a secret is confidential and may also use client_credentials, with
// the roles of its service account.
type Client struct {
	ID     string `toml:"id"`
	Secret string `toml:"secret"`
	// Roles are the service account's Zerto roles; none given means every
	// permission.
	Roles []string `toml:"roles"`
}

// Duration is a time.Duration written as a Go duration string ("5s",
// "10m30s") in scenario files.
type Duration time.Duration

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("duration %s is negative", b)
	}
	*d = Duration(v)
	return nil
}

// MarshalText formats the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// The default credentials, shown in `rewind sim --help` and the README.
// They are set up for least privilege, as docs/zvm-setup.md says a real
// site is: the hook's client may tag checkpoints and read (Zerto's builder
// role) and nothing else, an operator may also test, fail over and restore
// (the user role), and the appliance's administrator may do everything.
const (
	DefaultUser             = "admin"
	DefaultPassword         = "zerto"
	DefaultPublicClient     = "zerto-client"
	DefaultHookClient       = "rewind-hook"
	DefaultHookClientSecret = "rewind-hook-secret"
	DefaultOperator         = "operator"
	DefaultOperatorPassword = "operator-pass"
)

// DefaultScenario returns the built-in lab: a vSphere-protected VPG with a 5 s
// journal cadence, a VPG protected at an AWS site with a 630 s cadence, a VPG
// whose tagged inserts fail with a Zerto reason, and a paused VPG, with the
// least-privilege identities of the Default constants. Its identifiers are
// the same on every call.
func DefaultScenario() *Scenario {
	sc := &Scenario{
		Name:      "default lab",
		LocalSite: "Lab-vSphere",
		Sites: []Site{
			{Name: "Lab-vSphere", Type: SiteVSphere, Location: "Lab, rack 1"},
			{Name: "DR-vSphere", Type: SiteVSphere, Location: "DR site"},
			{Name: "AWS-eu-west-1", Type: SiteAWS, Location: "eu-west-1"},
		},
		VPGs: []VPG{
			{
				Name: "lab-apps", ProtectedSite: "Lab-vSphere", RecoverySite: "DR-vSphere",
				Status: StatusMeetingSLA, Cadence: Duration(5 * time.Second),
				VMs: []string{"jp-ubuntu", "web-01", "db-01"},
			},
			{
				Name: "aws-windows", ProtectedSite: "AWS-eu-west-1", RecoverySite: "Lab-vSphere",
				Status: StatusMeetingSLA, Cadence: Duration(630 * time.Second),
				VMs: []string{"win2019-1"},
			},
			{
				Name: "lab-legacy", ProtectedSite: "Lab-vSphere", RecoverySite: "DR-vSphere",
				Status: StatusMeetingSLA, Cadence: Duration(5 * time.Second),
				VMs:           []string{"legacy-01"},
				InsertFailure: "Failed to insert tagged checkpoint: the VRA on host esx-03.lab.local is not responding",
			},
			{
				Name: "lab-paused", ProtectedSite: "Lab-vSphere", RecoverySite: "DR-vSphere",
				Status: StatusNotMeetingSLA, SubStatus: SubStatusReplicationPausedUserInitiated,
				Cadence: Duration(5 * time.Second),
				VMs:     []string{"paused-01"},
			},
		},
		Credentials: Credentials{
			Users: []User{
				{Name: DefaultUser, Password: DefaultPassword, Roles: []string{RoleAdmin}},
				{Name: DefaultOperator, Password: DefaultOperatorPassword, Roles: []string{RoleUser}},
			},
			Clients: []Client{
				{ID: DefaultPublicClient},
				{ID: DefaultHookClient, Secret: DefaultHookClientSecret, Roles: []string{RoleBuilder}},
			},
		},
	}
	if err := sc.normalize(); err != nil {
		panic("zvmsim: default scenario: " + err.Error())
	}
	return sc
}

// ScenarioError reports an invalid scenario file. Line is 0 when the error
// is not tied to one line.
type ScenarioError struct {
	Name string
	Line int
	Msg  string
}

func (e *ScenarioError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("scenario %s:%d: %s", e.Name, e.Line, e.Msg)
	}
	return fmt.Sprintf("scenario %s: %s", e.Name, e.Msg)
}

// ParseScenario parses a TOML scenario; name is used in errors. Unknown keys
// are errors that name their line.
func ParseScenario(name string, data []byte) (*Scenario, error) {
	var sc Scenario
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&sc); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) && len(strict.Errors) > 0 {
			de := strict.Errors[0]
			line, _ := de.Position()
			return nil, &ScenarioError{Name: name, Line: line, Msg: fmt.Sprintf("unknown key %q", strings.Join(de.Key(), "."))}
		}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, _ := de.Position()
			return nil, &ScenarioError{Name: name, Line: line, Msg: strings.TrimPrefix(de.Error(), "toml: ")}
		}
		return nil, &ScenarioError{Name: name, Msg: err.Error()}
	}
	if sc.Name == "" {
		sc.Name = name
	}
	if err := sc.normalize(); err != nil {
		return nil, &ScenarioError{Name: name, Msg: err.Error()}
	}
	return &sc, nil
}

// LoadScenario reads and parses the scenario file at path.
func LoadScenario(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScenario(path, data)
}

// guidRE is compiled on first use: the hook links the simulator, and every
// hook run would pay for compiling it at start-up.
var guidRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// normalize validates the scenario and fills in defaults and derived ids.
func (sc *Scenario) normalize() error {
	if len(sc.Sites) == 0 {
		return errors.New("no sites")
	}
	sites := map[string]bool{}
	for i := range sc.Sites {
		s := &sc.Sites[i]
		if s.Name == "" {
			return fmt.Errorf("site %d has no name", i+1)
		}
		if sites[strings.ToLower(s.Name)] {
			return fmt.Errorf("site %q is declared twice", s.Name)
		}
		sites[strings.ToLower(s.Name)] = true
		if s.Type == "" {
			s.Type = SiteVSphere
		} else if err := s.Type.UnmarshalText([]byte(s.Type)); err != nil {
			// go-toml fills string types without UnmarshalText.
			return fmt.Errorf("site %q: %w", s.Name, err)
		}
		if s.ID == "" {
			s.ID = derivedGUID("site", s.Name)
		} else if !guidRE().MatchString(s.ID) {
			return fmt.Errorf("site %q: id %q is not a GUID", s.Name, s.ID)
		}
	}
	if sc.LocalSite == "" {
		sc.LocalSite = sc.Sites[0].Name
	} else if !sites[strings.ToLower(sc.LocalSite)] {
		return fmt.Errorf("local_site %q is not a declared site", sc.LocalSite)
	}
	if sc.TokenTTL == 0 {
		sc.TokenTTL = Duration(5 * time.Minute)
	}
	if sc.RefreshTTL == 0 {
		sc.RefreshTTL = Duration(30 * time.Minute)
	}
	if err := sc.expandCopies(); err != nil {
		return err
	}
	vpgs := map[string]bool{}
	// vms maps a VM name on a protected site to the VPGs that list it: a
	// VM may be in several VPGs (one VM, one identifier), but only once
	// in each.
	vms := map[string]string{}
	for i := range sc.VPGs {
		v := &sc.VPGs[i]
		if v.Name == "" {
			return fmt.Errorf("vpg %d has no name", i+1)
		}
		if vpgs[strings.ToLower(v.Name)] {
			return fmt.Errorf("vpg %q is declared twice", v.Name)
		}
		vpgs[strings.ToLower(v.Name)] = true
		if v.ID == "" {
			v.ID = derivedGUID("vpg", v.Name)
		} else if !guidRE().MatchString(v.ID) {
			return fmt.Errorf("vpg %q: id %q is not a GUID", v.Name, v.ID)
		}
		if v.ProtectedSite == "" {
			v.ProtectedSite = sc.LocalSite
		}
		if !sites[strings.ToLower(v.ProtectedSite)] {
			return fmt.Errorf("vpg %q: protected_site %q is not a declared site", v.Name, v.ProtectedSite)
		}
		if v.RecoverySite == "" {
			return fmt.Errorf("vpg %q has no recovery_site", v.Name)
		}
		if !sites[strings.ToLower(v.RecoverySite)] {
			return fmt.Errorf("vpg %q: recovery_site %q is not a declared site", v.Name, v.RecoverySite)
		}
		if v.Status > StatusRecovered || v.Status < 0 {
			return fmt.Errorf("vpg %q: status %d is outside the spec's range 0-8", v.Name, v.Status)
		}
		if v.Cadence <= 0 {
			return fmt.Errorf("vpg %q has no cadence", v.Name)
		}
		if time.Duration(v.Cadence) < time.Millisecond {
			return fmt.Errorf("vpg %q: cadence %s is below 1ms", v.Name, time.Duration(v.Cadence))
		}
		if v.Phase == 0 {
			v.Phase = v.Cadence
		}
		if v.History == 0 {
			v.History = Duration(time.Hour)
		}
		if time.Duration(v.History) > maxDeepHistory {
			return fmt.Errorf("vpg %q: history %s is more than a year", v.Name, time.Duration(v.History))
		}
		if v.RPO == 0 {
			v.RPO = Duration(5 * time.Minute)
		}
		if len(v.VMs) == 0 {
			return fmt.Errorf("vpg %q has no vms", v.Name)
		}
		for _, vm := range v.VMs {
			if vm == "" {
				return fmt.Errorf("vpg %q has a vm without a name", v.Name)
			}
			key := strings.ToLower(v.ProtectedSite + "\x00" + vm + "\x00" + v.Name)
			if _, ok := vms[key]; ok {
				return fmt.Errorf("vpg %q lists vm %q twice", v.Name, vm)
			}
			vms[key] = v.Name
		}
	}
	for i := range sc.Credentials.Users {
		u := &sc.Credentials.Users[i]
		if u.Name == "" || u.Password == "" {
			return errors.New("a credentials user needs a name and a password")
		}
		if err := validRoles("user "+u.Name, u.Roles); err != nil {
			return err
		}
		switch u.Method {
		case "":
			u.Method = MethodVCenter
		case MethodVCenter, MethodWindows:
		default:
			return fmt.Errorf("user %s: method %q (want %s or %s)", u.Name, u.Method, MethodVCenter, MethodWindows)
		}
	}
	for _, c := range sc.Credentials.Clients {
		if c.ID == "" {
			return errors.New("a credentials client needs an id")
		}
		if err := validRoles("client "+c.ID, c.Roles); err != nil {
			return err
		}
	}
	switch sc.Flavor {
	case FlavorBoth, FlavorAppliance, FlavorWindows:
	default:
		return fmt.Errorf("flavor %q (want %q or %q, or none for both logins)", sc.Flavor, FlavorAppliance, FlavorWindows)
	}
	if err := sc.Proxy.validate(); err != nil {
		return err
	}
	if err := sc.Strict.validate(); err != nil {
		return err
	}
	return sc.Faults.validate()
}

func (sc *Scenario) site(name string) *Site {
	for i := range sc.Sites {
		if strings.EqualFold(sc.Sites[i].Name, name) {
			return &sc.Sites[i]
		}
	}
	return nil
}

// derivedGUID makes a stable GUID-shaped identifier from a name, so that a
// scenario's identifiers stay the same from one run to the next.
func derivedGUID(kind, name string) string {
	h := sha1.Sum([]byte("zvmsim/" + kind + "/" + strings.ToLower(name)))
	h[6] = h[6]&0x0f | 0x50 // version 5
	h[8] = h[8]&0x3f | 0x80 // RFC 4122 variant
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}
