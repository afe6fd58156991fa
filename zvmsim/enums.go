package zvmsim

import (
	"fmt"
	"strconv"
	"strings"
)

// VPGStatus is a VPG's Status as the API reports it (the spec's
// VpgVisualStatusApi, 0–8). Scenario files name it, e.g. "MeetingSLA".
type VPGStatus int

// The VPG status values, with the names Zerto's own clients give them.
const (
	StatusInitializing VPGStatus = iota
	StatusMeetingSLA
	StatusNotMeetingSLA
	StatusHistoryNotMeetingSLA
	StatusRpoNotMeetingSLA
	StatusFailingOver
	StatusMoving
	StatusDeleting
	StatusRecovered
)

var statusNames = []string{
	"Initializing", "MeetingSLA", "NotMeetingSLA", "HistoryNotMeetingSLA",
	"RpoNotMeetingSLA", "FailingOver", "Moving", "Deleting", "Recovered",
}

// String returns the status's name, or its number if it has none.
func (s VPGStatus) String() string { return enumName(statusNames, int(s)) }

// UnmarshalText accepts a status name (any casing) or its number.
func (s *VPGStatus) UnmarshalText(b []byte) error {
	v, err := parseEnum("VPG status", statusNames, string(b))
	*s = VPGStatus(v)
	return err
}

// MarshalText returns the status's name.
func (s VPGStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// VPGSubStatus is a VPG's SubStatus (the spec's VpgVisualSubStatusApi).
type VPGSubStatus int

// The sub-statuses the simulator sets itself; scenario files may name any
// value in subStatusNames.
const (
	SubStatusNone                             VPGSubStatus = 0
	SubStatusInitialSync                      VPGSubStatus = 1
	SubStatusFailingOverBeforeCommit          VPGSubStatus = 15
	SubStatusReplicationPausedUserInitiated   VPGSubStatus = 25
	SubStatusReplicationPausedSystemInitiated VPGSubStatus = 26
)

var subStatusNames = []string{
	"None", "InitialSync", "Creating", "VolumeInitialSync", "Sync",
	"RecoveryPossible", "DeltaSync", "NeedsConfiguration", "Error",
	"EmptyProtectionGroup", "DisconnectedFromPeerNoRecoveryPoints", "FullSync",
	"VolumeDeltaSync", "VolumeFullSync", "FailingOverCommitting",
	"FailingOverBeforeCommit", "FailingOverRollingBack", "Promoting",
	"MovingCommitting", "MovingBeforeCommit", "MovingRollingBack", "Deleting",
	"PendingRemove", "BitmapSync", "DisconnectedFromPeer",
	"ReplicationPausedUserInitiated", "ReplicationPausedSystemInitiated",
	"RecoveryStorageProfileError", "Backup", "RollingBack",
	"RecoveryStorageError", "JournalStorageError", "VmNotProtectedError",
}

// String returns the sub-status's name, or its number if it has none.
func (s VPGSubStatus) String() string { return enumName(subStatusNames, int(s)) }

// UnmarshalText accepts a sub-status name (any casing) or its number.
func (s *VPGSubStatus) UnmarshalText(b []byte) error {
	v, err := parseEnum("VPG sub-status", subStatusNames, string(b))
	if err == nil && v > 42 {
		// The spec's enum ends at 42; names past 32 are not public.
		err = fmt.Errorf("VPG sub-status %d is outside the spec's range 0-42", v)
	}
	*s = VPGSubStatus(v)
	return err
}

// MarshalText returns the sub-status's name.
func (s VPGSubStatus) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// paused reports whether replication is paused, so the journal writes
// nothing and tagged inserts are refused.
func (s VPGSubStatus) paused() bool {
	return s == SubStatusReplicationPausedUserInitiated || s == SubStatusReplicationPausedSystemInitiated
}

// TaskState is a task's Status.State (the spec's TaskStatusEnumApi).
type TaskState int

// The task states.
const (
	TaskFirstUnusedValue TaskState = iota
	TaskInProgress
	TaskWaitingForUserInput
	TaskPaused
	TaskFailed
	TaskStopped
	TaskCompleted
	TaskCancelling
)

// SiteType is the platform of a site: one of "vSphere", "AWS", "Azure" and
// "Hyper-V".
type SiteType string

// The site types a scenario can declare.
const (
	SiteVSphere SiteType = "vSphere"
	SiteAWS     SiteType = "AWS"
	SiteAzure   SiteType = "Azure"
	SiteHyperV  SiteType = "Hyper-V"
)

var siteTypes = []SiteType{SiteVSphere, SiteAWS, SiteAzure, SiteHyperV}

// UnmarshalText accepts a site type in any casing.
func (t *SiteType) UnmarshalText(b []byte) error {
	for _, st := range siteTypes {
		if strings.EqualFold(string(st), string(b)) {
			*t = st
			return nil
		}
	}
	return fmt.Errorf("unknown site type %q (want vSphere, AWS, Azure or Hyper-V)", b)
}

// entityType maps a site type to the spec's VpgEntityTypeApi: 0 VCVpg,
// 3 public cloud (Zerto reports AWS and Azure alike), 4 Hyper-V.
func (t SiteType) entityType() int {
	switch t {
	case SiteAWS, SiteAzure:
		return 3
	case SiteHyperV:
		return 4
	}
	return 0
}

// localSiteType is what GET /v1/localsite reports in SiteType.
func (t SiteType) localSiteType() string {
	switch t {
	case SiteAWS:
		return "Aws"
	case SiteAzure:
		return "Azure"
	case SiteHyperV:
		return "HyperV"
	}
	return "VCenter"
}

// vmRef returns the platform-specific part of the nth VM identifier of a
// site of this type: vSphere managed object ids, EC2 instance ids, and so on.
func (t SiteType) vmRef(n int) string {
	switch t {
	case SiteAWS:
		return fmt.Sprintf("i-%017x", 0x0a1b2c3d000+n)
	case SiteAzure:
		return fmt.Sprintf("vm-%08x", 0xa2000+n)
	case SiteHyperV:
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", 0x4e000+n, n)
	}
	return fmt.Sprintf("vm-%d", n)
}

func enumName(names []string, v int) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return strconv.Itoa(v)
}

func parseEnum(what string, names []string, s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%s %d is negative", what, n)
		}
		return n, nil
	}
	for i, name := range names {
		if strings.EqualFold(name, s) {
			return i, nil
		}
	}
	return 0, fmt.Errorf("unknown %s %q", what, s)
}
