package zvm

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	t.Parallel()
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	tests := []struct {
		in   string
		want time.Time
		bad  bool
	}{
		{in: "", want: time.Time{}},
		{in: "2025-01-02T03:04:05Z", want: utc(2025, 1, 2, 3, 4, 5, 0)},
		{in: "2025-01-02T03:04:05.1234567Z", want: utc(2025, 1, 2, 3, 4, 5, 123456700)},
		{in: "2025-01-02T03:04:05.123", want: utc(2025, 1, 2, 3, 4, 5, 123e6)},
		{in: "2025-01-02T03:04:05", want: utc(2025, 1, 2, 3, 4, 5, 0)},
		{in: "2025-01-02T05:04:05+02:00", want: utc(2025, 1, 2, 3, 4, 5, 0)},
		{in: "2025-01-02T05:04:05+0200", want: utc(2025, 1, 2, 3, 4, 5, 0)},
		{in: "/Date(1700000000000)/", want: time.UnixMilli(1700000000000)},
		{in: "/Date(1700000000000+0000)/", want: time.UnixMilli(1700000000000)},
		{in: "/Date(1700000000000+0130)/", want: time.UnixMilli(1700000000000)},
		{in: "/Date(1700000000000-0500)/", want: time.UnixMilli(1700000000000)},
		{in: "/Date(-1000)/", want: time.UnixMilli(-1000)},
		{in: "/Date(abc)/", bad: true},
		{in: "/Date(1700000000000", bad: true},
		{in: "/Date(1700000000000+01)/", bad: true},
		{in: "yesterday", bad: true},
	}
	for _, tt := range tests {
		got, err := parseTime(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("parseTime(%q) = %v, want an error", tt.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// TestDecodeAnyCasing decodes the same VPG in the casings seen in the wild
// and the value shapes enums take.
func TestDecodeAnyCasing(t *testing.T) {
	t.Parallel()
	want := VPG{Identifier: "v1", Name: "web", Status: StatusRpoNotMeetingSLA, SubStatus: SubStatusBitmapSync,
		ProtectedSiteType: EntityVCVpg, RecoverySiteType: EntityAWS, VMCount: 2, ActualRPO: 9 * time.Second}
	for _, in := range []string{
		`{"VpgIdentifier":"v1","VpgName":"web","Status":4,"SubStatus":23,"Entities":{"Protected":0,"Recovery":3},"VmsCount":2,"ActualRPO":9}`,
		`{"vpgIdentifier":"v1","vpgName":"web","status":4,"subStatus":23,"entities":{"protected":0,"recovery":3},"vmsCount":2,"actualRPO":9}`,
		`{"VPGIDENTIFIER":"v1","vpgname":"web","STATUS":"4","substatus":"23","ENTITIES":{"PROTECTED":"VCVpg","recovery":"aws"},"VmsCount":2,"actualrpo":9}`,
		`{"VpgIdentifier":"v1","VpgName":"web","Status":"RpoNotMeetingSLA","SubStatus":"BitmapSync","Entities":{"Protected":0,"Recovery":3},"VmsCount":2,"ActualRPO":9,"Extra":{"x":[1]}}`,
	} {
		var w wireVPG
		if err := json.Unmarshal([]byte(in), &w); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := w.vpg(); got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", in, got, want)
		}
	}
	var w wireVPG
	if err := json.Unmarshal([]byte(`{"Status":"Sleeping"}`), &w); err == nil {
		t.Error("unknown status name: no error")
	}
}

func TestDecodeTask(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"TaskIdentifier":"t1","Type":"InsertTaggedCP","Status":{"State":6,"Progress":100},"Started":"/Date(1700000000000)/","Completed":"2023-11-14T22:13:25Z"}`,
		`{"link":{"identifier":"t1"},"type":"InsertTaggedCP","status":{"state":"Completed","progress":100},"started":"2023-11-14T22:13:20Z","completed":"2023-11-14T22:13:25Z"}`,
	} {
		var w wireTask
		if err := json.Unmarshal([]byte(in), &w); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		got := w.task()
		if got.Identifier != "t1" || got.State != TaskCompleted || !got.State.Done() || got.Completed.IsZero() {
			t.Errorf("%s: %+v", in, got)
		}
	}
	var w wireTask
	if err := json.Unmarshal([]byte(`{"TaskIdentifier":"t2","Type":15,"Status":{"State":1}}`), &w); err != nil {
		t.Fatal(err)
	}
	if got := w.task(); got.Type != "15" || got.State != TaskInProgress || got.State.Done() {
		t.Errorf("numeric type: %+v", got)
	}
}

func TestEnumNames(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got, want string
	}{
		{StatusInitializing.String(), "Initializing"},
		{StatusHistoryNotMeetingSLA.String(), "HistoryNotMeetingSLA"},
		{StatusRecovered.String(), "Recovered"},
		{VPGStatus(9).String(), "VPGStatus(9)"},
		{SubStatusVmNotProtectedError.String(), "VmNotProtectedError"},
		{VPGSubStatus(40).String(), "SubStatus(40)"},
		{TaskCompleted.String(), "Completed"},
		{TaskFailed.String(), "Failed"},
		{EntityAzure.String(), "Azure"},
		{KindNotFound.String(), "not found"},
		{Kind(99).String(), "Kind(99)"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
	if TaskCompleted != 6 || TaskFailed != 4 || TaskInProgress != 1 || StatusRecovered != 8 || SubStatusVmNotProtectedError != 32 {
		t.Error("enum values drifted from the API's numbers")
	}
}

// TestInsertRefused: only the states in which Zerto certainly cannot write
// a tag are refused before asking it; in a sync or an error, Zerto's own
// answer to the insert decides.
func TestInsertRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status VPGStatus
		sub    VPGSubStatus
		want   bool // refused
	}{
		{StatusMeetingSLA, SubStatusNone, false},
		{StatusNotMeetingSLA, SubStatusNone, false},
		{StatusRpoNotMeetingSLA, SubStatusRecoveryPossible, false},
		{StatusMeetingSLA, SubStatusBitmapSync, false},
		{StatusInitializing, SubStatusInitialSync, false},
		{StatusNotMeetingSLA, SubStatusDisconnectedFromPeer, false},
		{StatusMeetingSLA, SubStatusReplicationPausedUserInitiated, true},
		{StatusNotMeetingSLA, SubStatusReplicationPausedSystemInitiated, true},
		{StatusFailingOver, SubStatusFailingOverBeforeCommit, true},
		{StatusMoving, SubStatusNone, true},
		{StatusDeleting, SubStatusNone, true},
		{StatusRecovered, SubStatusNone, true},
		{StatusMeetingSLA, SubStatusEmptyProtectionGroup, true},
	}
	for _, tt := range tests {
		refused, reason := VPG{Name: "web", Status: tt.status, SubStatus: tt.sub}.InsertRefused()
		if refused != tt.want || refused != (reason != "") {
			t.Errorf("%v/%v: InsertRefused = %v, %q; want %v", tt.status, tt.sub, refused, reason, tt.want)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct{ body, want string }{
		{`{"Message":"VPG not found"}`, "VPG not found"},
		{`{"message":"lower"}`, "lower"},
		{`{"error":"invalid_grant","error_description":"Invalid user credentials"}`, "Invalid user credentials"},
		{`{"error":"invalid_grant"}`, "invalid_grant"},
		{`"a bare string"`, "a bare string"},
		{`plain text`, "plain text"},
		{`<html>502</html>`, ""},
		{``, ""},
		{`{"Other":1}`, ""},
	}
	for _, tt := range tests {
		if got := errorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("errorMessage(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}
