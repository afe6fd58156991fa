package zvm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"strings"
)

// noRoutePrefix starts the Message ASP.NET answers for a path that no route
// of the ZVM's API serves.
const noRoutePrefix = "No HTTP resource was found"

// classifyNotZerto turns a lookup miss (KindNotFound) that the ZVM's API did
// not answer into KindNotZerto: a 404 whose body is not JSON (a web
// server's or proxy's page, as a wrong base URL gets) or that says no route
// matched. Zerto answers an unknown VM, VPG or task with a JSON
// {"Message"}; anything else means zerto.url does not point at its API,
// which must never read as "not a VM Zerto protects".
func classifyNotZerto(e *Error, resp *response) {
	if e.Kind != KindNotFound {
		return
	}
	if strings.HasPrefix(e.Message, noRoutePrefix) || !jsonBody(resp) {
		// Whatever text came with it is not Zerto's, so it is no Message.
		what := ""
		if e.Message != "" {
			what = fmt.Sprintf(" (%q)", e.Message)
		}
		e.Kind, e.Message = KindNotZerto, ""
		e.Err = fmt.Errorf("the answer%s is not from the ZVM's API: check zerto.url, the ZVM's base URL (such as https://zvm.example.com)", what)
	}
}

// jsonBody reports whether resp carries a JSON body, by its Content-Type or,
// without one, by its first byte.
func jsonBody(resp *response) bool {
	if ct := resp.header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
	}
	b := bytes.TrimSpace(resp.body)
	return len(b) > 0 && (b[0] == '{' || b[0] == '"') && json.Valid(b)
}

// The causes of a login that reached something other than the login the
// configuration expects.
var (
	errNoSessionLogin = errors.New("this ZVM has no Windows ZVM login (POST /v1/session/add answered 404): a ZVM appliance (10.x) logs in through Keycloak")
	errNoKeycloak     = errors.New("no Keycloak answers at this URL (its token endpoint answered 404)")
)

// notZerto makes e a KindNotZerto error with cause, keeping what the
// server said in the cause rather than as Zerto's Message.
func notZerto(e *Error, cause error) *Error {
	if e.Message != "" {
		cause = fmt.Errorf("%w; the server said %q", cause, e.Message)
	}
	e.Kind, e.Message, e.Err = KindNotZerto, "", cause
	return e
}
