package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"evidenceledger/migrations"

	"modernc.org/sqlite"
)

// applicationID marks a SQLite file as a ledger database ("EvLg"), so that a database of
// another program is refused rather than written to.
const applicationID = 0x45764c67

// dbFileName is the database's name inside the data directory.
const dbFileName = "ledger.db"

// SQLite primary result codes the store reacts to.
const (
	sqliteBusy    = 5
	sqliteLocked  = 6
	sqliteCorrupt = 11
	sqliteFull    = 13
	sqliteNotADB  = 26
)

// Open opens the ledger in dir, creating the directory (mode 0700), the database
// (ledger.db, mode 0600, as are its -wal and -shm files) and the signing key (signing.key,
// mode 0600) on first use; a new ledger's first event is the key.created event that names
// its key. An existing database whose files others may read is set to mode 0600.
//
// Open refuses, with an error that says what to do: a file that is not a SQLite database or
// is damaged, a SQLite database of another program, a ledger written by a newer version of
// this program, a key file readable by others than its owner, and a ledger that already has
// events but whose key file is missing or is not the chain's current key (a new key is never
// created silently then). Open writes nothing to a file it refuses.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, fmt.Errorf("open ledger: no data directory given: %w", ErrInvalid)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open ledger: create data directory: %w", err)
	}
	// Opening creates files, runs migrations and may make the first key: one process at a
	// time, so that processes starting together on a new directory do not race.
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := filepath.Join(dir, dbFileName)
	if err := inspectFile(ctx, path); err != nil {
		return nil, err
	}
	if err := ownerOnly(path); err != nil {
		return nil, err
	}
	if opts.Origin != "" {
		if err := checkOrigin(opts.Origin); err != nil {
			return nil, fmt.Errorf("open ledger: %w", err)
		}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	// The writer keeps its prepared statements (stmtcache.go): recording runs the same few
	// statements for every event. The baseline of the benchmarks (noTree) opens it as the
	// ledger did before.
	driverName := cachedDriverName
	if opts.noTree {
		driverName = "sqlite"
	}
	wdb, err := sql.Open(driverName, dsn(path, true, opts.MaxPages))
	if err != nil {
		return nil, fmt.Errorf("open ledger database %s: %w", path, err)
	}
	// One writer connection: goroutines of this process queue in Go rather than spin on the
	// SQLite lock; other processes wait through busy_timeout.
	wdb.SetMaxOpenConns(1)
	rdb, err := sql.Open("sqlite", dsn(path, false, 0))
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("open ledger database %s: %w", path, err)
	}
	clock := opts.batchClock
	if clock == nil {
		clock = realClock{}
	}
	s := &Store{dir: dir, path: path, now: now, origin: opts.Origin, noTree: opts.noTree, clock: clock, wdb: wdb, rdb: rdb}
	if err := backupIfBehind(ctx, wdb, dir, now()); err != nil {
		s.Close()
		return nil, fmt.Errorf("open ledger database %s: %w", path, err)
	}
	if err := migrate(ctx, wdb); err != nil {
		s.Close()
		return nil, fmt.Errorf("open ledger database %s: %w", path, err)
	}
	if err := restoreTriggers(ctx, wdb); err != nil {
		s.Close()
		return nil, fmt.Errorf("open ledger database %s: %w", path, err)
	}
	if err := s.loadKey(ctx); err != nil {
		s.Close()
		return nil, err
	}
	if _, err := chainOrigin(ctx, s.rdb, s.origin); err != nil {
		s.Close()
		return nil, fmt.Errorf("open ledger: %w", err)
	}
	if !s.noTree {
		if err := s.completeTree(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("open ledger: %w", err)
		}
	}
	return s, nil
}

// OpenReadOnly opens the ledger in dir for reading only, as an auditor does: it needs no
// signing key and writes nothing, not even a file mode, so it works on a copy of ledger.db
// that its reader may not write, in a directory it may not write. The read-only commands
// work on it ([Store.Audit], [Store.Export], [Store.Events], [Store.Keys],
// [Store.Checkpoint], the proofs); anything that records fails.
//
// It refuses, with an error that says what to do, a directory without ledger.db, a file that
// is not a ledger, and a ledger whose schema is older or newer than this program's (an older
// one is upgraded by opening it once with write access).
func OpenReadOnly(ctx context.Context, dir string) (*Store, error) {
	path := filepath.Join(dir, dbFileName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open ledger: no ledger database in %s: %w", dir, err)
	}
	if err := inspectFile(ctx, path); err != nil {
		return nil, err
	}
	db, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return nil, err
	}
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		db.Close()
		return nil, fmt.Errorf("open ledger database %s: %w", path, err)
	}
	if latest := latestMigration(); version < latest {
		db.Close()
		return nil, fmt.Errorf("open ledger database %s: its schema version %d is older than this program's (%d); open it once with write access (ledger serve, import or check) to upgrade it, then audit: %w", path, version, latest, ErrInvalid)
	}
	return &Store{dir: dir, path: path, now: time.Now, readOnly: true, clock: realClock{}, wdb: db, rdb: db}, nil
}

// openReadOnlyDB opens path with SQLite's read-only mode. A database in WAL mode whose -shm
// file cannot be made (the directory is read-only) is opened as immutable instead, which is
// right for a copy nothing else writes.
func openReadOnlyDB(ctx context.Context, path string) (*sql.DB, error) {
	var last error
	for _, mode := range []string{"mode=ro", "immutable=1"} {
		db, err := sql.Open("sqlite", "file:"+path+"?"+mode+"&_pragma=busy_timeout(20000)&_pragma=query_only(1)")
		if err != nil {
			return nil, fmt.Errorf("open ledger database %s: %w", path, err)
		}
		var n int
		if last = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); last == nil {
			return db, nil
		}
		db.Close()
	}
	return nil, fmt.Errorf("open ledger database %s read-only: %w", path, last)
}

// dbFileMode is the mode of the database and its -wal and -shm files: they hold token and
// password hashes, so only the owner may read them.
const dbFileMode = 0o600

// ownerOnly makes the database file, before SQLite opens it, and its -wal and -shm files
// readable and writable by their owner only. A missing database is created empty with that
// mode (SQLite takes an empty file for a new database, and gives the -wal and -shm files it
// creates the database file's mode); an existing file with any other mode is set to it. The
// mode is set with chmod, so the umask cannot widen or narrow it. The error says which file
// could not be changed.
func ownerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, dbFileMode)
	if err == nil {
		err = f.Close()
	} else if errors.Is(err, fs.ErrExist) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("open ledger: create the database file %s: %w", path, err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		st, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil && st.Mode().Perm() != dbFileMode {
			err = os.Chmod(p, dbFileMode)
		}
		if err != nil {
			return fmt.Errorf("open ledger: make %s readable by its owner only (mode 0600); run the ledger as the owner of its data directory: %w", p, err)
		}
	}
	return nil
}

// eachRow runs the query q in tx and calls scan for each row it returns, in order. It stops
// at the first error, of the query, of scan or of the rows, returns it unwrapped, and closes
// the rows.
func eachRow(ctx context.Context, tx *sql.Tx, q string, args []any, scan func(*sql.Rows) error) error {
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanPair is an eachRow scan for rows of two text columns: it calls add with them.
func scanPair(add func(a, b string)) func(*sql.Rows) error {
	return func(rows *sql.Rows) error {
		var a, b string
		if err := rows.Scan(&a, &b); err != nil {
			return err
		}
		add(a, b)
		return nil
	}
}

// lockName is the lock file that serializes Open across processes.
const lockName = "open.lock"

// lockDir takes an exclusive lock on dir's lock file (waiting for it) and returns its release.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open ledger: lock data directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("open ledger: lock data directory: %w", err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// dsn builds a modernc.org/sqlite data source name whose pragmas apply to every pooled
// connection. Write connections start transactions with BEGIN IMMEDIATE.
func dsn(path string, write bool, maxPages int) string {
	q := "_pragma=busy_timeout(20000)&_pragma=journal_mode(wal)&_pragma=synchronous(full)&_pragma=foreign_keys(1)"
	if write {
		q += "&_txlock=immediate"
	}
	if maxPages > 0 {
		q += "&_pragma=max_page_count(" + strconv.Itoa(maxPages) + ")"
	}
	return "file:" + path + "?" + q
}

// inspectFile checks, read-only and before any pragma can change it, that an existing file
// is a ledger database this program can use.
func inspectFile(ctx context.Context, path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("open ledger database: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(20000)")
	if err != nil {
		return fmt.Errorf("open ledger database %s: %w", path, err)
	}
	defer db.Close()
	var appID, version, tables int
	err = db.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID)
	if err == nil {
		err = db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	}
	if err == nil {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&tables)
	}
	if err != nil {
		if c := sqliteCode(err); c == sqliteNotADB || c == sqliteCorrupt {
			return fmt.Errorf("open ledger database %s: the file is not a SQLite database or it is damaged; move it away or point --data at the ledger's directory: %w", path, err)
		}
		return fmt.Errorf("open ledger database %s: cannot read it: %w", path, err)
	}
	if appID != applicationID && !(appID == 0 && tables == 0) {
		return fmt.Errorf("open ledger database %s: it is a SQLite database of another program, not an evidence ledger; point --data at the ledger's directory: %w", path, ErrInvalid)
	}
	if latest := latestMigration(); version > latest {
		return fmt.Errorf("open ledger database %s: its schema version %d is newer than this program's (%d); use a newer ledger binary: %w", path, version, latest, ErrInvalid)
	}
	return nil
}

// migration is one numbered schema file.
type migration struct {
	version int
	name    string
}

// listMigrations returns the embedded migrations in order.
func listMigrations() []migration {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		panic(fmt.Sprintf("read embedded migrations: %v", err))
	}
	var ms []migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(e.Name(), ".sql") {
			panic(fmt.Sprintf("migration %q is not named NNNN_name.sql", e.Name()))
		}
		ms = append(ms, migration{version: v, name: e.Name()})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i, m := range ms {
		if m.version != i+1 {
			panic(fmt.Sprintf("migration %q: numbers must run 1, 2, 3, ... without gaps", m.name))
		}
	}
	return ms
}

// latestMigration is the schema version this program builds.
func latestMigration() int { return len(listMigrations()) }

// backupIfBehind copies a ledger whose schema is older than this program's to
// dir/backups before the migrations change it (see backupBeforeMigration); a new, empty
// database and a current one are not copied.
func backupIfBehind(ctx context.Context, db *sql.DB, dir string, now time.Time) error {
	var version int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version == 0 || version >= latestMigration() {
		return nil
	}
	_, err := backupBeforeMigration(ctx, db, dir, version, now)
	return err
}

// migrate applies the migrations the database lacks, each in its own transaction together
// with the new schema version. Concurrent openers serialize on the write lock.
func migrate(ctx context.Context, db *sql.DB) error {
	ms := listMigrations()
	for {
		done, err := migrateOne(ctx, db, ms)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next missing migration; done reports that none was missing.
func migrateOne(ctx context.Context, db *sql.DB, ms []migration) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, fmt.Errorf("migrate: read schema version: %w", err)
	}
	if version > len(ms) {
		return false, fmt.Errorf("schema version %d is newer than this program's (%d); use a newer ledger binary: %w", version, len(ms), ErrInvalid)
	}
	if version == len(ms) {
		return true, nil
	}
	m := ms[version]
	body, err := fs.ReadFile(migrations.FS, m.name)
	if err != nil {
		return false, fmt.Errorf("migrate: %w", err)
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return false, fmt.Errorf("migrate: apply %s: %w", m.name, err)
	}
	if m.version == 1 {
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
			return false, fmt.Errorf("migrate: mark database: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version)); err != nil {
		return false, fmt.Errorf("migrate: record schema version: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate: commit %s: %w", m.name, err)
	}
	return false, nil
}

// sqliteCode returns the primary SQLite result code in err, or 0.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() & 0xff
	}
	return 0
}
