// Package policy decides what a tool call needs before it runs: nothing,
// a checkpoint of the VMs it changes, a person's confirmation, or a refusal.
//
// In rewind's data flow the hook decodes the host's event into a [Call] and
// hands it to [Policy.Classify]. A shell tool's command goes through the
// shell analysis, and each invocation it reports is matched against the
// command rules; a PowerShell tool's ([IsPowerShellTool]) goes through
// package powershell, each cmdlet it reports matched against the cmdlet
// rules and each program through the shell analysis as above; an MCP tool
// is matched against the tool rules and, when none lists it, judged by the
// words of its name and the keys of its input (mcp.go, the catalog's [mcp]
// table), a command it carries judged as shell code; an event the decoder
// refused is judged from what can still be read of it ([ClassifyUnread]).
// The resulting [Verdict] carries the effect, the targets (VM or host names
// as written, which capture resolves to Zerto VMs through [TargetsConfig])
// and the rule and reason, with a [Match] per piece for `rewind explain`.
//
// Rules come from the user's config file followed by the built-in catalog
// ([Catalog]), which is a config file of the same format, made of one file
// per family (catalog/*.toml, tried in the order of catalog/index.toml).
// Within a list the first matching rule wins; the pieces of a call combine
// as deny > ask > protect > none. [Find] adds the project's .rewind.toml
// files, from the call's folder upwards: one that `rewind trust` recorded
// ([Trust]) is laid over the user's config and hides those above it, the
// others judge beside it, where only their stricter verdicts and settings
// count ([Config.Tighten]). A config that fails to load leaves its rules
// behind as rules that ask every call they could match ([Fallback]).
//
// Rules with writes judge the files a call writes (redirections, file
// tools, commands such as tee, cp or sed -i) in a pass of their own; the
// catalog's guard rewind's own files and the host settings that run it. A
// command that writes a folder whole — removes, moves or extracts into it,
// puts a git tree back (trees.go, archive.go, gitindex.go) — writes the
// guarded files the disk shows in it. A call that reads rewind's secrets
// (secrets.go) is asked, and rewind's own risky subcommands are judged as
// rewind's under any name the binary is given (self.go). A tool input that
// holds a key twice, in any case, is asked.
//
// Command rules name the command's words (match), with options between the
// words skipped, or PowerShell cmdlets (cmdlets) found in PowerShell code
// (pwsh -Command, the PowerShell tool, code run on a Windows host), whose
// parameters may be written as PowerShell's prefixes. An option the rule
// does not know to take a value may still take one: a rule whose effect is
// more than none also matches when the words appear only if such options
// take the next word ("kubectl -n prod delete"). An "OPTION VALUE" in
// args_any or args_none counts only as the option's last value. Subcommand
// aliases ([Config.SubcommandAliases]) let a rule's words match the words
// that stand for them. payload_contains ignores case and folds runs of
// white space. Where a rule applies is set by on: remote commands are those
// the shell analysis reached through ssh. Targets are found by the rule's
// target spec: flag:NAME, flags:NAME (several words), arg:N, dest:N, args,
// host, field:KEY (a key inside a structured value) or path:SEGMENT (a
// segment of an API path). A protect rule that finds no target gives ask: a
// checkpoint of nothing protects nothing.
//
// The catalog is made of families, one per way of reaching a VM (ssh,
// govc, winrm, azure, terraform...); [Families] lists them and [catalog]
// disable in the config turns one off. Code that other commands hand to a
// host (winrs, psexec, gcloud compute ssh, az vm run-command, aws ssm
// send-command, parallel shells, salt, container exec, at and crontab) is
// read in reach.go and reachtools.go, PowerShell's script blocks and guest
// scripts by package powershell, and judged as commands running on that
// host.
//
// [Policy.SelfTest] runs the [[test]] cases of the config and the catalog,
// and for each deny, ask and protect rule a matrix that quotes the rule's
// sample command as data (which must not trip it) and runs it as code
// (which must).
//
// The package's tables of commands, options and words are built on first
// use (sync.OnceValue), and the catalog is compiled at go generate
// (catalog_gen.go): the hook starts a process for every tool call, and a
// call builds only the tables of the commands it holds.
package policy
