package errs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// messageKey is the form of a key of Messages.
var messageKey = regexp.MustCompile(`^[a-z]+(\.[A-Za-z0-9_]+)+$`)

// keyTakers are the functions (and the domain packages' helpers) whose
// string arguments of that form are keys of Messages (-1: any argument, else
// the one at that index); named also says key+"Named".
var keyTakers = map[string]int{"Msg": -1, "MsgWrap": -1, "Say": -1, "Text": -1, "say": -1, "phrase": -1,
	"problem": -1, "failWords": -1, "named": -1, "what": -1, "outOfRange": 1}

// Every key the backend names is a template of Messages: a missing one
// would reach the window as its key.
func TestEveryKeyTheBackendNamesHasATemplate(t *testing.T) {
	root := filepath.Join("..", "..", "backend")
	fset := token.NewFileSet()
	checked := 0
	check := func(pos token.Pos, key string) {
		checked++
		if _, ok := Messages[key]; !ok {
			t.Errorf("%s: %q has no template in Messages", fset.Position(pos), key)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
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
			var name string
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			at, ok := keyTakers[name]
			if !ok {
				return true
			}
			for i, arg := range call.Args {
				if at >= 0 && i != at {
					continue
				}
				lit, ok := arg.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && messageKey.MatchString(s) {
					check(lit.Pos(), s)
					if name == "named" {
						check(lit.Pos(), s+"Named")
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d keys found in the backend: the scan is broken", checked)
	}
}
