package ledger

import "errors"

// Errors of the disk under the ledger. Every write of the store that fails because of them
// returns an error wrapping one of them (and the SQLite error, for the log); its message is
// words a person can act on, and nothing of the write was recorded.
var (
	// ErrDiskFull means the disk holding the ledger (or the ledger's size cap,
	// [Options.MaxPages]) is full.
	ErrDiskFull = errors.New("the disk holding the ledger is full; nothing was recorded; free space on it and try again")
	// ErrReadOnly means the ledger cannot be written: it was opened by [OpenReadOnly], or
	// its database file, its directory or its disk is read-only.
	ErrReadOnly = errors.New("the ledger is read-only; nothing was recorded")
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
		return &diskError{kind: ErrReadOnly, cause: err, words: "the ledger's database is read-only (its file, its directory or its disk); nothing was recorded; make the data directory writable by the user running the ledger and try again"}
	}
	return err
}

// diskError is a storage failure: its message is words (the kind's, when empty); it wraps
// both the kind and SQLite's error.
type diskError struct {
	kind, cause error
	words       string
}

func (e *diskError) Error() string {
	if e.words != "" {
		return e.words
	}
	return e.kind.Error()
}
func (e *diskError) Unwrap() []error { return []error{e.kind, e.cause} }
