package ledger

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"
)

// Password hashing: argon2id (RFC 9106) with the parameters OWASP recommends for it
// (19 MiB of memory, 2 passes, 1 lane), a 16-byte random salt per user and a 32-byte key.
// A hash is stored in the PHC string form
//
//	$argon2id$v=19$m=19456,t=2,p=1$<salt, base64 without padding>$<key, base64 without padding>
//
// so that the parameters travel with the hash and may be raised later without a migration.
const (
	argonMemory  = 19 * 1024 // KiB
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// Password length limits, in characters. The upper bound keeps hashing cost bounded.
const (
	minPasswordLen = 10
	MaxPasswordLen = 256
)

// SessionTTL is how long a sign-in session lasts, from sign-in (not from last use).
const SessionTTL = 12 * time.Hour

// CheckPasswordRules returns an error wrapping [ErrInvalid] when a new password is too short,
// too long or not valid UTF-8.
func CheckPasswordRules(password string) error {
	n := utf8.RuneCountInString(password)
	switch {
	case !utf8.ValidString(password):
		return fmt.Errorf("the password is not valid UTF-8 text: %w", ErrInvalid)
	case n < minPasswordLen:
		return fmt.Errorf("the password has %d characters; use at least %d: %w", n, minPasswordLen, ErrInvalid)
	case n > MaxPasswordLen:
		return fmt.Errorf("the password has %d characters; use at most %d: %w", n, MaxPasswordLen, ErrInvalid)
	}
	return nil
}

// hashPassword returns the PHC string of password under a fresh random salt.
func hashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("hash password: make salt: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// passwordMatches reports whether password hashes to phc, comparing in constant time. A
// malformed phc never matches.
func passwordMatches(phc, password string) bool {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil || m == 0 || t == 0 || p == 0 || m > 1<<21 || t > 16 {
		return false
	}
	salt, err1 := base64.RawStdEncoding.DecodeString(parts[4])
	want, err2 := base64.RawStdEncoding.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is hashed against when a name is unknown, so that a wrong name costs as much
// time as a wrong password and sign-in does not reveal which names exist. It is made on
// the first sign-in, whatever the name (SignIn calls it on every path), not when the
// program starts: every command, `ledger gate` run as a hook above all, would otherwise pay
// one argon2id hash at start.
var dummyHash = sync.OnceValue(func() string {
	h, err := hashPassword("not a password of anyone")
	if err != nil {
		panic(err)
	}
	return h
})

// AddUserWithPassword is [Store.AddUser] that also sets a sign-in password, in the same
// transaction: either the user exists with both an API token and the password, or nothing
// changed. It returns the API token. The password hash (argon2id, see the constants above)
// is stored in the credentials table, never in the chain. Errors are those of AddUser, and
// one wrapping [ErrInvalid] when the password breaks [CheckPasswordRules].
func (s *Store) AddUserWithPassword(ctx context.Context, actor, name, role, password string) (string, error) {
	if err := CheckPasswordRules(password); err != nil {
		return "", fmt.Errorf("add user %s: %w", name, err)
	}
	phc, err := hashPassword(password)
	if err != nil {
		return "", err
	}
	return s.addUser(ctx, actor, name, role, sql.NullString{String: phc, Valid: true})
}

// SetPassword sets or replaces the sign-in password of an existing user and ends all their
// sessions. Errors wrap [ErrInvalid] when the password breaks [CheckPasswordRules] and
// [ErrNotFound] when there is no such user.
func (s *Store) SetPassword(ctx context.Context, name, password string) error {
	if err := CheckPasswordRules(password); err != nil {
		return fmt.Errorf("set password of %s: %w", name, err)
	}
	phc, err := hashPassword(password)
	if err != nil {
		return err
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("set password of %s: %w", name, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, "UPDATE credentials SET password_hash = ? WHERE name = ?", phc, name)
	if err != nil {
		return fmt.Errorf("set password of %s: %w", name, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("set password of %s: no such user; add it with `ledger user add`: %w", name, ErrNotFound)
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE name = ?", name); err != nil {
		return fmt.Errorf("set password of %s: end sessions: %w", name, err)
	}
	return tx.Commit()
}

// HasUsers reports whether the ledger has at least one user.
func (s *Store) HasUsers(ctx context.Context) (bool, error) {
	var n int
	if err := s.rdb.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM users LIMIT 1)").Scan(&n); err != nil {
		return false, fmt.Errorf("count users: %w", err)
	}
	return n > 0, nil
}

// Session is a sign-in session. ID is the secret the browser keeps in its cookie; the ledger
// stores only its SHA-256.
type Session struct {
	ID      string
	User    User
	Expires time.Time
}

// SignIn checks a name and password and starts a session that lasts [SessionTTL]. It fails
// with an error wrapping [ErrUnauthenticated] when the name is unknown, the user has no
// password (API token only), or the password is wrong; the message does not say which, and
// each case costs one argon2id hash. Expired sessions of every user are purged here.
func (s *Store) SignIn(ctx context.Context, name, password string) (Session, error) {
	var u User
	var phc sql.NullString
	err := s.rdb.QueryRowContext(ctx, "SELECT u.name, u.role, c.password_hash FROM credentials c JOIN users u ON u.name = c.name WHERE c.name = ?", name).Scan(&u.Name, &u.Role, &phc)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("sign in: %w", err)
	}
	ok := phc.Valid && len(password) <= 4*MaxPasswordLen
	hash := dummyHash()
	if ok {
		hash = phc.String
	}
	if !passwordMatches(hash, password) || !ok {
		return Session{}, fmt.Errorf("sign in: the name or the password is wrong: %w", ErrUnauthenticated)
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return Session{}, fmt.Errorf("sign in: make session id: %w", err)
	}
	now := s.now().UTC()
	sess := Session{ID: base64.RawURLEncoding.EncodeToString(secret[:]), User: u, Expires: now.Add(SessionTTL)}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return Session{}, fmt.Errorf("sign in: %w", storageError(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "DELETE FROM sessions WHERE expires <= ?", now.Format(timeLayout)); err != nil {
		return Session{}, fmt.Errorf("sign in: purge expired sessions: %w", storageError(err))
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO sessions (id_hash, name, created, expires) VALUES (?, ?, ?, ?)",
		tokenHash(sess.ID), u.Name, now.Format(timeLayout), sess.Expires.Format(timeLayout)); err != nil {
		return Session{}, fmt.Errorf("sign in: store session: %w", storageError(err))
	}
	if err := tx.Commit(); err != nil {
		return Session{}, fmt.Errorf("sign in: %w", storageError(err))
	}
	return sess, nil
}

// SessionUser returns the session with the given id. It fails with an error wrapping
// [ErrUnauthenticated] when the id is unknown, was signed out, or has expired.
func (s *Store) SessionUser(ctx context.Context, id string) (Session, error) {
	var sess Session
	var expires string
	err := s.rdb.QueryRowContext(ctx, "SELECT u.name, u.role, s.expires FROM sessions s JOIN users u ON u.name = s.name WHERE s.id_hash = ?", tokenHash(id)).Scan(&sess.User.Name, &sess.User.Role, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, fmt.Errorf("session: unknown or signed out; sign in again: %w", ErrUnauthenticated)
	}
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", err)
	}
	t, err := parseAt(expires)
	if err != nil {
		return Session{}, fmt.Errorf("session: %w", err)
	}
	if !s.now().Before(t) {
		return Session{}, fmt.Errorf("session: expired at %s; sign in again: %w", expires, ErrUnauthenticated)
	}
	sess.ID, sess.Expires = id, t
	return sess, nil
}

// SignOut ends the session with the given id. Ending an unknown session is not an error.
func (s *Store) SignOut(ctx context.Context, id string) error {
	if _, err := s.wdb.ExecContext(ctx, "DELETE FROM sessions WHERE id_hash = ?", tokenHash(id)); err != nil {
		return fmt.Errorf("sign out: %w", storageError(err))
	}
	return nil
}
