package zvm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// probeVPG and probeVM name nothing: a ZVM has no VPG or VM of these
// identifiers, so an operation sent for them cannot act on anything.
const (
	probeVPG = "00000000-0000-0000-0000-000000000000"
	probeVM  = probeVPG + ".vm-0"
)

// Operation is something the credentials of a Client may or may not be
// allowed to do on the ZVM.
type Operation string

// The operations Privileges asks about.
const (
	OpCheckpoint   Operation = "tag a checkpoint"
	OpFailoverTest Operation = "start a failover test"
	OpFailover     Operation = "fail over"
	OpRestore      Operation = "restore a VM"
	// OpStopTest is not among Privileges' answers (a role that tests
	// stops its tests), but May asks it: a stop is sent on its own.
	OpStopTest Operation = "stop a failover test"
)

// probes are the requests that ask the ZVM about an operation: each names
// a VPG or VM that does not exist.
var probes = map[Operation]struct {
	path string
	body any
}{
	OpCheckpoint:   {"/v1/vpgs/" + probeVPG + "/checkpoints", map[string]any{"checkpointName": "rewind-doctor-probe"}},
	OpFailoverTest: {"/v1/vpgs/" + probeVPG + "/FailoverTest", map[string]any{}},
	OpStopTest:     {"/v1/vpgs/" + probeVPG + "/FailoverTestStop", map[string]any{}},
	OpFailover:     {"/v1/vpgs/" + probeVPG + "/Failover", map[string]any{"commitPolicy": int(CommitRollback), "shutdownPolicy": int(ShutdownNone)}},
	OpRestore:      {"/v1/vms/" + probeVM + "/Restore", map[string]any{"vpgIdentifier": probeVPG, "checkpointIdentifier": "0", "commitPolicy": int(CommitNone)}},
}

// Allowed says what the ZVM answered an operation sent for an object that
// does not exist.
type Allowed int

const (
	// AllowedUnknown: the answer says neither (a server error, no answer).
	AllowedUnknown Allowed = iota
	// AllowedYes: the ZVM looked for the object (400 or 404), so the
	// credentials passed its authorization.
	AllowedYes
	// AllowedNo: the ZVM refused with 403 before looking.
	AllowedNo
)

// Privilege is one operation's answer.
type Privilege struct {
	Op      Operation
	Allowed Allowed
	// Err is the error the probe got, whatever it was.
	Err error
}

// Privileges asks the ZVM which of the operations the Client's credentials
// may do, without doing any of them: each is sent for a VPG or VM that does
// not exist (identifiers of zeros), which a ZVM refuses with 403 when the
// role lacks the permission (authorization comes before the lookup, as in
// any ASP.NET API) and otherwise answers 400 or 404, finding nothing to act
// on. A 2xx, which no ZVM should answer for an object it has not, counts as
// allowed.
func (c *Client) Privileges(ctx context.Context) []Privilege {
	ops := []Operation{OpCheckpoint, OpFailoverTest, OpFailover, OpRestore}
	out := make([]Privilege, len(ops))
	for i, op := range ops {
		out[i] = c.May(ctx, op)
	}
	return out
}

// May asks the ZVM whether the Client's credentials may do op, without
// doing it, as Privileges does: the operation is sent for a VPG or VM that
// does not exist. A refusal (AllowedNo) keeps Zerto's 403, with its
// message, in Err.
func (c *Client) May(ctx context.Context, op Operation) Privilege {
	p, ok := probes[op]
	if !ok {
		return Privilege{Op: op, Err: fmt.Errorf("no probe of %q", op)}
	}
	_, err := c.post(ctx, p.path, p.body)
	out := Privilege{Op: op, Err: err}
	var ze *Error
	switch {
	case err == nil:
		out.Allowed = AllowedYes
	case !errors.As(err, &ze):
	case ze.Status == http.StatusForbidden:
		out.Allowed = AllowedNo
	case ze.Status == http.StatusBadRequest || ze.Status == http.StatusNotFound || ze.Status == http.StatusConflict || ze.Status == http.StatusUnprocessableEntity:
		if ze.Kind != KindNotZerto {
			out.Allowed = AllowedYes
		}
	}
	return out
}

// TokenRoles returns the roles the Client's access token carries, as a
// Keycloak token (a JWT) lists them in realm_access and resource_access,
// and whether the token is one whose claims can be read; it logs in if it
// must. The roles are what Keycloak says, unchecked: they inform a person,
// while Privileges asks the ZVM itself.
func (c *Client) TokenRoles(ctx context.Context) ([]string, bool, error) {
	t, err := c.credential(ctx, "")
	if err != nil {
		return nil, false, err
	}
	parts := strings.Split(t.AccessToken, ".")
	if len(parts) != 3 {
		return nil, false, nil
	}
	payload, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return nil, false, nil
	}
	var claims struct {
		RealmAccess    struct{ Roles []string } `json:"realm_access"`
		ResourceAccess map[string]struct {
			Roles []string
		} `json:"resource_access"`
	}
	if json.Unmarshal(payload, &claims) != nil {
		return nil, false, nil
	}
	roles := slices.Clone(claims.RealmAccess.Roles)
	for client, ra := range claims.ResourceAccess {
		for _, r := range ra.Roles {
			roles = append(roles, client+":"+r)
		}
	}
	slices.Sort(roles)
	return slices.Compact(roles), true, nil
}
