package ledger

import (
	"database/sql"
	"path/filepath"
	"testing"
)

// TestCachingDriverNestedQueries: the same query run while its rows are open gets its own
// statement; both iterations see every row, and the cached statement is reused after.
func TestCachingDriverNestedQueries(t *testing.T) {
	db, err := sql.Open(cachedDriverName, "file:"+filepath.Join(t.TempDir(), "c.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("CREATE TABLE t (x INTEGER); CREATE TABLE u (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if _, err := tx.Exec("INSERT INTO t (x) VALUES (?)", i); err != nil {
			t.Fatal(err)
		}
	}
	const q = "SELECT x FROM t ORDER BY x"
	outer, err := tx.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for outer.Next() {
		var a int
		outer.Scan(&a)
		inner, err := tx.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		for inner.Next() {
			var b int
			inner.Scan(&b)
			pairs++
		}
		inner.Close()
	}
	outer.Close()
	if pairs != 9 {
		t.Fatalf("%d pairs from nested queries, want 9", pairs)
	}
	var sum int
	if err := tx.QueryRow("SELECT sum(x) FROM t").Scan(&sum); err != nil || sum != 6 {
		t.Fatalf("sum %d %v", sum, err)
	}
	if err := tx.QueryRow("SELECT sum(x) FROM t").Scan(&sum); err != nil || sum != 6 {
		t.Fatalf("the cached statement again: %d %v", sum, err)
	}
}
