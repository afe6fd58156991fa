package hook

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/audit"
	"github.com/rewind-dev/rewind/hostio"
	"github.com/rewind-dev/rewind/policy"
)

var update = flag.Bool("update", false, "rewrite docs/decision-table.md's table from decisionTable")

// decisionTable is the decision table: every row of the table in
// docs/decision-table.md, in the doc's own words, with the cases that pin
// it down. TestDecisionTableDoc checks that the doc says the same (and
// -update writes it); TestDecisionTable runs the cases through decide.
var decisionTable = []struct {
	call, decision, gets string
	cases                []tableCase
}{
	{
		call:     "no rule applies, or a read-only rule",
		decision: "none",
		gets:     "exit 0, no output: the normal permission flow goes on",
		cases: []tableCase{
			{name: "a read", tool: "Bash", input: `{"command":"ssh web-01 uptime"}`},
			{name: "no rule", f: facts{Verdict: policy.Verdict{Effect: policy.None}}},
		},
	},
	{
		call:     "protect, checkpoint confirmed",
		decision: "none + context",
		gets:     "`additionalContext` naming the checkpoint (tag, CheckpointIdentifier, VPG, time) and `rewind undo <id>`; **no** permissionDecision, so your own permission rules still apply",
		cases: []tableCase{
			{name: "landed", tool: "Bash", input: `{"command":"govc vm.power -off -vm web-01"}`, f: facts{Outcome: landed},
				logged: audit.DecisionProtected,
				says:   []string{`checkpoint "rewind-20260501T100000Z-01jabcde" (CheckpointIdentifier cp-1) on VPG "fast" at 2026-05-01T10:00:05Z protects web-01`, "rewind undo 01jabcdefghk (audit id)"}},
		},
	},
	{
		call:     "protect, checkpoint failed (Zerto refused, task failed, VPG in a state Zerto cannot insert in, ZVM unreachable or hung, TLS error, a base URL that is not the ZVM's API)",
		decision: "deny",
		gets:     "the reason carries Zerto's own message (or the transport error) verbatim",
		cases: []tableCase{
			{name: "Zerto refused", f: facts{Verdict: protect("rej-01"), Outcome: &Outcome{Kind: Failed,
				Failures: []string{`rej-01 (VPG "strict"): The checkpoint name is not valid.`}, ZertoError: "The checkpoint name is not valid."}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{`rewind: no checkpoint for rej-01 (VPG "strict"): The checkpoint name is not valid.`}},
			{name: "with a fix", f: facts{Verdict: protect("web-01"), Outcome: &Outcome{Kind: Failed,
				Failures: []string{"web-01: x509: certificate signed by unknown authority"}, Hint: "trust the ZVM's certificate with ca_file"}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"certificate signed by unknown authority. Fix: trust the ZVM's certificate with ca_file."}},
			{name: "and an unknown target", f: facts{Verdict: protect("paused-01", "nosuch"), Outcome: &Outcome{Kind: Failed,
				Failures: []string{`paused-01 (VPG "paused"): ReplicationPausedUserInitiated`}, Unknown: []string{"nosuch"}}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"ReplicationPausedUserInitiated", "; nosuch is not a VM Zerto protects"}},
			{name: "no protect step", f: facts{Verdict: protect("web-01")},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"no checkpoint for web-01: this program takes no checkpoints"}},
			{name: "a step that says nothing", f: facts{Verdict: protect("web-01"), Outcome: &Outcome{}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"no checkpoint for web-01: the protect step gave no reason"}},
		},
	},
	{
		call:     "protect, Zerto accepted the tag but will not write it within the budget (slow journal cadence)",
		decision: "pending",
		gets:     "`deny` (or `ask`, `hook.pending`) saying the tag is on its way, when it is expected (on this machine's clock), and to retry then; the retry reuses that tag",
		cases: []tableCase{
			{name: "denied", f: facts{Verdict: protect("win2019-1"), Outcome: accepted, Pending: "deny"},
				want: hostio.Deny, logged: audit.DecisionPending,
				says: []string{`Zerto accepted checkpoint tag "rewind-20260501T100000Z-01jabcde" for VPG "aws" (journal cadence ~630s); it is expected at 2026-05-01T10:10:30Z (in ~630s), past this hook's budget of 150s.`,
					"Retry this call after 2026-05-01T10:10:30Z: the retry will use that checkpoint. Retry within 630s of it"}},
			{name: "asked", f: facts{Verdict: protect("win2019-1"), Outcome: accepted, Pending: "ask"},
				want: hostio.Ask, logged: audit.DecisionPending, says: []string{"Retry this call after", "Allowed now, the call runs before its checkpoint exists."}},
		},
	},
	{
		call:     "protect, **capture itself overran the budget** (it had not returned when the budget's net fired)",
		decision: "pending, deny, or none + context",
		gets:     "answered from what capture had achieved: every VPG's tag landed → protected; Zerto accepted a tag for every VPG → *pending*; otherwise → `deny` \"no checkpoint for …: the checkpoint was not confirmed within the hook's budget of …\". **Never** `hook.on_error`: a protect call is not let through unchecked because rewind ran out of time",
		cases: []tableCase{
			{name: "landed", f: facts{Verdict: protect("web-01"), Outcome: landed, Overrun: true, OnError: "allow"},
				logged: audit.DecisionProtected, says: []string{`on VPG "fast"`}, err: "capture did not return within the budget of 2m30s"},
			{name: "accepted", f: facts{Verdict: protect("win2019-1"), Outcome: accepted, Overrun: true, OnError: "allow"},
				want: hostio.Deny, logged: audit.DecisionPending, says: []string{"Zerto accepted checkpoint tag"}, err: "capture did not return within the budget of 2m30s"},
			{name: "no tag", f: facts{Verdict: protect("rej-01"), Overrun: true, OnError: "allow", Outcome: &Outcome{Kind: Failed,
				Failures: []string{`rej-01 (VPG "strict"): the checkpoint was not confirmed within the hook's budget of 150s`}}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"no checkpoint for rej-01 (VPG \"strict\"): the checkpoint was not confirmed within the hook's budget of 150s"},
				err: "capture did not return within the budget of 2m30s"},
		},
	},
	{
		call:     "protect, target VM unknown to Zerto",
		decision: "ask",
		gets:     "\"nothing to rewind to\": a lookup miss is never reported as a failure",
		cases: []tableCase{
			{name: "unknown", f: facts{Verdict: protect("nosuch"), Outcome: &Outcome{Kind: UnknownTarget, Unknown: []string{"nosuch"}}},
				want: hostio.Ask, logged: audit.DecisionAsk,
				says: []string{"rewind: nosuch is not a VM Zerto protects: nothing to rewind to (rule catalog:govc vm.*). If it is a protected VM under another name, map it in [targets] aliases."}},
			{name: "two unknown", f: facts{Verdict: protect("a", "b"), Outcome: &Outcome{Kind: UnknownTarget, Unknown: []string{"a", "b"}}},
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"a, b are not VMs Zerto protects"}},
		},
	},
	{
		call:     "protect, a name that matches several VMs",
		decision: "as for the VMs",
		gets:     "every VM of that name gets a checkpoint, and the answer carries a note: `\"dup-01\" is ambiguous: it names 2 VMs Zerto protects (…)`",
		cases: []tableCase{
			{name: "landed", f: facts{Verdict: protect("dup-01"), Outcome: &Outcome{Kind: Protected, Points: []Point{
				{VPG: "fast", Tag: "rewind-1", Identifier: "cp-1", VMs: []VM{{Name: "dup-01", Identifier: "vm-1"}, {Name: "dup-01", Identifier: "vm-2"}}}},
				Notes: []string{`"dup-01" is ambiguous: it names 2 VMs Zerto protects (vm-1, vm-2)`}}},
				logged: audit.DecisionProtected, says: []string{"protects dup-01, dup-01", `. Note: "dup-01" is ambiguous: it names 2 VMs Zerto protects (vm-1, vm-2).`}},
		},
	},
	{
		call:     "protect, the rule found no target in the call (or the target is only known at run time: a variable, a name with a wildcard such as `web-*`, a value the tool reads from a file such as `--cli-input-json file://in.json`)",
		decision: "ask",
		gets:     "the rule and what it missed",
		cases: []tableCase{
			{name: "no target", f: facts{Verdict: policy.Verdict{Effect: policy.Protect, Rule: "catalog:govc vm.*", Reason: "changes the VM"},
				Outcome: &Outcome{Kind: UnknownTarget}},
				want: hostio.Ask, logged: audit.DecisionAsk,
				says: []string{"rewind: changes the VM (rule: catalog:govc vm.*): the rule found no target in the call, so there is nothing to rewind to"}},
			{name: "a target known at run time", tool: "Bash", input: `{"command":"govc vm.power -off -vm \"$VM\""}`,
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"a target of the rule is decided at run time"}},
		},
	},
	{
		call:     "protect, no Zerto configured (no `[zerto] url`, no `REWIND_ZVM_URL`)",
		decision: "ask",
		gets:     "\"no Zerto configured: nothing to rewind to\"",
		cases: []tableCase{
			{name: "none", f: facts{Verdict: protect("web-01"), Outcome: &Outcome{Kind: NotConfigured, Hint: "set zerto.url or REWIND_ZVM_URL"}},
				want: hostio.Ask, logged: audit.DecisionAsk,
				says: []string{"rewind: no Zerto configured: nothing to rewind to (rule catalog:govc vm.* would change web-01). Fix: set zerto.url or REWIND_ZVM_URL."}},
		},
	},
	{
		call:     "a tool of an MCP server no rule lists, by the words of its name and the keys of its input ([catalog.md](catalog.md#mcp-tools))",
		decision: "none for a read (and a create of a VM), deny for a delete of a VM, disk or snapshot, protect for a change of the VMs the input names (ask when it names none); none when its words say nothing about VMs",
		gets:     "as for the effect",
		cases: []tableCase{
			{name: "a read", tool: "mcp__vsphere__list_vms", input: `{}`},
			{name: "a create", tool: "mcp__vsphere__create_vm", input: `{"vm_name":"web-09"}`},
			{name: "a delete", tool: "mcp__vsphere__delete_vm", input: `{"vm_name":"web-01"}`,
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"a checkpoint cannot bring back a deleted VM"}},
			{name: "a change", tool: "mcp__vsphere__power_off_vm", input: `{"vm_name":"web-01"}`, f: facts{Outcome: landed},
				logged: audit.DecisionProtected, says: []string{"protects web-01"}},
			{name: "a change of no VM it names", tool: "mcp__vsphere__power_off_vm", input: `{}`,
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"its input names none that rewind can read"}},
		},
	},
	{
		call:     "a command inside an MCP tool's input (an SSH server's `command`, a whole `aws …`/`gcloud …`/`az …` command line, govc arguments)",
		decision: "the command's verdict by the shell analysis and the families, on the host the input names (a host the call does not name: a change is asked)",
		gets:     "as for the effect",
		cases: []tableCase{
			{name: "a read on the host", tool: "mcp__ssh__exec", input: `{"host":"web-01","command":"uptime"}`},
			{name: "a change of the host", tool: "mcp__ssh__exec", input: `{"host":"web-01","command":"sudo reboot"}`, f: facts{Outcome: landed},
				logged: audit.DecisionProtected, says: []string{"protects web-01"}},
			{name: "a command line", tool: "mcp__aws__run_command", input: `{"command":"aws ec2 terminate-instances --instance-ids i-1"}`,
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"a checkpoint cannot bring back a terminated instance"}},
		},
	},
	{
		call:     "a tool of a guarded `[[server]]` that neither a rule nor the words judge",
		decision: "ask",
		gets:     "",
		cases: []tableCase{
			{name: "unlisted", config: "[[server]]\nname = \"lab\"\n", tool: "mcp__lab__frobnicate", input: `{}`,
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"rewind: a tool in a guarded server that no rule lists (rule: server lab)"}},
		},
	},
	{
		call:     "deny rule (with its payload condition, if any)",
		decision: "deny",
		gets:     "the rule's reason",
		cases: []tableCase{
			{name: "the catalog's", tool: "Bash", input: `{"command":"govc vm.destroy web-01"}`,
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"a checkpoint cannot bring a destroyed VM back"}},
			{name: "the user's", config: "[[command]]\nmatch = \"git push\"\nargs_any = [\"--force\"]\neffect = \"deny\"\nreason = \"no force pushes\"\n",
				tool: "Bash", input: `{"command":"git push --force"}`,
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"rewind: no force pushes (rule: git push)"}},
			{name: "no reason", f: facts{Verdict: policy.Verdict{Effect: policy.Deny, Rule: "r"}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"rewind: matched rule r"}},
		},
	},
	{
		call:     "ask rule",
		decision: "ask",
		gets:     "the rule's reason",
		cases: []tableCase{
			{name: "the user's", config: "[[command]]\nmatch = \"terraform apply\"\neffect = \"ask\"\nreason = \"changes infrastructure\"\n",
				tool: "Bash", input: `{"command":"terraform apply"}`,
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"changes infrastructure"}},
		},
	},
	{
		call:     "a command whose name is only known at run time, or text that cannot be parsed, where a deny or protect rule could have matched",
		decision: "ask",
		gets:     "what could not be known",
		cases: []tableCase{
			{name: "a name known at run time", tool: "Bash", input: `{"command":"$VMCTL vm.destroy web-01"}`,
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{`the command "$VMCTL vm.destroy web-01" is decided at run time`}},
			{name: "unparsed", tool: "Bash", input: `{"command":"govc vm.destroy web-01 'unterminated"}`,
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"part of the command could not be parsed"}},
		},
	},
	{
		call:     "an event the decoder refuses (nested past its depth limit, truncated, a key twice, a field of the wrong type) whose tool name can still be read",
		decision: "ask when that tool could change a VM or rewind's files whatever its input (a shell or PowerShell tool, an MCP tool whose words change or run something, a rule's tool); deny when every reading denies (or `hook.on_error` is deny); else `hook.on_error`",
		gets:     "the reason names the decoder's error and the tool; a `systemMessage` too",
		cases: []tableCase{
			{name: "a shell tool", unread: []string{"Bash"}, f: facts{OnError: "allow"},
				want: hostio.Ask, logged: audit.DecisionAsk, err: "malformed hook event: truncated",
				says: []string{"rewind: malformed hook event: truncated, and the tool Bash could change a VM or rewind's own files (rule: tool Bash)", "rewind: malformed hook event: truncated"}},
			{name: "a change", unread: []string{"mcp__vsphere__power_off_vm"}, f: facts{OnError: "allow"},
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"mcp__vsphere__power_off_vm could change a VM"}},
			{name: "denied whatever its input", unread: []string{"mcp__vsphere__delete_vm"}, f: facts{OnError: "allow"},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"denied whatever its input"}},
			{name: "on_error deny", unread: []string{"Bash"}, f: facts{OnError: "deny"},
				want: hostio.Deny, logged: audit.DecisionDeny},
			{name: "a read", unread: []string{"Read"}, f: facts{OnError: "allow"},
				logged: audit.DecisionAllowOnError, says: []string{"rewind: malformed hook event: truncated; the call was not checked (hook.on_error = allow)"}},
			{name: "a read under on_error ask", unread: []string{"mcp__vsphere__list_vms"}, f: facts{OnError: "ask"},
				want: hostio.Ask, logged: audit.DecisionAskOnError},
		},
	},
	{
		call:     "a config file that cannot be used (see [bad input](#bad-input))",
		decision: "as what did load decides, but ask where a rule of the broken file could apply: a denied call stays denied, a call to protect gets its checkpoint first",
		gets:     "a `systemMessage` with the config error (`FILE:LINE: KEY: problem`)",
		cases: []tableCase{
			{name: "no rule could apply", f: facts{ConfigErr: errConfig, Verdict: policy.Verdict{Effect: policy.None}},
				logged: audit.DecisionNone, err: errConfig.Error(),
				says: []string{"rewind: config error: .rewind.toml:3: command.effect: unknown effect; no rule of the broken file could apply to this call, which the rest of the policy let through"}},
			{name: "denied", f: facts{ConfigErr: errConfig, Verdict: policy.Verdict{Effect: policy.Deny, Reason: "destroys", Rule: "r"}},
				want: hostio.Deny, logged: audit.DecisionDeny, says: []string{"rewind: destroys (rule: r)", "rewind: config error: "}},
			{name: "protected", f: facts{ConfigErr: errConfig, Verdict: protect("web-01"), Outcome: landed},
				logged: audit.DecisionProtected, says: []string{"protects web-01", "rewind: config error: "}, err: errConfig.Error()},
			{name: "protected, and a rule of the file could apply", f: facts{ConfigErr: errConfig, Outcome: landed, Verdict: policy.Verdict{
				Effect: policy.Ask, Reason: "a rule of the broken file", Targets: []string{"web-01"},
				Matches: []policy.Match{{Effect: policy.Protect}, {Effect: policy.Ask}}}},
				want: hostio.Ask, logged: audit.DecisionAsk,
				says: []string{"without a working config rewind cannot tell whether to let this call run (a rule of the broken file)", "protects web-01"}},
			{name: "pending stays pending", f: facts{ConfigErr: errConfig, Outcome: accepted, Verdict: policy.Verdict{
				Effect: policy.Ask, Targets: []string{"win2019-1"}, Matches: []policy.Match{{Effect: policy.Protect}, {Effect: policy.Ask}}}},
				want: hostio.Deny, logged: audit.DecisionPending},
			{name: "a rule of the file could apply", f: facts{ConfigErr: errConfig, Verdict: policy.Verdict{Effect: policy.Ask, Reason: "r"}},
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"without a working config rewind cannot guard this call (r)"}},
			{name: "nothing could judge", f: facts{ConfigErr: errConfig, Unjudged: true},
				want: hostio.Ask, logged: audit.DecisionAsk, says: []string{"rewind: config error: "}},
		},
	},
	{
		call:     "internal error of rewind itself (an event with no readable tool name, a panic, a step other than capture that overstays)",
		decision: "`hook.on_error` (default allow = fail open)",
		gets:     "exit 0; a `systemMessage` warns the user",
		cases: []tableCase{
			{name: "allow", f: facts{Err: errors.New("internal error: boom"), OnError: "allow"},
				logged: audit.DecisionAllowOnError, err: "internal error: boom",
				says: []string{"rewind: internal error: boom; the call was not checked (hook.on_error = allow)"}},
			{name: "ask", f: facts{Err: errors.New("internal error: boom"), OnError: "ask"},
				want: hostio.Ask, logged: audit.DecisionAskOnError, says: []string{"rewind: internal error: boom (hook.on_error = ask)"}},
			{name: "deny", f: facts{Err: errors.New("no decision within the hook's budget of 1s"), OnError: "deny"},
				want: hostio.Deny, logged: audit.DecisionDenyOnError, says: []string{"rewind: no decision within the hook's budget of 1s (hook.on_error = deny)"}},
		},
	},
}

// tableCase is a case of a row: facts and the ruling they get.
type tableCase struct {
	name string
	// tool and input, when set, are a call the policy judges (the
	// catalog, after config's rules): its verdict goes into f. unread,
	// when set, are the tool names of an event the decoder refused.
	tool, input, config string
	unread              []string
	f                   facts
	// want, logged and err are the ruling's permission, its audit
	// decision ("" for none) and its record's error; says are parts of
	// what the host is told.
	want   hostio.Permission
	logged string
	err    string
	says   []string
}

// t0 is when the cases' checkpoints are taken.
var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

var (
	errConfig = errors.New(".rewind.toml:3: command.effect: unknown effect")
	landed    = &Outcome{Kind: Protected, Points: []Point{{VPG: "fast", VPGIdentifier: "vpg-1", Tag: "rewind-20260501T100000Z-01jabcde",
		Identifier: "cp-1", Time: t0.Add(5 * time.Second), VMs: []VM{{Name: "web-01", Identifier: "vm-1"}}}}, OffsetKnown: true}
	accepted = &Outcome{Kind: Pending, Points: []Point{{VPG: "aws", VPGIdentifier: "vpg-2", Tag: "rewind-20260501T100000Z-01jabcde",
		Expected: t0.Add(630 * time.Second), Cadence: 630 * time.Second, VMs: []VM{{Name: "win2019-1"}}}}, RetryWithin: 630 * time.Second}
)

// protect is the catalog's protect verdict on targets.
func protect(targets ...string) policy.Verdict {
	return policy.Verdict{Effect: policy.Protect, Targets: targets, Rule: "catalog:govc vm.*", Reason: "changes the VM"}
}

func TestDecisionTable(t *testing.T) {
	t.Parallel()
	for _, row := range decisionTable {
		if len(row.cases) == 0 {
			t.Errorf("row %q has no case", row.call)
		}
		for _, c := range row.cases {
			t.Run(row.call+"/"+c.name, func(t *testing.T) {
				f := c.f
				if f.Budget == 0 {
					f.Budget = policy.DefaultBudget
				}
				f.ID, f.Now = "01jabcdefghk", t0
				switch {
				case c.tool != "":
					f.Verdict = classify(t, c.config, c.tool, c.input)
				case c.unread != nil:
					f.Unread = errors.New("malformed hook event: truncated")
					p, err := policy.New(policy.Default())
					if err != nil {
						t.Fatal(err)
					}
					f.Verdict = p.ClassifyUnread(c.unread)
				}
				r := decide(f)
				d := r.Decision
				if d.Permission != c.want || r.Logged != c.logged {
					t.Errorf("permission %q, logged %q; want %q, %q (%+v)", d.Permission, r.Logged, c.want, c.logged, d)
				}
				if c.err != "" && r.Error != c.err {
					t.Errorf("record error %q, want %q", r.Error, c.err)
				}
				text := d.Reason + "\n" + d.Context + "\n" + d.SystemMessage
				for _, s := range c.says {
					if !strings.Contains(text, s) {
						t.Errorf("the answer does not say %q:\n%s", s, text)
					}
				}
				if c.logged == "" && d != (hostio.Decision{}) {
					// No record, nothing to say: the host's flow goes on.
					t.Errorf("decision %+v, want none", d)
				}
			})
		}
	}
}

// classify is the policy's verdict on a call of tool with input, under the
// catalog and config's rules.
func classify(t *testing.T, config, tool, input string) policy.Verdict {
	t.Helper()
	cfg := policy.Default()
	if config != "" {
		var err error
		if cfg, err = policy.Parse("rewind.toml", []byte(config)); err != nil {
			t.Fatal(err)
		}
	}
	p, err := policy.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid([]byte(input)) {
		t.Fatalf("input %s is not JSON", input)
	}
	return p.Classify(policy.Call{Tool: tool, Input: json.RawMessage(input), Cwd: "/"})
}

// docTable is the file whose first table is decisionTable's.
const docTable = "../docs/decision-table.md"

// TestDecisionTableDoc checks that docs/decision-table.md's table is
// decisionTable's, row by row and word by word; -update writes it so.
func TestDecisionTableDoc(t *testing.T) {
	data, err := os.ReadFile(docTable)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	const head = "| the call | decision | what the host gets |\n|---|---|---|\n"
	start := strings.Index(doc, head)
	if start < 0 {
		t.Fatalf("%s has no table headed %q", docTable, head)
	}
	start += len(head)
	end := start + strings.Index(doc[start:], "\n\n") + 1
	var want strings.Builder
	for _, row := range decisionTable {
		want.WriteString("|")
		for _, cell := range []string{row.call, row.decision, row.gets} {
			if cell != "" {
				want.WriteString(" " + cell)
			}
			want.WriteString(" |")
		}
		want.WriteString("\n")
	}
	if got := doc[start:end]; got != want.String() {
		if *update {
			if err := os.WriteFile(docTable, []byte(doc[:start]+want.String()+doc[end:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		gotRows, wantRows := strings.Split(got, "\n"), strings.Split(want.String(), "\n")
		for i := range max(len(gotRows), len(wantRows)) {
			var g, w string
			if i < len(gotRows) {
				g = gotRows[i]
			}
			if i < len(wantRows) {
				w = wantRows[i]
			}
			if g != w {
				t.Errorf("row %d of %s:\n%s\nwant, as decisionTable has it:\n%s", i+1, docTable, g, w)
			}
		}
		t.Log("go test ./hook -run TestDecisionTableDoc -update writes decisionTable into the doc")
	}
}
