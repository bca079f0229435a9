package ledger

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPasswordRules(t *testing.T) {
	tests := []struct {
		desc, password string
		ok             bool
	}{
		{"too short", "short", false},
		{"nine characters", "123456789", false},
		{"ten characters", "1234567890", true},
		{"ten multibyte characters count as ten", "ääääääääää", true},
		{"not UTF-8", "\xff\xfe1234567890", false},
		{"too long", strings.Repeat("x", MaxPasswordLen+1), false},
		{"longest allowed", strings.Repeat("x", MaxPasswordLen), true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			err := CheckPasswordRules(tt.password)
			if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrInvalid)) {
				t.Fatalf("CheckPasswordRules: %v, want ok=%v", err, tt.ok)
			}
		})
	}
}

func TestPasswordHashFormat(t *testing.T) {
	a, err := hashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := hashPassword("correct horse battery")
	if !strings.HasPrefix(a, "$argon2id$v=19$m=19456,t=2,p=1$") || a == b {
		t.Fatalf("hashes %q and %q: want PHC argon2id with a fresh salt each", a, b)
	}
	tests := []struct {
		desc, phc, password string
		want                bool
	}{
		{"right password", a, "correct horse battery", true},
		{"wrong password", a, "correct horse batterY", false},
		{"empty password", a, "", false},
		{"truncated hash", a[:len(a)-4], "correct horse battery", false},
		{"other algorithm", strings.Replace(a, "argon2id", "argon2i", 1), "correct horse battery", false},
		{"absurd memory", strings.Replace(a, "m=19456", "m=99999999", 1), "correct horse battery", false},
		{"not a hash", "plain", "plain", false},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			if got := passwordMatches(tt.phc, tt.password); got != tt.want {
				t.Fatalf("passwordMatches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSignIn(t *testing.T) {
	ctx := context.Background()
	var offset atomic.Int64
	start := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	s, err := Open(ctx, t.TempDir(), Options{Now: func() time.Time { return start.Add(time.Duration(offset.Load())) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if has, err := s.HasUsers(ctx); err != nil || has {
		t.Fatalf("HasUsers on a new ledger = %v, %v", has, err)
	}
	token, err := s.AddUserWithPassword(ctx, "system", "olga", RoleOperator, "olga's long password")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, token); err != nil {
		t.Fatalf("the API token of a user with a password: %v", err)
	}
	if _, err := s.AddUser(ctx, "system", "tomas", RoleAuditor); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddUserWithPassword(ctx, "system", "pia", RoleAuditor, "short"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("short password: %v", err)
	}
	if _, err := s.SessionUser(ctx, "x"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("unknown session: %v", err)
	}
	if has, _ := s.HasUsers(ctx); !has {
		t.Fatal("HasUsers after adding users = false")
	}

	refused := []struct{ desc, name, password string }{
		{"wrong password", "olga", "olga's long passworD"},
		{"unknown name", "nobody", "olga's long password"},
		{"user with a token only", "tomas", ""},
		{"user refused at the failed add", "pia", "short"},
		{"huge password", "olga", strings.Repeat("p", 1<<20)},
	}
	for _, tt := range refused {
		t.Run(tt.desc, func(t *testing.T) {
			_, err := s.SignIn(ctx, tt.name, tt.password)
			if !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "the name or the password is wrong") {
				t.Fatalf("SignIn: %v", err)
			}
		})
	}

	sess, err := s.SignIn(ctx, "olga", "olga's long password")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.SessionUser(ctx, sess.ID)
	if err != nil || got.User != (User{"olga", RoleOperator}) || !got.Expires.Equal(start.Add(SessionTTL)) {
		t.Fatalf("SessionUser = %+v, %v", got, err)
	}
	offset.Store(int64(SessionTTL))
	if _, err := s.SessionUser(ctx, sess.ID); !errors.Is(err, ErrUnauthenticated) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("session after its lifetime: %v", err)
	}
	offset.Store(0)
	if err := s.SignOut(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionUser(ctx, sess.ID); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("session after sign-out: %v", err)
	}

	// A new password ends the user's sessions and the old password stops working.
	sess, _ = s.SignIn(ctx, "olga", "olga's long password")
	if err := s.SetPassword(ctx, "olga", "a brand new passphrase"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionUser(ctx, sess.ID); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("session after a password change: %v", err)
	}
	if _, err := s.SignIn(ctx, "olga", "olga's long password"); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("old password after a change: %v", err)
	}
	if _, err := s.SignIn(ctx, "olga", "a brand new passphrase"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPassword(ctx, "nobody", "a brand new passphrase"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("SetPassword of an unknown user: %v", err)
	}

	// Secrets never reach the chain, and the audit still holds with sessions present.
	var export bytes.Buffer
	if err := s.Export(ctx, &export); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"argon2id", "password", sess.ID, token} {
		if strings.Contains(export.String(), secret) {
			t.Errorf("the export contains %q", secret)
		}
	}
	if rep, err := s.Audit(ctx); err != nil || !rep.OK {
		t.Fatalf("audit with sessions: %+v %v", rep, err)
	}
}

// BenchmarkPasswordHash measures one argon2id hash at the stored parameters: the cost of
// every sign-in, right or wrong.
func BenchmarkPasswordHash(b *testing.B) {
	for b.Loop() {
		if _, err := hashPassword("correct horse battery"); err != nil {
			b.Fatal(err)
		}
	}
}
