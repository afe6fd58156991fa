package recovery

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/rewind-dev/rewind/zvm"
)

// Operator is a person's own Zerto session, made for one rewind from the
// user name and password they typed for it. The operations that change a
// VM's disks (a journal restore, its commit, its rollback) run through an
// Operator and never through the Service's own client, whose credentials
// are the hook's: the hook's may be in the environment of every command an
// agent runs, the operator's are typed when they are needed and kept in
// memory only (no token cache, no file, no environment variable). A
// failover test and its stop run through one too when Zerto refuses them
// to the hook's client, as it does on a ZVM set up for least privilege.
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
		return nil, errors.New("this needs your own Zerto user name and password, and none were typed")
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

// user is the operator's Zerto user; "" for no operator (the hook's
// client).
func (o *Operator) user() string {
	if o == nil {
		return ""
	}
	return o.User
}

// client is the Zerto client that sends an operation: the operator's
// session when there is one, else the hook's client.
func (s *Service) client(op *Operator) *zvm.Client {
	if op != nil {
		return op.z
	}
	return s.Z
}

// hookOps are the operations of the modes the hook's own client runs
// where the ZVM lets it: a failover test and its stop. Whether it may is
// Zerto's to say, and on a ZVM set up for least privilege it may not.
var hookOps = map[string]zvm.Operation{ModeTest: zvm.OpFailoverTest, ModeStopTest: zvm.OpStopTest}

// hookRefusal returns Zerto's refusal of the hook's own client for mode
// (a 403 with Zerto's message), or nil when the client may run it or the
// mode is not one the hook's client runs. Zerto is asked without doing
// anything: the operation is sent for a VPG that does not exist, which a
// ZVM refuses with 403 before it looks the VPG up when the role lacks it
// (zvm.Client.May, doctor's probe). Its answer is kept for the Service's
// life. An answer that says neither is not kept: the hook's client then
// tries, and Run asks for a person's credentials if Zerto refuses it.
func (s *Service) hookRefusal(ctx context.Context, mode string) *zvm.Error {
	op, ok := hookOps[mode]
	if !ok {
		return nil
	}
	s.hookMu.Lock()
	ze, known := s.hookAnswers[mode]
	s.hookMu.Unlock()
	if known {
		return ze
	}
	p := s.Z.May(ctx, op)
	switch p.Allowed {
	case zvm.AllowedNo:
		if !errors.As(p.Err, &ze) {
			return nil
		}
	case zvm.AllowedYes:
	default:
		return nil
	}
	s.rememberHook(mode, ze)
	return ze
}

// rememberHook keeps what Zerto answered the hook's own client for mode:
// nil for allowed, else its refusal.
func (s *Service) rememberHook(mode string, ze *zvm.Error) {
	s.hookMu.Lock()
	defer s.hookMu.Unlock()
	if s.hookAnswers == nil {
		s.hookAnswers = map[string]*zvm.Error{}
	}
	s.hookAnswers[mode] = ze
}

// refusedHook returns Zerto's refusal in err of an operation the hook's
// own client sent: a 403, which says the role lacks the permission before
// anything was done.
func refusedHook(err error) *zvm.Error {
	var ze *zvm.Error
	if errors.As(err, &ze) && ze.Status == http.StatusForbidden {
		return ze
	}
	return nil
}

// refusalText says for a person that Zerto refuses the hook's own client
// mode, with Zerto's words, and that the person's credentials run it.
func refusalText(mode string, ze *zvm.Error) string {
	return fmt.Sprintf("Zerto does not let rewind's own client %s (Zerto: %q): it runs with your own Zerto user and password, typed for it and not kept.",
		hookOps[mode], zertoWords(ze))
}

// zertoWords is Zerto's message in a refusal, on one line; the whole error
// when Zerto gave none.
func zertoWords(ze *zvm.Error) string {
	if ze.Message == "" {
		return oneLine(ze.Error())
	}
	return oneLine(ze.Message)
}
