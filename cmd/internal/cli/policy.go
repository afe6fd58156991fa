package cli

import (
	"os"

	"github.com/rewind-dev/rewind/policy"
)

// loadPolicy builds the policy from the config that --config or discovery
// (from the working directory) finds, or from the built-in catalog alone.
func loadPolicy(configPath string) (*policy.Policy, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	cfg, err := policy.Find(configPath, cwd, os.Getenv)
	if err != nil {
		return nil, configError(configPath, err)
	}
	return policy.New(cfg)
}
