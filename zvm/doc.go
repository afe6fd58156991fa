// Package zvm is rewind's client for the REST API of a Zerto Virtual
// Manager (ZVM).
//
// Every front end builds its Client with FromConfig, from the [zerto]
// settings (package zvmconf) and the REWIND_ZVM_* environment, secrets
// read from their files; ErrNotConfigured says no ZVM is set up, and Hint
// gives the fix for any of the package's errors.
//
// In rewind's data flow it sits under the capture package: capture resolves
// a command's target to a VM and its VPGs (VMs, VMsByIdentifier, VPG),
// inserts a tagged checkpoint (InsertTaggedCheckpoint), follows the task
// (TaskState) and watches the journal until the tag is there (Checkpoints). The undo and MCP
// paths use the rest: FailoverTest, Restore, Failover and their commit and
// rollback calls.
//
// A hook run is a short-lived process, so a Client keeps its login in a
// token cache file shared by every process (mode 0600, keyed by ZVM URL,
// identity and a hash of the secret, under a lock file), reuses it until
// shortly before it expires,
// and on a 401 refreshes it or logs in again and resends the request once.
// Both ZVM flavours log in: the appliance's Keycloak (password or
// client_credentials grant) and the Windows ZVM's /v1/session/add, whose
// body says who checks the password (AuthenticationMethod). Errors never
// show a secret the client knows, in any encoding (package redact).
//
// The ZVM's clock is not this machine's: a Client measures the offset once
// per login (GET /v1/serverDateTime/serverDateTimeUtc) and keeps it with
// the token. The Date header of an answer is the web server's clock, a
// reverse proxy's perhaps: it sets the offset only on a ZVM without that
// endpoint, and is kept beside (DateOffset) for doctor to compare. Offset
// and Now give the offset to callers, which compare Zerto's timestamps in
// ZVM time only.
//
// Every method takes a context and returns within its deadline. GETs retry
// transient failures with backoff while the deadline allows; POSTs, which
// change things in Zerto, are never retried blindly. Failures are *Error
// values whose Kind tells a caller what to do — KindNotFound is a lookup
// miss, not a failure, while KindNotZerto is a 404 that did not come from
// the ZVM's API (a wrong base URL) — and whose Message is Zerto's own text, verbatim.
//
// Answers are decoded tolerantly: a ZVM writes PascalCase keys where its
// OpenAPI spec shows camelCase, enums as numbers, and timestamps in
// ISO-8601 or as /Date(ms)/.
package zvm
