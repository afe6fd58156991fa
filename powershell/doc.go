// Package powershell reads PowerShell code into the commands it would
// run, where it would run them, and what it cannot know.
//
// In rewind's data flow the policy hands the code of pwsh -Command, of
// the host's PowerShell tool and of code run on Windows hosts to [Scan],
// and matches its rules against the [Command] values it reports, as it
// does with package shell's invocations. The reading follows
// PowerShell's own parser (tokenizer.cs and Parser.cs in the PowerShell
// repository) where it matters for that:
//
//   - A statement that starts with a bare word, & or . is a command; one
//     that starts with a value is an expression, whose strings are data.
//     Single-quoted strings, here-strings @'...'@, comments and the
//     patterns of switch are data; the $(...) in an expandable string or
//     bare word, script blocks, (...) and $(...) arguments and the values
//     of hash literals are code.
//   - PowerShell's four dashes start a parameter, its quotation marks
//     (‘ ’ ‚ ‛ “ ” „) quote, Unicode separators are white space.
//   - A name is resolved as PowerShell resolves it: its built-in aliases
//     (spps, iex, icm, saps...), the aliases the code sets (Set-Alias,
//     New-Alias, sal, nal, Set-Item alias:), wherever in the code they are
//     set; an alias that is a program on Linux and macOS (rm, ls, kill) is
//     read both ways. Verb-Noun with an approved verb is a cmdlet;
//     anything else is a program (ssh, govc, apt-get, a script path),
//     reported Native with its arguments as PowerShell hands them on.
//   - The script block of Invoke-Command runs on the computers it names
//     (-ComputerName or its first argument, -ConnectionUri; -Session and
//     values known at run time are computers decided at run time), its
//     commands reported with that Place. Invoke-VMScript's -ScriptText runs
//     in the VMs' guests.
//   - Code built from strings is read again where it runs:
//     Invoke-Expression, [scriptblock]::Create, .InvokeScript,
//     .AddScript. Start-Process, [Diagnostics.Process]::Start, Invoke-Item
//     and exec start the program they name, with the arguments their
//     command line makes.
//   - What PowerShell decides at run time is reported in [Dynamic]: & $x,
//     . $x, $x web-01, Invoke-Expression $s, an alias set to a variable,
//     and the methods of objects ($vm.ExtensionData.PowerOffVM()) other
//     than those known to read.
//
// The cost is linear in the code and bounded in memory: the reader keeps
// one top-level statement at a time and nests by an explicit stack. What
// is past a limit (nesting, tokens of a statement, commands of a code,
// code built from strings read again) is reported as [Unparsed] with Limit
// set, and asked about by the policy. [ReadCommandLine] reads a pwsh or
// powershell command line as PowerShell does.
//
// The package's tables (keywords, aliases, verbs, methods) are built on
// first use: the hook links the package into a process it starts for
// every tool call, most of which hold no PowerShell.
package powershell
