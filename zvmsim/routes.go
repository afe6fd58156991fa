package zvmsim

import (
	"net/http"
	"strings"
)

// route is one endpoint the simulator serves. The table is data so that the
// contract test can check each route against the ZVM OpenAPI document.
type route struct {
	Method string
	// Path is the spec's path template, e.g. /v1/vpgs/{vpgIdentifier}.
	Path string
	// Kind names the route in the request log.
	Kind string
	// Query lists the query parameters the handler reads.
	Query []string
	// Auth requires a valid bearer token or session.
	Auth bool
	// Perm is what the token's role must allow beyond reading.
	Perm permission
	// NotInSpec marks the endpoints the 10.0 U6 document does not describe:
	// Keycloak's token endpoint and the Windows ZVM session endpoint.
	NotInSpec bool

	handle func(*call)
}

// routes is the simulator's API surface.
var routes = []*route{
	{Method: http.MethodPost, Path: "/auth/realms/zerto/protocol/openid-connect/token", Kind: "token", NotInSpec: true, handle: (*call).token},
	{Method: http.MethodPost, Path: "/v1/session/add", Kind: "session", NotInSpec: true, handle: (*call).sessionAdd},
	{Method: http.MethodGet, Path: "/v1/localsite", Kind: "localsite", Auth: true, handle: (*call).localSite},
	{Method: http.MethodGet, Path: "/v1/serverDateTime/serverDateTimeUtc", Kind: "serverTime", Auth: true, handle: (*call).serverTimeUTC},
	{Method: http.MethodGet, Path: "/v1/vms", Kind: "vms", Auth: true, handle: (*call).listVMs,
		Query: []string{"vmName", "vpgName", "vmIdentifier", "status", "subStatus", "protectedSiteIdentifier", "recoverySiteIdentifier"}},
	{Method: http.MethodGet, Path: "/v1/vms/{vmIdentifier}", Kind: "vm", Auth: true, handle: (*call).getVM,
		Query: []string{"vpgIdentifier"}},
	{Method: http.MethodPost, Path: "/v1/vms/{vmIdentifier}/Restore", Kind: "restore", Auth: true, Perm: permRestore, handle: (*call).restore},
	{Method: http.MethodPost, Path: "/v1/vms/{vmIdentifier}/RestoreCommit", Kind: "restoreCommit", Auth: true, Perm: permRestore, handle: (*call).restoreCommit},
	{Method: http.MethodPost, Path: "/v1/vms/{vmIdentifier}/RestoreRollback", Kind: "restoreRollback", Auth: true, Perm: permRestore, handle: (*call).restoreRollback},
	{Method: http.MethodGet, Path: "/v1/vpgs", Kind: "vpgs", Auth: true, handle: (*call).listVPGs,
		Query: []string{"name", "status", "subStatus", "protectedSiteIdentifier", "recoverySiteIdentifier"}},
	{Method: http.MethodGet, Path: "/v1/vpgs/{vpgIdentifier}", Kind: "vpg", Auth: true, handle: (*call).getVPG},
	{Method: http.MethodGet, Path: "/v1/vpgs/{vpgIdentifier}/checkpoints", Kind: "checkpoints", Auth: true, handle: (*call).listCheckpoints,
		Query: []string{"startDate", "endDate"}},
	{Method: http.MethodPost, Path: "/v1/vpgs/{vpgIdentifier}/checkpoints", Kind: "insert", Auth: true, Perm: permCheckpoint, handle: (*call).insertCheckpoint},
	{Method: http.MethodGet, Path: "/v1/vpgs/{vpgIdentifier}/checkpoints/stats", Kind: "checkpointStats", Auth: true, handle: (*call).checkpointStats},
	{Method: http.MethodPost, Path: "/v1/vpgs/{vpgIdentifier}/FailoverTest", Kind: "failoverTest", Auth: true, Perm: permTest, handle: (*call).failoverTest},
	{Method: http.MethodPost, Path: "/v1/vpgs/{vpgIdentifier}/FailoverTestStop", Kind: "failoverTestStop", Auth: true, Perm: permTest, handle: (*call).failoverTestStop},
	{Method: http.MethodPost, Path: "/v1/vpgs/{vpgIdentifier}/Failover", Kind: "failover", Auth: true, Perm: permFailover, handle: (*call).failover},
	{Method: http.MethodPost, Path: "/v1/vpgs/{vpgIdentifier}/FailoverCommit", Kind: "failoverCommit", Auth: true, Perm: permFailover, handle: (*call).failoverCommit},
	{Method: http.MethodPost, Path: "/v1/vpgs/{vpgIdentifier}/FailoverRollback", Kind: "failoverRollback", Auth: true, Perm: permFailover, handle: (*call).failoverRollback},
	{Method: http.MethodGet, Path: "/v1/tasks", Kind: "tasks", Auth: true, handle: (*call).listTasks,
		Query: []string{"type", "status", "startedBeforeDate", "startedAfterDate", "completedBeforeDate", "completedAfterDate"}},
	{Method: http.MethodGet, Path: "/v1/tasks/{taskIdentifier}", Kind: "task", Auth: true, handle: (*call).getTask},
}

// match finds the route for a request. Literal path segments match in any
// casing, as they do on a ZVM. When the path matches but the method does not,
// it returns the methods the path allows.
func match(method, path string) (rt *route, params map[string]string, allowed []string) {
	segs := splitPath(path)
	for _, r := range routes {
		p, ok := matchPath(splitPath(r.Path), segs)
		if !ok {
			continue
		}
		if r.Method == method {
			return r, p, nil
		}
		allowed = append(allowed, r.Method)
	}
	return nil, nil, allowed
}

func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func matchPath(tmpl, segs []string) (map[string]string, bool) {
	if len(tmpl) != len(segs) {
		return nil, false
	}
	var params map[string]string
	for i, t := range tmpl {
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[t[1:len(t)-1]] = segs[i]
			continue
		}
		if !strings.EqualFold(t, segs[i]) {
			return nil, false
		}
	}
	return params, true
}
