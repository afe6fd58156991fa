package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// govc reads govmomi's cli/ folder: every command govc registers
// (cli.Register("vm.power", &power{})), and every flag a command or a
// shared flag type registers on its flag.FlagSet. Go's flag package reads
// the next word as the value of any flag but a boolean one, so the flags
// that are not boolean are govc's value options.
func govc(dir string) (*surface, error) {
	s := &surface{}
	fset := token.NewFileSet()
	valued := map[string]bool{}
	boolean := map[string]bool{}
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
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "cli" && sel.Sel.Name == "Register" && len(call.Args) > 0 {
				if name, ok := stringLit(call.Args[0]); ok {
					s.commands = append(s.commands, name)
				}
				return true
			}
			name, isBool, ok := flagDef(call, sel.Sel.Name)
			if !ok {
				name, ok = searchFlag(path, call)
			}
			if !ok {
				return true
			}
			for _, n := range name {
				if isBool {
					boolean[n] = true
				} else {
					valued[n] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for n := range valued {
		if boolean[n] {
			s.notes = append(s.notes, fmt.Sprintf("-%s is boolean in some commands and takes a value in others", n))
		}
		s.valueOptions = append(s.valueOptions, "-"+n)
	}
	slices.Sort(s.notes)
	return s, nil
}

// searchFlag reads the flags SearchFlag (cli/flags/search.go) defines
// through its register closure, register(&v, "path", usage), which makes
// -vm.path, -host.path and -vapp.path of them: string flags.
func searchFlag(path string, call *ast.CallExpr) ([]string, bool) {
	id, ok := call.Fun.(*ast.Ident)
	if !ok || id.Name != "register" || filepath.Base(path) != "search.go" || len(call.Args) < 2 {
		return nil, false
	}
	name, ok := stringLit(call.Args[1])
	if !ok {
		return nil, false
	}
	return []string{"vm." + name, "host." + name, "vapp." + name}, true
}

// flagDef reads a flag definition, f.StringVar(&v, "name", ...) or
// f.Var(value, "name", ...): the flag's names and whether it is boolean.
func flagDef(call *ast.CallExpr, method string) (names []string, isBool, ok bool) {
	var arg int
	switch method {
	case "BoolVar", "BoolFunc":
		isBool, arg = true, 1
		if method == "BoolFunc" {
			arg = 0
		}
	case "StringVar", "IntVar", "Int64Var", "UintVar", "Uint64Var", "Float64Var", "DurationVar", "TextVar":
		arg = 1
	case "Func":
		arg = 0
	case "Var":
		arg = 1
		if len(call.Args) > 0 {
			// flags.NewOptionalBool is a flag.Value with IsBoolFlag.
			if c, ok := call.Args[0].(*ast.CallExpr); ok {
				if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "NewOptionalBool" {
					isBool = true
				}
			}
		}
	default:
		return nil, false, false
	}
	if len(call.Args) <= arg {
		return nil, false, false
	}
	name, ok := stringLit(call.Args[arg])
	if !ok {
		return nil, false, false
	}
	return []string{name}, isBool, true
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}
