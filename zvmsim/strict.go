package zvmsim

import (
	"fmt"
	"net/http"
	"time"
)

// Strict switches on behaviours of real ZVMs that are correct but
// unfriendly to a client, one by one. The zero value is the friendly
// simulator; a scenario's [strict] table sets them at start and
// Server.SetStrict changes them while serving.
//
// Two more strict behaviours need no switch, since a scenario declares
// them: a VM listed in several VPGs of one protected site is one VM in
// each (GET /v1/vms lists it once per VPG, and GET /v1/vms/{id} without
// vpgIdentifier answers 400), and a VPG's insert_tick_failure fails
// inserts at the journal tick instead of at once.
type Strict struct {
	// ClockOffset sets the ZVM's clock this far ahead of the host's
	// (negative: behind). Every timestamp the simulator writes, the Date
	// header and /v1/serverDateTime follow it.
	ClockOffset SignedDuration `toml:"clock_offset"`
	// NoClientCredentialsRefresh issues no refresh token for the
	// client_credentials grant, as Keycloak does by default.
	NoClientCredentialsRefresh bool `toml:"no_client_credentials_refresh"`
	// UnknownIdentifier400 answers 400, not 404, for a well-formed VM, VPG
	// or task identifier that names nothing.
	UnknownIdentifier400 bool `toml:"unknown_identifier_400"`
	// RequireJSONContentType refuses a request body that is not sent as
	// application/json with 415.
	RequireJSONContentType bool `toml:"require_json_content_type"`
	// TagsAtOnce writes a tagged checkpoint when its insert is accepted,
	// completing its task, instead of at the VPG's next journal tick.
	TagsAtOnce bool `toml:"tags_at_once"`
	// CompletedTask401 answers GET /v1/tasks/{id} of a completed task with
	// 401, as some ZVMs do.
	CompletedTask401 bool `toml:"completed_task_401"`
	// RestoreCompletesBeforeCommit completes a journal VM restore's task
	// once the restored VM is up, while the VM still waits for
	// RestoreCommit or RestoreRollback, instead of leaving the task
	// WaitingForUserInput. Which of the two a ZVM 10.x does is not public.
	RestoreCompletesBeforeCommit bool `toml:"restore_completes_before_commit"`
}

// SignedDuration is a time.Duration written as a Go duration string that
// may be negative ("-2m").
type SignedDuration time.Duration

// UnmarshalText parses a Go duration string.
func (d *SignedDuration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = SignedDuration(v)
	return nil
}

// MarshalText formats the duration as a Go duration string.
func (d SignedDuration) MarshalText() ([]byte, error) {
	return []byte(time.Duration(d).String()), nil
}

// maxClockOffset bounds the clock offset: a ZVM a day off is misconfigured
// beyond what any client should be tested against.
const maxClockOffset = 24 * time.Hour

func (st Strict) validate() error {
	if off := time.Duration(st.ClockOffset); off > maxClockOffset || off < -maxClockOffset {
		return fmt.Errorf("strict: clock_offset %s is more than %s", off, maxClockOffset)
	}
	return nil
}

// SetStrict replaces the strict behaviours in force. It panics on an
// invalid Strict, a programming error in the test that sets it.
func (s *Server) SetStrict(st Strict) {
	if err := st.validate(); err != nil {
		panic("zvmsim: " + err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strict = st
	s.clockOffset.Store(int64(st.ClockOffset))
}

// Strict returns the strict behaviours in force.
func (s *Server) Strict() Strict {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.strict
}

// serverTimeUTC serves GET /v1/serverDateTime/serverDateTimeUtc: the ZVM's
// clock, as a JSON string.
func (c *call) serverTimeUTC() {
	c.locked(func() (int, any) {
		return http.StatusOK, c.s.now().Format(timeFormat)
	})
}

// Habits names the strict behaviours switched on, in words, for a summary;
// none for the friendly simulator.
func (st Strict) Habits() []string {
	var h []string
	if off := time.Duration(st.ClockOffset); off != 0 {
		h = append(h, "clock "+off.String()+" off the host's")
	}
	for _, b := range []struct {
		on   bool
		name string
	}{
		{st.NoClientCredentialsRefresh, "no refresh token for client_credentials"},
		{st.UnknownIdentifier400, "400 for unknown identifiers"},
		{st.RequireJSONContentType, "415 for JSON bodies without their content type"},
		{st.TagsAtOnce, "tags written at once"},
		{st.CompletedTask401, "401 for completed tasks"},
		{st.RestoreCompletesBeforeCommit, "restore tasks complete before their commit"},
	} {
		if b.on {
			h = append(h, b.name)
		}
	}
	return h
}
