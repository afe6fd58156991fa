package powershell

// Place is where code runs, relative to where the code read runs: here,
// or on the computers a remoting cmdlet names.
type Place struct {
	// Remote is set for code that runs on other computers: Hosts, or
	// computers decided at run time when Hosts is empty.
	Remote bool `json:"remote,omitempty"`
	// Hosts are the computers, as written.
	Hosts []string `json:"hosts,omitempty"`
	// Via lists the steps that took the code there, outermost first:
	// "Invoke-Command -ComputerName web-01", "Invoke-Expression".
	Via []string `json:"via,omitempty"`
}

// ArgKind says how an argument was written.
type ArgKind uint8

// The kinds of Arg.
const (
	// Word is a bare word, a quoted string, a number or a variable.
	Word ArgKind = iota
	// Param is a parameter name: "-Name", or "-Name:value" with its
	// value attached.
	Param
	// Block is a script block; Text is its source with the braces.
	Block
	// Expr is a value computed by (...), $(...), @(...) or @{...};
	// Text is its source.
	Expr
)

// Arg is one argument of a command.
type Arg struct {
	// Text is the argument's value with quotes and escapes removed, or,
	// when Dynamic, its source text. The elements of a list written
	// with commas ("a, b") are joined by ",". A parameter's dash is
	// "-" however it was written (–Name is -Name).
	Text string `json:"text"`
	// Dynamic is set when the value is known only at run time: a
	// variable, a (...) value, a string with $ in it.
	Dynamic bool    `json:"dynamic,omitempty"`
	Kind    ArgKind `json:"kind,omitempty"`
	// Quoted is set when the argument was written in quotes: "-Name"
	// in quotes is a value, not a parameter.
	Quoted bool `json:"quoted,omitempty"`
	// List holds the elements of a list written with commas.
	List []string `json:"list,omitempty"`
}

// Input is what a command reads from the pipeline before it.
type Input struct {
	// From is the command before it in the pipeline, or nil when the
	// pipeline starts with a value.
	From *Command `json:"-"`
	// Values are the values of a pipeline that starts with literals
	// ('web-01', 'web-02' | Stop-VM), when known.
	Values []string `json:"values,omitempty"`
	// Dynamic is set when the values are known only at run time
	// ($vms | Stop-VM).
	Dynamic bool `json:"dynamic,omitempty"`
}

// Command is one command PowerShell would run.
type Command struct {
	// Name is the command as PowerShell looks it up: a module
	// qualifier dropped (VMware.VimAutomation.Core\Stop-VM is Stop-VM),
	// an alias replaced by the command it stands for (spps is
	// Stop-Process), and for a program its file name without folder and
	// without .exe, in lower case (C:\tools\GOVC.EXE is govc).
	Name string `json:"name"`
	// Alias is the name as written, when it was an alias.
	Alias string `json:"alias,omitempty"`
	// Native is set for a program rather than a cmdlet or function:
	// PowerShell hands it the arguments as its argv.
	Native bool  `json:"native,omitempty"`
	Args   []Arg `json:"args,omitempty"`
	// Place is where it runs.
	Place Place `json:"place"`
	// Input is set when the command reads a pipeline.
	Input *Input `json:"input,omitempty"`
	// Writes are the files its redirections write (> file, 2>> file),
	// as static text or, when known only at run time, as source text.
	Writes []string `json:"writes,omitempty"`
	// Stdin is the static text a program reads on its standard input,
	// piped to it from literals ('reboot' | ssh web-01).
	Stdin []string `json:"stdin,omitempty"`
	// Analysed is set when the code the command runs elsewhere was
	// read and reported on its own: the script block of Invoke-Command,
	// the -ScriptText of Invoke-VMScript.
	Analysed bool `json:"analysed,omitempty"`
}

// Dynamic is code whose command PowerShell decides at run time: & $x,
// . $x, Invoke-Expression $s, a method of an object ($vm.PowerOffVM()),
// an alias set to a value known only at run time.
type Dynamic struct {
	Source string `json:"source"`
	Place  Place  `json:"place"`
}

// Code is code PowerShell hands to another interpreter: the -ScriptText
// of Invoke-VMScript with -ScriptType Bash or Bat, run in a guest.
type Code struct {
	// Lang is "sh" or "cmd".
	Lang  string `json:"lang"`
	Text  string `json:"text"`
	Place Place  `json:"place"`
}

// Unparsed is code the reader could not read.
type Unparsed struct {
	Text  string `json:"text"`
	Err   string `json:"error"`
	Place Place  `json:"place"`
	// Limit is set when the code is past a limit of the reader rather
	// than not valid PowerShell: it may well run, and may hold anything.
	Limit bool `json:"limit,omitempty"`
}

// Finding is one result of Scan: exactly one field is set.
type Finding struct {
	Command  *Command
	Dynamic  *Dynamic
	Code     *Code
	Unparsed *Unparsed
}

// Analysis is the result of Analyze.
type Analysis struct {
	Commands []Command  `json:"commands"`
	Dynamic  []Dynamic  `json:"dynamic,omitempty"`
	Code     []Code     `json:"code,omitempty"`
	Unparsed []Unparsed `json:"unparsed,omitempty"`
}

// Analyze reads code whole; Scan streams the same findings.
func Analyze(code string) *Analysis {
	a := &Analysis{}
	Scan(code, func(f Finding) {
		switch {
		case f.Command != nil:
			c := *f.Command
			if c.Input != nil {
				in := *c.Input
				in.From = nil
				c.Input = &in
			}
			a.Commands = append(a.Commands, c)
		case f.Dynamic != nil:
			a.Dynamic = append(a.Dynamic, *f.Dynamic)
		case f.Code != nil:
			a.Code = append(a.Code, *f.Code)
		case f.Unparsed != nil:
			a.Unparsed = append(a.Unparsed, *f.Unparsed)
		}
	})
	return a
}
