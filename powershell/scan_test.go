package powershell

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// render shows the findings of code, one a line: a command as its name
// and arguments (a value known at run time in <>, a program marked
// native), where it runs (@host, @? for computers known at run time), the
// files it writes (>file), its standard input (<text) and the steps that
// took it there (via a|b); then dynamic code, code for other interpreters
// and what was not read.
func render(code string) []string {
	var out []string
	Scan(code, func(f Finding) {
		var b strings.Builder
		var at Place
		switch {
		case f.Command != nil:
			c := f.Command
			if c.Native {
				b.WriteString("native ")
			}
			b.WriteString(c.Name)
			for _, a := range c.Args {
				b.WriteByte(' ')
				if a.Dynamic {
					b.WriteString("<" + a.Text + ">")
				} else {
					b.WriteString(a.Text)
				}
			}
			for _, w := range c.Writes {
				b.WriteString(" >" + w)
			}
			for _, s := range c.Stdin {
				b.WriteString(" <" + s)
			}
			if c.Analysed {
				b.WriteString(" (analysed)")
			}
			at = c.Place
		case f.Dynamic != nil:
			b.WriteString("dynamic: " + f.Dynamic.Source)
			at = f.Dynamic.Place
		case f.Code != nil:
			b.WriteString("code(" + f.Code.Lang + "): " + f.Code.Text)
			at = f.Code.Place
		case f.Unparsed != nil:
			b.WriteString("unparsed")
			if f.Unparsed.Limit {
				b.WriteString("(limit)")
			}
			b.WriteString(": " + f.Unparsed.Err)
			at = f.Unparsed.Place
		}
		if at.Remote {
			b.WriteString(" @" + strings.Join(at.Hosts, ","))
			if len(at.Hosts) == 0 {
				b.WriteString("?")
			}
		}
		if len(at.Via) > 0 {
			b.WriteString(" via " + strings.Join(at.Via, "|"))
		}
		out = append(out, b.String())
	})
	return out
}

// scanCases are the reader's cases; they seed FuzzScan.
var scanCases = []struct {
	code string
	want []string
}{
	// Commands and arguments, quoting and escapes.
	{"Stop-VM -VM web-01 -Confirm:$false", []string{"Stop-VM -VM web-01 <-Confirm:$false>"}},
	{"stop-vm 'web 01' \"web-02\" web`-03", []string{"stop-vm web 01 web-02 web-03"}},
	{"Stop-VM -VM:web-01", []string{"Stop-VM -VM:web-01"}},
	{"Stop-VM \u2013VM web-01 \u2014Confirm \u2015Kill", []string{"Stop-VM -VM web-01 -Confirm -Kill"}},
	{"Stop-VM \u2018web-01\u2019 \u201cweb-02\u201d", []string{"Stop-VM web-01 web-02"}},
	{"Restart-VM web-01, web-02,web-03", []string{"Restart-VM web-01,web-02,web-03"}},
	{"Restart-VM web-01,\n  web-02", []string{"Restart-VM web-01,web-02"}},
	{"Stop-VM it''s 'it''s' \"a\"\"b\"", []string{"Stop-VM its it's a\"b"}},
	{"Write-Output a#b # Stop-VM web-01", []string{"Write-Output a#b"}},
	{"<# Stop-VM web-01\nRemove-VM x #> Get-VM", []string{"Get-VM"}},
	{"Stop-VM `\n  -VM web-01", []string{"Stop-VM -VM web-01"}},
	{"VMware.VimAutomation.Core\\Stop-VM web-01", []string{"Stop-VM web-01"}},
	{"Stop-VM /VM web-01", []string{"Stop-VM /VM web-01"}},
	{"Stop-VM \"$name\" \"web-$i\" web-$i", []string{"Stop-VM <\"$name\"> <\"web-$i\"> <web-$i>"}},
	{"Stop-VM ${vm name}", []string{"Stop-VM <${vm name}>"}},
	{"Set-Content $HOME/.claude/settings.json $x-y", []string{"Set-Content <$HOME/.claude/settings.json> <$x-y>"}},
	// Data is not code.
	{"Write-Host 'Stop-VM web-01; Remove-VM web-02'", []string{"Write-Host Stop-VM web-01; Remove-VM web-02"}},
	{"$s = 'Remove-VM web-01'", nil},
	{"@'\nRemove-VM web-01 $(Remove-VM web-02)\n'@", nil},
	{"$x = @\"\nhello $(Stop-VM web-01) `$(not code)\n\"@", []string{"Stop-VM web-01"}},
	{"\"Stop-VM web-01\"", nil},
	{"Write-Host \"Stop-VM $(Restart-VM web-05) done\"", []string{"Write-Host <\"Stop-VM $(Restart-VM web-05) done\">", "Restart-VM web-05"}},
	{"Write-Host a$(Stop-VM web-06)b", []string{"Write-Host <a$(Stop-VM web-06)b>", "Stop-VM web-06"}},
	{"Write-Host \"`$(Stop-VM web-01)\"", []string{"Write-Host $(Stop-VM web-01)"}},
	// Statements, pipelines and keywords.
	{"Get-VM web-01 | Stop-VM; Start-VM web-02\nRestart-VM web-03 && Suspend-VM web-04 || Save-VM web-05",
		[]string{"Get-VM web-01", "Stop-VM", "Start-VM web-02", "Restart-VM web-03", "Suspend-VM web-04", "Save-VM web-05"}},
	{"Get-VM |\n  Stop-VM", []string{"Get-VM", "Stop-VM"}},
	{"if ($x -eq (Get-VM web-01)) { Stop-VM web-01 } elseif ($y) { Start-VM web-02 }\nelse { Get-VM }",
		[]string{"Get-VM web-01", "Stop-VM web-01", "Start-VM web-02", "Get-VM"}},
	{"foreach ($v in Get-VM web-0*) { Stop-VM $v }", []string{"Get-VM web-0*", "Stop-VM <$v>"}},
	{"for ($i = 0; $i -lt 3; $i++) { Restart-VM \"web-$i\" }", []string{"Restart-VM <\"web-$i\">"}},
	{"while ($true) { Get-VM }; do { Stop-VM a } until ($done)", []string{"Get-VM", "Stop-VM a"}},
	{"try { Remove-VM web-09 } catch [System.Exception], [IO.IOException] { Write-Host $_ } finally { Start-VM b }",
		[]string{"Remove-VM web-09", "Write-Host <$_>", "Start-VM b"}},
	{"switch -regex ($x) { Stop-VM { 'a' } 'Remove-VM' { Start-VM b } default { Get-VM } }", []string{"Start-VM b", "Get-VM"}},
	{"function Stop-All($names = (Get-VM)) { param([string]$x) Stop-VM $names }", []string{"Get-VM", "Stop-VM <$names>"}},
	{"function global:Do-It { Remove-VM x }", []string{"Remove-VM x"}},
	{"class Lab { [string]$Name = 'Stop-VM'; [void] Reset() { Restart-VM web-07 } }", []string{"Restart-VM web-07"}},
	{"enum Kind { Stop; Start = 2 }", nil},
	{":outer foreach ($a in $b) { break outer }; continue", nil},
	{"return Stop-VM web-01", []string{"Stop-VM web-01"}},
	{"$r = Stop-VM web-01; [int]$n += Restart-VM web-02", []string{"Stop-VM web-01", "Restart-VM web-02"}},
	{"$h = @{ Name = 'Stop-VM'; Run = { Restart-VM web-04 }; Now = Get-Date }", []string{"Restart-VM web-04", "Get-Date"}},
	{"Get-VM | Select-Object @{ n = 'N'; e = { $_.Name } }", []string{"Get-VM", "Select-Object <@{ n = 'N'; e = { $_.Name } }>"}},
	{"using namespace System.IO\nGet-VM", []string{"Get-VM"}},
	{"[CmdletBinding()]\nparam([ValidateScript({ Test-Path $_ })][string]$p)\nGet-Item $p", []string{"Test-Path <$_>", "Get-Item <$p>"}},
	// Values of expressions.
	{"Stop-VM -VM (Get-VM web-01) $(Get-Date) @(1,2)", []string{"Stop-VM -VM <(Get-VM web-01)> <$(Get-Date)> <@(1,2)>", "Get-VM web-01", "Get-Date"}},
	{"Stop-VM @params", []string{"Stop-VM <@params>"}},
	{"Stop-VM $vm.Name $list[0]", []string{"Stop-VM <$vm.Name> <$list[0]>"}},
	{"$s.Trim().ToUpper(); 'x'.Replace('a', 'b'); [math]::Round(1.5); [string]::Join(',', $a)", nil},
	{"(Get-Date).AddDays(-1).ToString('u')", []string{"Get-Date"}},
	// Code known only at run time.
	{"& $cmd web-01", []string{"dynamic: & $cmd web-01"}},
	{". $script", []string{"dynamic: . $script"}},
	{"& (\"Sto\"+\"p-VM\") web-01", []string{"dynamic: & (\"Sto\"+\"p-VM\") web-01"}},
	{"$cmd web-01", []string{"dynamic: $cmd web-01"}},
	{"& 'C:\\Program Files\\govc.exe' vm.destroy web-01", []string{"native govc vm.destroy web-01"}},
	{"& { Stop-VM web-01 } -x; . { Start-VM web-02 }", []string{"Stop-VM web-01", "Start-VM web-02"}},
	{". .\\deploy.ps1 -VM web-01", []string{"native deploy.ps1 -VM web-01"}},
	{"$vm.ExtensionData.PowerOffVM_Task()", []string{"dynamic: $vm.ExtensionData.PowerOffVM_Task()"}},
	{"(Get-VM web-01).ExtensionData.Destroy()", []string{"Get-VM web-01", "dynamic: (Get-VM web-01).ExtensionData.Destroy()"}},
	{"$x.$method()", []string{"dynamic: $x.$method()"}},
	{"Get-Process | % Kill; Get-VM | ForEach-Object Name", []string{"Get-Process", "dynamic: ForEach-Object Kill", "ForEach-Object Kill", "Get-VM", "ForEach-Object Name"}},
	// Code built from strings.
	{"iex \"Stop-VM web-01\"; Invoke-Expression -Command 'Remove-VM web-02'", []string{"Stop-VM web-01 via Invoke-Expression", "Remove-VM web-02 via Invoke-Expression"}},
	{"'Remove-VM web-01' | Invoke-Expression", []string{"Remove-VM web-01 via Invoke-Expression"}},
	{"iex $code; Get-Content x.ps1 | iex", []string{"dynamic: Invoke-Expression $code", "Get-Content x.ps1", "dynamic: Invoke-Expression"}},
	{"[scriptblock]::Create('Stop-VM web-01').Invoke()", []string{"Stop-VM web-01 via [scriptblock]::Create"}},
	{"[ScriptBlock]::Create($s)", []string{"dynamic: [ScriptBlock]::Create($s)"}},
	{"$ExecutionContext.InvokeCommand.InvokeScript('Restart-VM web-02')", []string{"Restart-VM web-02 via .InvokeScript"}},
	{"[powershell]::Create().AddScript('Stop-VM web-03').Invoke()", []string{"Stop-VM web-03 via .AddScript"}},
	{"$ps.AddScript($code)", []string{"dynamic: $ps.AddScript($code)"}},
	// Programs.
	{"ssh web-01 'sudo reboot'; govc vm.destroy web-02", []string{"native ssh web-01 sudo reboot", "native govc vm.destroy web-02"}},
	{"C:\\tools\\GOVC.EXE vm.power -off web-01", []string{"native govc vm.power -off web-01"}},
	{"apt-get install x; ssh-keygen -t ed25519", []string{"native apt-get install x", "native ssh-keygen -t ed25519"}},
	{"ssh web-01 --% sudo reboot %HOST% | Get-Item", []string{"native ssh web-01 sudo reboot <%HOST%>", "Get-Item"}},
	{"'reboot', 'uptime' | ssh web-01", []string{"native ssh web-01 <reboot <uptime"}},
	{"Get-Content s.sh | bash", []string{"Get-Content s.sh", "native bash"}},
	// A script block handed to a program is its text; the reader reads it
	// as code here too.
	{"ssh web-01 { sudo reboot }", []string{"native ssh web-01  sudo reboot ", "native sudo reboot"}},
	{"pwsh { Stop-VM web-01 }", []string{"native pwsh -Command  Stop-VM web-01 ", "Stop-VM web-01"}},
	{"exec ssh web-01 reboot", []string{"native ssh web-01 reboot via exec"}},
	{"Start-Process pwsh -ArgumentList '-c', 'Stop-VM web-01'", []string{"native pwsh -c Stop-VM web-01 via Start-Process"}},
	{"saps ssh 'web-01 sudo reboot'; start -FilePath cmd -ArgumentList '/c \"del x\"'",
		[]string{"native ssh web-01 sudo reboot via Start-Process", "native cmd /c del x via Start-Process", "native start -FilePath cmd -ArgumentList /c \"del x\""}},
	{"Start-Process $prog", []string{"dynamic: Start-Process $prog"}},
	{"Start-Process ssh -ArgumentList $a", []string{"native ssh <$a> via Start-Process"}},
	{"Start-Process notepad -RedirectStandardOutput .rewind.toml", []string{"native notepad >.rewind.toml via Start-Process"}},
	{"[Diagnostics.Process]::Start('govc', 'vm.destroy web-09')", []string{"native govc vm.destroy web-09 via [Diagnostics.Process]::Start"}},
	{"[System.Diagnostics.Process]::Start($psi)", []string{"dynamic: [System.Diagnostics.Process]::Start($psi)"}},
	{"ii .\\setup.exe", []string{"native setup via Invoke-Item"}},
	{"$ExecutionContext.InvokeCommand.CommandNotFoundAction = { param($n, $e) $e.Command = Get-Command Stop-VM }",
		[]string{"dynamic: $ExecutionContext.InvokeCommand.CommandNotFoundAction = ...", "Get-Command Stop-VM"}},
	{"$a = New-ScheduledTaskAction -Execute govc -Argument 'vm.destroy web-09'",
		[]string{"native govc vm.destroy web-09 via New-ScheduledTaskAction", "New-ScheduledTaskAction -Execute govc -Argument vm.destroy web-09"}},
	{"Invoke-WmiMethod -Class Win32_Process -Name Create -ArgumentList 'govc vm.destroy web-09'",
		[]string{"native govc vm.destroy web-09 via Win32_Process.Create", "Invoke-WmiMethod -Class Win32_Process -Name Create -ArgumentList govc vm.destroy web-09"}},
	{"Invoke-CimMethod -ClassName Win32_Process -MethodName Create -Arguments @{ CommandLine = $c }",
		[]string{"dynamic: Invoke-CimMethod Win32_Process Create", "Invoke-CimMethod -ClassName Win32_Process -MethodName Create -Arguments <@{ CommandLine = $c }>"}},
	{"Invoke-CimMethod -ClassName Win32_OperatingSystem -MethodName Reboot", []string{"Invoke-CimMethod -ClassName Win32_OperatingSystem -MethodName Reboot"}},
	// Aliases.
	{"spps -Name x; saps calc; icm { Get-VM }", []string{"Stop-Process -Name x", "native calc via Start-Process", "Invoke-Command { Get-VM } (analysed)", "Get-VM"}},
	{"rm .rewind.toml", []string{"Remove-Item .rewind.toml", "native rm .rewind.toml"}},
	{"sal x Stop-VM; x web-01", []string{"Set-Alias x Stop-VM", "Stop-VM web-01", "native x web-01"}},
	{"function f { zz web-03 }\nNew-Alias -Name zz -Value Remove-VM\nf", []string{"Remove-VM web-03", "native zz web-03", "New-Alias -Name zz -Value Remove-VM", "native f"}},
	{"Set-Alias Get-VM Stop-VM; Get-VM web-01", []string{"Set-Alias Get-VM Stop-VM", "Stop-VM web-01", "Get-VM web-01"}},
	{"Set-Item alias:q Remove-VM; q web-01", []string{"Set-Item alias:q Remove-VM", "Remove-VM web-01", "native q web-01"}},
	{"sal y $cmd; y web-01", []string{"Set-Alias y <$cmd>", "dynamic: y web-01"}},
	{"sal $n Stop-VM", []string{"dynamic: Set-Alias $n Stop-VM", "Set-Alias <$n> Stop-VM"}},
	// Remoting: where a script block runs.
	{"Invoke-Command -ComputerName web-01,web-02 -ScriptBlock { Restart-Service W3SVC }",
		[]string{"Invoke-Command -ComputerName web-01,web-02 -ScriptBlock { Restart-Service W3SVC } (analysed)", "Restart-Service W3SVC @web-01,web-02 via Invoke-Command -ComputerName web-01,web-02"}},
	{"icm { Restart-Service W3SVC } -Comp web-01", []string{"Invoke-Command { Restart-Service W3SVC } -Comp web-01 (analysed)", "Restart-Service W3SVC @web-01 via Invoke-Command -ComputerName web-01"}},
	{"icm web-01 { Stop-Service x }", []string{"Invoke-Command web-01 { Stop-Service x } (analysed)", "Stop-Service x @web-01 via Invoke-Command -ComputerName web-01"}},
	{"icm -Session $s { Stop-Service x }", []string{"Invoke-Command -Session <$s> { Stop-Service x } (analysed)", "Stop-Service x @? via Invoke-Command (computers decided at run time)"}},
	{"icm -ConnectionUri http://web-01:5985/wsman { x }", []string{"Invoke-Command -ConnectionUri http://web-01:5985/wsman { x } (analysed)", "native x @web-01 via Invoke-Command -ComputerName web-01"}},
	{"icm -ScriptBlock ([scriptblock]::Create('Restart-Service W3SVC')) -ComputerName web-01",
		[]string{"Invoke-Command -ScriptBlock <([scriptblock]::Create('Restart-Service W3SVC'))> -ComputerName web-01", "Restart-Service W3SVC @web-01 via Invoke-Command -ComputerName web-01|[scriptblock]::Create"}},
	{"icm -ComputerName jump { icm -ComputerName web-01 { Stop-Service x } }",
		[]string{"Invoke-Command -ComputerName jump { icm -ComputerName web-01 { Stop-Service x } } (analysed)",
			"Invoke-Command -ComputerName web-01 { Stop-Service x } (analysed) @jump via Invoke-Command -ComputerName jump",
			"Stop-Service x @web-01 via Invoke-Command -ComputerName jump|Invoke-Command -ComputerName web-01"}},
	{"icm -ComputerName web-01 { iex 'Restart-Service x' }", []string{"Invoke-Command -ComputerName web-01 { iex 'Restart-Service x' } (analysed)", "Restart-Service x @web-01 via Invoke-Command -ComputerName web-01|Invoke-Expression"}},
	{"Invoke-Command -ScriptBlock { Get-ChildItem }", []string{"Invoke-Command -ScriptBlock { Get-ChildItem } (analysed)", "Get-ChildItem"}},
	// Guest code of Invoke-VMScript.
	{"Invoke-VMScript -VM web-01 -ScriptText 'rm -rf /tmp/x' -ScriptType Bash",
		[]string{"code(sh): rm -rf /tmp/x @web-01 via Invoke-VMScript -VM web-01", "Invoke-VMScript -VM web-01 -ScriptText rm -rf /tmp/x -ScriptType Bash (analysed)"}},
	{"Get-VM web-02 | Invoke-VMScript 'Restart-Service W3SVC' -ScriptType PowerShell",
		[]string{"Get-VM web-02", "Restart-Service W3SVC @web-02 via Invoke-VMScript -VM web-02", "Invoke-VMScript Restart-Service W3SVC -ScriptType PowerShell (analysed)"}},
	{"Invoke-VMScript -VM web-* -ScriptText 'dir' -ScriptType Bat", []string{"code(cmd): dir @? via Invoke-VMScript (VMs decided at run time)", "Invoke-VMScript -VM web-* -ScriptText dir -ScriptType Bat (analysed)"}},
	{"Invoke-VMScript -VM web-01 -ScriptText $s", []string{"Invoke-VMScript -VM web-01 -ScriptText <$s>"}},
	// Files written.
	{"'x' > .rewind.toml; Get-VM >> log.txt 2>&1; Get-Item x 2> $null; Get-VM *> all.txt",
		[]string{"Out-File >.rewind.toml", "Get-VM >log.txt", "Get-Item x", "Get-VM >all.txt"}},
	// Without a space, > is part of the word, as PowerShell reads it.
	{"Get-VM>out.txt", []string{"native get-vm>out.txt"}},
	{"[IO.File]::WriteAllText('.rewind.toml', 'x'); [System.IO.File]::Move('a', 'b'); [IO.File]::ReadAllText('c')",
		[]string{"[System.IO.File]::WriteAllText >.rewind.toml", "[System.IO.File]::Move >a >b"}},
	// Not PowerShell, or past a limit.
	{"Stop-VM web-01; }", []string{"Stop-VM web-01", "unparsed: unexpected }"}},
	{"Stop-VM 'web-01", []string{"Stop-VM web-01", "unparsed: missing closing quote"}},
	{"if ($x) { Remove-VM web-01", []string{"Remove-VM web-01", "unparsed: missing closing bracket"}},
	{"\x00Stop-VM\x00 web-01", []string{"native \x00stop-vm\x00 web-01"}},
}

func TestScan(t *testing.T) {
	for _, tt := range scanCases {
		t.Run(tt.code, func(t *testing.T) {
			if got := render(tt.code); !slices.Equal(got, tt.want) {
				t.Errorf("got\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(tt.want, "\n\t"))
			}
		})
	}
}

// TestInput checks what the command after a | reads.
func TestInput(t *testing.T) {
	a := Analyze("Get-VM -Name web-01 | Stop-VM; 'a', 'b' | Stop-VM; $vms | Stop-VM; Get-VM | & $x | Stop-VM")
	var got []string
	for _, c := range a.Commands {
		switch {
		case c.Input == nil:
			got = append(got, c.Name+" <nothing")
		case c.Input.Dynamic:
			got = append(got, c.Name+" <dynamic")
		case c.Input.Values != nil:
			got = append(got, c.Name+" <"+strings.Join(c.Input.Values, ","))
		default:
			got = append(got, c.Name+" <command")
		}
	}
	want := []string{"Get-VM <nothing", "Stop-VM <command", "Stop-VM <a,b", "Stop-VM <dynamic", "Get-VM <nothing", "Stop-VM <dynamic"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	var froms []string
	Scan("Get-VM -Name web-01 | Stop-VM; Get-VM web-02 | Stop-VM; Stop-VM -VM web-03 | Set-VM; Get-VM | Stop-VM; Get-VM $x | Stop-VM", func(f Finding) {
		c := f.Command
		if c == nil || c.Input == nil || c.Input.From == nil {
			return
		}
		vms, dyn := c.Input.From.NamedVMs()
		s := ""
		for _, v := range vms {
			s += v.Text
		}
		if dyn {
			s += "(dynamic)"
		}
		froms = append(froms, s)
	})
	if want := []string{"web-01", "web-02", "web-03", "", "$x(dynamic)"}; !slices.Equal(froms, want) {
		t.Errorf("named VMs %q, want %q", froms, want)
	}
}

func encode(code string) string {
	var b []byte
	for _, u := range utf16.Encode([]rune(code)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return base64.StdEncoding.EncodeToString(b)
}

func TestReadCommandLine(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		dyn   []bool
		stdin []string
		want  CommandLine
	}{
		{"pwsh", []string{"-NoProfile", "-Command", "Stop-VM", "web-01"}, nil, nil, CommandLine{Code: "Stop-VM web-01", HasCode: true, Via: "pwsh -Command"}},
		{"pwsh", []string{"-c", "Stop-VM web-01"}, nil, nil, CommandLine{Code: "Stop-VM web-01", HasCode: true, Via: "pwsh -Command"}},
		{"pwsh", []string{"-com", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -Command"}},
		{"pwsh", []string{"--command", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -Command"}},
		{"pwsh.exe", []string{"/c", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -Command"}},
		{"PowerShell.EXE", []string{"/Command", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "powershell -Command"}},
		{"pwsh", []string{"\u2013Command", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -Command"}},
		{"pwsh", []string{"-ep", "Bypass", "-w", "Hidden", "-c", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -Command"}},
		{"pwsh", []string{"-e", encode("Stop-VM web-07")}, nil, nil, CommandLine{Code: "Stop-VM web-07", HasCode: true, Via: "pwsh -EncodedCommand"}},
		{"pwsh", []string{"-ec", "%%%"}, nil, nil, CommandLine{HasCode: true, Dynamic: true, Via: "pwsh -EncodedCommand"}},
		{"pwsh", []string{"-ex", "Bypass", "-en", encode("x")}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -EncodedCommand"}},
		{"pwsh", []string{"-cwa", "Stop-VM $args[0]", "web-01"}, nil, nil, CommandLine{Code: "Stop-VM $args[0]", HasCode: true, Via: "pwsh -CommandWithArgs"}},
		{"pwsh", []string{"-CommandWithArgs", "x"}, nil, nil, CommandLine{Code: "x", HasCode: true, Via: "pwsh -CommandWithArgs"}},
		{"pwsh", []string{"./deploy.ps1", "-c", "x"}, nil, nil, CommandLine{File: "./deploy.ps1"}},
		{"pwsh", []string{"-File", "x.ps1"}, nil, nil, CommandLine{File: "x.ps1"}},
		{"powershell", []string{"-NoProfile", "Get-VM", "|", "Stop-VM"}, nil, nil, CommandLine{Code: "Get-VM | Stop-VM", HasCode: true, Via: "powershell -Command"}},
		{"pwsh", []string{"-Command", "-"}, nil, []string{"Stop-VM web-01"}, CommandLine{Code: "Stop-VM web-01", HasCode: true, Via: "pwsh (standard input)"}},
		{"pwsh", []string{"-"}, nil, []string{"a", "b"}, CommandLine{Code: "a\nb", HasCode: true, Via: "pwsh (standard input)"}},
		{"pwsh", []string{"-File", "-"}, nil, nil, CommandLine{HasCode: true, Dynamic: true, Via: "pwsh (standard input)"}},
		{"pwsh", []string{"-NoProfile"}, nil, nil, CommandLine{HasCode: true, Dynamic: true, Via: "pwsh (standard input)"}},
		{"pwsh", nil, nil, []string{"Get-VM"}, CommandLine{Code: "Get-VM", HasCode: true, Via: "pwsh (standard input)"}},
		{"pwsh", []string{"-Version"}, nil, nil, CommandLine{}},
		{"pwsh", []string{"-c", `"Stop-VM $VM"`}, []bool{false, true}, nil, CommandLine{Code: "Stop-VM $VM", HasCode: true, Dynamic: true, Via: "pwsh -Command"}},
		{"pwsh", []string{"$OPT", "x"}, []bool{true, false}, nil, CommandLine{Code: "$OPT x", HasCode: true, Dynamic: true, Via: "pwsh $OPT"}},
	}
	for _, tt := range tests {
		got := ReadCommandLine(tt.name, tt.args, tt.dyn, tt.stdin)
		if got != tt.want {
			t.Errorf("%s %q: got %+v, want %+v", tt.name, tt.args, got, tt.want)
		}
	}
}

func TestIsPowerShell(t *testing.T) {
	for _, n := range []string{"pwsh", "pwsh.exe", "PowerShell", "powershell.EXE", `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, "/usr/bin/pwsh"} {
		if !IsPowerShell(n) {
			t.Errorf("IsPowerShell(%q) = false", n)
		}
	}
	for _, n := range []string{"bash", "pwshx", "powershell_ise"} {
		if IsPowerShell(n) {
			t.Errorf("IsPowerShell(%q) = true", n)
		}
	}
}

func TestSplitCommandLine(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`a b  c`, []string{"a", "b", "c"}},
		{`"a b" c`, []string{"a b", "c"}},
		{`a\"b "c\\" d`, []string{`a"b`, `c\`, "d"}},
		{`"a ""b"" c"`, []string{`a "b" c`}},
		{`\\server\share x`, []string{`\\server\share`, "x"}},
	}
	for _, tt := range tests {
		var got []string
		for _, a := range splitCommandLine(tt.line, false) {
			got = append(got, a.Text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.line, got, tt.want)
		}
	}
}
