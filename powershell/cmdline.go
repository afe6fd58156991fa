package powershell

import (
	"encoding/base64"
	"strings"
	"unicode/utf16"
)

// CommandLine is what a pwsh or powershell command line runs, read as
// PowerShell's CommandLineParameterParser reads it: a switch starts with
// any of PowerShell's dashes, with "--", or with "/"; a switch may be
// shortened to any prefix of its name at least as long as PowerShell
// allows (-c, -co, -com... for -Command; -e, -ec for -EncodedCommand);
// the first word that is not a switch is the script file for pwsh and
// the start of the command for Windows PowerShell.
type CommandLine struct {
	// Code is the PowerShell code the command line runs: the words
	// after -Command joined by spaces, the word after -CommandWithArgs,
	// the decoded -EncodedCommand, or the script on standard input.
	Code string
	// HasCode is set when the command line runs code that Code holds,
	// in full or, with Dynamic set, in part.
	HasCode bool
	// Dynamic is set when some of the code is known only at run time:
	// a word of it decided by the shell, a script piped in from a
	// program, an -EncodedCommand that does not decode.
	Dynamic bool
	// File is the script file the command line runs, when it runs one.
	File string
	// Via names the way the code came: "pwsh -Command",
	// "pwsh -EncodedCommand", "pwsh (standard input)".
	Via string
}

// switchSpec is one of PowerShell's command-line switches: its name, the
// shortest prefix that selects it, and what it takes.
type switchSpec struct {
	name, min string
	takes     takes
}

type takes uint8

const (
	takesNothing takes = iota
	takesValue
	takesCommand
	takesCommandWithArgs
	takesEncoded
	takesFile
	stops // -Version, -Help: nothing runs
)

// switches are in the order PowerShell tries them: an abbreviation
// selects the first switch it can stand for.
var switches = []switchSpec{
	{"version", "v", stops}, {"help", "h", stops}, {"?", "?", stops},
	{"login", "l", takesNothing}, {"noexit", "noe", takesNothing}, {"noprofile", "nop", takesNothing},
	{"nologo", "nol", takesNothing}, {"noninteractive", "noni", takesNothing},
	{"socketservermode", "so", takesNothing}, {"v2socketservermode", "v2so", takesNothing},
	{"servermode", "s", takesNothing}, {"namedpipeservermode", "nam", takesNothing},
	{"sshservermode", "sshs", takesNothing}, {"noprofileloadtime", "noprofileloadtime", takesNothing},
	{"interactive", "i", takesNothing}, {"configurationfile", "configurationfile", takesValue},
	{"configurationname", "config", takesValue}, {"custompipename", "cus", takesValue},
	{"commandwithargs", "commandwithargs", takesCommandWithArgs}, {"cwa", "cwa", takesCommandWithArgs},
	{"command", "c", takesCommand}, {"windowstyle", "w", takesValue}, {"file", "f", takesFile},
	{"outputformat", "o", takesValue}, {"of", "o", takesValue},
	{"inputformat", "inp", takesValue}, {"if", "if", takesValue},
	{"executionpolicy", "ex", takesValue}, {"ep", "ep", takesValue},
	{"encodedcommand", "e", takesEncoded}, {"ec", "e", takesEncoded},
	{"encodedarguments", "encodeda", takesValue}, {"ea", "ea", takesValue},
	{"settingsfile", "settings", takesValue}, {"sta", "sta", takesNothing}, {"mta", "mta", takesNothing},
	{"workingdirectory", "wo", takesValue}, {"wd", "wd", takesValue},
	{"removeworkingdirectorytrailingcharacter", "removeworkingdirectorytrailingcharacter", takesNothing},
	{"token", "to", takesValue}, {"utctimestamp", "utc", takesValue},
}

// IsPowerShell reports whether a program name is PowerShell's: pwsh or
// powershell, with .exe or a folder or not, in any case.
func IsPowerShell(name string) bool {
	switch nativeName(name) {
	case "pwsh", "powershell", "pwsh-preview", "pwsh-lts":
		return true
	}
	return false
}

// ReadCommandLine reads the command line of a pwsh or powershell program
// named name. args are its words as the program receives them; dynamic,
// when not nil, marks those known only at run time, which hold their
// source text; stdin is the static text it reads on standard input, if
// any.
func ReadCommandLine(name string, args []string, dynamic []bool, stdin []string) CommandLine {
	prog := nativeName(name)
	windows := strings.HasPrefix(prog, "powershell")
	dyn := func(i int) bool { return len(dynamic) == len(args) && dynamic[i] }
	rest := func(from int) (string, bool) {
		var b strings.Builder
		d := false
		for j := from; j < len(args); j++ {
			if j > from {
				b.WriteByte(' ')
			}
			a := args[j]
			if dyn(j) {
				d = true
				// A word decided at run time keeps its source text:
				// drop its quotes, read the rest as code.
				if len(a) >= 2 && a[0] == '"' && a[len(a)-1] == '"' {
					a = a[1 : len(a)-1]
				}
			}
			b.WriteString(a)
		}
		return b.String(), d
	}
	fromStdin := func() CommandLine {
		cl := CommandLine{HasCode: true, Via: prog + " (standard input)"}
		if len(stdin) == 0 {
			// What a program pipes in, or a terminal: known at run time.
			cl.Dynamic = true
			return cl
		}
		cl.Code = strings.Join(stdin, "\n")
		return cl
	}
	for i := 0; i < len(args); i++ {
		a := strings.TrimSpace(args[i])
		if a == "" {
			continue
		}
		if dyn(i) {
			// A word the shell decides at run time where a switch could
			// stand: it could be -Command.
			code, _ := rest(i)
			return CommandLine{Code: code, HasCode: true, Dynamic: true, Via: prog + " " + args[i]}
		}
		first, w := runeAt(a, 0)
		if !isDash(first) && first != '/' {
			if windows {
				code, d := rest(i)
				return CommandLine{Code: code, HasCode: true, Dynamic: d, Via: prog + " -Command"}
			}
			return CommandLine{File: a}
		}
		key := a[w:]
		if second, sw := runeAt(key, 0); second == first && isDash(first) {
			key = key[sw:]
		}
		if key == "" && !windows {
			// pwsh -: the script on standard input.
			return fromStdin()
		}
		spec, ok := lookupSwitch(key)
		if !ok {
			if windows {
				code, d := rest(i)
				return CommandLine{Code: code, HasCode: true, Dynamic: d, Via: prog + " -Command"}
			}
			return CommandLine{File: a}
		}
		switch spec.takes {
		case stops:
			return CommandLine{}
		case takesValue:
			i++
		case takesFile:
			if i+1 >= len(args) {
				return CommandLine{}
			}
			if args[i+1] == "-" {
				return fromStdin()
			}
			return CommandLine{File: args[i+1]}
		case takesCommand, takesCommandWithArgs:
			if i+1 >= len(args) {
				return CommandLine{}
			}
			if args[i+1] == "-" && !dyn(i+1) {
				return fromStdin()
			}
			via := prog + " -Command"
			if spec.takes == takesCommandWithArgs {
				// The word after -CommandWithArgs is the code; the
				// words after it are its $args.
				return CommandLine{Code: args[i+1], HasCode: true, Dynamic: dyn(i + 1), Via: prog + " -CommandWithArgs"}
			}
			code, d := rest(i + 1)
			return CommandLine{Code: code, HasCode: true, Dynamic: d, Via: via}
		case takesEncoded:
			cl := CommandLine{HasCode: true, Dynamic: true, Via: prog + " -EncodedCommand"}
			if i+1 >= len(args) {
				return CommandLine{}
			}
			if !dyn(i + 1) {
				if code, err := decodeUTF16Base64(args[i+1]); err == nil {
					cl.Code, cl.Dynamic = code, false
				}
			}
			return cl
		}
	}
	// No command and no file: PowerShell reads its commands from
	// standard input.
	return fromStdin()
}

// lookupSwitch finds the switch key (without its dash) stands for.
func lookupSwitch(key string) (switchSpec, bool) {
	lower := strings.ToLower(key)
	for _, s := range switches {
		if len(lower) >= len(s.min) && strings.HasPrefix(s.name, lower) {
			return s, true
		}
	}
	return switchSpec{}, false
}

// decodeUTF16Base64 decodes an -EncodedCommand: base64 of UTF-16LE.
func decodeUTF16Base64(s string) (string, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return "", err
	}
	u := make([]uint16, len(raw)/2)
	for i := range u {
		u[i] = uint16(raw[2*i]) | uint16(raw[2*i+1])<<8
	}
	return string(utf16.Decode(u)), nil
}
