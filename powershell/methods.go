package powershell

import (
	"strings"
	"sync"
)

// A method call runs code of .NET or of the object it is called on: a
// string's Trim changes nothing, a VM view's PowerOffVM stops a VM, a
// WMI object's Terminate ends a process, [IO.File]::WriteAllText writes a
// file, [scriptblock]::Create turns a string into code. The reader knows
// the methods that read, those that write a file or start a program, and
// those that make code of a string; any other method of an object is code
// known only at run time.

// codeMarker in a receiver chain marks code the reader has read: calling
// it (.Invoke()) runs nothing new.
const codeMarker = "\x00code"

// methodCall judges the method call whose arguments frame m closed.
func (r *reader) methodCall(f *frame, m *frame, src string) {
	recv, name := m.methodR, m.methodN
	start := f.operandStart
	if f.mode == mArgs {
		start = f.argStart
	}
	call := r.src[min(start, r.pos):r.pos]
	lits := []string(nil)
	if m.valsOK {
		lits = m.vals
	}
	dynamic := func() {
		r.st.addExtra(extra{kind: xDynamic, list: f.list, text: call})
	}
	f.valsOK, f.opEnd, f.adjacent = false, false, true
	typ := ""
	if m.static && strings.HasPrefix(recv, "[") && strings.HasSuffix(recv, "]") {
		typ = recv[1 : len(recv)-1]
	}
	switch {
	case name == "$":
		dynamic()
	case m.static && typ == "scriptblock" && name == "create",
		!m.static && (name == "addscript" || name == "invokescript" || name == "newscriptblock" || name == "addcommand"):
		if len(lits) != 1 {
			if len(lits) == 0 || name == "invokescript" {
				dynamic()
				return
			}
		}
		via := "[scriptblock]::Create"
		if !m.static {
			via = "." + m.methodW
		}
		r.st.addExtra(extra{kind: xCode, list: f.list, text: lits[0], via: via})
		f.chainAdd(codeMarker, maxChain+len(codeMarker))
	case m.static && typ == "diagnostics.process" && name == "start":
		if len(lits) == 0 {
			dynamic()
			return
		}
		var args []Arg
		if len(lits) > 1 {
			args = splitCommandLine(strings.Join(lits[1:], " "), false)
		}
		r.st.addExtra(extra{kind: xNative, list: f.list, text: lits[0], args: args, via: "[Diagnostics.Process]::Start"})
	case m.static && (typ == "io.file" || typ == "io.directory"):
		switch {
		case fileReads()[name]:
		case fileWrites()[name] > 0:
			n := min(fileWrites()[name], len(lits))
			if n == 0 {
				dynamic()
				return
			}
			r.st.addExtra(extra{kind: xWrite, list: f.list, text: "[System." + typeTitle(typ) + "]::" + m.methodW, writes: append([]string(nil), lits[:n]...)})
		default:
			dynamic()
		}
	case m.static && (pureTypes()[typ] || name == "new"):
	case name == "invoke" || name == "invokereturnasis" || name == "begininvoke" || name == "invokewithcontext" || name == "invokeasync":
		if !strings.Contains(recv, codeMarker) && !strings.HasPrefix(recv, "{…}") {
			dynamic()
		}
	case pureMethods()[name]:
	default:
		dynamic()
	}
}

func typeTitle(typ string) string {
	switch typ {
	case "io.file":
		return "IO.File"
	case "io.directory":
		return "IO.Directory"
	}
	return typ
}

// normalType returns a type name as the reader compares it: lower case,
// without white space, "System." and "Management.Automation.".
func normalType(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), ""))
	s = strings.TrimPrefix(s, "system.")
	s = strings.TrimPrefix(s, "management.automation.")
	return s
}

// fileReads are the methods of [IO.File] and [IO.Directory] that read.
var fileReads = sync.OnceValue(func() map[string]bool {
	return set(`exists readalltext readalllines readallbytes readlines getattributes
	getlastwritetime getlastaccesstime getcreationtime getlastwritetimeutc getcreationtimeutc
	getfiles getdirectories getfilesystementries enumeratefiles enumeratedirectories
	enumeratefilesystementries openread opentext getcurrentdirectory getparent
	getdirectoryroot getlogicaldrives readalltextasync readalllinesasync readallbytesasync`)
})

// fileWrites are the methods of [IO.File] and [IO.Directory] that write,
// with how many of their first arguments are paths they write.
var fileWrites = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"writealltext": 1, "writealllines": 1, "writeallbytes": 1, "appendalltext": 1, "appendalllines": 1,
		"appendtext": 1, "create": 1, "createtext": 1, "delete": 1, "move": 2, "copy": 2, "replace": 3,
		"open": 1, "openwrite": 1, "setattributes": 1, "encrypt": 1, "decrypt": 1, "createdirectory": 1,
		"setlastwritetime": 1, "setcreationtime": 1, "setlastaccesstime": 1, "setaccesscontrol": 1,
		"createsymboliclink": 1, "writealltextasync": 1, "writealllinesasync": 1, "writeallbytesasync": 1,
		"appendalltextasync": 1, "appendalllinesasync": 1, "setcurrentdirectory": 0,
	}
})

// pureTypes are types whose static methods compute values and change
// nothing: [math]::Round, [string]::Join, [datetime]::Now...
var pureTypes = sync.OnceValue(func() map[string]bool {
	return set(`math string char int int16 int32 int64 uint16 uint32 uint64 long ulong short
	ushort double float single decimal byte sbyte bool boolean datetime datetimeoffset timespan
	guid convert bitconverter regex text.regularexpressions.regex text.encoding uri version array
	enum object io.path environment linq.enumerable net.ipaddress net.dns
	globalization.cultureinfo net.webutility web.httputility text.stringbuilder collections.arraylist
	collections.hashtable collections.generic.list collections.generic.dictionary hashtable
	ordered psobject pscustomobject xml numerics.biginteger bigint random threading.thread
	timezoneinfo stringcomparer stringcomparison io.pathtoolongexception security.securestring
	powershell runspaces.runspacefactory runspacefactory diagnostics.stopwatch
	management.automation.language.parser language.parser wildcardpattern
	io.fileinfo io.directoryinfo`)
})

// pureMethods are instance methods that compute values from their object
// and change nothing outside the script.
var pureMethods = sync.OnceValue(func() map[string]bool {
	return set(`tostring toupper tolower toupperinvariant tolowerinvariant trim trimstart
	trimend split replace substring contains startswith endswith indexof indexofany lastindexof
	lastindexofany padleft padright insert remove equals compareto gettype gethashcode join
	format concat isnullorempty isnullorwhitespace tochararray normalize where foreach add
	addrange containskey containsvalue tryadd trygetvalue getvalueordefault toarray tolist
	reverse sort parse tryparse toint32 toint64 todouble toboolean tobase64string
	frombase64string getbytes getstring match matches ismatch escape unescape round floor
	ceiling abs max min pow sqrt truncate adddays addhours addminutes addseconds addmilliseconds
	addmonths addyears addticks subtract toshortdatestring tolongdatestring toshorttimestring
	tolongtimestring touniversaltime tolocaltime tofiletime getenvironmentvariable
	getenvironmentvariables getfolderpath combine getfilename getfilenamewithoutextension
	getextension getdirectoryname getfullpath gettemppath gettempfilename ispathrooted
	changeextension hasextension newguid gethostaddresses gethostentry gethostname
	getenumerator selectnodes selectsinglenode getattribute hasattribute getelementsbytagname
	clone copyto first last sum average count any all distinct getvalue getlength
	getupperbound getlowerbound readtoend readline read peek close dispose flush
	waitforexit getproperty getmethod getmember getfield getnetworkcredential
	getawaiter getresult wait item get_item set_item get_count get_keys get_values
	clear push pop enqueue dequeue exceptwith unionwith intersectwith isproperwith
	matchescount nextdouble next nextbytes computehash getmembers getproperties
	tojson totitlecase compareordinal isnumber isletter isdigit iswhitespace
	getnumericvalue getunicodecategory tryformat append appendline appendformat`)
})

func set(words string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}
