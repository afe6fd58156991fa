package zvmsim

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// timeFormat is how ZVMs write times: UTC, milliseconds, a Z.
const timeFormat = "2006-01-02T15:04:05.000Z"

// zTime is a time on the wire.
type zTime time.Time

func (t zTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(timeFormat) + `"`), nil
}

func ztime(t time.Time) *zTime {
	if t.IsZero() {
		return nil
	}
	z := zTime(t)
	return &z
}

// parseTime reads a date-time query parameter as ZVMs accept it: ISO 8601,
// UTC unless it says otherwise.
func parseTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a valid date and time", s)
}

// link is the spec's ResourceLink; ZVMs write its keys in lower case.
type link struct {
	Href       string  `json:"href"`
	Identifier string  `json:"identifier"`
	Rel        *string `json:"rel"`
	Type       string  `json:"type"`
}

func newLink(r *http.Request, typ, path, id string) link {
	return link{Href: baseURL(r) + path, Identifier: id, Type: typ}
}

// siteLink links to the local site or to a peer site.
func (s *Server) siteLink(r *http.Request, site *Site) link {
	if site == s.local {
		return newLink(r, "LocalSiteApi", "/v1/localsite", site.ID)
	}
	return newLink(r, "PeerSiteApi", "/v1/peersites/"+site.ID, site.ID)
}

type entitiesJSON struct {
	Protected int
	Recovery  int
}

type checkpointJSON struct {
	CheckpointIdentifier string
	TimeStamp            zTime
	Tag                  *string
	Type                 int
}

func checkpointWire(cp Checkpoint) checkpointJSON {
	j := checkpointJSON{CheckpointIdentifier: cp.ID, TimeStamp: zTime(cp.Time)}
	if cp.Tag != "" {
		tag := cp.Tag
		j.Tag = &tag
	}
	return j
}

type vpgJSON struct {
	VpgIdentifier          string
	VpgName                string
	VpgDescription         *string
	VpgType                string
	Status                 int
	StatusDescription      string
	SubStatus              int
	SubStatusDescription   string
	Entities               entitiesJSON
	ProtectedSite          link
	ProtectedSiteName      string
	RecoverySite           link
	RecoverySiteName       string
	ActualRPO              int
	ConfiguredRpoSeconds   int
	VmsCount               int
	Priority               int
	ProgressPercentage     float64
	ProvisionedStorageInMB int64
	UsedStorageInMB        int64
	IoPs                   int
	ThroughputInMB         float64
	LastTest               *zTime
	BackupEnabled          bool
	AlertStatus            int
	Link                   link
	Zorg                   *link
	ServiceProfile         *link
	ActiveProcessesApi     activeProcessesJSON
	HistoryStatusApi       historyStatusJSON
	FailSafeHistory        failSafeJSON
}

type activeProcessesJSON struct {
	RunningFailOverTestApi *struct{ Stage string }
}

type historyStatusJSON struct {
	ActualHistoryInMinutes     int
	ConfiguredHistoryInMinutes int
	EarliestCheckpoint         *checkpointJSON
}

type failSafeJSON struct {
	ActualFailSafeHistory     int
	ConfiguredFailSafeHistory int
	FailSafeDescription       *string
}

func (s *Server) vpgWireLocked(r *http.Request, v *vpgState) vpgJSON {
	now := time.Now()
	j := vpgJSON{
		VpgIdentifier:          v.cfg.ID,
		VpgName:                v.cfg.Name,
		VpgType:                "Regular",
		Status:                 int(v.status),
		StatusDescription:      v.status.String(),
		SubStatus:              int(v.sub),
		SubStatusDescription:   v.sub.String(),
		Entities:               entitiesJSON{Protected: v.protected.Type.entityType(), Recovery: v.recovery.Type.entityType()},
		ProtectedSite:          s.siteLink(r, v.protected),
		ProtectedSiteName:      v.protected.Name,
		RecoverySite:           s.siteLink(r, v.recovery),
		RecoverySiteName:       v.recovery.Name,
		ConfiguredRpoSeconds:   int(time.Duration(v.cfg.RPO) / time.Second),
		Priority:               1,
		ProgressPercentage:     100,
		ProvisionedStorageInMB: int64(40960 * len(v.cfg.VMs)),
		UsedStorageInMB:        int64(18432 * len(v.cfg.VMs)),
		LastTest:               ztime(v.lastTest),
		Link:                   newLink(r, "VpgApi", "/v1/vpgs/"+v.cfg.ID, v.cfg.ID),
		HistoryStatusApi:       historyStatusJSON{ConfiguredHistoryInMinutes: int(v.retention() / time.Minute)},
	}
	for _, vm := range s.vms {
		if vm.vpg == v && vm.testOf == nil {
			j.VmsCount++
		}
	}
	if cp, ok := v.latest(now); ok {
		j.ActualRPO = int(now.Sub(cp.Time) / time.Second)
		earliest, _ := v.earliest(now)
		first := checkpointWire(earliest)
		j.HistoryStatusApi.EarliestCheckpoint = &first
		j.HistoryStatusApi.ActualHistoryInMinutes = int(now.Sub(earliest.Time) / time.Minute)
	}
	if v.test != nil {
		j.ActiveProcessesApi.RunningFailOverTestApi = &struct{ Stage string }{"Running"}
	}
	return j
}

type vmJSON struct {
	VmIdentifier      string
	VmName            string
	VpgIdentifier     string
	VpgName           string
	Status            int
	SubStatus         int
	Entities          entitiesJSON
	ProtectedSite     link
	ProtectedSiteName string
	RecoverySite      link
	RecoverySiteName  string
	ActualRPO         int
	Priority          int
	// Simulator extensions, absent from the spec: the checkpoint a test VM
	// was recovered from or a VM was restored or failed over to, and how.
	RecoveryCheckpoint     *checkpointJSON `json:",omitempty"`
	RecoveryOperation      string          `json:",omitempty"`
	ProvisionedStorageInMB int
	UsedStorageInMB        int
	CpuCoresNum            int
	MemorySizeInMB         int
	IsVmExists             bool
	LastTest               *zTime
	OrganizationName       *string
	GuestOs                string
	HardwareVersion        string
	IsAgentInstalled       bool
	Link                   vmLink
}

// vmLink is the spec's VmResourceLink.
type vmLink struct {
	link
	VpgIdentifier string `json:"vpg_identifier"`
}

func (s *Server) vmWireLocked(r *http.Request, vm *vmState) vmJSON {
	v := vm.vpg
	vpg := s.vpgWireLocked(r, v)
	j := vmJSON{
		VmIdentifier:           vm.id,
		VmName:                 vm.name,
		VpgIdentifier:          v.cfg.ID,
		VpgName:                v.cfg.Name,
		Status:                 vpg.Status,
		SubStatus:              vpg.SubStatus,
		Entities:               vpg.Entities,
		ProtectedSite:          vpg.ProtectedSite,
		ProtectedSiteName:      vpg.ProtectedSiteName,
		RecoverySite:           vpg.RecoverySite,
		RecoverySiteName:       vpg.RecoverySiteName,
		ActualRPO:              vpg.ActualRPO,
		Priority:               vpg.Priority,
		ProvisionedStorageInMB: 40960,
		UsedStorageInMB:        18432,
		CpuCoresNum:            2,
		MemorySizeInMB:         4096,
		IsVmExists:             true,
		LastTest:               vpg.LastTest,
		GuestOs:                guestOS(vm.name),
		HardwareVersion:        "vmx-19",
		Link: vmLink{
			link:          newLink(r, "VmApi", "/v1/vms/"+vm.id, vm.id),
			VpgIdentifier: v.cfg.ID,
		},
	}
	if vm.recovered != nil {
		cp := checkpointWire(*vm.recovered)
		j.RecoveryCheckpoint = &cp
		j.RecoveryOperation = vm.operation
	}
	return j
}

func guestOS(name string) string {
	if strings.Contains(strings.ToLower(name), "win") {
		return "Microsoft Windows Server 2019 (64-bit)"
	}
	return "Ubuntu Linux (64-bit)"
}

type taskJSON struct {
	TaskIdentifier  string
	Type            string
	Status          taskStatusJSON
	InitiatedBy     string
	Started         zTime
	Completed       *zTime
	CompleteReason  *string
	IsCancellable   bool
	RelatedEntities relatedJSON
	Generation      int64
	Link            link
}

type taskStatusJSON struct {
	State    int
	Progress int
}

type relatedJSON struct {
	Vpgs        []link
	Sites       []link
	Hosts       []link
	FlrSessions []link
}

func (s *Server) taskWire(r *http.Request, t *task) taskJSON {
	j := taskJSON{
		TaskIdentifier:  t.id,
		Type:            t.typ,
		Status:          taskStatusJSON{State: int(t.state), Progress: t.progress},
		InitiatedBy:     t.initiatedBy,
		Started:         zTime(t.started),
		Completed:       ztime(t.completed),
		RelatedEntities: relatedJSON{Vpgs: []link{}, Sites: []link{newLink(r, "LocalSiteApi", "/v1/localsite", s.local.ID)}, Hosts: []link{}, FlrSessions: []link{}},
		Link:            newLink(r, "TaskApi", "/v1/tasks/"+t.id, t.id),
	}
	if t.reason != "" {
		reason := t.reason
		j.CompleteReason = &reason
	}
	if t.vpg != nil {
		j.RelatedEntities.Vpgs = []link{newLink(r, "VpgApi", "/v1/vpgs/"+t.vpg.cfg.ID, t.vpg.cfg.ID)}
	}
	return j
}
