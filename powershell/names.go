package powershell

import (
	"path"
	"strings"
	"sync"
)

// PowerShell looks a command name up as an alias, then a function or
// cmdlet, then a program on the path. The reader resolves the aliases
// PowerShell defines (InitialSessionState.BuiltInAliases in the
// PowerShell repository, and the CimCmdlets module's), those the code
// sets itself (Set-Alias, New-Alias, sal, nal, Set-Item alias:...), tells
// cmdlets from programs by their approved verb (Stop-VM is a cmdlet,
// apt-get a program), and names programs by their file name.

// aliasKind says where a built-in alias exists.
type aliasKind uint8

const (
	everywhere aliasKind = iota
	// windowsOnly aliases are not defined by PowerShell on Linux and
	// macOS, where the name is a program (rm, ls, cp, kill, sort...): the
	// name is read both ways.
	windowsOnly
	// windowsPowerShell aliases exist in Windows PowerShell 5.1 only
	// (sc is Set-Content there, and the sc.exe program in PowerShell 7).
	windowsPowerShell
)

type builtinAlias struct {
	target string
	kind   aliasKind
}

// builtinAliases are PowerShell's own aliases, by lower-case name.
var builtinAliases = sync.OnceValue(func() map[string]builtinAlias {
	return map[string]builtinAlias{
		"foreach": {"ForEach-Object", everywhere}, "%": {"ForEach-Object", everywhere},
		"where": {"Where-Object", everywhere}, "?": {"Where-Object", everywhere},
		"clc": {"Clear-Content", everywhere}, "cli": {"Clear-Item", everywhere},
		"clp": {"Clear-ItemProperty", everywhere}, "clv": {"Clear-Variable", everywhere},
		"cpi": {"Copy-Item", everywhere}, "cvpa": {"Convert-Path", everywhere},
		"dbp": {"Disable-PSBreakpoint", everywhere}, "ebp": {"Enable-PSBreakpoint", everywhere},
		"epal": {"Export-Alias", everywhere}, "epcsv": {"Export-Csv", everywhere},
		"fl": {"Format-List", everywhere}, "ft": {"Format-Table", everywhere}, "fw": {"Format-Wide", everywhere},
		"gal": {"Get-Alias", everywhere}, "gbp": {"Get-PSBreakpoint", everywhere},
		"gc": {"Get-Content", everywhere}, "gci": {"Get-ChildItem", everywhere},
		"gcm": {"Get-Command", everywhere}, "gdr": {"Get-PSDrive", everywhere},
		"gcs": {"Get-PSCallStack", everywhere}, "ghy": {"Get-History", everywhere},
		"gi": {"Get-Item", everywhere}, "gl": {"Get-Location", everywhere},
		"gm": {"Get-Member", everywhere}, "gmo": {"Get-Module", everywhere},
		"gp": {"Get-ItemProperty", everywhere}, "gpv": {"Get-ItemPropertyValue", everywhere},
		"gps": {"Get-Process", everywhere}, "group": {"Group-Object", everywhere},
		"gu": {"Get-Unique", everywhere}, "gv": {"Get-Variable", everywhere},
		"iex": {"Invoke-Expression", everywhere}, "ihy": {"Invoke-History", everywhere},
		"ii": {"Invoke-Item", everywhere}, "ipmo": {"Import-Module", everywhere},
		"ipal": {"Import-Alias", everywhere}, "ipcsv": {"Import-Csv", everywhere},
		"measure": {"Measure-Object", everywhere}, "mi": {"Move-Item", everywhere},
		"mp": {"Move-ItemProperty", everywhere}, "nal": {"New-Alias", everywhere},
		"ndr": {"New-PSDrive", everywhere}, "ni": {"New-Item", everywhere},
		"nv": {"New-Variable", everywhere}, "nmo": {"New-Module", everywhere},
		"oh": {"Out-Host", everywhere}, "rbp": {"Remove-PSBreakpoint", everywhere},
		"rdr": {"Remove-PSDrive", everywhere}, "ri": {"Remove-Item", everywhere},
		"rni": {"Rename-Item", everywhere}, "rnp": {"Rename-ItemProperty", everywhere},
		"rp": {"Remove-ItemProperty", everywhere}, "rmo": {"Remove-Module", everywhere},
		"rv": {"Remove-Variable", everywhere}, "gerr": {"Get-Error", everywhere},
		"rvpa": {"Resolve-Path", everywhere}, "sal": {"Set-Alias", everywhere},
		"sbp": {"Set-PSBreakpoint", everywhere}, "select": {"Select-Object", everywhere},
		"si": {"Set-Item", everywhere}, "sl": {"Set-Location", everywhere},
		"sp": {"Set-ItemProperty", everywhere}, "saps": {"Start-Process", everywhere},
		"spps": {"Stop-Process", everywhere}, "sv": {"Set-Variable", everywhere},
		"irm": {"Invoke-RestMethod", everywhere}, "iwr": {"Invoke-WebRequest", everywhere},
		"cd": {"Set-Location", everywhere}, "dir": {"Get-ChildItem", everywhere},
		"echo": {"Write-Output", everywhere}, "fc": {"Format-Custom", everywhere},
		"pwd": {"Get-Location", everywhere}, "type": {"Get-Content", everywhere},
		"h": {"Get-History", everywhere}, "history": {"Get-History", everywhere},
		"md": {"mkdir", everywhere}, "popd": {"Pop-Location", everywhere},
		"pushd": {"Push-Location", everywhere}, "r": {"Invoke-History", everywhere},
		"cls": {"Clear-Host", everywhere}, "chdir": {"Set-Location", everywhere},
		"copy": {"Copy-Item", everywhere}, "del": {"Remove-Item", everywhere},
		"erase": {"Remove-Item", everywhere}, "move": {"Move-Item", everywhere},
		"rd": {"Remove-Item", everywhere}, "ren": {"Rename-Item", everywhere},
		"set": {"Set-Variable", everywhere}, "icm": {"Invoke-Command", everywhere},
		"clhy": {"Clear-History", everywhere},
		"gjb":  {"Get-Job", everywhere}, "rcjb": {"Receive-Job", everywhere},
		"rjb": {"Remove-Job", everywhere}, "sajb": {"Start-Job", everywhere},
		"spjb": {"Stop-Job", everywhere}, "wjb": {"Wait-Job", everywhere},
		"nsn": {"New-PSSession", everywhere}, "gsn": {"Get-PSSession", everywhere},
		"rsn": {"Remove-PSSession", everywhere}, "etsn": {"Enter-PSSession", everywhere},
		"rcsn": {"Receive-PSSession", everywhere}, "exsn": {"Exit-PSSession", everywhere},
		"sls": {"Select-String", everywhere},
		// The CimCmdlets module's aliases.
		"gcai": {"Get-CimAssociatedInstance", everywhere}, "gcls": {"Get-CimClass", everywhere},
		"gcim": {"Get-CimInstance", everywhere}, "gcms": {"Get-CimSession", everywhere},
		"icim": {"Invoke-CimMethod", everywhere}, "ncim": {"New-CimInstance", everywhere},
		"ncms": {"New-CimSession", everywhere}, "ncso": {"New-CimSessionOption", everywhere},
		"rcie": {"Register-CimIndicationEvent", everywhere}, "rcim": {"Remove-CimInstance", everywhere},
		"rcms": {"Remove-CimSession", everywhere}, "scim": {"Set-CimInstance", everywhere},
		// Not defined on Linux and macOS, where these are programs.
		"ac": {"Add-Content", windowsOnly}, "clear": {"Clear-Host", windowsOnly},
		"compare": {"Compare-Object", windowsOnly}, "cpp": {"Copy-ItemProperty", windowsOnly},
		"diff": {"Compare-Object", windowsOnly}, "gsv": {"Get-Service", windowsOnly},
		"sleep": {"Start-Sleep", windowsOnly}, "sort": {"Sort-Object", windowsOnly},
		"start": {"Start-Process", windowsOnly}, "sasv": {"Start-Service", windowsOnly},
		"spsv": {"Stop-Service", windowsOnly}, "tee": {"Tee-Object", windowsOnly},
		"write": {"Write-Output", windowsOnly}, "cat": {"Get-Content", windowsOnly},
		"cp": {"Copy-Item", windowsOnly}, "ls": {"Get-ChildItem", windowsOnly},
		"man": {"help", windowsOnly}, "mount": {"New-PSDrive", windowsOnly},
		"mv": {"Move-Item", windowsOnly}, "ps": {"Get-Process", windowsOnly},
		"rm": {"Remove-Item", windowsOnly}, "rmdir": {"Remove-Item", windowsOnly},
		"cnsn": {"Connect-PSSession", windowsOnly}, "dnsn": {"Disconnect-PSSession", windowsOnly},
		"ogv": {"Out-GridView", windowsOnly}, "shcm": {"Show-Command", windowsOnly},
		"kill": {"Stop-Process", windowsOnly},
		// Windows PowerShell 5.1 only.
		"gwmi": {"Get-WmiObject", windowsPowerShell}, "iwmi": {"Invoke-WmiMethod", windowsPowerShell},
		"rwmi": {"Remove-WmiObject", windowsPowerShell}, "swmi": {"Set-WmiInstance", windowsPowerShell},
		"sc": {"Set-Content", windowsPowerShell}, "trcm": {"Trace-Command", windowsPowerShell},
		"curl": {"Invoke-WebRequest", windowsPowerShell}, "wget": {"Invoke-WebRequest", windowsPowerShell},
		"sujb": {"Suspend-Job", windowsPowerShell}, "rujb": {"Resume-Job", windowsPowerShell},
		"ipsn": {"Import-PSSession", windowsPowerShell}, "epsn": {"Export-PSSession", windowsPowerShell},
		"npssc": {"New-PSSessionConfigurationFile", windowsPowerShell},
		"lp":    {"Out-Printer", windowsPowerShell},
	}
})

// builtinFunctions are commands PowerShell defines as functions: names
// without a verb that are not programs.
var builtinFunctions = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"cd..": "Set-Location", `cd\`: "Set-Location", "cd~": "Set-Location",
		"pause": "Pause", "help": "help", "prompt": "prompt", "oss": "oss",
		"tabexpansion2": "TabExpansion2", "mkdir": "mkdir", "exec": "exec",
	}
})

// verbs are PowerShell's approved verbs (Get-Verb), and the verbs of
// cmdlets PowerShell and PowerCLI ship without approval (Sort-Object,
// Tee-Object, Shutdown-VMGuest, Answer-VMQuestion...).
var verbs = sync.OnceValue(func() map[string]bool {
	m := make(map[string]bool)
	for _, v := range strings.Fields(`add clear close copy enter exit find format get hide join lock move new
		open optimize pop push redo remove rename reset resize search select set show skip split step
		switch undo unlock watch connect disconnect read receive send write backup checkpoint compare
		compress convert convertfrom convertto dismount edit expand export group import initialize
		limit merge mount out publish restore save sync unpublish update debug measure repair resolve
		test trace approve assert build complete confirm deny deploy disable enable install invoke
		register request restart resume start stop submit suspend uninstall unregister wait block
		grant protect revoke unblock unprotect use
		foreach where sort tee shutdown answer apply`) {
		m[v] = true
	}
	return m
})

// IsCmdletName reports whether name is a cmdlet or function name:
// Verb-Noun with a verb PowerShell's cmdlets use.
func IsCmdletName(name string) bool { return isCmdletName(name) }

func isCmdletName(name string) bool {
	verb, noun, ok := strings.Cut(name, "-")
	return ok && noun != "" && verbs()[strings.ToLower(verb)] && !strings.ContainsAny(noun, `./\`)
}

// aliases are the aliases the code defines, by lower-case name.
type aliases struct {
	set map[string]aliasValue
}

type aliasValue struct {
	target  string
	dynamic bool
}

func newAliases() *aliases { return &aliases{} }

func (a *aliases) define(name, target string, dynamic bool) {
	if a.set == nil {
		a.set = make(map[string]aliasValue)
	}
	key := strings.ToLower(name)
	if old, ok := a.set[key]; ok && old.target != target && !old.dynamic {
		// Set twice to different commands: which one runs depends on
		// the order the code runs in.
		dynamic = true
	}
	a.set[key] = aliasValue{target: target, dynamic: dynamic}
}

// resolve looks name up as PowerShell would.
func (a *aliases) resolve(name string) resolved {
	written := name
	seen := 0
	for {
		v, ok := a.set[strings.ToLower(name)]
		if !ok {
			break
		}
		if v.dynamic {
			return resolved{name: written, alias: written, dynamic: true}
		}
		if seen++; seen > 8 {
			return resolved{name: written, alias: written, dynamic: true}
		}
		name = v.target
	}
	res := lookup(name)
	if name != written {
		res.alias = written
		// Before the alias is set, the name is what it was.
		plain := lookup(written)
		res.also = &plain
	}
	return res
}

// lookup resolves a name through PowerShell's own aliases and functions.
func lookup(name string) resolved {
	lower := strings.ToLower(name)
	if b, ok := builtinAliases()[lower]; ok {
		res := classify(b.target)
		res.alias = name
		if b.kind != everywhere {
			prog := resolved{name: nativeName(name), native: true}
			res.also = &prog
		}
		return res
	}
	if f, ok := builtinFunctions()[lower]; ok {
		return resolved{name: f, alias: name}
	}
	return classify(name)
}

// classify tells a cmdlet name from a program's.
func classify(name string) resolved {
	base := name
	if i := strings.LastIndexAny(base, `\/`); i >= 0 {
		base = base[i+1:]
	}
	if isCmdletName(base) {
		// A module-qualified name: VMware.VimAutomation.Core\Stop-VM.
		return resolved{name: base}
	}
	if strings.EqualFold(base, "foreach") || strings.EqualFold(base, "where") {
		return resolved{name: base}
	}
	return resolved{name: nativeName(name), native: true}
}

// nativeName names a program by its file name, without folder and
// without .exe, in lower case: Windows finds programs in any case.
func nativeName(name string) string {
	name = strings.ReplaceAll(name, `\`, "/")
	name = path.Base(name)
	lower := strings.ToLower(name)
	return strings.TrimSuffix(lower, ".exe")
}

// mayDefineAliases reports whether code could set an alias: it has
// "alias" (Set-Alias, New-Alias, alias:) or the word "sal" or "nal" in
// it, in any case.
func mayDefineAliases(code string) bool {
	return containsFold(code, "alias", false) || containsFold(code, "sal", true) || containsFold(code, "nal", true)
}

// containsFold reports whether s holds the ASCII word w in any case; with
// whole set, not as part of a longer identifier.
func containsFold(s, w string, whole bool) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		if s[i]|0x20 != w[0] {
			continue
		}
		j := 1
		for j < len(w) && s[i+j]|0x20 == w[j] {
			j++
		}
		if j < len(w) {
			continue
		}
		if !whole || (i == 0 || !isIdentChar(rune(s[i-1]))) && (i+j == len(s) || !isIdentChar(rune(s[i+j]))) {
			return true
		}
	}
	return false
}
