// Package zvmsim simulates a Zerto Virtual Manager (ZVM) 10.x REST API.
//
// It is where rewind's Zerto traffic goes when no appliance is at hand: the
// `rewind sim` command serves it (as will `rewind demo`), and tests of the zvm
// client and of the capture orchestration run against NewTestServer. It is a
// product feature rather than a mock, so it speaks the wire format a real ZVM
// speaks: PascalCase keys although the OpenAPI document writes camelCase,
// request bodies in any key casing, {"Message": "..."} errors under /v1 and
// Keycloak's {error, error_description} on the token endpoint. The contract
// test checks every route in the routing table against the ZVM 10.0 U6 OpenAPI
// document.
//
// A Scenario (TOML) declares sites, VPGs with their VMs, health and journal
// cadence, credentials and faults. Each VPG has a journal writer that adds a
// checkpoint at every cadence tick, the way Zerto's VRAs do, so a tagged
// checkpoint insert only lands, and its task only completes, at the VPG's
// next tick. Rewinding (failover test, journal VM restore, live failover)
// changes what the API reports, so an undo path can be tested end to end. A
// failover test's and a journal restore's task take a few reads of the task
// to end (SetTaskSteps), so a client that follows them sees them progress; a
// restore then waits for RestoreCommit or RestoreRollback. Operations that
// exclude each other (a second test, a restore during a test, a test during
// a restore, a second restore of one VM from another VPG) are refused as a
// ZVM refuses them; SetJournalHistory ages checkpoints out of a journal,
// Resync empties one, and StartTest runs a drill as a named person.
//
// Real ZVMs have habits a friendly simulator hides; the scenario's [strict]
// table (Strict, or Server.SetStrict) switches them on one by one: a clock
// that is not the host's, no refresh token for client_credentials, 400 for
// unknown identifiers, 415 for a JSON body without its content type, tags
// written the moment they are accepted, 401 for a completed task, a
// restore whose task completes before its commit. A VM
// listed in several VPGs, and inserts that fail at the journal tick
// (insert_tick_failure), are declared in the scenario itself.
//
// Fault injection (latency, hanging requests, 5xx answers, malformed JSON,
// revoked tokens, failing or rejected inserts, unhealthy VPGs) can be set in
// the scenario or changed while serving, and every request is logged so tests
// can count tokens obtained and inserts made.
package zvmsim
