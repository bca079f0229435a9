package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"evidenceledger/gate"
	"evidenceledger/ledger"
	"evidenceledger/verify"
	"evidenceledger/verify/model"
)

// The contracts docs/architecture.md states between the packages, held by the compiler.
var (
	_ verify.CheckStore   = (*ledger.Store)(nil)
	_ verify.SupportJudge = (*model.Tiers)(nil)
	_ gate.Ledger         = gate.StoreLedger(nil)
	_ gate.Importer       = gate.StoreImporter(nil)
)

// docPackages are the folders of the packages docs/architecture.md names, by the name code
// calls them with.
var docPackages = map[string]string{
	"evidence": "evidence", "match": "match", "ledger": "ledger", "fetch": "fetch", "pdf": "pdf",
	"verify": "verify", "model": "verify/model", "gate": "gate", "replica": "replica", "web": "web",
}

// declared is what the sources of one package declare: for each name (a function, a type, a
// value; a method or field as Type.Name), the parameters it takes (-1 for no function), and
// whether its last parameter is variadic.
type declared map[string]struct {
	params   int
	variadic bool
}

func paramCount(ft *ast.FuncType) (int, bool) {
	n, variadic := 0, false
	for _, f := range ft.Params.List {
		n += max(len(f.Names), 1)
		_, variadic = f.Type.(*ast.Ellipsis)
	}
	return n, variadic
}

// declarations reads the non-test Go files of dir (below the module root).
func declarations(t *testing.T, dir string) declared {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	d := declared{}
	put := func(name string, ft *ast.FuncType) {
		e := d[name]
		e.params = -1
		if ft != nil {
			e.params, e.variadic = paramCount(ft)
		}
		d[name] = e
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				name := decl.Name.Name
				if decl.Recv != nil {
					rt := decl.Recv.List[0].Type
					if s, ok := rt.(*ast.StarExpr); ok {
						rt = s.X
					}
					if id, ok := rt.(*ast.Ident); ok {
						name = id.Name + "." + name
					}
				}
				put(name, decl.Type)
			case *ast.GenDecl:
				for _, sp := range decl.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						put(sp.Name.Name, nil)
						switch ty := sp.Type.(type) {
						case *ast.InterfaceType:
							for _, m := range ty.Methods.List {
								if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) > 0 {
									put(sp.Name.Name+"."+m.Names[0].Name, ft)
								}
							}
						case *ast.StructType:
							for _, fl := range ty.Fields.List {
								for _, n := range fl.Names {
									put(sp.Name.Name+"."+n.Name, nil)
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							put(n.Name, nil)
						}
					}
				}
			}
		}
	}
	return d
}

// docRef is a reference in backquotes: pkg.Name, pkg.Type.Name, or an unqualified Name, with
// its arguments when it is written as a call.
var docRef = regexp.MustCompile(`^([a-z]+\.)?([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)(\((.*)\))?`)

// args counts the top-level arguments of a call's argument list.
func args(list string) int {
	if strings.TrimSpace(list) == "" {
		return 0
	}
	n, depth := 1, 0
	for _, r := range list {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				n++
			}
		}
	}
	return n
}

// TestArchitectureDocReferences: every function, type, method and field docs/architecture.md
// names in backquotes, as pkg.Name or pkg.Type.Name, is declared in that package, and every
// call it writes (pkg.F(a, b), pkg.Type.M(a), or an unqualified M(a, b) of any of our
// packages) has the arity of the declaration, so a signature the page quotes cannot go stale.
func TestArchitectureDocReferences(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	decls := map[string]declared{}
	for name, dir := range docPackages {
		decls[name] = declarations(t, dir)
	}
	spans := strings.Split(string(raw), "`")
	checked := 0
	for i := 1; i < len(spans); i += 2 {
		ref := strings.Join(strings.Fields(spans[i]), " ")
		m := docRef.FindStringSubmatch(ref)
		if m == nil {
			continue
		}
		pkg, name, call, list := strings.TrimSuffix(m[1], "."), m[2], m[3] != "", m[4]
		if pkg != "" {
			if _, ours := docPackages[pkg]; !ours {
				continue // errors.Is, fmt.Errorf: the standard library's
			}
		} else if !call || strings.Contains(name, ".") {
			continue // a word in backquotes, not a call
		}
		if call {
			// A call's own argument list ends at its matching parenthesis: what follows
			// (".WithModels(tiers)") is not checked.
			depth := 0
			for j, r := range list {
				if r == '(' {
					depth++
				}
				if r == ')' {
					if depth == 0 {
						list = list[:j]
						break
					}
					depth--
				}
			}
		}
		var found []struct {
			params   int
			variadic bool
		}
		for p, d := range decls {
			if pkg != "" && p != pkg {
				continue
			}
			for k, e := range d {
				if k == name || pkg == "" && strings.HasSuffix(k, "."+name) {
					found = append(found, e)
				}
			}
		}
		if pkg == "" && len(found) == 0 && (name == "init" || name == "main") {
			continue
		}
		if len(found) == 0 {
			t.Errorf("docs/architecture.md names `%s`, which is declared nowhere in our packages", ref)
			continue
		}
		checked++
		if !call {
			continue
		}
		n, arity := args(list), false
		for _, e := range found {
			arity = arity || e.params == n || e.variadic && n >= e.params-1 || e.params < 0
		}
		if !arity {
			t.Errorf("docs/architecture.md calls `%s` with %d arguments; the declaration takes %v", ref, n, found)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d references checked: the page's references are not being read", checked)
	}
}
