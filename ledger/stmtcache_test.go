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

// TestCachingDriverLendsPreparedStatements: a statement prepared twice while the first is
// open gets a second one; after Close the cached one is lent again.
func TestCachingDriverLendsPreparedStatements(t *testing.T) {
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
	if _, err := tx.Exec("CREATE TABLE t (x INTEGER)"); err != nil {
		t.Fatal(err)
	}
	const ins = "INSERT INTO t (x) VALUES (?)"
	a, err := tx.Prepare(ins)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tx.Prepare(ins)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := a.Exec(i); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Exec(10 + i); err != nil {
			t.Fatal(err)
		}
	}
	a.Close()
	b.Close()
	c, err := tx.Prepare(ins)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(100); err != nil {
		t.Fatal(err)
	}
	c.Close()
	var n, sum int
	if err := tx.QueryRow("SELECT count(*), sum(x) FROM t").Scan(&n, &sum); err != nil || n != 7 || sum != 0+1+2+10+11+12+100 {
		t.Fatalf("%d rows, sum %d, %v", n, sum, err)
	}
}
