package errs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The TypeScript list is generated from the catalogue and committed.
func TestTypeScriptCodesAreUpToDate(t *testing.T) {
	path := filepath.Join("..", "..", "frontend", "src", "bridge", "codes.gen.ts")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(TypeScript()) {
		t.Fatalf("%s is out of date: run go generate ./backend/errs", path)
	}
}

// Names and codes are unique, replaced codes are not in use, and every code
// constant of codes.go is listed.
func TestCatalogueIsConsistent(t *testing.T) {
	names, codes := map[string]bool{}, map[string]string{}
	for _, e := range Catalogue {
		if e.Name == "" || e.Code == "" || e.Condition == "" {
			t.Errorf("incomplete entry %+v", e)
		}
		if names[e.Name] {
			t.Errorf("name %s listed twice", e.Name)
		}
		if other, dup := codes[e.Code]; dup {
			t.Errorf("code %s stands for both %s and %s: one condition, one code", e.Code, other, e.Name)
		}
		names[e.Name], codes[e.Code] = true, e.Name
	}
	for _, e := range Catalogue {
		for _, old := range e.Replaces {
			if _, used := codes[old]; used {
				t.Errorf("%s replaces %s, which is still in the catalogue", e.Name, old)
			}
		}
	}
	consts := stringConsts(t, "codes.go")
	for name, value := range consts {
		if codes[value] != name {
			t.Errorf("constant %s = %q is not listed in Catalogue under its name", name, value)
		}
	}
	if len(consts) != len(Catalogue) {
		t.Errorf("codes.go defines %d codes, the catalogue lists %d", len(consts), len(Catalogue))
	}
}

// Every Code* constant of the backend packages is a code of the catalogue:
// an alias of it (errs.X, the rule) or a literal it lists.
func TestEveryPackageCodeIsCatalogued(t *testing.T) {
	known, names := map[string]bool{}, map[string]bool{}
	replaced := map[string]string{}
	for _, e := range Catalogue {
		known[e.Code], names[e.Name] = true, true
		for _, old := range e.Replaces {
			replaced[old] = e.Code
		}
	}
	root := filepath.Join("..")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "errs") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		aliases := codeAliases(t, path)
		for name, target := range aliases {
			n++
			if !names[target] {
				t.Errorf("%s: %s = errs.%s is not a code of the catalogue", path, name, target)
			}
		}
		for name, value := range codeConsts(t, path) {
			n++
			switch {
			case replaced[value] != "":
				t.Errorf("%s: %s = %q was replaced by %q: use the catalogue's code", path, name, value, replaced[value])
			case !known[value]:
				t.Errorf("%s: %s = %q is not in backend/errs/codes.go: add it there (one condition, one code)", path, name, value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no code constants found: the walk is broken")
	}
}

// stringConsts returns the string constants of a file, by name.
func stringConsts(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						out[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
	}
	return out
}

// codeConsts returns the Code* string constants of a file that are literals
// (aliases of errs constants are checked by the compiler).
func codeConsts(t *testing.T, path string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for name, value := range stringConsts(t, path) {
		if strings.HasPrefix(name, "Code") && len(name) > 4 {
			out[name] = value
		}
	}
	return out
}

// codeAliases returns the Code* constants of a file that alias a constant of
// this package (Code... = errs.Name), by name: the name of the catalogue
// entry they stand for.
func codeAliases(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) || !strings.HasPrefix(name.Name, "Code") || len(name.Name) <= 4 {
					continue
				}
				if sel, ok := vs.Values[i].(*ast.SelectorExpr); ok {
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "errs" {
						out[name.Name] = sel.Sel.Name
					}
				}
			}
		}
	}
	return out
}
