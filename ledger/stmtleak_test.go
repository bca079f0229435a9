package ledger

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoStatementsPreparedPerEvent: a statement prepared on a transaction (Tx.Prepare,
// Tx.Stmt) stays referenced by it until the transaction ends. The audit replays every event
// in one transaction, so a projector that prepared a statement per event kept a million of
// them for a million events (about 300 bytes each: the audit's memory grew with the
// chain). Projectors use tx.Exec and tx.Query, which the connection's statement cache
// serves; only the calls listed here prepare, each once per transaction or per Record.
func TestNoStatementsPreparedPerEvent(t *testing.T) {
	allowed := map[string]bool{
		"recordOnce": true, // one INSERT INTO events per Record transaction
		"ReadHashes": true, // once per storedHashes, which the replay keeps for its transaction
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		// stmtcache.go is the driver below database/sql: it prepares on connections.
		if strings.HasSuffix(name, "_test.go") || name == "stmtcache.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				switch sel.Sel.Name {
				case "Prepare", "PrepareContext", "Stmt", "StmtContext":
					if !allowed[fn.Name.Name] {
						t.Errorf("%s: %s calls %s: a statement prepared on a transaction lives as long as it; use Exec or Query (the statement cache prepares once)", fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
