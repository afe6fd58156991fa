package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// botocore reads a service model of botocore (botocore/data/SERVICE/
// VERSION/service-2.json, the newest version): its operations, named as
// the aws command line names them, and the options their input members
// make. A boolean member is a flag (--dry-run, --no-dry-run); every other
// member takes a value.
func botocore(dir, service string) (*surface, error) {
	versions, err := filepath.Glob(filepath.Join(dir, "botocore", "data", service, "*", "service-2.json"))
	if err != nil || len(versions) == 0 {
		return nil, fmt.Errorf("no botocore/data/%s/*/service-2.json in %s", service, dir)
	}
	slices.Sort(versions)
	data, err := os.ReadFile(versions[len(versions)-1])
	if err != nil {
		return nil, err
	}
	var model struct {
		Operations map[string]struct {
			Input *struct {
				Shape string `json:"shape"`
			} `json:"input"`
		} `json:"operations"`
		Shapes map[string]struct {
			Type    string `json:"type"`
			Members map[string]struct {
				Shape string `json:"shape"`
			} `json:"members"`
		} `json:"shapes"`
	}
	if err := json.Unmarshal(data, &model); err != nil {
		return nil, fmt.Errorf("%s: %w", versions[len(versions)-1], err)
	}
	s := &surface{}
	options := map[string]bool{}
	for op, o := range model.Operations {
		s.commands = append(s.commands, xformName(op))
		if o.Input == nil {
			continue
		}
		for m, ms := range model.Shapes[o.Input.Shape].Members {
			if model.Shapes[ms.Shape].Type != "boolean" {
				options["--"+xformName(m)] = true
			}
		}
	}
	for o := range options {
		s.valueOptions = append(s.valueOptions, o)
	}
	return s, nil
}

var (
	firstCap   = regexp.MustCompile(`(.)([A-Z][a-z]+)`)
	endCap     = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	pluralCaps = regexp.MustCompile(`[A-Z]{2,}s$`)
)

// xformName is botocore.xform_name(name, "-"), which the aws command line
// names operations and parameters by: StopInstances is stop-instances,
// DescribeVpcEndpointServices describe-vpc-endpoint-services.
func xformName(name string) string {
	if strings.Contains(name, "-") {
		return name
	}
	if m := pluralCaps.FindString(name); m != "" {
		name = name[:len(name)-len(m)] + "-" + strings.ToLower(m)
	}
	s := firstCap.ReplaceAllString(name, "${1}-${2}")
	return strings.ToLower(endCap.ReplaceAllString(s, "${1}-${2}"))
}
