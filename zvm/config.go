package zvm

import (
	"fmt"

	"github.com/rewind-dev/rewind/policy"
)

// ConfigOptions returns the options of a Client for a config's [zerto]
// table, with the REWIND_ZVM_* variables that getenv finds set applied over
// it, so that the hook and every command reach the same ZVM with the same
// credentials. A URL that is empty after both means no Zerto is configured.
//
// It lives here, not in policy, so that what only reads the config and
// judges a call (the hook's light front) does not link this client and
// net/http.
func ConfigOptions(z policy.ZertoConfig, getenv func(string) string) (Options, error) {
	o := Options{
		URL:                z.URL,
		Auth:               z.Auth,
		ClientID:           z.ClientID,
		ClientSecret:       z.ClientSecret,
		Username:           z.Username,
		Password:           z.Password,
		CAFile:             z.CAFile,
		InsecureSkipVerify: z.InsecureSkipVerify,
	}
	if err := o.ApplyEnv(getenv); err != nil {
		return Options{}, fmt.Errorf("zerto settings: %w", err)
	}
	return o, nil
}
