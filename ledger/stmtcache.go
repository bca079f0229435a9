package ledger

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// Recording and the audit's replay apply every event through the projectors, whose tx.Exec and
// tx.Query calls would each prepare their statement anew: most of the replay's time went
// there. The write connection and the replay database are therefore opened through
// cachingDriver, which keeps each connection's prepared statements by their SQL text and
// reuses them (a connection runs a few hundred distinct statements at most, so the cache
// stays small). A statement whose rows are still open is not shared: a second use meanwhile
// gets a statement of its own.

// cachedDriverName is the database/sql driver name of the caching driver.
const cachedDriverName = "sqlite-stmtcache"

func init() { sql.Register(cachedDriverName, cachingDriver{}) }

type cachingDriver struct{}

func (cachingDriver) Open(name string) (driver.Conn, error) {
	c, err := (&sqlite.Driver{}).Open(name)
	if err != nil {
		return nil, err
	}
	return &cachingConn{Conn: c, stmts: map[string]*cachedStmt{}}, nil
}

// cachingConn is a modernc.org/sqlite connection with a cache of prepared statements.
type cachingConn struct {
	driver.Conn
	stmts map[string]*cachedStmt
}

type cachedStmt struct {
	stmt driver.Stmt
	busy bool // rows of it are open
}

// errNoContext means the driver lacks a context method that modernc.org/sqlite has.
var errNoContext = errors.New("ledger: the sqlite driver lacks a context method")

func (c *cachingConn) prepare(ctx context.Context, query string) (driver.Stmt, error) {
	p, ok := c.Conn.(driver.ConnPrepareContext)
	if !ok {
		return nil, errNoContext
	}
	return p.PrepareContext(ctx, query)
}

// get returns the cached statement for query, preparing it on first use, or a fresh one
// (fresh true: the caller closes it) when the cached one is busy.
func (c *cachingConn) get(ctx context.Context, query string) (*cachedStmt, bool, error) {
	if cs, ok := c.stmts[query]; ok {
		if !cs.busy {
			return cs, false, nil
		}
		s, err := c.prepare(ctx, query)
		return &cachedStmt{stmt: s}, true, err
	}
	s, err := c.prepare(ctx, query)
	if err != nil {
		return nil, false, err
	}
	cs := &cachedStmt{stmt: s}
	c.stmts[query] = cs
	return cs, false, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	cs, fresh, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if fresh {
		defer cs.stmt.Close()
	}
	e, ok := cs.stmt.(driver.StmtExecContext)
	if !ok {
		return nil, errNoContext
	}
	return e.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	cs, fresh, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	q, ok := cs.stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errNoContext
	}
	rows, err := q.QueryContext(ctx, args)
	if err != nil {
		if fresh {
			cs.stmt.Close()
		}
		return nil, err
	}
	cs.busy = !fresh
	return &cachedRows{Rows: rows, cs: cs, fresh: fresh}, nil
}

// PrepareContext serves an explicit Prepare from the cache: the statement is lent until the
// caller closes it (a Prepare of the same SQL meanwhile gets a fresh one).
func (c *cachingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	cs, fresh, err := c.get(ctx, query)
	if err != nil {
		return nil, err
	}
	if fresh {
		return cs.stmt, nil
	}
	cs.busy = true
	return &lentStmt{Stmt: cs.stmt, cs: cs}, nil
}

// Prepare is PrepareContext without a context.
func (c *cachingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *cachingConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	b, ok := c.Conn.(driver.ConnBeginTx)
	if !ok {
		return nil, errNoContext
	}
	return b.BeginTx(ctx, opts)
}

func (c *cachingConn) Close() error {
	var errs []error
	for _, cs := range c.stmts {
		errs = append(errs, cs.stmt.Close())
	}
	return errors.Join(append(errs, c.Conn.Close())...)
}

// lentStmt is a cached statement lent to a caller of Prepare: closing it returns it to the
// cache. Its rows do not free it (the lender holds it until Close).
type lentStmt struct {
	driver.Stmt
	cs *cachedStmt
}

func (s *lentStmt) Close() error {
	s.cs.busy = false
	return nil
}

func (s *lentStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	e, ok := s.Stmt.(driver.StmtExecContext)
	if !ok {
		return nil, errNoContext
	}
	return e.ExecContext(ctx, args)
}

func (s *lentStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	q, ok := s.Stmt.(driver.StmtQueryContext)
	if !ok {
		return nil, errNoContext
	}
	return q.QueryContext(ctx, args)
}

// cachedRows frees its statement for reuse (or closes a fresh one) when closed.
type cachedRows struct {
	driver.Rows
	cs    *cachedStmt
	fresh bool
}

func (r *cachedRows) Close() error {
	err := r.Rows.Close()
	if r.fresh {
		return errors.Join(err, r.cs.stmt.Close())
	}
	r.cs.busy = false
	return err
}
