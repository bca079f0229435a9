package ledger

import "errors"

// Errors of the disk under the ledger. Every write of the store that fails because of them
// returns an error wrapping one of them (and the SQLite error, for the log); its message is
// words a person can act on, and nothing of the write was recorded.
var (
	// ErrDiskFull means the disk holding the ledger (or the ledger's size cap,
	// [Options.MaxPages]) is full.
	ErrDiskFull = errors.New("the disk holding the ledger is full; nothing was recorded; free space on it and try again")
	// ErrReadOnly means the ledger's database cannot be written: its file, its directory
	// or its disk is read-only.
	ErrReadOnly = errors.New("the ledger's database is read-only (its file, its directory or its disk); nothing was recorded; make the data directory writable by the user running the ledger and try again")
)

// sqliteReadOnly is SQLite's SQLITE_READONLY.
const sqliteReadOnly = 8

// storageError returns err wrapped as [ErrDiskFull] or [ErrReadOnly] when SQLite says the
// disk is full or the database read-only, and err itself otherwise.
func storageError(err error) error {
	switch sqliteCode(err) {
	case sqliteFull:
		return &diskError{kind: ErrDiskFull, cause: err}
	case sqliteReadOnly:
		return &diskError{kind: ErrReadOnly, cause: err}
	}
	return err
}

// diskError is a storage failure: its message is the kind's words; it wraps both the kind
// and SQLite's error.
type diskError struct{ kind, cause error }

func (e *diskError) Error() string   { return e.kind.Error() }
func (e *diskError) Unwrap() []error { return []error{e.kind, e.cause} }
