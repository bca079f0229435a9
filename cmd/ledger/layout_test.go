package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// listedPackage is what `go list -deps -json` says of one package.
type listedPackage struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
}

// listPackages runs `go list -deps -json ./...` at the module root and returns every package
// it lists, the module's and their dependencies, by import path.
func listPackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-json", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

const module = "evidenceledger/"

// ours reports whether an import path is a package of this module.
func ours(path string) bool { return strings.HasPrefix(path, module) }

// ioPackages are the packages that reach the outside world; the pure packages import none,
// directly or through another package of ours. SQL drivers are matched by name.
var ioPackages = []string{"net", "net/http", "database/sql", "os", "os/exec"}

func isIO(path string) bool {
	return slices.Contains(ioPackages, path) || strings.Contains(path, "sqlite") || strings.Contains(path, "/pq") || strings.Contains(path, "mysql")
}

// allowedImports is docs/design.md §3's imports column: for each of our packages (a folder and
// what is below it that has no row of its own, longest prefix first), the rows of ours it may
// import; a package may always import one of its own row. A package the table does not name
// fails the test, so a new package must be placed in it.
var allowedImports = []struct {
	prefix string
	may    []string
}{
	{"evidence", nil},
	{"match", []string{"evidence"}}, // the quote matcher: pure, beside the domain
	{"migrations", nil},
	{"fetch/fetchtest", []string{"fetch"}}, // the tests' loopback world; imported by tests alone
	{"fetch", nil},
	{"pdf", nil},
	{"verify/model", []string{"evidence", "match", "fetch", "verify"}}, // the model tiers: below verify's Checker, which declares SupportJudge
	{"verify", []string{"evidence", "match", "fetch", "pdf"}},
	{"ledger", []string{"evidence", "migrations", "ledger"}},
	{"gate", []string{"evidence", "match", "verify", "ledger", "gate"}}, // ledger for its store adapter (gate/store.go)
	{"replica", []string{"ledger", "replica"}},                          // replication beside the store: Litestream is linked only here
	{"web", []string{"evidence", "match", "ledger", "verify", "gate", "web"}},
	{"cmd", nil}, // cmd may import everything
	{"scripts", []string{}},
}

// rule returns the entry of allowedImports for one of our packages: its row's prefix and
// what the row may import.
func rule(rel string) (row string, may []string, all, found bool) {
	for _, r := range allowedImports {
		if rel == r.prefix || strings.HasPrefix(rel, r.prefix+"/") {
			return r.prefix, r.may, r.prefix == "cmd", true
		}
	}
	return "", nil, false, false
}

// under reports whether rel is the package prefix or below it.
func under(rel, prefix string) bool { return rel == prefix || strings.HasPrefix(rel, prefix+"/") }

// TestLayout holds the packages to docs/design.md §3: no package imports one above it in the
// table (web is imported by the binary alone, cmd by nobody), the pure packages (evidence and
// the matcher, match) reach no I/O package through any package of ours, and the memory-write
// gate's path from cmd/ledger (package gate, and cmd/ledger/gate.go itself) does not reach
// web.
func TestLayout(t *testing.T) {
	pkgs := listPackages(t)
	var checked int
	for path, p := range pkgs {
		if !ours(path) {
			continue
		}
		rel := strings.TrimPrefix(path, module)
		row, may, all, found := rule(rel)
		if !found {
			t.Errorf("package %s is not in docs/design.md §3's table (allowedImports)", rel)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if !ours(imp) {
				continue
			}
			irel := strings.TrimPrefix(imp, module)
			if under(irel, "cmd") || under(irel, "web") && !under(rel, "web") && !all {
				t.Errorf("%s imports %s: only the binary imports web, and nothing imports cmd", rel, irel)
			}
			if under(irel, "fetch/fetchtest") {
				t.Errorf("%s imports %s: only tests import it", rel, irel)
			}
			irow, _, _, _ := rule(irel)
			if all || irow == row {
				continue
			}
			if !slices.Contains(may, irow) {
				t.Errorf("%s imports %s; docs/design.md §3 lets it import only %v", rel, irel, may)
			}
		}
	}
	if checked < 8 {
		t.Fatalf("only %d packages of ours listed; go list found too little", checked)
	}

	// The pure packages: none of them, nor any package of ours they depend on, imports an
	// I/O package. A third-party dependency is not held to it (golang.org/x/net/publicsuffix
	// links net/http for the type of a cookie jar interface only): it is logged.
	pure := 0
	for path, p := range pkgs {
		rel := strings.TrimPrefix(path, module)
		if !ours(path) || !(under(rel, "evidence") || under(rel, "match")) {
			continue
		}
		pure++
		for _, dep := range append([]string{path}, p.Deps...) {
			if !ours(dep) {
				continue
			}
			for _, imp := range pkgs[dep].Imports {
				if isIO(imp) {
					t.Errorf("pure package %s reaches I/O package %s through %s", rel, imp, strings.TrimPrefix(dep, module))
				}
			}
		}
		for _, dep := range p.Deps {
			if isIO(dep) {
				t.Logf("%s links %s through a third-party dependency", rel, dep)
			}
		}
	}
	if pure < 2 {
		t.Fatalf("%d pure packages listed; want evidence and match", pure)
	}

	// The gate's path: cmd/ledger's gate subcommand uses package gate, which must not reach
	// web, and imports web itself nowhere in its file.
	g, ok := pkgs[module+"gate"]
	if !ok {
		t.Fatal("package gate is not listed")
	}
	for _, dep := range g.Deps {
		if under(strings.TrimPrefix(dep, module), "web") {
			t.Errorf("package gate reaches %s", dep)
		}
	}
	f, err := parser.ParseFile(token.NewFileSet(), "gate.go", nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	gateImports := 0
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == module+"web" {
			t.Errorf("cmd/ledger/gate.go imports %s; the gate's store adapter is gate.StoreLedger", path)
		}
		if path == module+"gate" {
			gateImports++
		}
	}
	if gateImports != 1 {
		t.Error("cmd/ledger/gate.go does not import package gate")
	}
}
