package policy

import (
	"fmt"

	"github.com/rewind-dev/rewind/zvm"
)

// ZVMOptions returns the options of a Zerto client for the [zerto] table,
// with the REWIND_ZVM_* variables that getenv finds set applied over it, so
// that the hook and every command reach the same ZVM with the same
// credentials. A URL that is empty after both means no Zerto is configured.
func (z ZertoConfig) ZVMOptions(getenv func(string) string) (zvm.Options, error) {
	o := zvm.Options{
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
		return zvm.Options{}, fmt.Errorf("zerto settings: %w", err)
	}
	return o, nil
}
