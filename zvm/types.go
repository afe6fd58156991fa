package zvm

import (
	"strconv"
	"time"
)

// VPGStatus is a VPG's (and its VMs') protection status, the spec's
// VpgVisualStatusApi (0–8).
type VPGStatus int

// The VPG statuses, numbered as in Zerto's REST API documentation.
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

// String returns the status's name in Zerto's API, such as "MeetingSLA".
func (s VPGStatus) String() string { return enumName(statusNames, int(s), "VPGStatus") }

// UnmarshalJSON accepts the status as a number, numeric string or name.
func (s *VPGStatus) UnmarshalJSON(b []byte) error {
	var e wireEnum
	if err := e.decode(b, "status", statusNames); err != nil {
		return err
	}
	*s = VPGStatus(e.n)
	return nil
}

// VPGSubStatus refines a VPGStatus, the spec's VpgVisualSubStatusApi. Values
// this package has no name for print as "SubStatus(N)".
type VPGSubStatus int

// The VPG substatuses, numbered as in Zerto's REST API documentation.
const (
	SubStatusNone VPGSubStatus = iota
	SubStatusInitialSync
	SubStatusCreating
	SubStatusVolumeInitialSync
	SubStatusSync
	SubStatusRecoveryPossible
	SubStatusDeltaSync
	SubStatusNeedsConfiguration
	SubStatusError
	SubStatusEmptyProtectionGroup
	SubStatusDisconnectedFromPeerNoRecoveryPoints
	SubStatusFullSync
	SubStatusVolumeDeltaSync
	SubStatusVolumeFullSync
	SubStatusFailingOverCommitting
	SubStatusFailingOverBeforeCommit
	SubStatusFailingOverRollingBack
	SubStatusPromoting
	SubStatusMovingCommitting
	SubStatusMovingBeforeCommit
	SubStatusMovingRollingBack
	SubStatusDeleting
	SubStatusPendingRemove
	SubStatusBitmapSync
	SubStatusDisconnectedFromPeer
	SubStatusReplicationPausedUserInitiated
	SubStatusReplicationPausedSystemInitiated
	SubStatusRecoveryStorageProfileError
	SubStatusBackup
	SubStatusRollingBack
	SubStatusRecoveryStorageError
	SubStatusJournalStorageError
	SubStatusVmNotProtectedError
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

// String returns the substatus's name in Zerto's API, such as "BitmapSync".
func (s VPGSubStatus) String() string { return enumName(subStatusNames, int(s), "SubStatus") }

// UnmarshalJSON accepts the substatus as a number, numeric string or name.
func (s *VPGSubStatus) UnmarshalJSON(b []byte) error {
	var e wireEnum
	if err := e.decode(b, "substatus", subStatusNames); err != nil {
		return err
	}
	*s = VPGSubStatus(e.n)
	return nil
}

// EntityType is the kind of platform on one side of a VPG, the spec's
// VpgEntityTypeApi.
type EntityType int

// The entity types.
const (
	EntityVCVpg EntityType = iota
	EntityVCvApp
	EntityVCDvApp
	EntityAWS
	EntityHyperV
	EntityAzure
)

var entityNames = []string{"VCVpg", "VCvApp", "VCDvApp", "AWS", "HyperV", "Azure"}

// String returns the entity type's name, such as "AWS".
func (t EntityType) String() string { return enumName(entityNames, int(t), "EntityType") }

// UnmarshalJSON accepts the type as a number, numeric string or name.
func (t *EntityType) UnmarshalJSON(b []byte) error {
	var e wireEnum
	if err := e.decode(b, "entity type", entityNames); err != nil {
		return err
	}
	*t = EntityType(e.n)
	return nil
}

// TaskState is the state of a Zerto task, the spec's TaskStatusEnumApi.
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

var taskStateNames = []string{
	"FirstUnusedValue", "InProgress", "WaitingForUserInput", "Paused",
	"Failed", "Stopped", "Completed", "Cancelling",
}

// String returns the state's name, such as "Completed".
func (s TaskState) String() string { return enumName(taskStateNames, int(s), "TaskState") }

// UnmarshalJSON accepts the state as a number, numeric string or name.
func (s *TaskState) UnmarshalJSON(b []byte) error {
	var e wireEnum
	if err := e.decode(b, "task state", taskStateNames); err != nil {
		return err
	}
	*s = TaskState(e.n)
	return nil
}

// Done reports whether the task has ended: completed, failed or stopped.
func (s TaskState) Done() bool {
	return s == TaskCompleted || s == TaskFailed || s == TaskStopped
}

func enumName(names []string, v int, typ string) string {
	if v >= 0 && v < len(names) {
		return names[v]
	}
	return typ + "(" + strconv.Itoa(v) + ")"
}

// VM is a virtual machine that Zerto protects, as GET /v1/vms returns it.
// A VM protected by several VPGs appears once per VPG.
type VM struct {
	Identifier      string // VmIdentifier, such as "<site guid>.vm-38"
	Name            string // VmName
	VPGIdentifier   string
	VPGName         string
	Status          VPGStatus
	SubStatus       VPGSubStatus
	ProtectedSite   string // ProtectedSiteName
	RecoverySite    string // RecoverySiteName
	ActualRPO       time.Duration
	ProtectedSiteID string // the protected site's identifier
}

type wireVM struct {
	VmIdentifier      wireID
	VmName            string
	VpgIdentifier     wireID
	VpgName           string
	Status            VPGStatus
	SubStatus         VPGSubStatus
	ProtectedSiteName string
	RecoverySiteName  string
	ActualRPO         int
	ProtectedSite     wireID
}

func (w wireVM) vm() VM {
	return VM{
		Identifier:      string(w.VmIdentifier),
		Name:            w.VmName,
		VPGIdentifier:   string(w.VpgIdentifier),
		VPGName:         w.VpgName,
		Status:          w.Status,
		SubStatus:       w.SubStatus,
		ProtectedSite:   w.ProtectedSiteName,
		RecoverySite:    w.RecoverySiteName,
		ActualRPO:       time.Duration(w.ActualRPO) * time.Second,
		ProtectedSiteID: string(w.ProtectedSite),
	}
}

// VPG is a virtual protection group: the unit Zerto writes checkpoints for.
type VPG struct {
	Identifier        string // VpgIdentifier
	Name              string // VpgName
	Status            VPGStatus
	SubStatus         VPGSubStatus
	ProtectedSiteType EntityType // Entities.Protected
	RecoverySiteType  EntityType // Entities.Recovery
	ProtectedSite     string     // ProtectedSiteName
	RecoverySite      string     // RecoverySiteName
	VMCount           int
	ActualRPO         time.Duration
	ConfiguredRPO     time.Duration
	// TestRunning says a failover test of the VPG is running
	// (ActiveProcessesApi.RunningFailOverTestApi).
	TestRunning bool
	// JournalHistory is how long the journal is configured to keep
	// checkpoints (HistoryStatusApi.ConfiguredHistoryInMinutes); zero when
	// Zerto does not say.
	JournalHistory time.Duration
}

type wireVPG struct {
	VpgIdentifier        wireID
	VpgName              string
	Status               VPGStatus
	SubStatus            VPGSubStatus
	Entities             struct{ Protected, Recovery EntityType }
	ProtectedSiteName    string
	RecoverySiteName     string
	VmsCount             int
	ActualRPO            int
	ConfiguredRpoSeconds int
	ActiveProcessesApi   struct {
		RunningFailOverTestApi *struct{ Stage string }
	}
	HistoryStatusApi struct{ ConfiguredHistoryInMinutes int }
}

func (w wireVPG) vpg() VPG {
	return VPG{
		Identifier:        string(w.VpgIdentifier),
		Name:              w.VpgName,
		Status:            w.Status,
		SubStatus:         w.SubStatus,
		ProtectedSiteType: w.Entities.Protected,
		RecoverySiteType:  w.Entities.Recovery,
		ProtectedSite:     w.ProtectedSiteName,
		RecoverySite:      w.RecoverySiteName,
		VMCount:           w.VmsCount,
		ActualRPO:         time.Duration(w.ActualRPO) * time.Second,
		ConfiguredRPO:     time.Duration(w.ConfiguredRpoSeconds) * time.Second,
		TestRunning:       w.ActiveProcessesApi.RunningFailOverTestApi != nil,
		JournalHistory:    time.Duration(w.HistoryStatusApi.ConfiguredHistoryInMinutes) * time.Minute,
	}
}

// Checkpoint is a point in a VPG's journal that Zerto can recover to.
type Checkpoint struct {
	Identifier string    // CheckpointIdentifier
	Time       time.Time // TimeStamp
	Tag        string    // empty for Zerto's automatic checkpoints
	Type       int       // the spec's CheckpointTypeApi (0–2)
}

type wireCheckpoint struct {
	CheckpointIdentifier wireID
	TimeStamp            wireTime
	Tag                  string
	Type                 wireEnumInt
}

func (w wireCheckpoint) checkpoint() Checkpoint {
	return Checkpoint{
		Identifier: string(w.CheckpointIdentifier),
		Time:       w.TimeStamp.Time,
		Tag:        w.Tag,
		Type:       int(w.Type),
	}
}

// wireEnumInt is an enum this package has no names for.
type wireEnumInt int

func (w *wireEnumInt) UnmarshalJSON(b []byte) error {
	var e wireEnum
	if err := e.decode(b, "enum", nil); err != nil {
		return err
	}
	*w = wireEnumInt(e.n)
	return nil
}

// CheckpointStats gives a VPG's earliest and latest checkpoints; a field is
// zero when the journal is empty.
type CheckpointStats struct {
	Earliest, Latest Checkpoint
}

// Task is a Zerto task: an insert of a tagged checkpoint, a failover test...
type Task struct {
	Identifier     string // TaskIdentifier
	Type           string // such as "InsertTaggedCP"
	State          TaskState
	Progress       int
	CompleteReason string // Zerto's text, redacted as error messages are; set when a task fails
	Started        time.Time
	Completed      time.Time // zero while the task runs
	// InitiatedBy is who started the task, as Zerto names them.
	InitiatedBy string
	// VPGs are the identifiers of the VPGs the task is about
	// (RelatedEntities.Vpgs).
	VPGs []string
}

type wireTask struct {
	TaskIdentifier wireID
	Link           wireID
	Type           wireString
	Status         struct {
		State    TaskState
		Progress int
	}
	CompleteReason  string
	Started         wireTime
	Completed       wireTime
	InitiatedBy     wireString
	RelatedEntities struct{ Vpgs []wireID }
}

func (w wireTask) task() Task {
	id := string(w.TaskIdentifier)
	if id == "" {
		id = string(w.Link)
	}
	return Task{
		Identifier: id,
		Type:       string(w.Type),
		State:      w.Status.State,
		Progress:   w.Status.Progress,
		// A failed task's reason reaches a person, a model and the audit
		// log like any other message from the ZVM, so it is bounded and
		// redacted the same way.
		CompleteReason: w.CompleteReason,
		Started:        w.Started.Time,
		Completed:      w.Completed.Time,
		InitiatedBy:    string(w.InitiatedBy),
		VPGs:           vpgIDs(w.RelatedEntities.Vpgs),
	}
}

func vpgIDs(ws []wireID) []string {
	var ids []string
	for _, w := range ws {
		if w != "" {
			ids = append(ids, string(w))
		}
	}
	return ids
}

// Site is the ZVM's own site, as GET /v1/localsite returns it.
type Site struct {
	Identifier string // SiteIdentifier
	Name       string // SiteName
	Location   string
	Version    string
	SiteType   string
	IPAddress  string
}

type wireSite struct {
	SiteIdentifier wireID
	Link           wireID
	SiteName       string
	Location       string
	Version        string
	SiteType       string
	IpAddress      string
}

func (w wireSite) site() Site {
	id := string(w.SiteIdentifier)
	if id == "" {
		id = string(w.Link)
	}
	return Site{
		Identifier: id,
		Name:       w.SiteName,
		Location:   w.Location,
		Version:    w.Version,
		SiteType:   w.SiteType,
		IPAddress:  w.IpAddress,
	}
}
