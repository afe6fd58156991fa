// Package zvm is rewind's client for the REST API of a Zerto Virtual
// Manager (ZVM).
//
// In rewind's data flow it sits under the capture package: capture resolves
// a command's target to a VM and its VPG (VMs, VPG), inserts a tagged
// checkpoint (InsertTaggedCheckpoint), follows the task (Task, WaitTask) and
// watches the journal until the tag is there (Checkpoints). The undo and MCP
// paths use the rest: FailoverTest, Restore, Failover and their commit and
// rollback calls.
//
// A hook run is a short-lived process, so a Client keeps its login in a
// token cache file shared by every process (mode 0600, keyed by ZVM URL and
// identity, under a lock file), reuses it until shortly before it expires,
// and on a 401 refreshes it or logs in again and resends the request once.
// Both ZVM flavours log in: the appliance's Keycloak (password or
// client_credentials grant) and the Windows ZVM's /v1/session/add.
//
// Every method takes a context and returns within its deadline. GETs retry
// transient failures with backoff while the deadline allows; POSTs, which
// change things in Zerto, are never retried blindly. Failures are *Error
// values whose Kind tells a caller what to do — KindNotFound is a lookup
// miss, not a failure — and whose Message is Zerto's own text, verbatim.
//
// Answers are decoded tolerantly: a ZVM writes PascalCase keys where its
// OpenAPI spec shows camelCase, enums as numbers, and timestamps in
// ISO-8601 or as /Date(ms)/.
package zvm
