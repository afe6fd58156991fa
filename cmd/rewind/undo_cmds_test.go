package main

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/zvmsim"
	"github.com/rogpeppe/go-internal/testscript"
)

// sims holds the simulator each script started with `sim`, for simctl.
var sims sync.Map // *testscript.TestScript -> *simHandle

type simHandle struct {
	s    *zvmsim.Server
	mark int // the request log's length at `simctl mark`
}

func simOf(ts *testscript.TestScript) *simHandle {
	h, ok := sims.Load(ts)
	if !ok {
		ts.Fatalf("simctl: no simulator: run sim first")
	}
	return h.(*simHandle)
}

// cmdSimctl drives and inspects the script's simulator:
//
//	simctl mark                       remember where the request log is
//	simctl requests                   print the requests since the mark, one a line
//	simctl steps N                    reads of a test's or restore's task before it ends
//	simctl history VPG DURATION       set the VPG's journal history and tick, ageing checkpoints out
//	simctl status VPG STATUS SUB      set the VPG's status and substatus, by name
//	simctl othertest VPG USER         USER starts a failover test of VPG, as a drill in Zerto's console
//	simctl resync VPG                 a re-sync empties the VPG's journal
//	[!] simctl test VPG [CP]          a failover test of VPG is running (from checkpoint CP)
//	[!] simctl recovered VM [CP [OP]] VM was restored (to CP, by operation OP)
func cmdSimctl(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: simctl mark|requests|history|status|test|recovered ...")
	}
	h := simOf(ts)
	s := h.s
	switch args[0] {
	case "mark":
		h.mark = len(s.Requests())
	case "requests":
		for _, r := range s.Requests()[h.mark:] {
			fmt.Fprintf(ts.Stdout(), "%s %s %d\n", r.Method, r.Path, r.Status)
		}
	case "steps":
		if len(args) != 2 {
			ts.Fatalf("usage: simctl steps N")
		}
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		s.SetTaskSteps(n)
	case "history":
		if len(args) != 3 {
			ts.Fatalf("usage: simctl history VPG DURATION")
		}
		d, err := time.ParseDuration(args[2])
		ts.Check(err)
		ts.Check(s.SetJournalHistory(args[1], d))
		_, err = s.WriteCheckpoint(args[1])
		ts.Check(err)
	case "status":
		if len(args) != 4 {
			ts.Fatalf("usage: simctl status VPG STATUS SUBSTATUS")
		}
		var st zvmsim.VPGStatus
		var sub zvmsim.VPGSubStatus
		ts.Check(st.UnmarshalText([]byte(args[2])))
		ts.Check(sub.UnmarshalText([]byte(args[3])))
		ts.Check(s.SetVPGStatus(args[1], st, sub))
	case "othertest":
		if len(args) != 3 {
			ts.Fatalf("usage: simctl othertest VPG USER")
		}
		_, err := s.StartTest(args[1], "", args[2])
		ts.Check(err)
	case "resync":
		if len(args) != 2 {
			ts.Fatalf("usage: simctl resync VPG")
		}
		ts.Check(s.Resync(args[1]))
	case "test":
		if len(args) < 2 || len(args) > 3 {
			ts.Fatalf("usage: simctl test VPG [CP]")
		}
		cp, vms, running := s.RunningTest(args[1])
		ok := running && (len(args) == 2 || cp.ID == args[2])
		ts.Logf("VPG %s: test running %v, from checkpoint %s, test VMs %v", args[1], running, cp.ID, vms)
		if ok == neg {
			ts.Fatalf("simctl test: running %v from checkpoint %q", running, cp.ID)
		}
	case "recovered":
		if len(args) < 2 || len(args) > 4 {
			ts.Fatalf("usage: simctl recovered VM [CP [OP]]")
		}
		cp, op, recovered := s.VMRecovery(args[1])
		ok := recovered && (len(args) < 3 || cp.ID == args[2]) && (len(args) < 4 || op == args[3])
		ts.Logf("VM %s: recovered %v to checkpoint %s by %q", args[1], recovered, cp.ID, op)
		if ok == neg {
			ts.Fatalf("simctl recovered: recovered %v to checkpoint %q by %q", recovered, cp.ID, op)
		}
	default:
		ts.Fatalf("simctl: unknown subcommand %q", args[0])
	}
}

// cmdLastRecord sets an environment variable from the newest audit record:
//
//	lastrecord VAR id|checkpoint|tag|decision|before|beforecp [N]
//
// before and beforecp are the id and CheckpointIdentifier of the newest
// checkpoint rewind took of VMs before a restore. With N, only the first N
// characters, as a person types a prefix.
func cmdLastRecord(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: lastrecord VAR id|checkpoint|tag|decision|before|beforecp [N]")
	}
	l := audit.Open(ts.Getenv("REWIND_STATE_DIR"))
	recs, err := l.Read(audit.Filter{})
	ts.Check(err)
	if len(recs) == 0 {
		ts.Fatalf("lastrecord: the audit log is empty")
	}
	r := recs[len(recs)-1]
	if args[1] == "before" || args[1] == "beforecp" {
		i := len(recs) - 1
		for i >= 0 && recs[i].Decision != audit.DecisionCheckpoint {
			i--
		}
		if i < 0 {
			ts.Fatalf("lastrecord: no checkpoint of VMs before a restore in the log")
		}
		r = recs[i]
		args[1] = map[string]string{"before": "id", "beforecp": "checkpoint"}[args[1]]
	}
	var v string
	switch args[1] {
	case "id":
		v = r.ID
	case "decision":
		v = r.Decision
	case "checkpoint", "tag":
		if len(r.Checkpoints) == 0 {
			ts.Fatalf("lastrecord: record %s has no checkpoint", r.ID)
		}
		v = r.Checkpoints[0].Identifier
		if args[1] == "tag" {
			v = r.Checkpoints[0].Tag
		}
	default:
		ts.Fatalf("lastrecord: unknown field %q", args[1])
	}
	if len(args) == 3 {
		n, err := strconv.Atoi(args[2])
		ts.Check(err)
		v = v[:min(n, len(v))]
	}
	ts.Setenv(args[0], v)
}
