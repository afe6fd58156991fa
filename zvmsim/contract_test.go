package zvmsim

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const specPath = "../../shared/reference/zvm-10.0u6-openapi.json"

// TestContract checks every route the simulator serves against the ZVM
// 10.0 U6 OpenAPI document: the path, the method, and each query parameter
// the handler reads exist there, compared case-insensitively as a ZVM
// compares them.
func TestContract(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(specPath)
	if err != nil {
		t.Skipf("the ZVM OpenAPI document is not at %s: %v", specPath, err)
	}
	var spec struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	type param struct{ Name, In string }
	for _, rt := range routes {
		if rt.NotInSpec {
			continue
		}
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			var ops map[string]json.RawMessage
			for p, o := range spec.Paths {
				if strings.EqualFold(p, rt.Path) {
					ops = o
				}
			}
			if ops == nil {
				t.Fatalf("path %s is not in the spec", rt.Path)
			}
			raw, ok := ops[strings.ToLower(rt.Method)]
			if !ok {
				t.Fatalf("%s %s is not in the spec", rt.Method, rt.Path)
			}
			var op struct{ Parameters []param }
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			has := func(name, in string) bool {
				for _, p := range op.Parameters {
					if strings.EqualFold(p.Name, name) && p.In == in {
						return true
					}
				}
				return false
			}
			for _, seg := range splitPath(rt.Path) {
				if strings.HasPrefix(seg, "{") && !has(strings.Trim(seg, "{}"), "path") {
					t.Errorf("path parameter %s is not in the spec", seg)
				}
			}
			for _, q := range rt.Query {
				if !has(q, "query") {
					t.Errorf("query parameter %s is not in the spec", q)
				}
			}
		})
	}
}

// TestRoutesReadOnlyDeclaredQuery guards the contract test's premise: a
// handler reading a query parameter its route does not declare panics.
func TestRoutesReadOnlyDeclaredQuery(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Fatal("reading an undeclared query parameter did not panic")
		}
	}()
	c := &call{route: &route{Path: "/v1/vpgs", Query: []string{"name"}}}
	c.query("vpgName")
}
