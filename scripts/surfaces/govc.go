package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// govc reads govmomi: every command govc registers
// (cli.Register("vm.power", &power{}) in cli/**/*.go), and from
// govc/USAGE.md, which govc generates from its own help, the options of
// each command that take a value. Go's flag package reads the next word
// as the value of any flag but a boolean one, and USAGE.md shows a
// boolean's default as "=true" or "=false". The options print one line a
// command, "NAME -opt ...", since a flag that is boolean in one command
// takes a value in another (-r, -s, -vm): the rules that read VMs from a
// command's arguments list their command's.
func govc(dir string) (*surface, error) {
	s := &surface{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(filepath.Join(dir, "cli"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Register" {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "cli" {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if name, err := strconv.Unquote(lit.Value); err == nil {
						s.commands = append(s.commands, name)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	usage, err := os.ReadFile(filepath.Join(dir, "govc", "USAGE.md"))
	if err != nil {
		return nil, err
	}
	// ## vm.migrate
	//
	// ```
	// Usage: govc vm.migrate [OPTIONS] VM...
	// ...
	// Options:
	//   -ds=                   Datastore [GOVC_DATASTORE]
	//   -force=false           ...
	section := regexp.MustCompile("(?ms)^## (\\S+)\n\n```\n(.*?)```")
	option := regexp.MustCompile(`(?m)^  (-[^=\s]+)=(\S*)`)
	for _, m := range section.FindAllStringSubmatch(string(usage), -1) {
		name, body := m[1], m[2]
		_, opts, ok := strings.Cut(body, "Options:")
		if !ok {
			continue
		}
		var valued []string
		for _, o := range option.FindAllStringSubmatch(opts, -1) {
			if o[2] != "true" && o[2] != "false" {
				valued = append(valued, o[1])
			}
		}
		if len(valued) > 0 {
			s.valueOptions = append(s.valueOptions, name+" "+strings.Join(valued, " "))
		}
	}
	return s, nil
}
