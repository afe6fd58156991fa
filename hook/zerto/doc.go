// Package zerto is the hook's protect step with Zerto behind it: Step
// takes the checkpoints a protect verdict needs through capture, and tells
// the hook what it got, as a hook.Outcome, for the decision table to
// decide on. rewind hook and rewind's MCP server hand it to package hook;
// the light front rewind-hook does not, so that it links no Zerto client.
package zerto
