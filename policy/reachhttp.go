package policy

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
)

// HTTP clients reach the APIs of hypervisors as surely as their CLIs do:
// curl -X POST https://pve:8006/api2/json/nodes/pve1/qemu/100/status/stop
// is pvesh create /nodes/pve1/qemu/100/status/stop. The policy reads the
// method and the URL of curl, wget, HTTPie's http and https, and xh, and
// judges the request by the rules of the API's own family:
//
//   - a Proxmox VE API path (/api2/json/...) as the pvesh command with the
//     same path (GET is pvesh get, POST create, PUT set, DELETE delete);
//   - an Azure Resource Manager URL (management.azure.com) as az rest with
//     the same method and URL;
//   - any other request whose method may change something as the request
//     line "http METHOD URL QUERY...", which the vmapi family's rules read
//     for the paths of vCenter, ESXi, oVirt, Nutanix and Compute Engine.
//
// The URL is read as the server reads it: %-escapes decoded, "." and ".."
// segments resolved, the query apart from the path (a query cannot pose
// as a deeper path). A method or a path segment known only at run time
// stays so, and a rule that could match it asks.

// httpVia names the step of a request read from an HTTP client; a request
// line already read is not read again.
const httpVia = "http request"

// curlValues are curl's short options that take a value, and its long
// options that do.
const curlShortValues = "AbcCdDeEFHKmoPQrTtuUwxXyYz"

var curlValues = sync.OnceValue(func() map[string]bool {
	return valueSet("--request", "--data", "--data-ascii", "--data-binary", "--data-raw", "--data-urlencode",
		"--json", "--form", "--form-string", "--upload-file", "--header", "--user", "--user-agent", "--referer",
		"--cookie", "--cookie-jar", "--dump-header", "--config", "--max-time", "--connect-timeout", "--write-out",
		"--output", "--resolve", "--cacert", "--cert", "--key", "--proxy", "--retry", "--stderr", "--trace",
		"--trace-ascii", "--unix-socket", "--range", "--url", "--oauth2-bearer", "--interface", "--limit-rate",
		"--max-filesize", "--proxy-user", "--continue-at", "--quote", "--cert-type", "--key-type", "--ciphers",
		"--aws-sigv4", "--variable", "--url-query", "--expand-url", "--expand-data", "--output-dir", "--etag-save", "--etag-compare",
		"--hsts", "--alt-svc", "--connect-to", "--dns-servers", "--happy-eyeballs-timeout-ms", "--keepalive-time")
})

// wgetValues are wget's options that take the next word as a value.
var wgetValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-O", "-o", "-a", "-e", "-i", "-P", "-U", "-t", "-T", "-w", "-Q", "-l", "-A", "-R",
		"-D", "-I", "-X", "-B", "--method", "--body-data", "--body-file", "--post-data", "--post-file",
		"--header", "--user", "--password", "--output-document", "--output-file", "--user-agent", "--execute", "--config")
})

// httpieValues are the options of HTTPie and xh that take a value.
var httpieValues = sync.OnceValue(func() map[string]bool {
	return valueSet("-a", "--auth", "-A", "--auth-type", "--session", "--session-read-only", "-o", "--output",
		"--verify", "--cert", "--cert-key", "--cert-key-pass", "--proxy", "--timeout", "--max-redirects", "--pretty",
		"-s", "--style", "-p", "--print", "--format-options", "--response-charset", "--response-mime", "--boundary",
		"--ssl", "--ciphers", "--default-scheme", "--unix-socket", "--http-version", "--resolve", "--interface",
		"--bearer", "--multipart-boundary")
})

// httpRequest is a request an HTTP client makes: its method (or its
// source, when known only at run time) and URL.
type httpRequest struct {
	method       string
	methodDyn    bool
	url          string
	urlDyn       bool
	readsOnly    bool // curl's -G: the data goes into the query of a GET
	defaultWrite bool // data or a form given: the method is POST unless one is set
	// fields are the body's fields known from the command line, name and
	// value in turn: key=value data, form fields and a JSON object's
	// members, which a Proxmox request's options are (see bodyFields).
	fields []string
	// bodyUnknown marks a body, or a part of one, read from a file or
	// stdin or known only at run time: fields it may hold are unknown.
	bodyUnknown bool
	// query holds the query items given apart from the URL (HTTPie's
	// name==value) as name=value, the value runtimeValue when known only
	// at run time.
	query []string
	// queryUnknown marks a query item whose name is known only at run
	// time.
	queryUnknown bool
}

// runtimeValue stands, among a request's fields, for a value known only
// at run time.
const runtimeValue = "\x00"

// bodyFields adds the fields of one piece of a request's body as written
// (key=value&..., a JSON object, one form field) to q; a body from a file
// or stdin, or known only at run time, adds none and makes the fields
// unknown.
func (q *httpRequest) bodyFields(body string, dyn bool) {
	body = strings.TrimSpace(body)
	if dyn || strings.HasPrefix(body, "@") || body == "-" {
		q.bodyUnknown = true
		return
	}
	if body == "" {
		return
	}
	if body[0] == '{' {
		var obj map[string]any
		if json.Unmarshal([]byte(body), &obj) != nil {
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			switch v := obj[k].(type) {
			case string:
				q.fields = append(q.fields, k, v)
			case bool, float64:
				q.fields = append(q.fields, k, fmt.Sprint(v))
			}
		}
		return
	}
	for kv := range strings.FieldsFuncSeq(body, isParamSep) {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			q.fields = append(q.fields, percentDecode(k), percentDecode(v))
		}
	}
}

// isParamSep reports whether c separates the parameters of a urlencoded
// body or query as Proxmox's API server reads them: "&" and ";".
func isParamSep(c rune) bool { return c == '&' || c == ';' }

// oneField adds a piece of a body that can only be one field (an HTTPie
// item, a form field, a urlencoded value): its value, when known only at
// run time or read from a file, cannot add others, so only that value is
// unknown. A piece whose name is not known either makes the fields
// unknown.
func (q *httpRequest) oneField(item string, dyn bool) {
	src := strings.TrimPrefix(strings.TrimSpace(item), `"`)
	i := strings.IndexAny(src, "=@<")
	if i <= 0 || strings.ContainsAny(src[:i], runTimeChars+" &") {
		q.bodyUnknown = true
		return
	}
	k, v := strings.TrimSuffix(src[:i], ":"), src[i+1:]
	if dyn || src[i] != '=' || strings.HasPrefix(v, "@") || strings.HasPrefix(v, "<") {
		q.fields = append(q.fields, k, runtimeValue)
		return
	}
	q.bodyFields(item, false)
}

// queryItem adds an item of the URL's query given apart from it (HTTPie's
// name==value, curl's --url-query): its value, or its name too, may be
// known only at run time.
func (q *httpRequest) queryItem(k, v string, dyn bool) {
	switch {
	case !dyn:
		q.query = append(q.query, k+"="+v)
	case k == "" || strings.ContainsAny(k, runTimeChars):
		q.queryUnknown = true
	default:
		q.query = append(q.query, k+"="+runtimeValue)
	}
}

// httpReach reads the requests of curl, wget, http and xh (see above).
func httpReach(s *subject, name string) (reach, bool) {
	if len(s.via) > 0 && s.via[len(s.via)-1] == httpVia {
		return reach{}, false
	}
	var reqs []httpRequest
	switch name {
	case "curl":
		reqs = curlRequests(s)
	case "wget":
		reqs = wgetRequests(s)
	default:
		reqs = httpieRequests(s)
	}
	var lines []string
	family := ""
	for _, q := range reqs {
		line, fam := q.line()
		if line == "" {
			continue
		}
		lines, family = append(lines, line), fam
	}
	if len(lines) == 0 {
		return reach{}, false
	}
	if len(lines) > 1 {
		family = vmapiFamily
	}
	// The request is made where the client runs: a rule on the client
	// itself still sees that host.
	return reach{family: family, here: true, hosts: s.hostList(), code: strings.Join(lines, "\n"), known: true, via: httpVia}, true
}

// vmapiFamily is the family of the request lines.
const vmapiFamily = "vmapi"

// runtimeWord stands, in the code a request is read as, for a word known
// only at run time.
const runtimeWord = `"${REWIND_RUNTIME_VALUE}"`

// runtimeQuery stands, in the request line, for query parameters known
// only at run time, any number of them: words that, as the line's other
// query words, hold no "/" (see anyOptionAtRunTime).
const runtimeQuery = `"${REWIND_RUNTIME_QUERY[@]}"`

// line returns the command the request is judged as, and its family; ""
// for a request that only reads or whose URL is known only at run time.
func (q httpRequest) line() (string, string) {
	method := strings.ToUpper(q.method)
	if q.method == "" {
		method = "GET"
		if q.defaultWrite && !q.readsOnly {
			method = "POST"
		}
	}
	reads := !q.methodDyn && (method == "GET" || method == "HEAD" || method == "OPTIONS")
	u, ok := splitURL(q.url, q.urlDyn)
	if !ok {
		return "", ""
	}
	methodWord := method
	if q.methodDyn {
		methodWord = runtimeWord
	}
	if len(u.segs) >= 2 && (u.segs[0] == "api2") && (u.segs[1] == "json" || u.segs[1] == "extjs") {
		verb := map[string]string{"GET": "get", "HEAD": "get", "OPTIONS": "get", "POST": "create", "PUT": "set", "PATCH": "set", "DELETE": "delete"}[method]
		if q.methodDyn || verb == "" {
			verb = runtimeWord
		}
		line := "pvesh " + verb + " " + u.path(2)
		// The server reads the query's parameters as well as the body's,
		// whatever the method, and a query's over a body's of the same
		// name: they are the call's options too.
		fields := slices.Clip(q.fields) // q's array is shared with the call's other requests
		for kv := range strings.FieldsFuncSeq(u.query, isParamSep) {
			k, v, _ := strings.Cut(kv, "=")
			fields = append(fields, k, v)
		}
		for _, kv := range q.query {
			k, v, _ := strings.Cut(kv, "=")
			fields = append(fields, k, v)
		}
		for i := 0; i+1 < len(fields); i += 2 {
			v := shellQuote(fields[i+1])
			if fields[i+1] == runtimeValue {
				v = runtimeWord
			}
			line += " " + shellQuote("--"+fields[i]) + " " + v
		}
		if q.bodyUnknown || q.queryUnknown || u.queryDyn {
			// Options known only at run time (their names too), which a
			// rule made stricter by one of them asks about.
			line += " --" + runtimeWord
		}
		return line, "proxmox"
	}
	if reads {
		return "", ""
	}
	query := u.query
	unknown := q.queryUnknown || u.queryDyn
	for _, kv := range q.query {
		if strings.HasSuffix(kv, "="+runtimeValue) {
			unknown = true
			continue
		}
		if query != "" {
			query += "&"
		}
		query += kv
	}
	if strings.HasSuffix(strings.TrimSuffix(u.host, ":443"), "management.azure.com") {
		url := "https://management.azure.com" + u.path(0)
		if query != "" {
			url += shellQuote("?" + query)
		}
		return "az rest --method " + methodWord + " --url " + url, "azure"
	}
	words := []string{"http", methodWord, shellQuote("https://"+u.host) + u.path(0)}
	for kv := range strings.SplitSeq(query, "&") {
		if kv != "" {
			words = append(words, shellQuote(strings.ReplaceAll(kv, "/", "%2F")))
		}
	}
	if unknown {
		// Query items known only at run time, which a rule made stricter
		// by one (action=unregister) asks about.
		words = append(words, runtimeQuery)
	}
	return strings.Join(words, " "), vmapiFamily
}

// requestURL is a URL as the server reads it: its host, the segments of
// its path with %-escapes decoded and "." and ".." resolved ("" for a
// segment known only at run time), and its query.
type requestURL struct {
	host  string
	segs  []string
	dyn   []bool
	query string
	// queryDyn marks a query known, in part, only at run time; query is
	// then empty.
	queryDyn bool
}

// path returns the path from the segment from on, quoted as one shell
// word. A segment known only at run time is "*", which the rules read as
// a name known only then (a VM to checkpoint is asked about).
func (u requestURL) path(from int) string {
	var b strings.Builder
	for i := from; i < len(u.segs); i++ {
		b.WriteString("/")
		if u.dyn[i] {
			b.WriteString("*")
		} else {
			b.WriteString(u.segs[i])
		}
	}
	if b.Len() == 0 {
		return "/"
	}
	return shellQuote(b.String())
}

// splitURL reads a URL (as written, or as its source text when it is
// known only at run time); ok is false for a URL known only at run time
// as a whole.
func splitURL(raw string, dyn bool) (requestURL, bool) {
	u := raw
	if dyn {
		if strings.ContainsAny(u, "`") || strings.Contains(u, "$(") {
			return requestURL{}, false
		}
		u = strings.NewReplacer(`"`, "", `'`, "").Replace(u)
	}
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	} else if strings.HasPrefix(u, ":") {
		// HTTPie's :8080/path is localhost.
		u = "localhost" + u
	}
	host, rest, _ := strings.Cut(u, "/")
	if i := strings.IndexAny(host, "?#"); i >= 0 {
		host, rest = host[:i], ""
	}
	rest, _, _ = strings.Cut(rest, "#")
	rest, query, _ := strings.Cut(rest, "?")
	if dyn && strings.HasPrefix(host, "$") && rest == "" {
		// "$URL": nothing of it is known.
		return requestURL{}, false
	}
	out := requestURL{host: strings.ToLower(host), query: percentDecode(query)}
	if dyn && strings.Contains(query, "$") {
		out.query, out.queryDyn = "", true
	}
	clean := serverPath(rest)
	if clean == "/" {
		return out, true
	}
	for seg := range strings.SplitSeq(clean[1:], "/") {
		d := dyn && strings.ContainsAny(seg, "${}")
		if d {
			seg = ""
		}
		out.segs, out.dyn = append(out.segs, seg), append(out.dyn, d)
	}
	return out, true
}

// serverPath returns a URL's path, without its query, as a server reads
// it: rooted, its %-escapes decoded, "." and ".." resolved, no empty
// segments (requests, curl and .NET's Uri resolve dot segments before they
// send a path).
func serverPath(p string) string { return path.Clean("/" + percentDecode(p)) }

// percentDecode decodes the %XX escapes of s; others stay as they are.
func percentDecode(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && isHexByte(s[i+1]) && isHexByte(s[i+2]) {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHexByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// curlRequests reads curl's requests: one per URL, with the method of -X
// (the last one given), else POST for data and forms, PUT for an upload,
// HEAD for -I, GET for -G.
func curlRequests(s *subject) []httpRequest {
	var q httpRequest
	var urls []urlWord
	setMethod := func(v string, dyn bool) { q.method, q.methodDyn = v, dyn }
	if (len(s.args) == 0 || s.args[0] != "-q" && s.args[0] != "--disable") && setsEnv(s, "CURL_HOME", "XDG_CONFIG_HOME", "HOME") {
		// curl reads its default options from a file the command
		// chooses: any options.
		q.methodDyn, q.bodyUnknown = true, true
	}
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) && argumentList(a) {
			// Any options: the method and the body are known only at
			// run time.
			q.methodDyn, q.bodyUnknown = true, true
			continue
		}
		if s.dynamic(i) && !isOption(a) {
			urls = append(urls, urlWord{a, true})
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		switch {
		case a == "--":
			for j := i + 1; j < len(s.args); j++ {
				urls = append(urls, urlWord{s.args[j], s.dynamic(j)})
			}
			i = len(s.args)
		case strings.HasPrefix(a, "--"):
			// --expand-NAME is NAME with the {{variables}} of its value
			// (--variable) put in at run time.
			expand := false
			if o, ok := strings.CutPrefix(name, "--expand-"); ok {
				name, expand = "--"+o, true
			}
			if curlValues()[name] && !hasVal && i+1 < len(s.args) {
				i++
				val = s.args[i]
				hasVal = true
			}
			dyn := s.dynamic(i) || expand && strings.Contains(val, "{{")
			curlOption(&q, name, val, dyn, setMethod)
			if name == "--url" && hasVal {
				urls = append(urls, urlWord{val, dyn})
			}
		case isOption(a):
			// A cluster of short options; the first that takes a value
			// takes the rest of the word, or the next word.
			for k := 1; k < len(a); k++ {
				c := a[k]
				if strings.IndexByte(curlShortValues, c) < 0 {
					curlOption(&q, "-"+string(c), "", false, setMethod)
					continue
				}
				v, dyn := a[k+1:], s.dynamic(i)
				if v == "" && i+1 < len(s.args) {
					i++
					v, dyn = s.args[i], s.dynamic(i)
				}
				curlOption(&q, "-"+string(c), v, dyn, setMethod)
				break
			}
		default:
			urls = append(urls, urlWord{a, false})
		}
	}
	reqs := make([]httpRequest, 0, len(urls))
	for _, u := range urls {
		r := q
		r.url, r.urlDyn = u.text, u.dyn
		reqs = append(reqs, r)
	}
	return reqs
}

// urlWord is a URL a client is given, and whether it is known only at run
// time (its text is then the source text).
type urlWord struct {
	text string
	dyn  bool
}

// setsEnv reports whether s is given one of the variables names in its
// environment.
func setsEnv(s *subject, names ...string) bool {
	for _, e := range s.env {
		if name, _, _ := strings.Cut(e, "="); slices.Contains(names, name) {
			return true
		}
	}
	return false
}

// curlOption applies one of curl's options to a request.
func curlOption(q *httpRequest, name, val string, dyn bool, setMethod func(string, bool)) {
	switch name {
	case "-X", "--request":
		setMethod(val, dyn)
	case "-d", "--data", "--data-ascii", "--data-binary", "--data-raw", "--json":
		q.defaultWrite = true
		q.bodyFields(val, dyn)
	case "--data-urlencode", "-F", "--form", "--form-string":
		// One field each (name=value, name@file, name=<file), whose value
		// cannot add another.
		q.defaultWrite = true
		q.oneField(val, dyn)
	case "-T", "--upload-file":
		if q.method == "" {
			q.method = "PUT"
		}
		q.bodyUnknown = true
	case "-I", "--head":
		if q.method == "" {
			q.method = "HEAD"
		}
	case "-G", "--get":
		q.readsOnly = true
	case "--url-query":
		// name=value, +raw, name@file: an item of the URL's query.
		item := strings.TrimPrefix(val, "+")
		k, v, ok := strings.Cut(item, "=")
		if fk, _, file := strings.Cut(item, "@"); !ok && file {
			k, v, dyn = fk, "", true
		}
		q.queryItem(k, v, dyn)
	case "-K", "--config", "--variable":
		// Options read from a file (which the call may write first), or
		// variables an --expand- option puts in: any options.
		q.methodDyn, q.bodyUnknown = true, true
	}
}

// wgetRequests reads wget's requests: --method, else POST with
// --post-data or --post-file.
func wgetRequests(s *subject) []httpRequest {
	var q httpRequest
	var urls []int
	if !slices.Contains(s.args, "--no-config") && setsEnv(s, "WGETRC", "HOME") {
		// wget reads its startup file from where the command says.
		q.methodDyn, q.bodyUnknown = true, true
	}
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) && argumentList(a) {
			q.methodDyn, q.bodyUnknown = true, true // any options
			continue
		}
		if !isOption(a) {
			urls = append(urls, i)
			continue
		}
		name, val, hasVal := strings.Cut(a, "=")
		if !strings.HasPrefix(a, "--") && len(a) > 2 && a[1] == 'e' {
			name, val, hasVal = "-e", a[2:], true // -emethod=DELETE
		}
		dyn := s.dynamic(i)
		if wgetValues()[name] && !hasVal && i+1 < len(s.args) {
			i++
			val, dyn = s.args[i], s.dynamic(i)
		}
		switch name {
		case "-e", "--execute":
			wgetCommand(&q, val, dyn)
		case "--config":
			q.methodDyn, q.bodyUnknown = true, true
		default:
			wgetSetting(&q, name, val, dyn)
		}
	}
	reqs := make([]httpRequest, 0, len(urls))
	for _, i := range urls {
		r := q
		r.url, r.urlDyn = s.args[i], s.dynamic(i)
		reqs = append(reqs, r)
	}
	return reqs
}

// wgetCommand applies a command of wget's startup file given with -e
// ("method = DELETE") to a request.
func wgetCommand(q *httpRequest, cmd string, dyn bool) {
	name, val, ok := strings.Cut(cmd, "=")
	if dyn && strings.ContainsAny(name, runTimeChars) {
		q.methodDyn, q.bodyUnknown = true, true
		return
	}
	if ok {
		wgetSetting(q, name, strings.TrimSpace(val), dyn)
	}
}

// wgetSetting applies one of wget's settings, named as its option
// (--post-data) or its startup file's command (post_data, which wget
// reads without case, "-" or "_"), to a request.
func wgetSetting(q *httpRequest, name, val string, dyn bool) {
	switch strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "", "\t", "").Replace(name)) {
	case "method":
		q.method, q.methodDyn = val, dyn
	case "postdata":
		q.defaultWrite = true
		q.bodyFields(val, dyn)
	case "bodydata":
		q.bodyFields(val, dyn)
	case "postfile", "bodyfile":
		q.defaultWrite = true
		q.bodyUnknown = true
	}
}

// httpieRequests reads the request of HTTPie or xh: http [options]
// [METHOD] URL [ITEM...]. Without a method, data items (key=value,
// key:=json, key@file) or --form make a POST; --offline sends nothing.
func httpieRequests(s *subject) []httpRequest {
	var q httpRequest
	var pos []int
	ignoreStdin := false
	for i := 0; i < len(s.args); i++ {
		a := s.args[i]
		if s.dynamic(i) || !isOption(a) {
			pos = append(pos, i)
			continue
		}
		name, _, hasVal := strings.Cut(a, "=")
		switch name {
		case "--offline":
			return nil
		case "-f", "--form", "--raw", "--multipart":
			q.defaultWrite = true
		case "-I", "--ignore-stdin":
			ignoreStdin = true
		}
		if httpieValues()[name] && !hasVal {
			i++
		}
	}
	if len(pos) == 0 {
		return nil
	}
	if len(pos) > 1 && isMethodWord(s, pos[0]) {
		q.method, q.methodDyn = s.args[pos[0]], s.dynamic(pos[0])
		pos = pos[1:]
	}
	q.url, q.urlDyn = s.args[pos[0]], s.dynamic(pos[0])
	if len(pos) == 1 && !ignoreStdin {
		// No data items: HTTPie sends what it reads on stdin, when that
		// is a pipe or a file, as the body.
		q.bodyUnknown = true
	}
	for _, i := range pos[1:] {
		if k, v, ok := strings.Cut(s.args[i], "=="); ok && !isHeaderItem(s.args[i]) {
			q.queryItem(k, v, s.dynamic(i))
			continue
		}
		if item := s.args[i]; !isHeaderItem(item) &&
			(strings.ContainsAny(item, "=@") || s.dynamic(i)) {
			q.defaultWrite = true
			if k, v, ok := strings.Cut(item, ":="); ok && !strings.ContainsAny(k, "=@") && !s.dynamic(i) && !strings.HasPrefix(v, "@") {
				q.bodyFields(`{"`+k+`":`+v+`}`, false) // key:=JSON
			} else {
				// key=value, key:=JSON, key=@file, key@file: one field
				// each; @file is the whole body.
				q.oneField(item, s.dynamic(i))
			}
		}
	}
	return []httpRequest{q}
}

// isMethodWord reports whether HTTPie reads the word at i as the method:
// letters only (or a word known only at run time before the URL).
func isMethodWord(s *subject, i int) bool {
	w := s.args[i]
	if s.dynamic(i) {
		return true
	}
	for _, c := range w {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return w != ""
}

// isHeaderItem reports whether an HTTPie item is a header (Name:value),
// not data (name:=json).
func isHeaderItem(item string) bool {
	i := strings.IndexAny(item, ":=@")
	return i > 0 && item[i] == ':' && !strings.HasPrefix(item[i:], ":=")
}
