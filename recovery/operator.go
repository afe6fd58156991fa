package recovery

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rewind-dev/rewind/zvm"
)

// Operator is a person's own Zerto session, made for one rewind from the
// user name and password they typed for it. The operations that change a
// VM's disks (a journal restore, its commit, its rollback) run through an
// Operator and never through the Service's own client, whose credentials
// are the hook's: the hook's may be in the environment of every command an
// agent runs, the operator's are typed when they are needed and kept in
// memory only (no token cache, no file, no environment variable).
type Operator struct {
	// User is the Zerto user, as typed.
	User string
	z    *zvm.Client
}

// NewOperator returns the Operator of user and password on the ZVM that
// hook reaches: the URL, the TLS settings and the authentication scheme
// are hook's, its credentials never. With Keycloak, the password grant
// goes through the ZVM's public client (zvm.DefaultClientID); on a Windows
// ZVM, through a session. Credentials equal to the hook's (its user name,
// password or client secret) are refused with a *HookCredentialsError.
func NewOperator(hook zvm.Options, user, password string) (*Operator, error) {
	user = strings.TrimSpace(user)
	if user == "" || password == "" {
		return nil, errors.New("a restore needs your own Zerto user name and password")
	}
	if isHooks(hook, user, password) {
		return nil, &HookCredentialsError{User: user}
	}
	z, err := zvm.New(hook.AsPerson(user, password))
	if err != nil {
		return nil, err
	}
	return &Operator{User: user, z: z}, nil
}

// isHooks reports whether user and password are the hook's credentials, or
// a part of them: typed by someone who read them from the agent's
// environment or the config.
func isHooks(hook zvm.Options, user, password string) bool {
	switch {
	case hook.Username != "" && strings.EqualFold(user, hook.Username),
		hook.ClientID != "" && strings.EqualFold(user, "service-account-"+hook.ClientID),
		hook.Password != "" && password == hook.Password,
		hook.ClientSecret != "" && password == hook.ClientSecret:
		return true
	}
	return false
}

// Login checks the operator's credentials with Zerto, so that a wrong
// password is said before anything is changed; a refusal is a
// *LoginError.
func (o *Operator) Login(ctx context.Context) error {
	if _, err := o.z.LocalSite(ctx); err != nil {
		return &LoginError{User: o.User, Err: err}
	}
	return nil
}

// LoginError says Zerto refused an operator's credentials, or could not be
// asked: nothing was changed.
type LoginError struct {
	User string
	Err  error
}

func (e *LoginError) Error() string {
	if zvm.IsUnauthorized(e.Err) {
		return fmt.Sprintf("Zerto refused the credentials of %s: nothing was changed: %v", e.User, e.Err)
	}
	return fmt.Sprintf("logging in to Zerto as %s: %v", e.User, e.Err)
}

// Unwrap returns the cause.
func (e *LoginError) Unwrap() error { return e.Err }
