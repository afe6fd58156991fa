package zvmsim

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The roles a ZVM appliance's Keycloak comes with, as Zerto names them
// (admin, builder, user, file-level-restore operator, viewer). What each
// allows follows Zerto's documentation of them: a viewer reads; a builder
// manages VPGs, which takes in adding checkpoints to one; a user tests,
// fails over, moves and restores; an admin does everything. Which
// permissions Zerto 10's own roles carry one by one is not published: see
// docs/zvm-setup.md for what is confirmed.
const (
	RoleAdmin       = "admin"
	RoleBuilder     = "builder"
	RoleUser        = "user"
	RoleFLROperator = "file-level-restore-operator"
	RoleViewer      = "viewer"
)

// permission is what a route needs beyond a valid token.
type permission string

const (
	permRead       permission = ""           // any valid token
	permCheckpoint permission = "checkpoint" // insert a tagged checkpoint
	permTest       permission = "test"       // failover test and its stop
	permFailover   permission = "failover"   // live failover, commit, rollback
	permRestore    permission = "restore"    // journal VM restore, commit, rollback
)

// rolePerms says what each role allows beyond reading.
var rolePerms = map[string][]permission{
	RoleAdmin:       {permCheckpoint, permTest, permFailover, permRestore},
	RoleBuilder:     {permCheckpoint},
	RoleUser:        {permTest, permFailover, permRestore},
	RoleFLROperator: {},
	RoleViewer:      {},
}

// validRoles checks the roles of a scenario's user or client.
func validRoles(who string, roles []string) error {
	for _, r := range roles {
		if _, ok := rolePerms[r]; !ok {
			return fmt.Errorf("%s: unknown role %q (want %s, %s, %s, %s or %s)", who, r, RoleAdmin, RoleBuilder, RoleUser, RoleFLROperator, RoleViewer)
		}
	}
	return nil
}

// allows reports whether a token with roles may do what p needs. A
// scenario identity without roles (nil) may do everything, as the
// friendly simulator's have always.
func allows(roles []string, p permission) bool {
	if p == permRead || roles == nil {
		return true
	}
	for _, r := range roles {
		if slices.Contains(rolePerms[r], p) {
			return true
		}
	}
	return false
}

// forbidden is the Message of a 403 for a token that lacks p.
func forbidden(p permission, subject string) string {
	return fmt.Sprintf("User %s is not authorized to perform this operation (%s): the role assigned to it does not include the required permission.", subject, p)
}

// jwtKey signs the simulator's access tokens. Clients do not check the
// signature (they cannot: only Keycloak's realm key can), but a token
// reads as Keycloak's do, with its roles in realm_access.
var jwtKey = func() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}()

// newAccessToken makes an access token shaped as Keycloak's: a JWT whose
// claims carry the subject, the client and the realm roles. roles nil
// (an unrestricted identity) is written as Zerto's admin.
func newAccessToken(issuer, subject, clientID, scope string, roles []string, expires time.Time) string {
	if roles == nil {
		roles = []string{RoleAdmin}
	}
	header := map[string]string{"alg": "HS256", "typ": "JWT", "kid": "zvmsim"}
	claims := map[string]any{
		"exp": expires.Unix(), "iat": time.Now().Unix(), "jti": newSecret(),
		"iss": issuer, "aud": "account", "sub": derivedGUID("subject", subject), "typ": "Bearer",
		"azp": clientID, "preferred_username": subject, "scope": scope,
		"realm_access": map[string]any{"roles": roles},
	}
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	signed := enc(header) + "." + enc(claims)
	mac := hmac.New(sha256.New, jwtKey)
	mac.Write([]byte(signed))
	return signed + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// The flavors of ZVM a scenario simulates (Scenario.Flavor).
const (
	// FlavorBoth answers both logins, as the friendly simulator always has.
	FlavorBoth = ""
	// FlavorAppliance is a ZVM appliance (10.x): Keycloak only; the
	// Windows ZVM's POST /v1/session/add is a route it does not have.
	FlavorAppliance = "appliance"
	// FlavorWindows is a Windows ZVM: sessions only, and a login's body
	// says who checks its credentials (AuthenticationMethod).
	FlavorWindows = "windows"
)

// The AuthenticationMethod values of a Windows ZVM's session login, and
// the names a scenario's users give them (User.Method).
const (
	MethodWindows = "windows" // 0, the ZVM's default when a login sends none
	MethodVCenter = "vcenter" // 1, the hypervisor manager (vCenter, SCVMM)
)

// authenticationMethod reads a session login's body: "" when it gives
// none (a Windows ZVM then checks the credentials with Windows), else
// MethodWindows or MethodVCenter, or an error for a value it does not know.
func authenticationMethod(body []byte) (string, error) {
	if len(strings.TrimSpace(string(body))) == 0 {
		return "", nil
	}
	var b struct{ AuthenticationMethod json.RawMessage }
	if err := json.Unmarshal(body, &b); err != nil {
		return "", err
	}
	switch strings.Trim(string(b.AuthenticationMethod), `"`) {
	case "", "0":
		return MethodWindows, nil
	case "1":
		return MethodVCenter, nil
	}
	return "", fmt.Errorf("unknown AuthenticationMethod %s", b.AuthenticationMethod)
}

// Proxy is a reverse proxy in front of the ZVM, as one often is: nginx
// with a clock of its own, serving the ZVM under a base path.
type Proxy struct {
	// DateOffset sets the clock of the proxy's Date header this far from
	// the ZVM's (serverDateTimeUtc and every timestamp stay the ZVM's).
	DateOffset SignedDuration `toml:"date_offset"`
	// BasePath serves the ZVM under this path only ("/zvm"); anything
	// else gets the proxy's own 404 page.
	BasePath string `toml:"base_path"`
}

func (p *Proxy) validate() error {
	if p.BasePath != "" {
		p.BasePath = "/" + strings.Trim(p.BasePath, "/")
		if p.BasePath == "/" {
			p.BasePath = ""
		}
	}
	if off := time.Duration(p.DateOffset); off > maxClockOffset || off < -maxClockOffset {
		return fmt.Errorf("proxy: date_offset %s is more than %s", off, maxClockOffset)
	}
	return nil
}
