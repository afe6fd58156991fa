package zvm

import (
	"errors"
	"net/http"
	"strings"
)

// Hint returns the fix a person can make for err, an error of FromConfig,
// New or a Client method, in a few words; "" when there is nothing to set,
// such as Zerto's own refusals and failures, which are answered in
// Zerto's words alone. The hook, doctor, `rewind undo`, the MCP server and
// the page all hint with it, so that one cause gets one fix everywhere.
func Hint(err error) string {
	var (
		se *SettingsError
		pe *PermissionError
		ze *Error
	)
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotConfigured):
		return "set url in the config's [zerto] table (or REWIND_ZVM_URL) and the ZVM's credentials, as docs/zvm-setup.md shows"
	case errors.As(err, &pe):
		return "chmod 600 " + pe.Path
	case errors.As(err, &se):
		switch se.Key {
		case "url":
			if strings.Contains(se.Error(), "must not carry credentials") {
				return "take the user name and password out of zerto.url (or REWIND_ZVM_URL): give them as username and password_file, or REWIND_ZVM_USERNAME and REWIND_ZVM_PASSWORD_FILE"
			}
			return "write zerto.url as the ZVM's https:// address, such as https://zvm.lab.local (a Windows ZVM: https://zvm.lab.local:9669)"
		case "ca_file":
			return "set ca_file in [zerto] (or REWIND_ZVM_CA_FILE) to a readable PEM file of the CA that signed the ZVM's certificate"
		case "auth":
			return "set auth in [zerto] (or REWIND_ZVM_AUTH) to keycloak for a ZVM appliance or session for a Windows ZVM"
		case "client_secret", "username":
			return "give the hook's Keycloak client in client_id and client_secret_file (or REWIND_ZVM_CLIENT_SECRET_FILE), as docs/zvm-setup.md shows"
		}
		return "correct zerto." + se.Key
	case errors.Is(err, errNoSessionLogin):
		return `set auth = "keycloak" in [zerto]: a ZVM appliance logs in through its Keycloak, with a client_id and client_secret_file`
	case errors.Is(err, errNoKeycloak):
		return "zerto.url must be the address the ZVM's API and Keycloak answer at: behind a reverse proxy, with the proxy's base path (such as https://proxy.lab.local/zvm); a Windows ZVM logs in with auth = \"session\""
	case !errors.As(err, &ze):
		return ""
	}
	switch ze.Kind {
	case KindTLS:
		return "trust the ZVM's certificate with ca_file in [zerto] (or REWIND_ZVM_CA_FILE), a PEM file of the CA that signed it"
	case KindUnauthorized:
		if ze.Status == http.StatusForbidden {
			return "the credentials log in but their role does not allow this: see the roles in docs/zvm-setup.md"
		}
		return "check the ZVM credentials: REWIND_ZVM_CLIENT_ID and REWIND_ZVM_CLIENT_SECRET_FILE (client_id and client_secret_file in [zerto]), or the username and password_file"
	case KindTransport:
		return "check that zerto.url (or REWIND_ZVM_URL) is the ZVM's address and that this machine reaches it: DNS, the firewall, a proxy"
	case KindTimeout:
		return "the ZVM did not answer in time: check that it is up and reachable"
	case KindNotZerto:
		return "zerto.url must be the ZVM's API base address; behind a reverse proxy, with the proxy's base path (such as https://proxy.lab.local/zvm)"
	}
	return ""
}
