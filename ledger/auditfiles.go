package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The audit's own files (the replay database, a state file being written) are named
// ledger-audit-* and held under an exclusive flock(2) for as long as the process uses them.
// A process killed during an audit (kill -9, a crash, a lost machine) leaves its file
// behind, but its lock goes with it; so every audit starts by removing the ledger-audit-*
// files of its folders whose lock nobody holds (removeStaleAuditFiles), and leaves alone
// those whose lock is held: another audit is using them.

// auditFilePrefix begins the name of every file the audit makes for itself.
const auditFilePrefix = "ledger-audit-"

// auditFile is a file of the audit's own, created and locked by createAuditFile.
type auditFile struct {
	path string
	f    *os.File // holds the lock
}

// createAuditFile makes a new, empty file ledger-audit-*SUFFIX (mode 0600) in dir and locks
// it. The file is locked through its own descriptor, so that the lock lasts as long as that
// descriptor whatever else opens and closes the file (SQLite's own locks are fcntl locks,
// which flock locks do not touch).
func createAuditFile(dir, suffix string) (*auditFile, error) {
	for range 10 {
		f, err := os.CreateTemp(dir, auditFilePrefix+"*"+suffix)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			// Another audit's clean-up took the new file between its creation and the lock,
			// took it for a left-over and removed it: make another.
			f.Close()
			continue
		}
		if sameFile(f, f.Name()) {
			return &auditFile{path: f.Name(), f: f}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("make a file of the audit's own in %s: it kept being removed as soon as it was made", dir)
}

// sameFile reports whether path still names the file f is open on.
func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Lstat(path)
	return err == nil && os.SameFile(a, b)
}

// remove deletes the file (and a journal SQLite left beside it) and releases the lock.
func (a *auditFile) remove() {
	os.Remove(a.path)
	os.Remove(a.path + "-journal")
	a.f.Close()
}

// release releases the lock and keeps the file: it has been renamed to where it stays.
func (a *auditFile) release() error {
	return a.f.Close()
}

// removeStaleAuditFiles removes every ledger-audit-* file of dirs whose lock no process
// holds, and returns the names of those it removed. A file whose lock is held is in use by
// a running audit and is kept; so are directories and files it cannot open.
func removeStaleAuditFiles(dirs ...string) []string {
	var removed []string
	seen := map[string]bool{}
	for _, dir := range dirs {
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasPrefix(e.Name(), auditFilePrefix) || strings.HasSuffix(e.Name(), "-journal") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			if removeIfStale(path) {
				removed = append(removed, path)
			}
		}
	}
	return removed
}

// removeIfStale removes path (and a journal beside it) when its lock can be taken at once,
// holding the lock while it removes it.
func removeIfStale(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return false
	}
	if !sameFile(f, path) {
		return false
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return false
	}
	os.Remove(path + "-journal")
	return true
}
