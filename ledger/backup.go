package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// BackupKeySuffix names the signing key a backup carries when asked to: FILE + ".key",
// beside the backup FILE.
const BackupKeySuffix = ".key"

// backupDir is the folder of the data directory that holds the copies Open takes before a
// migration changes the schema.
const backupDir = "backups"

// Backup writes a consistent copy of the database to out, a file that must not exist yet,
// readable by its owner only (mode 0600: it holds token and password hashes). The copy is
// SQLite's VACUUM INTO, read in one read transaction, so it is the ledger as of one commit
// even while a server writes: a writer is neither stopped nor waited for, and a commit after
// the read began is not in it. With withKey the signing key is copied too, to out +
// [BackupKeySuffix], mode 0600; without it the backup holds no secret that signs. It works
// on a store opened read-only, without the signing key (unless withKey).
//
// It returns the head the copy holds: its last event's seq and hash, read back from the copy.
// It fails, leaving no file behind, when out exists, when its folder is missing, and when
// withKey is asked of a data directory that has no key file.
func (s *Store) Backup(ctx context.Context, out string, withKey bool) (BackupHead, error) {
	if err := s.backup(ctx, out, withKey); err != nil {
		return BackupHead{}, err
	}
	h, err := readBackupHead(ctx, out)
	if err != nil {
		os.Remove(out)
		os.Remove(out + BackupKeySuffix)
		return BackupHead{}, fmt.Errorf("backup: read the copy back: %w", err)
	}
	return h, nil
}

// BackupHead is the last event a backup holds (Seq 0 and Hash "" for an empty chain).
type BackupHead struct {
	Seq  int64
	Hash string
}

// readBackupHead reads the last event of the ledger database file path.
func readBackupHead(ctx context.Context, path string) (BackupHead, error) {
	db, err := openReadOnlyDB(ctx, path)
	if err != nil {
		return BackupHead{}, err
	}
	defer db.Close()
	var h BackupHead
	err = db.QueryRowContext(ctx, "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").Scan(&h.Seq, &h.Hash)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return h, err
}

func (s *Store) backup(ctx context.Context, out string, withKey bool) error {
	keyOut := out + BackupKeySuffix
	for _, p := range []string{out, keyOut} {
		if p == keyOut && !withKey {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			return fmt.Errorf("backup: %s already exists; give a new file (a backup never overwrites one): %w", p, ErrInvalid)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("backup: %w", err)
		}
	}
	var key []byte
	if withKey {
		var err error
		if key, err = os.ReadFile(filepath.Join(s.dir, keyFileName)); err != nil {
			return fmt.Errorf("backup --with-key: read the signing key: %w", err)
		}
	}
	// A connection of its own, read-only but not query_only (which refuses VACUUM INTO even
	// though VACUUM INTO changes nothing of the database it reads).
	db, err := sql.Open("sqlite", "file:"+s.path+"?mode=ro&_pragma=busy_timeout(20000)")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	if err := vacuumInto(ctx, db, out); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if withKey {
		if err := writeNew(keyOut, key); err != nil {
			os.Remove(out)
			return fmt.Errorf("backup: write the signing key: %w", err)
		}
	}
	return nil
}

// vacuumInto copies the database db reads to the new file out with VACUUM INTO, and makes
// it mode 0600. The file is made empty with that mode first, so that it is never readable
// by others, not even while SQLite writes it.
func vacuumInto(ctx context.Context, db *sql.DB, out string) error {
	if err := writeNew(out, nil); err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", out); err != nil {
		os.Remove(out)
		return fmt.Errorf("copy the database to %s: %w", out, err)
	}
	return os.Chmod(out, dbFileMode)
}

// writeNew creates path, which must not exist, with mode 0600 and data.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, dbFileMode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(path, dbFileMode)
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}

// RestoreResult says what [Restore] put in place.
type RestoreResult struct {
	// Database is the restored ledger.db; Key the restored signing key, "" when the backup
	// carried none (the restored ledger is then read-only until the key is put back).
	Database, Key string
}

// Restore puts the backup file from (as [Store.Backup] wrote it) in place as the ledger of
// the data directory dir, with the signing key from + [BackupKeySuffix] when the backup has
// one. It refuses a directory that already holds a ledger database or a signing key (a
// restore never overwrites a ledger), and a file that is not a ledger database; nothing is
// left behind then. The restored files are mode 0600. It does not open the ledger: audit it
// (OpenReadOnly, then [Store.Audit]) to see that it holds and where its head is.
func Restore(ctx context.Context, from, dir string) (RestoreResult, error) {
	if dir == "" {
		return RestoreResult{}, fmt.Errorf("restore: no data directory given: %w", ErrInvalid)
	}
	st, err := os.Stat(from)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("restore: %w", err)
	}
	if !st.Mode().IsRegular() {
		return RestoreResult{}, fmt.Errorf("restore: %s is not a file: %w", from, ErrInvalid)
	}
	if err := inspectFile(ctx, from); err != nil {
		return RestoreResult{}, fmt.Errorf("restore from %s: %w", from, err)
	}
	var tables int
	if db, err := openReadOnlyDB(ctx, from); err != nil {
		return RestoreResult{}, fmt.Errorf("restore: %w", err)
	} else {
		err = db.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema WHERE name = 'events'").Scan(&tables)
		db.Close()
		if err != nil || tables != 1 {
			return RestoreResult{}, fmt.Errorf("restore: %s is not a ledger backup (it has no events table): %w", from, ErrInvalid)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return RestoreResult{}, fmt.Errorf("restore: create data directory: %w", err)
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return RestoreResult{}, err
	}
	defer unlock()
	res := RestoreResult{Database: filepath.Join(dir, dbFileName)}
	key := filepath.Join(dir, keyFileName)
	for _, p := range []string{res.Database, res.Database + "-wal", key} {
		if _, err := os.Lstat(p); err == nil {
			return RestoreResult{}, fmt.Errorf("restore: %s already exists: a restore never overwrites a ledger; give an empty data directory: %w", p, ErrInvalid)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return RestoreResult{}, fmt.Errorf("restore: %w", err)
		}
	}
	if err := copyNew(from, res.Database); err != nil {
		return RestoreResult{}, fmt.Errorf("restore the database: %w", err)
	}
	if kb, err := os.ReadFile(from + BackupKeySuffix); err == nil {
		if err := writeNew(key, kb); err != nil {
			os.Remove(res.Database)
			return RestoreResult{}, fmt.Errorf("restore the signing key: %w", err)
		}
		res.Key = key
	} else if !errors.Is(err, fs.ErrNotExist) {
		os.Remove(res.Database)
		return RestoreResult{}, fmt.Errorf("restore the signing key: %w", err)
	}
	return res, nil
}

// copyNew copies the file from to the new file to (mode 0600), synced to disk.
func copyNew(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, dbFileMode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(to)
	}
	return err
}

// backupBeforeMigration copies the database of dir, at schema version from, to
// dir/backups/ledger-v{from}-{time}.db before a migration changes it. now names the copy.
func backupBeforeMigration(ctx context.Context, db *sql.DB, dir string, from int, now time.Time) (string, error) {
	folder := filepath.Join(dir, backupDir)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		return "", fmt.Errorf("back up before migrating: %w", err)
	}
	out := filepath.Join(folder, fmt.Sprintf("ledger-v%d-%s.db", from, now.UTC().Format("20060102T150405.000000000Z")))
	if err := vacuumInto(ctx, db, out); err != nil {
		return "", fmt.Errorf("back up before migrating: %w", err)
	}
	return out, nil
}
