package zvm

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// specPath is the ZVM 10.0 U6 OpenAPI document, kept beside the repository.
var specPath = filepath.Join("..", "..", "shared", "reference", "zvm-10.0u6-openapi.json")

// sent is one request as the client put it on the wire.
type sent struct {
	method, path string
	query        []string
	bodyKeys     []string // keys of a JSON object or form body
	bodyString   bool     // the body is a bare JSON string
}

// recorder is a RoundTripper that notes every request.
type recorder struct {
	mu   sync.Mutex
	reqs []sent
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	s := sent{method: req.Method, path: req.URL.Path}
	for k := range req.URL.Query() {
		s.query = append(s.query, k)
	}
	if req.Body != nil {
		b, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(b))
		var obj map[string]any
		var str string
		switch {
		case strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded"):
			form, _ := url.ParseQuery(string(b))
			for k := range form {
				s.bodyKeys = append(s.bodyKeys, k)
			}
		case json.Unmarshal(b, &obj) == nil:
			for k := range obj {
				s.bodyKeys = append(s.bodyKeys, k)
			}
		case json.Unmarshal(b, &str) == nil:
			s.bodyString = true
		}
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, s)
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

type openAPI struct {
	Paths      map[string]map[string]json.RawMessage
	Components struct {
		Schemas map[string]schema
	}
}

type schema struct {
	Ref        string `json:"$ref"`
	Type       string
	Properties map[string]json.RawMessage
}

type operation struct {
	Parameters []struct {
		Name, In string
	}
	RequestBody struct {
		Content map[string]struct{ Schema schema }
	}
}

// TestContract exercises every method of the client, records what it sends,
// and checks each request against the ZVM's OpenAPI document: the path and
// method exist, and every query parameter and body key is one the spec
// names, compared case-insensitively as a ZVM does.
func TestContract(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(specPath)
	if os.IsNotExist(err) {
		t.Skipf("the ZVM OpenAPI spec is not at %s (shared/ beside the repository); contract not checked", specPath)
	}
	if err != nil {
		t.Fatal(err)
	}
	var spec openAPI
	if err := json.Unmarshal(raw, &spec); err != nil {
		t.Fatal(err)
	}

	f := newFakeZVM(t, "/base")
	f.tasks["task-1"] = []int{6}
	s := f.start()
	rec := &recorder{}
	hc := &http.Client{Transport: rec}
	pw := newTestClient(t, s.URL+"/base", func(o *Options) { o.HTTPClient = hc })
	cc := newTestClient(t, s.URL+"/base", func(o *Options) {
		o.HTTPClient, o.Username, o.Password, o.ClientID, o.ClientSecret = hc, "", "", "rewind", "rewind-secret"
	})
	ctx := t.Context()
	yes := true
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cc.LocalSite(ctx))
	must(pw.VMs(ctx, "web-01"))
	must(pw.VM(ctx, webVMID))
	must(pw.VPGs(ctx))
	must(pw.VPG(ctx, webVPGID))
	must(pw.Checkpoints(ctx, webVPGID, time.Now().Add(-time.Hour), time.Now()))
	must(pw.CheckpointStats(ctx, webVPGID))
	must(pw.InsertTaggedCheckpoint(ctx, webVPGID, "rewind-1"))
	must(pw.Task(ctx, "task-1"))
	must(pw.TaskState(ctx, "task-1"))
	must(pw.VMsByIdentifier(ctx, webVMID))
	must(pw.ServerTime(ctx))
	must(pw.WaitTask(ctx, "task-1", time.Millisecond, nil))
	must(pw.FailoverTest(ctx, webVPGID, "cp-1", []string{webVMID}))
	must(pw.FailoverTestStop(ctx, webVPGID, &yes, "checked by rewind"))
	must(pw.Restore(ctx, webVMID, RestoreOptions{VPGIdentifier: webVPGID, CheckpointIdentifier: "cp-1", RestoredVMName: "web-01",
		CommitPolicy: CommitNone, ShutdownPolicy: ShutdownGraceful, Wait: time.Minute, Settings: RestoreSettings{DatastoreIdentifier: "ds-1"}}))
	must(pw.VMOfVPG(ctx, webVMID, webVPGID))
	must(pw.Tasks(ctx, TaskFilter{Type: "FailOverTest", StartedAfter: time.Now().Add(-time.Hour)}))
	must(pw.RestoreCommit(ctx, webVMID, webVPGID))
	must(pw.RestoreRollback(ctx, webVMID, webVPGID))
	must(pw.Failover(ctx, webVPGID, "cp-1", FailoverOptions{CommitPolicy: CommitNone, CommitWait: time.Minute,
		ShutdownPolicy: ShutdownGraceful, ReverseProtection: &yes, VMIdentifiers: []string{webVMID}}))
	must(pw.FailoverCommit(ctx, webVPGID, &yes))
	must(pw.FailoverRollback(ctx, webVPGID))
	f.expireAll() // brings a refresh_token grant onto the wire
	must(pw.VPGs(ctx))

	methods := map[string]bool{}
	for _, r := range rec.reqs {
		path := strings.TrimPrefix(r.path, "/base")
		methods[r.method+" "+path] = true
		tmpl, op, ok := spec.find(r.method, path)
		if !ok {
			t.Errorf("%s %s: not in the spec", r.method, path)
			continue
		}
		var params []string
		for _, p := range op.Parameters {
			if strings.EqualFold(p.In, "query") {
				params = append(params, p.Name)
			}
		}
		for _, q := range r.query {
			if !containsFold(params, q) {
				t.Errorf("%s %s: query parameter %q not in the spec's %v", r.method, tmpl, q, params)
			}
		}
		sch, hasBody := op.bodySchema()
		if !hasBody {
			if len(r.bodyKeys) > 0 || r.bodyString {
				t.Errorf("%s %s: sends a body the spec does not take", r.method, tmpl)
			}
			continue
		}
		sch = spec.resolve(sch)
		if r.bodyString {
			if sch.Type != "string" {
				t.Errorf("%s %s: sends a JSON string, the spec wants %+v", r.method, tmpl, sch)
			}
			continue
		}
		allowed := slices.Collect(maps.Keys(sch.Properties))
		if tmpl == tokenPath {
			// The spec documents the password grant only; these are the
			// standard OAuth fields of Keycloak's other grants (RFC 6749).
			allowed = append(allowed, "scope", "client_secret", "refresh_token")
		}
		for _, k := range r.bodyKeys {
			if !containsFold(allowed, k) {
				t.Errorf("%s %s: body key %q not in the spec's %v", r.method, tmpl, k, allowed)
			}
		}
	}
	// Every route the client knows was exercised above.
	for _, want := range []string{"POST " + tokenPath, "GET /v1/localsite", "POST /v1/vms/" + webVMID + "/RestoreRollback", "GET " + serverTimePath} {
		if !methods[want] {
			t.Errorf("%s was never sent", want)
		}
	}
	if f.grantCount("refresh_token") != 1 || f.grantCount("client_credentials") != 1 {
		t.Error("the contract run missed a grant")
	}
}

// TestContractSessionLogin: the Windows ZVM's /v1/session/add is not in the
// appliance's spec, so it is exempt from TestContract; this pins its shape.
func TestContractSessionLogin(t *testing.T) {
	t.Parallel()
	f := newFakeZVM(t, "")
	s := f.start()
	rec := &recorder{}
	c := newTestClient(t, s.URL, func(o *Options) { o.Auth, o.HTTPClient = AuthSession, &http.Client{Transport: rec} })
	if _, err := c.VMs(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	// The login is followed by the one reading of the ZVM's clock.
	if len(rec.reqs) != 3 || rec.reqs[0].method != "POST" || rec.reqs[0].path != sessionPath || rec.reqs[1].path != serverTimePath {
		t.Fatalf("requests = %+v, want the session login first, then the clock", rec.reqs)
	}
}

// find returns the spec's template and operation for a request path. A
// literal segment matches case-insensitively and beats a parameter, so
// /v1/vpgs/statuses is not taken for /v1/vpgs/{vpgIdentifier}.
func (s *openAPI) find(method, path string) (string, operation, bool) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	best, bestLiterals := "", -1
	for tmpl, ops := range s.Paths {
		if _, ok := ops[strings.ToLower(method)]; !ok {
			continue
		}
		ts := strings.Split(strings.Trim(tmpl, "/"), "/")
		if len(ts) != len(segs) {
			continue
		}
		literals := 0
		for i := range ts {
			if strings.HasPrefix(ts[i], "{") {
				continue
			}
			if !strings.EqualFold(ts[i], segs[i]) {
				literals = -1
				break
			}
			literals++
		}
		if literals > bestLiterals {
			best, bestLiterals = tmpl, literals
		}
	}
	if best == "" {
		return "", operation{}, false
	}
	var op operation
	json.Unmarshal(s.Paths[best][strings.ToLower(method)], &op)
	return best, op, true
}

func (op operation) bodySchema() (schema, bool) {
	for _, ct := range []string{"application/json", "application/x-www-form-urlencoded"} {
		if c, ok := op.RequestBody.Content[ct]; ok {
			return c.Schema, true
		}
	}
	return schema{}, false
}

func (s *openAPI) resolve(sch schema) schema {
	if name, ok := strings.CutPrefix(sch.Ref, "#/components/schemas/"); ok {
		return s.Components.Schemas[name]
	}
	return sch
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}
