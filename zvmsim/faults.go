package zvmsim

import (
	"errors"
	"time"
)

// Faults are the failures a Server injects into the requests it serves. The
// zero value injects none. A scenario's [faults] table sets them at start;
// Server.SetFaults changes them while serving.
type Faults struct {
	// Latency delays every answer.
	Latency Duration `toml:"latency"`
	// Hang makes every request wait without an answer until the client gives
	// up or the server closes, like an appliance whose API service is stuck.
	Hang bool `toml:"hang"`
	// ServerErrorRate is the fraction of requests answered 500
	// {"Message":"An error has occurred."}, from 0 to 1. The errors are spread
	// evenly and deterministically: 0.5 fails every second request.
	ServerErrorRate float64 `toml:"server_error_rate"`
	// MalformedJSON truncates every successful JSON answer.
	MalformedJSON bool `toml:"malformed_json"`
	// Unauthorized401AfterN, when positive, revokes every token and session
	// after each N authorized /v1 requests, so the next request with an old
	// token is answered 401 and a client must authenticate again.
	Unauthorized401AfterN int `toml:"unauthorized_after"`
}

func (f Faults) validate() error {
	if f.ServerErrorRate < 0 || f.ServerErrorRate > 1 {
		return errors.New("faults: server_error_rate must be between 0 and 1")
	}
	if f.Unauthorized401AfterN < 0 {
		return errors.New("faults: unauthorized_after must not be negative")
	}
	return nil
}

// SetFaults replaces the faults in force. It resets the counters behind
// ServerErrorRate and Unauthorized401AfterN. It panics on invalid faults, a
// programming error in the test that sets them.
func (s *Server) SetFaults(f Faults) {
	if err := f.validate(); err != nil {
		panic("zvmsim: " + err.Error())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
	s.errAcc = 0
	s.authorizedCalls = 0
}

// Faults returns the faults in force.
func (s *Server) Faults() Faults {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.faults
}

// ExpireTokens revokes every access token, refresh token and session issued
// so far, as if they had all expired: requests with them are answered 401.
func (s *Server) ExpireTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revokeLocked(true)
}

// SetTokenTTL changes the lifetime of access tokens and sessions issued from
// now on.
func (s *Server) SetTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokenTTL = d
}

// SetVPGStatus sets a VPG's Status and SubStatus, e.g. StatusNotMeetingSLA and
// SubStatusReplicationPausedUserInitiated to pause it. A VPG that cannot
// write checkpoints fails the inserts still waiting for its next checkpoint.
func (s *Server) SetVPGStatus(vpgName string, status VPGStatus, sub VPGSubStatus) error {
	if status < StatusInitializing || status > StatusRecovered {
		return errors.New("zvmsim: VPG status outside 0-8")
	}
	return s.changeVPG(vpgName, func(v *vpgState) {
		v.status, v.sub = status, sub
		s.failPendingLocked(v)
	})
}

// FailInserts makes tagged inserts into a VPG fail: the POST still answers a
// task id, and the task fails at once with reason as its CompleteReason. An
// empty reason lets inserts succeed again.
func (s *Server) FailInserts(vpgName, reason string) error {
	return s.changeVPG(vpgName, func(v *vpgState) { v.insertFailure = reason })
}

// RejectInserts makes the POST of tagged inserts into a VPG answer 400 with
// reason as its Message. An empty reason lets inserts through again.
func (s *Server) RejectInserts(vpgName, reason string) error {
	return s.changeVPG(vpgName, func(v *vpgState) { v.insertRejection = reason })
}

// changeVPG applies change to the VPG named vpgName under the server's lock.
func (s *Server) changeVPG(vpgName string, change func(v *vpgState)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.vpgByName(vpgName)
	if v == nil {
		return errUnknownVPG(vpgName)
	}
	change(v)
	return nil
}

func errUnknownVPG(name string) error { return errors.New("zvmsim: no VPG named " + name) }
