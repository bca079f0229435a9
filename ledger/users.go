package ledger

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Roles a user may hold. Auditors read; operators read and write.
const (
	RoleOperator = "operator"
	RoleAuditor  = "auditor"
)

// tokenPrefix starts every API token, so that a leaked one is easy to recognize.
const tokenPrefix = "evl_"

const typeUserAdded = "user.added"

// User is a person who may use the API.
type User struct {
	Name string `json:"name"`
	Role string `json:"role"`
}

// CanWrite reports whether the user may change state (operators only).
func (u User) CanWrite() bool { return u.Role == RoleOperator }

func init() {
	registerInternalEvent(typeUserAdded, projectorOf(projectUserAdded))
	registerTable("users", "name")
}

func projectUserAdded(tx *sql.Tx, ev *Event, u *User) error {
	_, err := tx.Exec("INSERT INTO users (name, role, seq, at) VALUES (?, ?, ?, ?)", u.Name, u.Role, ev.Seq, ev.At)
	return err
}

// AddUser adds a user with a role (RoleOperator or RoleAuditor) and returns a new API token:
// "evl_" and the base64url of 32 random bytes. Only the token's SHA-256 is stored, in the
// credentials table, which is never exported; the name and role enter the chain as a
// user.added event recorded by actor. Errors wrap [ErrInvalid] for a bad name or role and
// [ErrConflict] when the name is taken.
func (s *Store) AddUser(ctx context.Context, actor, name, role string) (string, error) {
	return s.addUser(ctx, actor, name, role, sql.NullString{})
}

// addUser adds a user whose credentials hold a new API token and, when valid, passwordHash.
func (s *Store) addUser(ctx context.Context, actor, name, role string, passwordHash sql.NullString) (string, error) {
	if err := checkActor(actor); err != nil {
		return "", fmt.Errorf("add user: %w", err)
	}
	if !validName(name) {
		return "", fmt.Errorf("add user %q: a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit: %w", name, ErrInvalid)
	}
	if role != RoleOperator && role != RoleAuditor {
		return "", fmt.Errorf("add user %s: role %q: want %q or %q: %w", name, role, RoleOperator, RoleAuditor, ErrInvalid)
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", fmt.Errorf("add user %s: make token: %w", name, err)
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret[:])
	item, err := prepareDraft(Draft{Type: typeUserAdded, Payload: User{Name: name, Role: role}})
	if err != nil {
		return "", err
	}
	_, err = s.record(ctx, actor, []preparedDraft{item}, recordOpts{extra: func(tx *sql.Tx, _ []Event) error {
		_, err := tx.Exec("INSERT INTO credentials (name, token_hash, password_hash) VALUES (?, ?, ?)", name, tokenHash(token), passwordHash)
		return err
	}})
	if isConstraint(err) {
		return "", fmt.Errorf("add user %s: the name is taken: %w", name, ErrConflict)
	}
	if err != nil {
		return "", fmt.Errorf("add user %s: %w", name, err)
	}
	return token, nil
}

// Authenticate returns the user an API token belongs to. It fails with an error wrapping
// [ErrUnauthenticated] when the token is malformed or matches no user.
func (s *Store) Authenticate(ctx context.Context, token string) (User, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) != len(tokenPrefix)+43 {
		return User{}, fmt.Errorf("authenticate: the token is not an API token (they start with %q): %w", tokenPrefix, ErrUnauthenticated)
	}
	var u User
	err := s.rdb.QueryRowContext(ctx, "SELECT u.name, u.role FROM credentials c JOIN users u ON u.name = c.name WHERE c.token_hash = ?", tokenHash(token)).Scan(&u.Name, &u.Role)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, fmt.Errorf("authenticate: unknown token: %w", ErrUnauthenticated)
	}
	if err != nil {
		return User{}, fmt.Errorf("authenticate: %w", err)
	}
	return u, nil
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// isConstraint reports a SQLite constraint violation (code 19).
func isConstraint(err error) bool { return sqliteCode(err) == 19 }
